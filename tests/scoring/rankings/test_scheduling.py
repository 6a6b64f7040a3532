"""Scheduling the ranking: bursts coalesce, transient failures are retried and others not, a
broker that is down never loses a result, and the pages catch up (in-process runner)."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.utils import timezone

from scoring.models import RankingSnapshot, RankingState
from scoring.rankings import services as ranking_service
from scoring.rankings import tasks
from scoring.rankings.services import RankingDataError
from tests.fixtures.services import reset_connections
from tests.scoring.rankings.builders import build_tournament, save_result
from tests.scoring.rankings.helpers import ranking_read, score_card_read
from tournaments.models import Result

pytestmark = pytest.mark.django_db

CLOSED_PORT = "redis://127.0.0.1:1/0"


@pytest.fixture
def broker_down(settings):
    """A configured broker that does not answer (the app pointed at a closed port)."""
    from tarot_club.celery import app

    saved = (app.conf.task_always_eager, app.conf.broker_url)
    app.conf.task_always_eager = False
    app.conf.broker_url = CLOSED_PORT
    reset_connections(app)
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.broker_url = saved
        reset_connections(app)


def cells(built):
    return [(r, t, i) for r, t, i, _d in built.schedule()]


def save_committed(built, capture, *args, **kwargs) -> Result:
    """Save in its own transaction and run what happens on commit (the scheduling)."""
    with capture(execute=True):
        return save_result(built, *args, **kwargs)


def test_a_burst_of_twenty_results_is_one_computation_then_one_on_the_next_read(
    settings, django_capture_on_commit_callbacks
):
    settings.RANKING_MIN_INTERVAL = 30  # the burst is well inside the interval
    built = build_tournament(players=12, rounds=2)
    for round_no, table, index in cells(built)[:20]:
        save_committed(built, django_capture_on_commit_callbacks, round_no, table, index)
    built.tournament.refresh_from_db()
    assert built.tournament.results_version == 20
    state = RankingState.objects.get(pk=built.tournament.pk)
    assert state.computations == 1  # the first save; the 19 others were coalesced
    assert state.stale_since is not None
    assert RankingSnapshot.objects.get(tournament=built.tournament).results_version == 1

    settings.RANKING_MIN_INTERVAL = 0  # later: the page's next read computes the rest
    view = ranking_read(built.tournament)
    assert view.is_current and view.version == 20
    state.refresh_from_db()
    assert state.computations == 2
    assert state.stale_since is None


def test_results_saved_in_one_transaction_give_one_computation(
    django_capture_on_commit_callbacks,
):
    built = build_tournament(players=8, rounds=2)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        for round_no, table, index in cells(built)[:6]:
            save_result(built, round_no, table, index)
    assert len(callbacks) == 6
    assert RankingState.objects.get(pk=built.tournament.pk).computations == 1
    assert RankingSnapshot.objects.get(tournament=built.tournament).results_version == 6


def test_transient_database_failure_is_retried(monkeypatch):
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0)
    real = ranking_service.ranking_recompute
    calls = []

    def flaky(**kwargs):
        calls.append(kwargs)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(**kwargs)

    monkeypatch.setattr(ranking_service, "ranking_recompute", flaky)
    # as schedule_ranking runs it without a broker: the retry happens in-process
    result = tasks.recompute_ranking.apply(args=(built.tournament.pk,), throw=False)
    assert result.successful() and result.get() == 1
    assert len(calls) == 2
    assert RankingSnapshot.objects.filter(tournament=built.tournament).count() == 1


def test_programming_errors_are_not_retried(monkeypatch):
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0)
    calls = []

    def broken(**kwargs):
        calls.append(kwargs)
        raise RankingDataError("result 1: no valid score for position 'N'")

    monkeypatch.setattr(ranking_service, "ranking_recompute", broken)
    result = tasks.recompute_ranking.apply(args=(built.tournament.pk,), throw=False)
    assert result.failed()
    assert len(calls) == 1
    assert "no valid score" in RankingState.objects.get(pk=built.tournament.pk).last_error
    assert OperationalError in tasks.recompute_ranking.autoretry_for
    assert Exception not in tasks.recompute_ranking.autoretry_for
    assert ValueError not in tasks.recompute_ranking.autoretry_for


def test_a_result_with_a_missing_score_is_reported_not_ranked_wrongly():
    built = build_tournament(players=8, rounds=2)
    result = save_result(built, 1, 1, 0)
    Result.objects.filter(pk=result.pk).update(scores={"N": 204})
    with pytest.raises(RankingDataError, match="no valid score for position"):
        ranking_service.ranking_recompute(tournament_id=built.tournament.pk)
    built.tournament.refresh_from_db()
    assert not ranking_read(built.tournament).is_current  # never shown as current


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite keeps the JSON text as given")
def test_a_result_whose_json_the_decoder_rejects_is_reported_not_ranked():
    """Valid JSON for the database, not for the decoder (a number out of range, hand-edited):
    a data error, which the task does not retry."""
    built = build_tournament(players=8, rounds=2)
    result = save_result(built, 1, 1, 0)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE tournaments_result SET scores = %s WHERE id = %s",
            ['{"N": 1e999, "E": 0, "S": 0, "W": 0}', result.pk],
        )
    with pytest.raises(RankingDataError, match=f"result {result.pk}: holders or scores"):
        ranking_service.ranking_recompute(tournament_id=built.tournament.pk)


def test_a_hand_edited_score_beyond_any_deal_is_reported_not_ranked():
    """A number the database and the decoder both accept (PostgreSQL keeps 1e999 as a
    1000-digit number) but that no deal can score: a data error, never ranked."""
    built = build_tournament(players=8, rounds=2)
    result = save_result(built, 1, 1, 0)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE tournaments_result SET scores = %s WHERE id = %s",
            ['{"N": 1e999, "E": 0, "S": 0, "W": 0}', result.pk],
        )
    with pytest.raises(RankingDataError, match=f"result {result.pk}: holders or scores"):
        ranking_service.ranking_recompute(tournament_id=built.tournament.pk)
    Result.objects.filter(pk=result.pk).update(
        scores={"N": ranking_service.MAX_DEAL_SCORE + 1, "E": 0, "S": 0, "W": 0}
    )
    with pytest.raises(RankingDataError, match="out of range: position 'N'"):
        ranking_service.ranking_recompute(tournament_id=built.tournament.pk)
    built.tournament.refresh_from_db()
    assert not ranking_read(built.tournament).is_current


def test_broker_down_the_result_is_saved_and_the_page_says_being_updated(
    broker_down, settings, django_capture_on_commit_callbacks, caplog
):
    settings.RANKING_STALE_AFTER = 3600
    built = build_tournament(players=8, rounds=2)
    with caplog.at_level(logging.WARNING, logger="scoring.rankings.tasks"):
        result = save_committed(built, django_capture_on_commit_callbacks, 1, 1, 0)
    assert Result.objects.filter(pk=result.pk).exists()  # acknowledged and kept
    assert "could not schedule the ranking" in caplog.text
    state = RankingState.objects.get(pk=built.tournament.pk)
    assert state.stale_since is not None
    assert state.queued_at is None  # the claim was given back: the next change retries

    built.tournament.refresh_from_db()
    view = ranking_read(built.tournament)
    assert not view.is_current and view.updating
    assert not RankingSnapshot.objects.filter(tournament=built.tournament).exists()


def test_pages_compute_in_process_when_the_workers_do_not_catch_up(
    broker_down, settings, django_capture_on_commit_callbacks
):
    settings.RANKING_STALE_AFTER = 10
    built = build_tournament(players=8, rounds=2)
    save_committed(built, django_capture_on_commit_callbacks, 1, 1, 0)
    built.tournament.refresh_from_db()
    assert not ranking_read(built.tournament).is_current
    # ten seconds later, still no worker: the page computes it itself
    RankingState.objects.filter(pk=built.tournament.pk).update(
        stale_since=timezone.now() - timedelta(seconds=11)
    )
    view = ranking_read(built.tournament)
    assert view.is_current and view.version == 1
    snapshot = RankingSnapshot.objects.get(tournament=built.tournament)
    assert snapshot.computed_in == "in-process"


def test_a_queued_task_holds_the_claim_so_no_second_one_is_sent(
    broker_down, django_capture_on_commit_callbacks, caplog
):
    built = build_tournament(players=8, rounds=2)
    save_committed(built, django_capture_on_commit_callbacks, 1, 1, 0)
    held = timezone.now()
    RankingState.objects.filter(pk=built.tournament.pk).update(queued_at=held)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="scoring.rankings.tasks"):
        save_committed(built, django_capture_on_commit_callbacks, 1, 1, 1)
    assert "could not schedule" not in caplog.text  # nothing was sent
    assert RankingState.objects.get(pk=built.tournament.pk).queued_at == held
    # a claim older than the timeout is void: the next change sends a task again
    RankingState.objects.filter(pk=built.tournament.pk).update(
        queued_at=held - timedelta(minutes=5)
    )
    with caplog.at_level(logging.WARNING, logger="scoring.rankings.tasks"):
        save_committed(built, django_capture_on_commit_callbacks, 1, 1, 2)
    assert "could not schedule" in caplog.text


def test_score_card_while_updating_shows_the_entry_without_a_differential(
    broker_down, settings, django_capture_on_commit_callbacks
):
    settings.RANKING_STALE_AFTER = 3600
    built = build_tournament(players=8, rounds=2)
    result = save_committed(built, django_capture_on_commit_callbacks, 1, 1, 0)
    built.tournament.refresh_from_db()
    north = built.players[0]
    assert result.holders["N"] == north.pk
    card = score_card_read(built.tournament, north, can_manage=False, viewer_player_id=north.pk)
    assert card is not None and card.updating
    line = next(line for line in card.lines if line.donne_id == result.donne_id)
    assert line.status == "pending" and line.unranked and line.differential is None
    assert [s.score for s in line.scores if s.mine] == [result.scores["N"]]


def test_a_task_that_finds_its_snapshot_stored_does_not_move_the_clock(settings):
    """Only a real computation spaces the next one out: a task with nothing to do (a page
    read or a retry queued it) must not delay the next result by RANKING_MIN_INTERVAL."""
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0)
    tasks.recompute_ranking.apply(args=(built.tournament.pk,), throw=True)
    state = RankingState.objects.get(pk=built.tournament.pk)
    assert state.started_at is not None and state.computations == 1
    earlier = state.started_at - timedelta(seconds=5)
    RankingState.objects.filter(pk=built.tournament.pk).update(
        started_at=earlier, queued_at=timezone.now()
    )
    tasks.recompute_ranking.apply(args=(built.tournament.pk,), throw=True)
    state = RankingState.objects.get(pk=built.tournament.pk)
    assert state.started_at == earlier  # unchanged
    assert state.queued_at is None  # the claim is given back all the same
    assert state.computations == 1


def test_page_reads_do_not_queue_a_task_while_one_is_pending(
    broker_down, settings, django_capture_on_commit_callbacks, caplog
):
    settings.RANKING_STALE_AFTER = 3600
    built = build_tournament(players=8, rounds=2)
    save_committed(built, django_capture_on_commit_callbacks, 1, 1, 0)
    built.tournament.refresh_from_db()
    state = RankingState.objects.get(pk=built.tournament.pk)
    now = timezone.now()

    def page_read_sends() -> bool:
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="scoring.rankings.tasks"):
            assert not ranking_read(built.tournament).is_current
        return "could not schedule" in caplog.text

    # a task is queued: the read asks for nothing
    RankingState.objects.filter(pk=built.tournament.pk).update(queued_at=now)
    assert not page_read_sends()
    # a computation that started after the change is running: nothing either
    RankingState.objects.filter(pk=built.tournament.pk).update(
        queued_at=None, started_at=state.stale_since + timedelta(milliseconds=1)
    )
    assert not page_read_sends()
    # nothing pending (the last computation started before the change): the read asks
    RankingState.objects.filter(pk=built.tournament.pk).update(
        started_at=state.stale_since - timedelta(seconds=1)
    )
    assert page_read_sends()


def test_hosts_whose_clocks_drift_agree_on_the_queued_task(monkeypatch):
    """The coalescing times come from the database's clock: a web host whose clock runs two
    minutes late claims the queue, and a host on time still sees the claim held (with the
    hosts' own clocks it looked older than QUEUE_CLAIM_TIMEOUT, so a second task was sent)."""
    built = build_tournament(players=8, rounds=2)
    pk = built.tournament.pk
    on_time = timezone.now
    monkeypatch.setattr(timezone, "now", lambda: on_time() - timedelta(minutes=2))
    _started, queued, now = ranking_service.ranking_mark_stale(tournament_id=pk)
    assert not queued
    assert ranking_service.ranking_claim_queue(tournament_id=pk, now=now)
    monkeypatch.setattr(timezone, "now", on_time)

    state = RankingState.objects.get(pk=pk)
    assert abs(state.queued_at - on_time()) < timedelta(seconds=30)
    assert abs(state.stale_since - on_time()) < timedelta(seconds=30)
    _started, queued, _now = ranking_service.ranking_mark_stale(tournament_id=pk)
    assert queued  # the other host sends nothing
    assert not ranking_service.ranking_claim_queue(tournament_id=pk, now=_now)

    # A worker whose clock runs ahead starts the task: the clock it sets is the database's.
    monkeypatch.setattr(timezone, "now", lambda: on_time() + timedelta(minutes=2))
    clock = ranking_service.ranking_task_started(tournament_id=pk)
    assert abs(clock.started - on_time()) < timedelta(seconds=30)


def test_a_task_that_finds_its_snapshot_stored_changes_nothing():
    """Nothing is computed, stored or deleted, and the bookkeeping stays as it was but for
    the claim, which the task gives back."""
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0)
    tasks.recompute_ranking.apply(args=(built.tournament.pk,), throw=True)
    snapshots = list(RankingSnapshot.objects.values_list("pk", "data", "cards", "computed_at"))
    RankingState.objects.filter(pk=built.tournament.pk).update(queued_at=timezone.now())
    before = RankingState.objects.values("started_at", "stale_since", "computations").get(
        pk=built.tournament.pk
    )
    tasks.recompute_ranking.apply(args=(built.tournament.pk,), throw=True)
    after = RankingState.objects.get(pk=built.tournament.pk)
    assert list(RankingSnapshot.objects.values_list("pk", "data", "cards", "computed_at")) == (
        snapshots
    )
    assert after.queued_at is None
    assert {k: getattr(after, k) for k in before} == before


