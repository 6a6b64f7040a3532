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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model

__all__ = [
    "Columns",
    "Ran",
    "columns",
    "in_atomic_block",
    "run",
]


def in_atomic_block() -> bool:
    """Whether the default database is inside a transaction (``atomic``) now."""
    return connections[DEFAULT_DB_ALIAS].in_atomic_block


class Columns:
    """The concrete columns of ``model``, in `Model.from_db`'s order."""

    def __init__(self, model: type[Model]) -> None:
        self.model = model
        self.fields = list(model._meta.concrete_fields)
        self.attnames = [f.attname for f in self.fields]
        self.width = len(self.fields)
        self.table = connection.ops.quote_name(model._meta.db_table)
        self._converters: dict[str, list[tuple[int, list[Callable[..., Any]], Any]]] = {}

    def select(self, alias: str) -> str:
        """``alias."col", alias."col"...`` for a SELECT list."""
        quote = connection.ops.quote_name
        return ", ".join(f"{alias}.{quote(f.column)}" for f in self.fields)

    def _for(self, db: Any) -> list[tuple[int, list[Callable[..., Any]], Any]]:
        found = self._converters.get(db.vendor)
        if found is None:
            found = []
            for i, f in enumerate(self.fields):
                col = f.get_col(self.model._meta.db_table)
                convs = db.ops.get_db_converters(col) + f.get_db_converters(db)
                if convs:
                    found.append((i, convs, col))
            self._converters[db.vendor] = found
        return found

    def load(self, row: Sequence[Any], start: int = 0) -> Model:
        """The instance held by ``row[start:start + width]``."""
        db = connections[DEFAULT_DB_ALIAS]  # the connection itself, not its per-access proxy
        values = list(row[start : start + self.width])
        for i, convs, col in self._for(db):
            value = values[i]
            for conv in convs:
                value = conv(value, col, db)
            values[i] = value
        return self.model.from_db(db.alias, self.attnames, values)


@dataclass(frozen=True)
class Ran:
    """What a statement gave: its rows (none for a write without RETURNING), its row count."""

    rows: list[tuple[Any, ...]]
    rowcount: int


def run(sql: str, params: Sequence[Any]) -> Ran:
    """Run one plain statement (``%s`` parameters) through Django's cursor: its rows (none
    for a write without RETURNING) and its row count. Errors are Django's (IntegrityError...),
    and the statement is listed where Django lists queries (tests, benchmarks)."""
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall() if cursor.description is not None else []
        return Ran(rows, cursor.rowcount)


_COLUMNS: dict[type[Model], Columns] = {}


def columns(model: type[Model]) -> Columns:
    """The model's `Columns`, built once."""
    found = _COLUMNS.get(model)
    if found is None:
        found = _COLUMNS[model] = Columns(model)
    return found


# --- the statements of the fast paths -------------------------------------------------------
# Each is written once per database and kept; the callers load the rows with `Columns`.


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _column(model: type[Model], name: str) -> str:
    """The quoted column of ``model``'s field ``name``."""
    return _quote(model._meta.get_field(name).column)


_STATEMENTS: dict[tuple[Any, ...], Any] = {}


def _once(key: tuple[Any, ...], build: Callable[[], Any]) -> Any:
    """``build()``, once per database and ``key``."""
    key = (connection.vendor, *key)
    found = _STATEMENTS.get(key)
    if found is None:
        found = _STATEMENTS[key] = build()
    return found


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
