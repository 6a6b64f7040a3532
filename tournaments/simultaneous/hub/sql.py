"""The hub's SQL seam: every cursor and plain statement of `tournaments.simultaneous.hub`.

- `consistent_read()`: one snapshot for every read (REPEATABLE READ READ ONLY on PostgreSQL),
  so a version and the rows read after it agree; inside a caller's transaction, that one.
- `fetch_all(queryset)`: the rows of a ``values_list`` queryset as plain tuples, through the
  driver in one go (no per-row iterator machinery).
- `copy_rows(model, fields, rows, json_field=None)`: on PostgreSQL, COPY the rows into the model's
  table in a transaction that does not wait for its WAL (the stored overall ranking is derived
  data: a crash loses it with its version, and it is computed again); elsewhere, or for a model
  whose ``save()`` is overridden or that has save signals, ``bulk_create``. Both store the same
  rows (tests/tournaments/simultaneous/hub/test_sql_seam.py); the gain of COPY is in docs/BENCHMARKS.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import msgspec
from django.db import connection, transaction
from django.db.models import Model

from tarot_club.kit.sql import insertable


@contextmanager
def consistent_read() -> Iterator[None]:
    """One snapshot for the reads inside (see the module's docstring)."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def fetch_all(queryset: Any) -> list[tuple[Any, ...]]:
    """All rows of a values_list queryset, as tuples, in one round trip."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def bulk_rows(model: type[Model], fields: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
    """The plain version of `copy_rows`: model instances through ``bulk_create``."""
    model._default_manager.bulk_create(
        [model(**dict(zip(fields, row, strict=True))) for row in rows], batch_size=2000
    )


def copy_rows(
    model: type[Model],
    fields: Sequence[str],
    rows: list[tuple[Any, ...]],
    json_field: str | None = None,
) -> None:
    """INSERT `rows` (values in the order of `fields`; `json_field`, if any, holds plain data,
    `msgspec.Raw` JSON text included, encoded as JSON here) into `model`'s table: COPY on
    PostgreSQL, `bulk_rows` otherwise."""
    if not rows:
        return
    index = None if json_field is None else list(fields).index(json_field)
    if connection.vendor != "postgresql" or not insertable(model):
        if index is not None:
            rows = [_plain(row, index) for row in rows]
        bulk_rows(model, fields, rows)
        return
    meta = model._meta
    quote = connection.ops.quote_name
    columns = ", ".join(quote(meta.get_field(name.removesuffix("_id")).column) for name in fields)
    encode = msgspec.json.encode
    sql = f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN"
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit = off")
        with cursor.cursor.copy(sql) as copy:
            for row in rows:
                if index is not None:
                    values = list(row)
                    values[index] = encode(values[index]).decode()  # JSON text for the server
                    row = values
                copy.write_row(row)


def _plain(row: tuple[Any, ...], index: int) -> tuple[Any, ...]:
    """The row with its JSON value as plain Python data (`msgspec.Raw` decoded)."""
    values = list(row)
    values[index] = msgspec.json.decode(msgspec.json.encode(values[index]))
    return tuple(values)
