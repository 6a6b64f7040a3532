"""scoring.rankings.sql, the part's one SQL seam: its snapshot INSERT (bound by the server on
PostgreSQL, the score-card lines as one text[]) stores the row the ORM's save() stores, and
steps aside for a model whose save() a signal watches."""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models.signals import pre_save

from scoring.models import RankingSnapshot
from scoring.rankings.services import _json_text, ranking_recompute
from scoring.rankings.sql import snapshot_insert
from tarot_club.kit.sql import insertable
from tests.scoring.rankings.builders import build_tournament, fill_results

pytestmark = pytest.mark.django_db


def stored(snapshot: RankingSnapshot) -> dict[str, Any]:
    row = RankingSnapshot.objects.get(pk=snapshot.pk)
    return {
        f.attname: getattr(row, f.attname)
        for f in RankingSnapshot._meta.concrete_fields
        if f.attname not in ("id", "created_at", "computed_at")
    }


def copy(snapshot: RankingSnapshot, version: int) -> RankingSnapshot:
    fields = {
        f.attname: getattr(snapshot, f.attname)
        for f in RankingSnapshot._meta.concrete_fields
        if not f.primary_key
    }
    return RankingSnapshot(**{**fields, "results_version": version})


def test_the_snapshot_insert_stores_what_save_stores():
    built = build_tournament(players=8, rounds=2, status="published")
    fill_results(built, seed=5)
    ranking_recompute(tournament_id=built.tournament.pk)
    source = RankingSnapshot.objects.get(tournament=built.tournament)
    fast, orm = copy(source, 1000), copy(source, 1001)
    assert snapshot_insert(fast, dumps=_json_text)
    assert not snapshot_insert(copy(source, 1000), dumps=_json_text)  # exists: False
    orm.save(force_insert=True)
    fast = RankingSnapshot.objects.get(tournament=built.tournament, results_version=1000)
    assert {**stored(fast), "results_version": 0} == {**stored(orm), "results_version": 0}
    assert fast.cards == source.cards and fast.data == source.data

    heard: list[Any] = []

    def receiver(sender: Any, instance: Any, **kwargs: Any) -> None:
        heard.append(instance.results_version)

    pre_save.connect(receiver, sender=RankingSnapshot)
    try:
        assert not insertable(RankingSnapshot)
        assert snapshot_insert(copy(source, 1002), dumps=_json_text)
    finally:
        pre_save.disconnect(receiver, sender=RankingSnapshot)
    assert heard == [1002] and insertable(RankingSnapshot)
