"""A user's API token: created (or replaced) and revoked from his account page."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as drf_
from rest_framework import authentication, exceptions
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


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication, the token and its user read in one plain query: every API
    request pays it, and building the ORM's query cost more than running it. Same answers
    (an unknown token, an inactive user: 401 with DRF's messages).

    A view under /tournaments/<id>/ (``preload_tournament``: the id, or None) has the
    tournament, its club and the user's roles in it read by the same query, a round trip
    less for every such request; the view takes them (``preloaded``) instead of reading
    them again."""

    def authenticate(self, request: Any) -> tuple[Any, Token] | None:
        self._view = (getattr(request, "parser_context", None) or {}).get("view")
        return super().authenticate(request)

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        from django.contrib.auth import get_user_model

        from tournaments.permissions import tournament_from_row
        from tournaments.sql import columns, run, token_statement

        view = getattr(self, "_view", None)
        preload = getattr(view, "preload_tournament", None)
        pk = preload() if preload is not None else None
        tokens, users = columns(Token), columns(get_user_model())
        sql = token_statement(with_tournament=pk is not None)
        rows = run(sql, [key] if pk is None else [pk, key]).rows
        if not rows:
            raise exceptions.AuthenticationFailed(drf_(_INVALID))
        row = rows[0]
        token, user = tokens.load(row), users.load(row, tokens.width)
        Token._meta.get_field("user").set_cached_value(token, user)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(drf_(_INACTIVE))
        if pk is not None:
            view.preloaded = (
                pk,
                user.pk,
                tournament_from_row(row, tokens.width + users.width, user),
            )
        return user, token


# DRF's own messages (and translations), as its authentication says them.
_INVALID = "Invalid token."
_INACTIVE = "User inactive or deleted."
