"""The one module of ``tournaments`` that writes plain SQL or drives a cursor (psycopg or
Django's): every statement the ORM does not build is here, with the model instances read
from its rows and the new rows inserted with one. Ruff's banned-API rule (TID251, see
pyproject.toml) keeps ``psycopg`` and ``django.db.connection`` out of every other module of
the app. Each fast path it serves is listed, with what it earns on its benchmark, in
docs/BENCHMARKS.md ("Fast paths and what they earn"), and tied to its ORM version by a test
(tests/tournaments/test_sql.py).

A `Columns` is written once per model: its quoted column list for a SELECT under a given
table alias, and the database's converters for each column (JSON text, SQLite's dates...),
so that the instances are the ones the ORM would have built (``Model.from_db``), all fields
loaded. Portable between PostgreSQL and SQLite (plain SQL, ``%s`` parameters).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model, QuerySet
from django.db.models.base import ModelState
from django.db.models.signals import post_init, post_save, pre_init, pre_save

M = TypeVar("M", bound=Model)

__all__ = [
    "Columns",
    "CompiledRead",
    "InsertRefused",
    "Ran",
    "columns",
    "in_atomic_block",
    "insert",
    "insert_pair",
    "new",
    "run",
]


class InsertRefused(TypeError):
    """`insert` was given a model whose save() does more than the ORM's own (an overridden
    ``save``, ``save_base``, ``_save_table`` or ``_do_insert``, or a pre_save / post_save
    receiver): a plain INSERT would skip it. Save such a model with the ORM."""


# The steps of Model.save() an INSERT goes through: a model overriding one adds to it.
_SAVE_STEPS = ("save", "save_base", "_save_table", "_do_insert")


def insertable(model: type[Model]) -> bool:
    """Whether a plain INSERT of ``model`` does what ``save(force_insert=True)`` does: no
    step of its save() overridden, no save signal heard for it (checked at each call:
    receivers may connect at any time)."""
    if any(getattr(model, step) is not getattr(Model, step) for step in _SAVE_STEPS):
        return False
    return not (pre_save.has_listeners(model) or post_save.has_listeners(model))


def _require_insertable(model: type[Model]) -> None:
    if not insertable(model):
        raise InsertRefused(
            f"{model.__name__}: its save() or a save signal does more than an INSERT; "
            "save it with the ORM"
        )


def in_atomic_block() -> bool:
    """Whether the default database is inside a transaction (``atomic``) now."""
    return connections[DEFAULT_DB_ALIAS].in_atomic_block


class Columns:
    """The concrete columns of ``model``, in `Model.from_db`'s order."""

    def __init__(self, model: type[Model]) -> None:
        self.model = model
        self.fields = list(model._meta.concrete_fields)
        self.attnames = [f.attname for f in self.fields]
        self.inserted = [f for f in self.fields if not f.primary_key]
        self.pk = model._meta.pk
        # Instances can be made without Model.__init__ (see `load`): the model adds nothing
        # to it nor to from_db.
        self._plain = (
            model.__init__ is Model.__init__ and model.from_db.__func__ is Model.from_db.__func__
        )
        # ... and new instances too (see `new`), where every field is concrete.
        self._plain_new = (
            self._plain
            and list(model._meta.fields) == self.fields
            and not model._meta.private_fields
        )
        self._names = {f.name: f for f in self.fields} | {f.attname: f for f in self.fields}
        self.width = len(self.fields)
        self.table = connection.ops.quote_name(model._meta.db_table)
        self._converters: dict[str, list[tuple[int, list[Callable[..., Any]], Any]]] = {}
        self._inserts: dict[str, str] = {}

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
        if self._plain and not (pre_init.receivers or post_init.receivers):
            # What Model.__init__ does with a full row (each value set under its attname,
            # a fresh state), without its per-field setattr loop and signals nobody hears.
            obj = self.model.__new__(self.model)
            obj.__dict__.update(zip(self.attnames, values, strict=True))
            state = obj._state = ModelState()
            state.adding, state.db = False, db.alias
            return obj
        return self.model.from_db(db.alias, self.attnames, values)

    def _insert_sql(self) -> str:
        """``INSERT INTO table (every column but the id) VALUES (%s, ...)``, with ``RETURNING
        id`` where the database can (PostgreSQL, SQLite 3.35+), written once per database."""
        vendor = connection.vendor
        found = self._inserts.get(vendor)
        if found is None:
            quote = connection.ops.quote_name
            names = ", ".join(quote(f.column) for f in self.inserted)
            marks = ", ".join("%s" for f in self.inserted)
            found = f"INSERT INTO {self.table} ({names}) VALUES ({marks})"
            if connection.features.can_return_columns_from_insert:
                found += f" RETURNING {quote(self.pk.column)}"
            self._inserts[vendor] = found
        return found


