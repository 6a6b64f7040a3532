"""A user's API token: created (or replaced) and revoked from his account page."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from rest_framework.authtoken.models import Token


def token_create(*, user: Any) -> Token:
    """A new token for ``user``; the previous one, if any, stops working at once."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def token_revoke(*, user: Any) -> bool:
    """Delete the user's token; True when there was one."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)


def token_of(user: Any) -> Token | None:
    return Token.objects.filter(user=user).first()