def test_polls_of_a_stale_ranking_do_not_queue_a_task_while_one_is_pending(
    client, broker_down, settings, django_capture_on_commit_callbacks, caplog
):
    """The live page's polls (204 or fragment) ask for no task while one is queued."""
    from django.urls import reverse

    settings.RANKING_STALE_AFTER = 3600
    built = build_tournament(players=8, rounds=2, status="published")
    save_committed(built, django_capture_on_commit_callbacks, 1, 1, 0)
    ranking_service.ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = RankingSnapshot.objects.get(tournament=built.tournament)
    save_committed(built, django_capture_on_commit_callbacks, 1, 1, 1)  # now stale
    RankingState.objects.filter(pk=built.tournament.pk).update(queued_at=timezone.now())
    url = reverse("ranking", args=[built.tournament.pk])
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="scoring.rankings.tasks"):
        assert client.get(f"{url}?partial=1&since={snapshot.pk}&cur=0").status_code == 204
        assert client.get(f"{url}?partial=1&since={snapshot.pk}&cur=1").status_code == 200
        assert client.get(url).status_code == 200
    assert "could not schedule" not in caplog.text
    # the claim void (no task pending): a read asks again, and says so when it cannot
    RankingState.objects.filter(pk=built.tournament.pk).update(queued_at=None)
    with caplog.at_level(logging.WARNING, logger="scoring.rankings.tasks"):
        client.get(url)
    assert "could not schedule" in caplog.text


