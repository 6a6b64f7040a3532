"""Model instances from rows read with a plain cursor, for the few hot paths (an API result
write) where building and compiling a queryset costs more than the query itself.

A `Columns` is written once per model: its quoted column list for a SELECT under a given
table alias, and the database's converters for each column (JSON text, SQLite's dates...),
so that the instances are the ones the ORM would have built (``Model.from_db``), all fields
loaded. Portable between PostgreSQL and SQLite (plain SQL, ``%s`` parameters).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db import connection
from django.db.models import Model

__all__ = ["Columns", "columns"]


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

    def _for(self) -> list[tuple[int, list[Callable[..., Any]], Any]]:
        vendor = connection.vendor
        found = self._converters.get(vendor)
        if found is None:
            found = []
            for i, f in enumerate(self.fields):
                col = f.get_col(self.model._meta.db_table)
                convs = connection.ops.get_db_converters(col) + f.get_db_converters(connection)
                if convs:
                    found.append((i, convs, col))
            self._converters[vendor] = found
        return found

    def load(self, row: Sequence[Any], start: int = 0) -> Model:
        """The instance held by ``row[start:start + width]``."""
        values = list(row[start : start + self.width])
        for i, convs, col in self._for():
            value = values[i]
            for conv in convs:
                value = conv(value, col, connection)
            values[i] = value
        return self.model.from_db(connection.alias, self.attnames, values)


_COLUMNS: dict[type[Model], Columns] = {}


def columns(model: type[Model]) -> Columns:
    """The model's `Columns`, built once."""
    found = _COLUMNS.get(model)
    if found is None:
        found = _COLUMNS[model] = Columns(model)
    return found
