"""The answer to a refused caller, the same in every app's API: 401 for an anonymous caller
(who may log in or send a token), 403 for a logged-in one."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions


def deny(user: Any, message: Any) -> exceptions.APIException:
    """401 for an anonymous caller (who may log in), 403 for a logged-in one."""
    if not user.is_authenticated:
        return exceptions.NotAuthenticated(
            _(
                "Log in, or send your API token in the Authorization header "
                "(Authorization: Token <key>)."
            )
        )
    return exceptions.PermissionDenied(message)


def require_login(user: Any) -> None:
    """Refuse an anonymous caller with 401."""
    if not user.is_authenticated:
        raise deny(user, "")