def test_a_computation_behind_a_newer_result_dates_the_staleness_from_its_read():
    """Results that keep coming (each computation a little behind) never make the ranking
    look stale for longer than since the last computation's read: the pages would
    otherwise take the workers for late after RANKING_STALE_AFTER and compute themselves."""
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0)
    inputs = ranking_service.ranking_inputs(tournament_id=built.tournament.pk)
    save_result(built, 1, 1, 1)  # after the read: this computation does not include it
    long_ago = inputs.read_at - timedelta(minutes=5)
    RankingState.objects.update_or_create(
        pk=built.tournament.pk, defaults={"stale_since": long_ago}
    )
    ranking_service._state_after(inputs, computed=True)
    assert RankingState.objects.get(pk=built.tournament.pk).stale_since == inputs.read_at
    # a later staleness is kept; a computation that saw everything clears it
    later = inputs.read_at + timedelta(seconds=1)
    RankingState.objects.filter(pk=built.tournament.pk).update(stale_since=later)
    ranking_service._state_after(inputs, computed=True)
    assert RankingState.objects.get(pk=built.tournament.pk).stale_since == later
    ranking_service.ranking_recompute(tournament_id=built.tournament.pk)
    assert RankingState.objects.get(pk=built.tournament.pk).stale_since is None
