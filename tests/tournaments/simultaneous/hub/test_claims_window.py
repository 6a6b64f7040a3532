"""The event's claims window (issue 34 §5): it opens as the embargo ends (every club's final
upload), corrections are taken until its end and marked on the public pages when they came
after the embargo (the donne, the players, when), then the hub closes the event by itself —
the window's task (eager here) or the workers' sweep — and the answers tell the clubs when
the event becomes final."""

from __future__ import annotations

import datetime

import pytest
from celery import current_app
from django.urls import reverse
from django.utils import timezone

from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.models import LateCorrection, SimultaneousEvent
from tournaments.simultaneous.hub.tasks import event_window_end

from .builders import played

pytestmark = pytest.mark.django_db

A = ["1000001", "1000002", "1000003", "1000004"]
B = ["2000001", "2000002", "2000003", "2000004"]
C = ["3000001", "3000002", "3000003", "3000004"]


def every_club_final(hub) -> dict:
    answers = [
        hub.send(0, hub.upload(0, [played(1, 1, A)], A, final=True)).as_json(),
        hub.send(1, hub.upload(1, [played(1, 1, B, points="60")], B, final=True)).as_json(),
        hub.send(2, hub.upload(2, [played(1, 1, C, points="30")], C, final=True)).as_json(),
    ]
    hub.event.refresh_from_db()
    return answers[-1]


def test_the_window_opens_with_the_end_of_the_embargo_and_tells_the_clubs(hub):
    before = hub.send(0, hub.upload(0, [played(1, 1, A)], A)).as_json()
    assert before["window"] == {"claims_until": None, "final_at": None}
    answer = every_club_final(hub)
    event = hub.event
    assert event.embargo_over and event.is_open
    expected = event.embargo_lifted_at + datetime.timedelta(minutes=30)
    assert event.claims_close_at == expected
    assert answer["window"] == {"claims_until": expected.isoformat(), "final_at": None}
    # The task ran (eager) at once and found the window still open.
    assert current_app.conf.task_always_eager and event.is_open


def test_a_late_correction_is_marked_on_the_public_pages(hub, client):
    every_club_final(hub)
    hub.send(1, hub.upload(1, [played(1, 1, B, points="70", version=2)], B, sequence=2))
    late = LateCorrection.objects.get()
    assert (late.donne, late.table, late.change) == (1, 1, "replaced")
    assert late.holders == dict(zip("NESW", B, strict=True))
    page = client.get(
        reverse("simultaneous_ranking", args=[hub.event.public_id]), HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert 'data-late-donne="1"' in page and "Joueur 2000001" in page
    assert 'data-window="provisional"' in page
    traveller = client.get(
        reverse("simultaneous_traveller", args=[hub.event.public_id, 1]),
        HTTP_ACCEPT_LANGUAGE="en",
    ).content.decode()
    assert 'data-late-donne="1"' in traveller and "Club B" in traveller


def test_the_task_and_the_sweep_close_the_event_at_the_windows_end(hub, client):
    every_club_final(hub)
    assert event_window_end.delay(hub.event.pk).get() is False  # not yet
    past = timezone.now() - datetime.timedelta(seconds=1)
    SimultaneousEvent.objects.filter(pk=hub.event.pk).update(claims_close_at=past)
    assert event_window_end.delay(hub.event.pk).get() is True
    hub.event.refresh_from_db()
    assert hub.event.state == "closed" and hub.event.closed_at is not None
    # Closed: a late upload is refused, the clubs read when it became final.
    with pytest.raises(services.UploadRefused) as refused:
        hub.send(0, hub.upload(0, [played(1, 1, A, version=2)], A, sequence=9))
    assert refused.value.code == "closed"
    page = client.get(reverse("simultaneous_ranking", args=[hub.event.public_id]))
    assert 'data-window="final"' in page.content.decode()


def test_the_sweep_closes_what_the_task_missed_and_nothing_else(hub):
    assert services.events_window_sweep() == []  # under embargo: no window yet
    every_club_final(hub)
    assert services.events_window_sweep() == []  # the window runs
    past = timezone.now() - datetime.timedelta(minutes=1)
    SimultaneousEvent.objects.filter(pk=hub.event.pk).update(claims_close_at=past)
    assert services.events_window_sweep() == [hub.event.pk]
    assert services.events_window_sweep() == []


def test_a_window_of_zero_closes_as_the_embargo_ends(hub):
    SimultaneousEvent.objects.filter(pk=hub.event.pk).update(claims_window_minutes=0)
    answer = every_club_final(hub)
    assert hub.event.state == "closed"  # the eager task, on commit
    assert answer["window"]["claims_until"] is not None