@dataclass(frozen=True)
class Ran:
    """What a statement gave: its rows (none for a write without RETURNING), its row count."""

    rows: list[tuple[Any, ...]]
    rowcount: int


def run(sql: str, params: Sequence[Any]) -> Ran:
    """Run one statement of a hot path (``%s`` parameters). On PostgreSQL as a prepared
    statement with the values bound by the server: Django's cursors quote every value into
    the SQL text on the client, and PostgreSQL then plans each statement anew, which for a
    join of six tables costs more than running it; prepared once per connection (psycopg
    keeps them), it is planned once. Errors are Django's (IntegrityError...), and the
    statement is listed where Django lists queries (tests, benchmarks)."""
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql":
        with db.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall() if cursor.description is not None else []
            return Ran(rows, cursor.rowcount)
    import psycopg

    db.ensure_connection()
    db.validate_no_broken_transaction()
    started = time.monotonic()
    with db.wrap_database_errors, psycopg.Cursor(db.connection) as cursor:
        cursor.execute(sql, params, prepare=True)
        # Whether it gave rows, without `description` (which describes every column).
        result = cursor.pgresult
        has_rows = result is not None and result.status == psycopg.pq.ExecStatus.TUPLES_OK
        ran = Ran(cursor.fetchall() if has_rows else [], cursor.rowcount)
    if db.queries_logged:
        db.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
    return ran


_COLUMNS: dict[type[Model], Columns] = {}


def new(model: type[M], **values: Any) -> M:
    """``model(**values)``, a new unsaved instance, without Model.__init__'s general loop
    (positional values, properties, deferred fields): each value set as __init__ sets it (a
    related instance through its descriptor), every other field its default. For models to
    which __init__ adds nothing (`Columns`) and that no init signal watches; otherwise, or
    for a name that is not a concrete field, ``model(**values)`` itself."""
    cols = columns(model)
    if (
        not cols._plain_new
        or pre_init.receivers
        or post_init.receivers
        or not values.keys() <= cols._names.keys()
    ):
        return model(**values)
    obj = model.__new__(model)
    obj._state = ModelState()
    attrs = obj.__dict__
    for f in cols.fields:
        if f.name in values:
            value = values[f.name]
            if f.is_relation:
                setattr(obj, f.name, value)  # the descriptor: its id and its cache
                continue
        elif f.attname in values:
            value = values[f.attname]
        else:
            value = f.get_default()
        attrs[f.attname] = value
    return obj


def columns(model: type[Model]) -> Columns:
    """The model's `Columns`, built once."""
    found = _COLUMNS.get(model)
    if found is None:
        found = _COLUMNS[model] = Columns(model)
    return found


def insert(obj: Model) -> Model:
    """Insert the new ``obj`` as ``obj.save(force_insert=True)`` would (each field's
    ``pre_save``: auto_now dates; its database value: JSON...), in one plain statement, and
    set its id. Raises `InsertRefused` for a model whose save() adds to an insert or that a
    save signal watches (`insertable`), ValueError for an instance saved already."""
    _require_insertable(type(obj))
    db = connections[DEFAULT_DB_ALIAS]  # the connection itself, not its per-access proxy
    cols = columns(type(obj))
    values = _prepared(db, cols, obj)
    if db.features.can_return_columns_from_insert:
        ((value,),) = run(cols._insert_sql(), values).rows
    else:
        with db.cursor() as cursor:
            cursor.execute(cols._insert_sql(), values)
            value = db.ops.last_insert_id(cursor, cols.model._meta.db_table, cols.pk.column)
    _saved(db, obj, value)
    return obj


