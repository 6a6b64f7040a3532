"""The one module of ``tournaments`` that writes plain SQL or drives a cursor: every statement
the ORM does not build is here, with the model instances read from its rows. Ruff's
banned-API rule (TID251, see pyproject.toml) keeps ``psycopg`` and ``django.db.connection``
out of every other module of the app. Each statement is either one the ORM cannot say (the
results version's guarded bump) or a fast path that earns 20 % or more on its benchmark
(docs/BENCHMARKS.md, "Fast paths and what they earn"), tied to its ORM version by a test.

A `Columns` is written once per model: its quoted column list for a SELECT under a given
table alias, and the database's converters for each column (JSON text, SQLite's dates...),
so that the instances are the ones the ORM would have built (``Model.from_db``), all fields
loaded. Portable between PostgreSQL and SQLite (plain SQL, ``%s`` parameters).
"""

from __future__ import annotations

from django.db import connection

from tarot_club.kit.sql import Columns, Ran, column, columns, in_atomic_block, once, quote, run

__all__ = [
    "Columns",
    "Ran",
    "columns",
    "in_atomic_block",
    "run",
]

_quote, _column, _once = quote, column, once


def result_cell_statements() -> dict[str, str]:
    """The statements of `tournaments.services.results.result_cell`: ``correcting`` (a saved
    result with its table, donne, table round and round, then the donne's place), ``%s``:
    tournament, table number, donne number; ``seats_of_round`` (each seat with its player),
    ``%s``: table round; ``new_cell`` (the donne, its place, the id of a result saved at the
    table, then on every seat of the table's round that plays its étui set: the seat, its
    player, the table round, the table, the round), ``%s``: tournament, donne number,
    tournament, table number."""
    return _once(("result_cell",), _result_cell_statements)


def _result_cell_statements() -> dict[str, str]:
    from .models import Donne, Player, Result, Round, Seat, Table, TableRound

    q = _quote
    d, r, t, tr, rd, s, p = (
        columns(m) for m in (Donne, Result, Table, TableRound, Round, Seat, Player)
    )

    def place(alias: str) -> str:  # the donne's 0-based place in its étui set
        return (
            f"(SELECT COUNT(*) FROM {d.table} d2 WHERE d2.{q('etui_set_id')} = {alias}."
            f"{q('etui_set_id')} AND d2.{q('number')} < {alias}.{q('number')})"
        )

    correcting = (
        f"SELECT {r.select('r')}, {t.select('t')}, {d.select('d')}, {tr.select('tr')},"
        f" {rd.select('rd')}, {place('d')}"
        f" FROM {r.table} r"
        f" INNER JOIN {t.table} t ON t.{q('id')} = r.{q('table_id')}"
        f" INNER JOIN {d.table} d ON d.{q('id')} = r.{q('donne_id')}"
        f" INNER JOIN {tr.table} tr ON tr.{q('id')} = r.{q('table_round_id')}"
        f" INNER JOIN {rd.table} rd ON rd.{q('id')} = tr.{q('round_id')}"
        f" WHERE r.{q('tournament_id')} = %s AND t.{q('number')} = %s"
        f" AND d.{q('number')} = %s"
    )
    seats_of_round = (
        f"SELECT {s.select('s')}, {p.select('p')} FROM {s.table} s"
        f" INNER JOIN {p.table} p ON p.{q('id')} = s.{q('player_id')}"
        f" WHERE s.{q('table_round_id')} = %s"
    )
    new_cell = (
        f"SELECT {d.select('d')}, {place('d')},"
        f" (SELECT r.{q('id')} FROM {r.table} r WHERE r.{q('donne_id')} = d.{q('id')}"
        f" AND r.{q('table_id')} = t.{q('id')} LIMIT 1),"
        f" {s.select('s')}, {p.select('p')}, {tr.select('tr')}, {t.select('t')},"
        f" {rd.select('rd')} FROM {d.table} d"
        f" INNER JOIN {tr.table} tr ON tr.{q('etui_set_id')} = d.{q('etui_set_id')}"
        f" INNER JOIN {t.table} t ON t.{q('id')} = tr.{q('table_id')}"
        f" INNER JOIN {rd.table} rd ON rd.{q('id')} = tr.{q('round_id')}"
        f" INNER JOIN {s.table} s ON s.{q('table_round_id')} = tr.{q('id')}"
        f" INNER JOIN {p.table} p ON p.{q('id')} = s.{q('player_id')}"
        f" WHERE d.{q('tournament_id')} = %s AND d.{q('number')} = %s"
        f" AND t.{q('tournament_id')} = %s AND t.{q('number')} = %s"
    )
    return {"correcting": correcting, "seats_of_round": seats_of_round, "new_cell": new_cell}


def roles_select(user: str) -> str:
    """The two roles of the user whose id is the SQL ``user`` (``%s``, or a column), as the
    last two columns of a SELECT over the tournament ``t``: arbiter, organiser of its club."""
    from .models import Club, Tournament

    arbiters = Tournament.arbiters.through
    organisers = Club.organisers.through
    return (
        f"EXISTS (SELECT 1 FROM {_quote(arbiters._meta.db_table)} a"
        f" WHERE a.{_column(arbiters, 'tournament')} = t.{_quote('id')}"
        f" AND a.{_column(arbiters, 'user')} = {user})"
        f", EXISTS (SELECT 1 FROM {_quote(organisers._meta.db_table)} o"
        f" WHERE o.{_column(organisers, 'club')} = t.{_column(Tournament, 'club')}"
        f" AND o.{_column(organisers, 'user')} = {user})"
    )


def tournament_columns() -> str:
    """The columns of the tournament ``t`` then of its club ``c``, for a SELECT list."""
    from .models import Club, Tournament

    return f"{columns(Tournament).select('t')}, {columns(Club).select('c')}"


def tournament_roles_statement(*, with_user: bool) -> str:
    """The tournament, its club and (``with_user``) a user's two roles: ``%s``: the user
    twice (with a user), then the tournament."""

    def build() -> str:
        from .models import Club, Tournament

        sql = f"SELECT {tournament_columns()}"
        if with_user:
            sql += f", {roles_select('%s')}"
        return (
            f"{sql} FROM {columns(Tournament).table} t INNER JOIN {columns(Club).table} c"
            f" ON c.{_quote('id')} = t.{_column(Tournament, 'club')}"
            f" WHERE t.{_quote('id')} = %s"
        )

    return _once(("roles", with_user), build)


def open_round_bump_statement() -> str:
    """The results version's bump, made only while the tournament takes results (it has
    started) and the round is not closed: ``%s``: tournament, two statuses that take no
    results, round, the closed state. It changes one row, or none when refused.

    On PostgreSQL the round's row is share-locked by the same statement: a closing that has
    not committed yet makes it wait, then see the closed state; a closing that comes later
    waits for this transaction. SQLite has one writer at a time, so its statement sees any
    committed closing anyway."""

    def build() -> str:
        from .models import Round, Tournament

        postgresql = connection.vendor == "postgresql"
        version = _column(Tournament, "results_version")
        return (
            f"UPDATE {columns(Tournament).table} SET {version} = {version} + 1"
            f" WHERE {_column(Tournament, 'id')} = %s"
            f" AND {_column(Tournament, 'status')} NOT IN (%s, %s)"
            f" AND EXISTS (SELECT 1 FROM {columns(Round).table}"
            f" WHERE {_column(Round, 'id')} = %s AND {_column(Round, 'state')} <> %s"
            f"{' FOR SHARE' if postgresql else ''})"
        )

    return _once(("bump",), build)
