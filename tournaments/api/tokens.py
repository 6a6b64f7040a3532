"""A user's API token: created (or replaced) and revoked from his account page."""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
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
    (an unknown token, an inactive user: 401 with DRF's messages)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        from django.contrib.auth import get_user_model

        from tournaments.services.rows import columns, run

        tokens, users = columns(Token), columns(get_user_model())
        sql = _TOKEN_SQL.get(connection.vendor)
        if sql is None:
            q = connection.ops.quote_name
            user_column = Token._meta.get_field("user").column
            sql = _TOKEN_SQL[connection.vendor] = (
                f"SELECT {tokens.select('k')}, {users.select('u')} FROM {tokens.table} k"
                f" INNER JOIN {users.table} u ON u.{q('id')} = k.{q(user_column)}"
                f" WHERE k.{q(Token._meta.pk.column)} = %s"
            )
        rows = run(sql, [key]).rows
        if not rows:
            raise exceptions.AuthenticationFailed(drf_(_INVALID))
        row = rows[0]
        token, user = tokens.load(row), users.load(row, tokens.width)
        Token._meta.get_field("user").set_cached_value(token, user)
        if not user.is_active:
            raise exceptions.AuthenticationFailed(drf_(_INACTIVE))
        return user, token


_TOKEN_SQL: dict[str, str] = {}
# DRF's own messages (and translations), as its authentication says them.
_INVALID = "Invalid token."
_INACTIVE = "User inactive or deleted."
