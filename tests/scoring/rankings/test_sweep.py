"""Work left behind is picked up without a page read: the sweep of every worker computes a
ranking whose task was lost, and dispatches a document build whose heartbeat stopped."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from scoring.documents.heartbeat import beating
from scoring.documents.models import Document
from scoring.documents.sweep import documents_sweep
from scoring.models import RankingSnapshot, RankingState
from scoring.rankings.sweep import DatabaseOutageLog, rankings_sweep, sweep_once
from tests.fixtures.services import reset_connections
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.helpers import enter, schedule
from tournaments.models import Tournament

CLOSED_PORT = "redis://127.0.0.1:1/0"


@pytest.mark.django_db
def test_rankings_sweep_computes_a_ranking_left_stale(personas, settings):
    settings.RANKING_STALE_AFTER = 10
    tournament = stage_tournament(personas=personas)
    table, donne = next((t, d) for _r, t, d in schedule(tournament))
    enter(tournament, table, donne, personas.arbiter)  # in the test's transaction: no task
    tournament.refresh_from_db()
    RankingSnapshot.objects.filter(tournament=tournament).delete()
    RankingState.objects.create(tournament=tournament, stale_since=timezone.now())
    assert rankings_sweep(where="sweeper") == []  # not waited long enough yet
    RankingState.objects.filter(pk=tournament.pk).update(
        stale_since=timezone.now() - timedelta(seconds=4), started_at=None
    )
    assert rankings_sweep(where="sweeper") == [tournament.pk]
    snapshot = RankingSnapshot.objects.get(tournament=tournament)
    assert snapshot.results_version == tournament.results_version
    assert snapshot.computed_in == "sweeper"
    assert RankingState.objects.get(pk=tournament.pk).stale_since is None


@pytest.mark.django_db
def test_documents_sweep_rebuilds_a_build_whose_heartbeat_stopped(personas, settings):
    settings.DOCUMENT_STALE_SECONDS = 5
    tournament = stage_tournament(personas=personas)
    document = Document.objects.create(
        tournament=tournament,
        kind=Document.Kind.RANKING,
        language="en",
        status=Document.Status.RUNNING,
        heartbeat_at=timezone.now(),
    )
    assert documents_sweep() == []  # beating recently: a live build is left alone
    Document.objects.filter(pk=document.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=6)
    )
    assert documents_sweep() == [document.pk]
    document.refresh_from_db()
    assert document.status == Document.Status.DONE


@pytest.mark.django_db(transaction=True)
def test_heartbeat_beats_while_the_work_runs_and_stops_after():
    beats: list[float] = []
    with beating(lambda: beats.append(time.monotonic()), every=0.05):
        time.sleep(0.4)
    count = len(beats)
    assert count >= 4
    time.sleep(0.2)
    assert len(beats) == count
    assert not [t for t in threading.enumerate() if t.name == "heartbeat"]


@pytest.fixture
def fast_sweep(monkeypatch):
    """The worker started after this sweeps every second, for rankings stale for 1 s."""
    monkeypatch.setenv("RANKING_STALE_AFTER", "2")
    monkeypatch.setenv("RANKING_SWEEP_SECONDS", "0.5")


@pytest.mark.services
@pytest.mark.slow
def test_worker_sweep_brings_the_ranking_current_without_any_page_read(
    fast_sweep, celery_worker, personas, settings
):
    from tarot_club.celery import app

    settings.RANKING_STALE_AFTER = 3600  # no page read happens anyway
    tournament = stage_tournament(personas=personas)
    cells = [(t, d) for _r, t, d in schedule(tournament)]
    # The web process cannot reach Redis: the result is saved, no task is queued.
    broker_url = app.conf.broker_url
    app.conf.broker_url = CLOSED_PORT
    reset_connections(app)
    try:
        enter(tournament, *cells[0], personas.arbiter)
        enter(tournament, *cells[1], personas.arbiter)
    finally:
        app.conf.broker_url = broker_url
        reset_connections(app)
    tournament.refresh_from_db()
    assert tournament.results_version == 2
    assert not RankingSnapshot.objects.filter(tournament=tournament, results_version=2).exists()
    deadline = time.monotonic() + 20
    while True:
        snapshot = RankingSnapshot.objects.filter(tournament=tournament, results_version=2).first()
        if snapshot is not None:
            break
        assert time.monotonic() < deadline, RankingState.objects.filter(pk=tournament.pk).values()
        time.sleep(0.2)
    assert snapshot.computed_in == celery_worker.name
    assert Tournament.objects.get(pk=tournament.pk).results_version == 2


@contextlib.contextmanager
def database_unreachable(tmp_path: Path) -> Iterator[None]:
    """The database stops answering this thread: its connection is closed and pointed at a
    file in a missing folder (SQLite) or a closed port (PostgreSQL), then put back."""
    from django.db import connection

    saved = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = str(tmp_path / "missing" / "db.sqlite3")
    else:
        connection.settings_dict.update({"HOST": "127.0.0.1", "PORT": "1"})
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


@pytest.mark.django_db(transaction=True)
def test_sweep_reports_a_database_outage_in_one_line_and_its_end_in_another(
    personas, settings, caplog, tmp_path
):
    settings.RANKING_STALE_AFTER = 3
    tournament = stage_tournament(personas=personas)
    RankingState.objects.update_or_create(
        tournament=tournament, defaults={"stale_since": timezone.now() - timedelta(seconds=5)}
    )
    outage = DatabaseOutageLog()
    caplog.set_level(logging.INFO, logger="scoring.rankings.sweep")
    with database_unreachable(tmp_path):
        for _ in range(5):
            sweep_once(where="sweeper", outage=outage)
    down = [r for r in caplog.records if r.name == "scoring.rankings.sweep"]
    assert len(down) == 1, [r.getMessage() for r in down]
    assert "the database does not answer" in down[0].getMessage()
    assert down[0].exc_info is None  # one line, no traceback
    assert "\n" not in down[0].getMessage()

    caplog.clear()
    sweep_once(where="sweeper", outage=outage)
    sweep_once(where="sweeper", outage=outage)
    back = [r.getMessage() for r in caplog.records if r.name == "scoring.rankings.sweep"]
    assert len(back) == 1 and "the database answers again" in back[0], back
    assert RankingSnapshot.objects.get(tournament=tournament).computed_in == "sweeper"
