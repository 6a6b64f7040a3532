"""The club's side of the event's claims window (issue 34 §5): it reads when the event
becomes final from the hub's answers (the "window" of an upload's answer or of the event
answer; club and hub meet only on the wire) and its pages say it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from tests.tournaments.simultaneous.test_club import seated
from tournaments.simultaneous.club.models import SimultaneousLink
from tournaments.simultaneous.club.services import window_from

UNTIL = dt.datetime(2027, 1, 16, 19, 30, tzinfo=dt.UTC)


def test_the_window_is_read_from_the_hubs_answer():
    answer = {"window": {"claims_until": UNTIL.isoformat(), "final_at": None}}
    assert window_from(answer, None, None) == (UNTIL, None)
    closed = {"window": {"claims_until": UNTIL.isoformat(), "final_at": UNTIL.isoformat()}}
    assert window_from(closed, None, None) == (UNTIL, UNTIL)
    # An older hub says nothing: what the link held stays; a value not a time is ignored.
    assert window_from({"upload": 3}, UNTIL, None) == (UNTIL, None)
    assert window_from({"window": {"claims_until": "soon", "final_at": None}}, UNTIL, None) == (
        UNTIL,
        None,
    )


@pytest.mark.django_db
def test_the_clubs_pages_say_when_the_event_becomes_final(personas):
    tournament = seated(players=8, rounds=2, sets=4)
    tournament.club.organisers.add(personas.organiser)
    link = SimultaneousLink.objects.get(tournament=tournament)
    SimultaneousLink.objects.filter(pk=link.pk).update(event_claims_until=UNTIL)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(personas.organiser)
    page = client.get(f"/t/{tournament.pk}/simultaneous/").content.decode()
    assert 'data-window="provisional"' in page and "becomes final at" in page
    SimultaneousLink.objects.filter(pk=link.pk).update(event_final_at=timezone.now())
    detail = client.get(f"/t/{tournament.pk}/").content.decode()
    assert 'data-window="final"' in detail