def insert_pair(
    parent: Model,
    child: Model,
    link: str,
    *,
    then: tuple[str, Sequence[Any]] | None = None,
) -> list[tuple[Any, ...]]:
    """`insert` ``parent``, then ``child`` whose foreign key ``link`` points at it, then run
    the statement ``then`` (an UPDATE: sql, params); returns the rows ``then`` changed, each
    as its RETURNING clause gives it (empty tuples without one).

    On PostgreSQL in one statement: the two INSERTs in a WITH (the child's reads the
    parent's id), ``then`` as its main statement; when ``then`` changes nothing, the rows
    are inserted all the same (the caller rolls its transaction back). Elsewhere in two or
    three statements. For the result, its ledger line and the results version's bump.
    Raises `InsertRefused` as `insert` does, before any statement."""
    _require_insertable(type(parent))
    _require_insertable(type(child))
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql":
        insert(parent)
        setattr(child, link, parent)
        insert(child)
        if then is None:
            return []
        ran = run(*then)
        return ran.rows or [()] * ran.rowcount
    parents, children = columns(type(parent)), columns(type(child))
    field = type(child)._meta.get_field(link)
    key = (parents.model, children.model, link, None if then is None else then[0])
    sql = _PAIRS.get(key)
    if sql is None:
        quote = db.ops.quote_name
        marks = ", ".join(
            f"(SELECT {quote(parents.pk.column)} FROM p)" if f is field else "%s"
            for f in children.inserted
        )
        names = ", ".join(quote(f.column) for f in children.inserted)
        both = (
            f"INSERT INTO {children.table} ({names}) VALUES ({marks})"
            f" RETURNING {quote(field.column)} AS parent_id, {quote(children.pk.column)} AS id"
        )
        sql = f"WITH p AS ({parents._insert_sql()})"
        if then is None:
            sql += f" {both}"
        else:
            ids = "(SELECT parent_id FROM c), (SELECT id FROM c)"
            returning = " RETURNING " in then[0]
            sql += f", c AS ({both}) {then[0]}{', ' if returning else ' RETURNING '}{ids}"
        _PAIRS[key] = sql
    values = _prepared(db, parents, parent) + _prepared(db, children, child, skip=field)
    rows = run(sql, values + ([] if then is None else list(then[1]))).rows
    if not rows:
        return []  # ``then`` changed nothing: the ids are not read (the caller rolls back)
    *returned, parent_id, child_id = rows[0]
    _saved(db, parent, parent_id)
    setattr(child, link, parent)
    _saved(db, child, child_id)
    return [tuple(returned)] if then is not None else []


_PAIRS: dict[tuple[type[Model], type[Model], str, str | None], str] = {}


def _prepared(db: Any, cols: Columns, obj: Model, skip: Any = None) -> list[Any]:
    """The database values of a new row (every column but the id, and ``skip``)."""
    if obj.pk is not None:
        raise ValueError(f"{cols.model.__name__} {obj.pk} is already saved")
    return [f.get_db_prep_save(f.pre_save(obj, True), db) for f in cols.inserted if f is not skip]


def _saved(db: Any, obj: Model, pk: Any) -> None:
    """``obj`` as the ORM leaves a saved instance: its id set, no longer "adding"."""
    setattr(obj, type(obj)._meta.pk.attname, pk)
    obj._state.adding = False
    obj._state.db = db.alias


_SENTINEL = -918_273_645  # stands for the parameter while a query is compiled


