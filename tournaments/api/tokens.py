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
        from tournaments.services.rows import columns, run

        view = getattr(self, "_view", None)
        preload = getattr(view, "preload_tournament", None)
        pk = preload() if preload is not None else None
        tokens, users = columns(Token), columns(get_user_model())
        sql = _token_sql(connection.vendor, with_tournament=pk is not None)
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


def _token_sql(vendor: str, *, with_tournament: bool) -> str:
    """The token and its user (then the tournament ``%s`` with its club and the user's roles,
    empty when there is none), by the token's key, in plain SQL; written once per database."""
    from django.contrib.auth import get_user_model

    from tournaments.models import Club, Tournament
    from tournaments.permissions import roles_select, tournament_columns
    from tournaments.services.rows import columns

    sql = _TOKEN_SQL.get((vendor, with_tournament))
    if sql is not None:
        return sql
    q = connection.ops.quote_name
    tokens, users = columns(Token), columns(get_user_model())
    user_column = Token._meta.get_field("user").column
    sql = f"SELECT {tokens.select('k')}, {users.select('u')}"
    joins = f" INNER JOIN {users.table} u ON u.{q('id')} = k.{q(user_column)}"
    if with_tournament:
        user_id = f"u.{q('id')}"
        sql += f", {tournament_columns()}, {roles_select(user_id)}"
        joins += (
            f" LEFT JOIN {columns(Tournament).table} t ON t.{q('id')} = %s"
            f" LEFT JOIN {columns(Club).table} c"
            f" ON c.{q('id')} = t.{q(Tournament._meta.get_field('club').column)}"
        )
    sql += f" FROM {tokens.table} k{joins} WHERE k.{q(Token._meta.pk.column)} = %s"
    _TOKEN_SQL[(vendor, with_tournament)] = sql
    return sql


_TOKEN_SQL: dict[tuple[str, bool], str] = {}
# DRF's own messages (and translations), as its authentication says them.
_INVALID = "Invalid token."
_INACTIVE = "User inactive or deleted."
