"""The overall ranking with a real Celery worker through Redis: a burst of uploads from
several clubs is coalesced into one or two computations, done by the worker."""

from __future__ import annotations

import time

import pytest

from tournaments.simultaneous.hub.models import OverallRankingState, SimultaneousEvent

from .builders import played

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_a_burst_of_uploads_gives_one_or_two_computations_in_the_worker(
    celery_worker, hub, settings
):
    settings.SIMULTANEOUS_RANKING_MIN_INTERVAL = 2.0
    for club in range(3):
        licences = [f"{club + 1}00000{n}" for n in range(4)]
        for donne in (1, 2):  # two uploads per club, each applied in its own transaction
            results = [played(1, d, licences) for d in range(1, donne + 1)]
            hub.send(club, hub.upload(club, results, licences, sequence=donne))
    version = SimultaneousEvent.objects.get(pk=hub.event.pk).results_version
    assert version == 6
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = OverallRankingState.objects.get(pk=hub.event.pk)
        if state.results_version == version:
            break
        time.sleep(0.1)
    assert state.results_version == version, state.__dict__
    assert state.computed_in == celery_worker.name
    assert 1 <= state.computations <= 2, state.computations
    assert state.stale_since is None and state.players == 12