class CompiledRead:
    """A read written with the ORM (``build(value)``: a values_list queryset filtered on one
    value), compiled once per database and then run with other values as plain SQL, its
    columns converted as the ORM would. For a read that every write pays, where building
    and compiling the queryset cost more than running it. Rows come in the compiler's
    column order: the fields, then the annotations."""

    def __init__(self, build: Callable[[Any], QuerySet[Any]]) -> None:
        self.build = build
        self._compiled: dict[str, tuple[str, list[Any], int, list[Any]]] = {}

    def _compile(self) -> tuple[str, list[Any], int, list[Any]]:
        vendor = connection.vendor
        found = self._compiled.get(vendor)
        if found is None:
            compiler = self.build(_SENTINEL).query.get_compiler(using=DEFAULT_DB_ALIAS)
            sql, params = compiler.as_sql()
            (at,) = [i for i, p in enumerate(params) if p == _SENTINEL]
            selected = [s[0] for s in compiler.select[: compiler.col_count]]
            found = (sql, list(params), at, list(compiler.get_converters(selected).items()))
            self._compiled[vendor] = found
        return found

    def rows(self, value: Any) -> list[list[Any]]:
        sql, params, at, converters = self._compile()
        params = [*params[:at], value, *params[at + 1 :]]
        db = connections[DEFAULT_DB_ALIAS]
        rows = [list(row) for row in run(sql, params).rows]
        for row in rows:
            for pos, (convs, expression) in converters:
                for converter in convs:
                    row[pos] = converter(row[pos], expression, db)
        return rows


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


def token_statement(*, with_tournament: bool) -> str:
    """The token and its user by the token's key (``%s``), then (``with_tournament``) the
    tournament ``%s`` (given first) with its club and the user's roles, empty columns when
    there is no such tournament."""

    def build() -> str:
        from django.contrib.auth import get_user_model
        from rest_framework.authtoken.models import Token

        from .models import Club, Tournament

        q = _quote
        tokens, users = columns(Token), columns(get_user_model())
        sql = f"SELECT {tokens.select('k')}, {users.select('u')}"
        joins = f" INNER JOIN {users.table} u ON u.{q('id')} = k.{_column(Token, 'user')}"
        if with_tournament:
            user_id = f"u.{q('id')}"
            sql += f", {tournament_columns()}, {roles_select(user_id)}"
            joins += (
                f" LEFT JOIN {columns(Tournament).table} t ON t.{q('id')} = %s"
                f" LEFT JOIN {columns(Club).table} c ON c.{q('id')} = t.{_column(Tournament, 'club')}"
            )
        return f"{sql} FROM {tokens.table} k{joins} WHERE k.{q(Token._meta.pk.column)} = %s"

    return _once(("token", with_tournament), build)


def open_round_bump_statement(queued: tuple[str, Sequence[Any]] | None) -> str:
    """The results version's bump, made only while the tournament takes results (it has
    started) and the round is not closed: ``%s``: tournament, two statuses that take no
    results, round, the closed state; then ``queued``'s parameters. It changes one row, or
    none when refused.

    On PostgreSQL the round's row is share-locked by the same statement: a closing that has
    not committed yet makes it wait, then see the closed state; a closing that comes later
    waits for this transaction. SQLite has one writer at a time, so its statement sees any
    committed closing anyway. ``queued`` (PostgreSQL only: a scalar subquery and its
    parameters, from the rankings) is returned by the changed row."""

    def build() -> str:
        from .models import Round, Tournament

        postgresql = connection.vendor == "postgresql"
        version = _column(Tournament, "results_version")
        sql = (
            f"UPDATE {columns(Tournament).table} SET {version} = {version} + 1"
            f" WHERE {_column(Tournament, 'id')} = %s"
            f" AND {_column(Tournament, 'status')} NOT IN (%s, %s)"
            f" AND EXISTS (SELECT 1 FROM {columns(Round).table}"
            f" WHERE {_column(Round, 'id')} = %s AND {_column(Round, 'state')} <> %s"
            f"{' FOR SHARE' if postgresql else ''})"
        )
        if queued is not None:
            sql += f" RETURNING {queued[0]}"
        return sql

    return _once(("bump", None if queued is None else queued[0]), build)
