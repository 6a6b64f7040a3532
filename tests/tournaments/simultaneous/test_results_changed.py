"""`tournaments.signals.results_changed`: every committed change of a tournament's results
reaches its receivers (the ranking's scheduling, a simultaneous club's upload), also when
a ranking task is already queued and the ranking is left to it."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
import redis
from django.utils import timezone

from scoring.models import RankingState
from tests.tournaments.simultaneous.test_club import save, seated
from tournaments.models import Table, TableRound
from tournaments.services.results import round_open
from tournaments.signals import results_changed
from tournaments.simultaneous.club.models import SimultaneousLink


def queued_tasks(broker_url: str, queue: str) -> list[str]:
    """The names of the tasks waiting in the broker's queue (no worker takes them here)."""
    client = redis.Redis.from_url(broker_url)
    try:
        return [json.loads(raw)["headers"]["task"] for raw in client.lrange(queue, 0, -1)]
    finally:
        client.close()


@pytest.mark.django_db(transaction=True)
def test_two_writes_with_a_ranking_queued_schedule_one_upload(personas, celery_broker):
    """Two results back to back while a ranking task is queued: the ranking is left to that
    task (nothing more dispatched for it), and the club's upload is queued once, when the
    first write commits: no worker and no sweep run here, so nothing else could queue it."""
    from tarot_club.celery import app

    tournament = seated(players=8, rounds=2, sets=2)
    tournament.arbiters.add(personas.arbiter)
    round_open(round_=tournament.round_set.get(number=1), user=personas.arbiter)
    now = timezone.now()
    RankingState.objects.update_or_create(
        tournament=tournament, defaults={"queued_at": now, "stale_since": now}
    )
    table = Table.objects.filter(tournament=tournament).order_by("number").first()
    donnes = TableRound.objects.get(table=table, round__number=1).etui_set.donnes.order_by("number")
    received: list[int] = []

    def note(sender, *, tournament_id, **_kw):
        received.append(tournament_id)

    results_changed.connect(note, weak=False, dispatch_uid="test-note")
    try:
        for donne in donnes[:2]:
            save(tournament, table.number, donne.number, personas.arbiter, taker="N",
                 contract="garde", bouts=2, points=Decimal(51))  # fmt: skip
    finally:
        results_changed.disconnect(dispatch_uid="test-note")

    assert received == [tournament.pk, tournament.pk]
    tasks = queued_tasks(app.conf.broker_url, celery_broker)
    assert tasks.count("simultaneous.upload_to_hub") == 1, tasks
    assert "scoring.recompute_ranking" not in tasks, tasks
    assert SimultaneousLink.objects.get(tournament=tournament).queued_at is not None
