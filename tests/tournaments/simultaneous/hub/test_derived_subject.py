"""The overall ranking is a subject of the one derived-ranking mechanism
(`scoring.rankings.derived`), as the tournament ranking is: one state base, one scheduler,
one task runner, one sweep."""

from __future__ import annotations

import pytest

from scoring.rankings import derived
from scoring.rankings.models import RankingState
from scoring.rankings.services import TOURNAMENT_RANKING
from scoring.rankings.state import DerivedState
from scoring.rankings.tasks import recompute_ranking
from tournaments.simultaneous.hub.models import (
    OverallRankingRow,
    OverallRankingState,
    SimultaneousEvent,
)
from tournaments.simultaneous.hub.ranking import OVERALL_RANKING
from tournaments.simultaneous.hub.tasks import recompute_overall_ranking

from .builders import played

pytestmark = pytest.mark.django_db


def licences(club: int) -> list[str]:
    return [f"{club + 1}00000{n}" for n in range(4)]


def test_both_rankings_are_subjects_of_one_mechanism():
    assert {TOURNAMENT_RANKING, OVERALL_RANKING} <= set(derived.subjects())
    assert issubclass(RankingState, DerivedState) and issubclass(OverallRankingState, DerivedState)
    assert recompute_ranking is TOURNAMENT_RANKING.task
    assert recompute_overall_ranking is OVERALL_RANKING.task
    assert recompute_overall_ranking.name == "simultaneous_hub.recompute_overall_ranking"
    assert recompute_ranking.name == "scoring.recompute_ranking"


def test_the_workers_sweep_computes_a_stale_event_as_a_subject(hub, settings):
    settings.SIMULTANEOUS_RANKING_INLINE = False
    settings.SIMULTANEOUS_RANKING_SWEEP_AFTER = 0
    hub.send(0, hub.upload(0, [played(1, 1, licences(0))], licences(0)))
    state = OverallRankingState.objects.get(pk=hub.event.pk)
    assert state.stale_since is not None and state.results_version is None
    done = derived.sweep_subjects(where="sweep-test")  # what every worker's sweep runs
    assert done[OVERALL_RANKING.task_name] == [hub.event.pk]
    state.refresh_from_db()
    assert state.stale_since is None and state.results_version == 1
    assert state.computed_in == "sweep-test"
    assert OverallRankingRow.objects.filter(event=hub.event).count() == 4


def test_a_task_that_finds_the_overall_ranking_stored_does_not_move_the_clock(hub):
    hub.send(0, hub.upload(0, [played(1, 1, licences(0))], licences(0)))  # computed inline
    state = OverallRankingState.objects.get(pk=hub.event.pk)
    assert state.results_version == 1 and state.started_at is not None
    computations, started_at = state.computations, state.started_at
    recompute_overall_ranking.apply(args=(hub.event.pk,), throw=True)
    state.refresh_from_db()
    assert state.computations == computations
    assert state.started_at == started_at  # the next change is not delayed by this task


def test_a_failed_overall_computation_keeps_its_message(hub, monkeypatch):
    from tournaments.simultaneous.hub import ranking

    hub.send(0, hub.upload(0, [played(1, 1, licences(0))], licences(0)))
    SimultaneousEvent.objects.filter(pk=hub.event.pk).update(results_version=5)

    def broken(inputs):
        raise ValueError("no ranking today")

    monkeypatch.setattr(ranking, "overall_compute", broken)
    result = recompute_overall_ranking.apply(args=(hub.event.pk,), throw=False)
    assert isinstance(result.result, ValueError)
    state = OverallRankingState.objects.get(pk=hub.event.pk)
    assert state.last_error == "no ranking today"
    assert state.queued_at is None
