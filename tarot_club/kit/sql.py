"""The SQL toolkit every app's seam uses (`tournaments/sql.py`, `scoring/rankings/sql.py`,
`tournaments/simultaneous/hub/sql.py`): running a plain statement through Django's cursor,
a model's columns and the instances loaded from its rows as the ORM builds them, quoting,
statements written once per database, and whether a plain INSERT matches a model's save().
It imports no app. Portable between PostgreSQL and SQLite (plain SQL, ``%s`` parameters).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model
from django.db.models.signals import post_save, pre_save

__all__ = [
    "Columns",
    "Ran",
    "column",
    "columns",
    "in_atomic_block",
    "insertable",
    "is_postgresql",
    "once",
    "quote",
    "run",
]


def is_postgresql() -> bool:
    """Whether the default database is PostgreSQL."""
    return connection.vendor == "postgresql"


# The steps of Model.save() an INSERT goes through: a model overriding one adds to it.
_SAVE_STEPS = ("save", "save_base", "_save_table", "_do_insert")


def insertable(model: type[Model]) -> bool:
    """Whether a plain INSERT of ``model`` does what ``save(force_insert=True)`` does: no
    step of its save() overridden, no save signal heard for it (checked at each call:
    receivers may connect at any time)."""
    if any(getattr(model, step) is not getattr(Model, step) for step in _SAVE_STEPS):
        return False
    return not (pre_save.has_listeners(model) or post_save.has_listeners(model))


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


def quote(name: str) -> str:
    """The database's quoting of a table or column name."""
    return connection.ops.quote_name(name)


def column(model: type[Model], name: str) -> str:
    """The quoted column of ``model``'s field ``name``."""
    return quote(model._meta.get_field(name).column)


_STATEMENTS: dict[tuple[Any, ...], Any] = {}


def once(key: tuple[Any, ...], build: Callable[[], Any]) -> Any:
    """``build()``, once per database and ``key`` (a statement written once and kept)."""
    key = (connection.vendor, *key)
    found = _STATEMENTS.get(key)
    if found is None:
        found = _STATEMENTS[key] = build()
    return found
