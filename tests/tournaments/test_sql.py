"""tournaments.sql, the plain-SQL helpers of an API write, against the ORM: the
instances it loads, the rows it inserts, the reads it compiles once, the errors it raises."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from scoring.models import RankingState
from tests.fixtures.tournaments import stage_tournament
from tournaments.api.models import IdempotencyRecord
from tournaments.models import LedgerEntry, Result, TableRound, Tournament
from tournaments.services.events import open_round_bump
from tournaments.sql import CompiledRead, columns, insert, insert_pair, run

pytestmark = pytest.mark.django_db


def values(obj: Any, skip: tuple[str, ...] = ("id",)) -> dict[str, Any]:
    return {
        f.attname: getattr(obj, f.attname)
        for f in type(obj)._meta.concrete_fields
        if f.attname not in skip
    }


def test_a_loaded_instance_is_the_orms(personas) -> None:
    t = stage_tournament(personas=personas)
    cols = columns(Tournament)
    (row,) = run(f"SELECT {cols.select('t')} FROM {cols.table} t WHERE t.id = %s", [t.pk]).rows
    loaded, orm = cols.load(row), Tournament.objects.get(pk=t.pk)
    assert values(loaded, ()) == values(orm, ())
    assert (loaded._state.adding, loaded._state.db) == (False, orm._state.db)
    assert loaded.club.name == orm.club.name  # relations load as usual
    loaded.venue = "Salle C"
    loaded.save(update_fields=["venue"])  # an UPDATE, not an INSERT
    assert Tournament.objects.get(pk=t.pk).venue == "Salle C"


def test_inserted_rows_are_the_orms(personas) -> None:
    stage_tournament(personas=personas)
    fields = {
        "user": personas.arbiter,
        "method": "POST",
        "path": "/api/",
        "fingerprint": "f" * 64,
        "status_code": 201,
        "body": {"a": [1, "é"], "b": None},
        "headers": {"ETag": '"1"'},
    }
    plain = insert(IdempotencyRecord(key="plain", **fields))
    orm = IdempotencyRecord.objects.create(key="orm", **fields)
    assert plain.pk is not None and not plain._state.adding
    stored = IdempotencyRecord.objects.get(pk=plain.pk)
    skip = ("id", "key", "created_at")
    assert values(stored, skip) == values(IdempotencyRecord.objects.get(pk=orm.pk), skip)
    assert stored.created_at == plain.created_at  # auto_now_add set in Python, as the ORM does
    with pytest.raises(IntegrityError), transaction.atomic():
        insert(IdempotencyRecord(key="plain", **fields))  # unique (user, key): Django's error
    with pytest.raises(ValueError):
        insert(plain)  # already saved


def pair(t: Tournament, user: Any, table_round: TableRound, donne_index: int) -> tuple[Any, Any]:
    donne = table_round.etui_set.donnes.order_by("number")[donne_index]
    result = Result(
        tournament=t,
        table_round=table_round,
        table=table_round.table,
        donne=donne,
        status="all_passed",
        scores={"N": 0, "E": 0, "S": 0, "W": 0},
        created_by=user,
        updated_by=user,
    )
    line = LedgerEntry(tournament=t, round=table_round.round, action="result_created", actor=user)
    return result, line


def test_a_pair_and_its_then_statement(personas) -> None:
    t = stage_tournament(personas=personas)
    table_round = TableRound.objects.filter(table__tournament=t).order_by("pk").first()
    result, line = pair(t, personas.arbiter, table_round, 0)
    bump = open_round_bump(tournament_id=t.pk, round_id=table_round.round_id)
    version = t.results_version
    assert len(insert_pair(result, line, "result", then=bump)) == 1
    assert LedgerEntry.objects.get(pk=line.pk).result_id == result.pk == line.result_id
    assert Result.objects.get(pk=result.pk).status == "all_passed"
    assert Tournament.objects.get(pk=t.pk).results_version == version + 1

    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.DRAFT)
    result, line = pair(t, personas.arbiter, table_round, 1)
    assert insert_pair(result, line, "result", then=bump) == []  # refused: the caller rolls back
    assert Tournament.objects.get(pk=t.pk).results_version == version + 1

    result, line = pair(t, personas.arbiter, table_round, 0)  # the cell has a result already
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_pair(result, line, "result")


def test_a_compiled_read_answers_as_its_queryset(personas) -> None:
    from django.db.models.functions import Now

    first, second = stage_tournament(personas=personas), stage_tournament(name="Autre")
    for t in (first, second):
        RankingState.objects.create(tournament=t, computations=t.pk)

    def build(pk: Any) -> Any:
        return (
            RankingState.objects.filter(pk=pk)
            .annotate(at=Now())
            .values_list("computations", "queued_at", "at")
        )

    read = CompiledRead(build)
    for t in (first, second, first):
        ((computations, queued, at),) = read.rows(t.pk)
        ((expected, expected_queued, expected_at),) = build(t.pk)
        assert (computations, queued) == (expected, expected_queued) == (t.pk, None)
        assert type(at) is type(expected_at) and at.tzinfo is not None
    assert read.rows(10**8) == []


def test_a_new_instance_is_the_orms(personas) -> None:
    """`new` leaves the instance Model.__init__ leaves: every field (given, its default),
    the related instances cached, a fresh state; a name that is no field goes to __init__."""
    from tournaments.sql import new

    t = stage_tournament(personas=personas)
    table_round = TableRound.objects.select_related("table", "round", "etui_set").first()
    result, line = pair(t, personas.arbiter, table_round, 0)
    kinds = [
        (Result, {k: getattr(result, k) for k in ("status", "scores")}, result),
        (LedgerEntry, {"action": "result_created", "reason": "x"}, line),
    ]
    for model, given, orm in kinds:
        relations = {
            f.name: getattr(orm, f.name)
            for f in model._meta.concrete_fields
            if f.is_relation and getattr(orm, f.attname) is not None
        }
        plain = new(model, **given, **relations)
        built = model(**given, **relations)
        assert columns(model)._plain_new
        assert values(plain, ()) == values(built, ())
        assert (plain._state.adding, plain._state.db) == (True, built._state.db)
        for name, related in relations.items():
            assert getattr(plain, name) is related  # cached: no query
    assert new(Result, version=2, sitter_id=None).version == 2  # an attname
    with pytest.raises(TypeError):
        new(Result, no_such_field=1)  # Model.__init__'s own refusal
    assert insert(new(LedgerEntry, tournament=t, action="result_created")).pk is not None


def test_an_insert_refuses_what_a_plain_insert_would_skip(personas) -> None:
    """A model whose save() adds to an insert (Player fills its search key) or that a save
    signal watches is refused before any statement; the ledger's lines are accepted (its
    save() is the ORM's own) and stay append-only through the ORM."""
    from django.core.exceptions import ValidationError
    from django.db.models.signals import post_save, pre_save

    from tournaments.models import Player
    from tournaments.sql import InsertRefused, insertable

    t = stage_tournament(personas=personas)
    before = Player.objects.count()
    with pytest.raises(InsertRefused):
        insert(Player(first_name="Jeanne", last_name="Martin"))
    assert Player.objects.count() == before

    def heard(**kwargs: Any) -> None:
        pass

    for signal in (pre_save, post_save):
        signal.connect(heard, sender=IdempotencyRecord)
        try:
            assert not insertable(IdempotencyRecord)
            with pytest.raises(InsertRefused):
                insert(IdempotencyRecord(key="heard", user=personas.arbiter, method="POST"))
        finally:
            signal.disconnect(heard, sender=IdempotencyRecord)
    assert insertable(IdempotencyRecord) and insertable(LedgerEntry) and insertable(Result)
    assert not IdempotencyRecord.objects.filter(key="heard").exists()

    table_round = TableRound.objects.filter(table__tournament=t).order_by("pk").first()
    result, line = pair(t, personas.arbiter, table_round, 0)
    with pytest.raises(InsertRefused):
        insert_pair(result, Player(first_name="A", last_name="B"), "result")
    assert result.pk is None  # refused before the parent's INSERT
    insert(line)
    line.reason = "changed"
    with pytest.raises(ValidationError), transaction.atomic():
        line.save()
    with pytest.raises(ValidationError), transaction.atomic():
        line.save(update_fields=["reason"])
    assert LedgerEntry.objects.get(pk=line.pk).reason == ""
