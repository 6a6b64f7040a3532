"""PostgreSQL: a result write's version bump holds the ranking's state share-locked until it
commits, so a queued task that starts meanwhile gives its claim back (and reads the
results) only after the write committed: a write that saw the task queued may leave the
ranking to it (tournaments.services.events)."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction
from django.utils import timezone

from scoring.models import RankingState
from scoring.rankings.services import ranking_task_started
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Round
from tournaments.services.events import open_round_bump
from tournaments.sql import run


@pytest.mark.django_db(transaction=True)
def test_a_task_starting_during_a_write_waits_for_its_commit(personas) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks across connections: PostgreSQL")
    t = stage_tournament(personas=personas)
    round_ = Round.objects.filter(tournament=t).order_by("number").first()
    now = timezone.now()
    RankingState.objects.create(tournament=t, queued_at=now, stale_since=now)
    version = t.results_version
    bumped, release = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def writing() -> None:
        try:
            with transaction.atomic():
                seen["queued"] = run(*open_round_bump(tournament_id=t.pk, round_id=round_.pk)).rows
                bumped.set()
                release.wait(30)
        finally:
            connection.close()

    def starting() -> None:
        try:
            ranking_task_started(tournament_id=t.pk)
            seen["version_at_start"] = type(t).objects.get(pk=t.pk).results_version
        finally:
            connection.close()

    writer = threading.Thread(target=writing)
    writer.start()
    assert bumped.wait(30)
    starter = threading.Thread(target=starting)
    starter.start()
    waiting = False
    for _ in range(300):  # until the task's start waits for the write's lock (bounded)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND query LIKE '%%scoring_rankingstate%%'"
            )
            waiting = cursor.fetchone()[0] == 1
        if waiting or not starter.is_alive():
            break
        time.sleep(0.05)
    release.set()
    writer.join(30)
    starter.join(30)
    assert seen["queued"] == [(True,)]  # the write saw the task queued
    assert waiting, "the task's start did not wait for the write's commit"
    assert seen["version_at_start"] == version + 1  # it then reads the write's change
    assert RankingState.objects.get(pk=t.pk).queued_at is None  # the claim given back
