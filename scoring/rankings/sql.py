"""The one module of ``scoring.rankings`` that writes plain SQL or drives a cursor (psycopg or
Django's): the computation's consistent read, the snapshot's INSERT with its parameters
bound by the server, and the clause by which a results write learns that a ranking task is
queued. Ruff's banned-API rule (TID251, see
pyproject.toml) keeps ``psycopg`` and ``django.db.connection`` out of every other module of
the part. What each fast path earns on its benchmark is in docs/BENCHMARKS.md ("Fast paths
and what they earn"); tests/scoring/rankings/test_sql.py ties each to its ORM version.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Model

from tarot_club.kit.sql import insertable

from .fields import CardLinesField

__all__ = [
    "commit_without_waiting",
    "consistent_read",
    "snapshot_insert",
]


@contextmanager
def consistent_read() -> Iterator[None]:
    """One transaction for all the reads, so that they agree: REPEATABLE READ READ ONLY on
    PostgreSQL (one snapshot for every statement); on SQLite a read transaction holds one
    consistent view. Inside an outer transaction the reads share it."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


def commit_without_waiting() -> None:
    """The current transaction's commit does not wait for its WAL to reach the disk
    (PostgreSQL's ``synchronous_commit = off``, for this transaction only). For derived
    data only: a crash may lose the transaction, never corrupt it."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL synchronous_commit = off")


def snapshot_insert(snapshot: Model, *, dumps: Callable[[Any], str]) -> bool:
    """INSERT the new ``snapshot`` (a RankingSnapshot); False when the row exists already
    (a unique constraint: another computation stored this version meanwhile).

    On PostgreSQL in one plain statement, its parameters bound by the server, ON CONFLICT
    DO NOTHING instead of a savepoint; the ``data`` JSON made with ``dumps``, each
    CardLinesField as one binary text[] of keys and JSON texts that jsonb_object() turns
    into the stored document. Elsewhere, or for a model whose save() adds to an INSERT or
    that a save signal watches (`insertable`), ``save(force_insert=True)`` in a savepoint.
    The statement is listed where Django lists queries (tests, benchmarks)."""
    model = type(snapshot)
    if connection.vendor != "postgresql" or not insertable(model):
        try:
            with transaction.atomic():
                snapshot.save(force_insert=True)
        except IntegrityError:
            return False
        return True
    import psycopg
    from psycopg.types.json import Jsonb

    meta = model._meta
    fields = [f for f in meta.concrete_fields if f is not meta.auto_field]
    placeholders: list[str] = []
    params: list[Any] = []
    for field in fields:
        value = field.pre_save(snapshot, True)
        if isinstance(field, CardLinesField) and isinstance(value, dict):
            placeholders.append("jsonb_object(%b::text[])")
            params.append(field.key_text_pairs(value))
        elif field.name == "data" and isinstance(value, dict):
            params.append(Jsonb(value, dumps=dumps))
            placeholders.append("%s")
        else:
            params.append(field.get_db_prep_save(value, connection))
            placeholders.append("%s")
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
        f"VALUES ({', '.join(placeholders)}) ON CONFLICT DO NOTHING"
    )
    connection.ensure_connection()
    started = time.monotonic()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(sql, params)
        created = cursor.rowcount == 1
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
    return created
