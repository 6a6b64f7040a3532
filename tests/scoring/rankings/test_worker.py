"""The ranking with a real Celery worker through Redis: bursts coalesce, and when the worker
and Redis go away the results stay saved, the pages say "being updated", and the ranking
catches up when they come back."""

from __future__ import annotations

import time

import pytest
from django.urls import reverse

from scoring.models import RankingSnapshot, RankingState
from tests.fixtures.services import reset_connections
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.builders import build_tournament, save_result
from tests.scoring.rankings.helpers import enter, schedule
from tournaments.models import Result, Tournament

pytestmark = [pytest.mark.services, pytest.mark.slow]

CLOSED_PORT = "redis://127.0.0.1:1/0"


def wait_for_version(tournament: Tournament, timeout: float = 30) -> RankingSnapshot:
    """The snapshot of the tournament's current version, once a worker stored it."""
    tournament.refresh_from_db()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snapshot = RankingSnapshot.objects.filter(
            tournament=tournament, results_version=tournament.results_version
        ).first()
        if snapshot is not None:
            return snapshot
        time.sleep(0.1)
    state = RankingState.objects.filter(pk=tournament.pk).values().first()
    raise AssertionError(f"no snapshot for v{tournament.results_version}: {state}")


def test_burst_of_twenty_results_gives_one_or_two_computations_in_the_worker(
    celery_worker, settings
):
    settings.RANKING_MIN_INTERVAL = 2.0  # computations of one tournament 2 s apart at most
    built = build_tournament(players=12, rounds=2)
    started = time.monotonic()
    for round_no, table, index, _donne in built.schedule()[:20]:
        save_result(built, round_no, table, index)  # each in its own transaction
    burst = time.monotonic() - started
    snapshot = wait_for_version(built.tournament)
    assert built.tournament.results_version == 20
    assert snapshot.computed_in == celery_worker.name
    computations = RankingState.objects.get(pk=built.tournament.pk).computations
    assert 1 <= computations <= 2, (computations, burst)
    assert RankingState.objects.get(pk=built.tournament.pk).stale_since is None


def test_worker_and_redis_down_results_kept_pages_say_updating_then_catch_up(
    celery_worker, client, settings, personas, redis_url
):
    from tarot_club.celery import app

    settings.RANKING_STALE_AFTER = 3600  # prove the worker catches up, not the page
    tournament = stage_tournament(personas=personas)
    cells = [(t, d) for _r, t, d in schedule(tournament)]
    client.force_login(personas.player_user)
    url = reverse("ranking", args=[tournament.pk])

    enter(tournament, *cells[0], personas.arbiter)
    assert wait_for_version(tournament).computed_in == celery_worker.name

    # 1. the worker stops (Redis still up): the task waits in the queue
    celery_worker.stop()
    second = enter(tournament, *cells[1], personas.arbiter)
    assert Result.objects.filter(pk=second.pk).exists()
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "The ranking is being updated" in html

    # 2. Redis becomes unreachable as well
    broker_url = app.conf.broker_url
    app.conf.broker_url = CLOSED_PORT
    reset_connections(app)
    try:
        third = enter(tournament, *cells[2], personas.arbiter)  # acknowledged all the same
        assert Result.objects.filter(pk=third.pk).exists()
        tournament.refresh_from_db()
        assert tournament.results_version == 3
        html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert "The ranking is being updated" in html
        snapshot = RankingSnapshot.objects.filter(tournament=tournament).latest("pk")
        assert snapshot.results_version == 1
    finally:
        # 3. Redis and the worker come back
        app.conf.broker_url = broker_url
        reset_connections(app)
    celery_worker.start()
    snapshot = wait_for_version(tournament)
    assert snapshot.results_version == 3
    assert snapshot.computed_in == celery_worker.name
    html = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "being updated" not in html
    assert RankingState.objects.get(pk=tournament.pk).stale_since is None
