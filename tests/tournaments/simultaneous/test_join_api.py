"""Joining a simultaneous event through the API (issue 31.10): `POST /api/v1/simultaneous/
join/` with the page's checks, against a real hub served over HTTP (`live_server`)."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.fixtures.tournaments import stage_tournament
from tests.tournaments.api.conftest import client_for
from tournaments.models import Club, Tournament
from tournaments.simultaneous.club.models import SimultaneousLink
from tournaments.simultaneous.hub import services as hub_services

JOIN = "/api/v1/simultaneous/join/"


@pytest.fixture
def invited(live_server, make_user):
    federation = make_user("federation")
    Club.objects.create(name="Fédération", federation_number="0001").organisers.add(federation)
    event = hub_services.event_create(
        user=federation, name="Simultané d'été", date=dt.date(2027, 6, 19), rounds=2, sets=3
    )
    _invitation, token = hub_services.invitation_create(
        event=event, user=federation, club_name="Club des Rois"
    )
    organiser = make_user("organiser")
    club = Club.objects.create(name="Club des Rois", federation_number="0420")
    club.organisers.add(organiser)
    return live_server.url, token, organiser, club, event


@pytest.mark.django_db(transaction=True)
def test_a_clubs_organiser_joins_with_a_new_tournament(invited, make_user):
    hub_url, token, organiser, club, event = invited
    body = {"club": club.pk, "hub_url": hub_url, "token": token}
    assert client_for(None).post(JOIN, body, format="json").status_code == 401
    stranger = client_for(make_user("stranger"))
    assert stranger.post(JOIN, body, format="json").status_code == 403
    other = make_user("other")
    Club.objects.create(name="Autre", federation_number="0999").organisers.add(other)
    assert client_for(other).post(JOIN, body, format="json").status_code == 403  # not his club
    api = client_for(organiser)
    wrong = api.post(JOIN, {**body, "token": "wrong"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["code"] == "refused"
    assert "token" in wrong.json()["message"]
    assert not Tournament.objects.exists()

    joined = api.post(JOIN, body, format="json")
    assert joined.status_code == 201, joined.content
    answer = joined.json()
    tournament = Tournament.objects.get()
    assert answer["tournament"] == tournament.pk and tournament.club == club
    assert (answer["event"], answer["event_name"], answer["sets"]) == (
        event.public_id,
        "Simultané d'été",
        3,
    )
    assert "token" not in answer
    again = api.post(JOIN, body, format="json")
    assert again.status_code == 400 and "already plays this event" in again.json()["message"]
    assert SimultaneousLink.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_tournament_joins_and_the_address_checks_hold(invited, settings):
    hub_url, token, organiser, club, _event = invited
    tournament = stage_tournament(players=8, rounds=2, status="registration")
    tournament.club.organisers.add(organiser)
    api = client_for(organiser)
    both = api.post(
        JOIN,
        {"club": club.pk, "tournament": tournament.pk, "hub_url": hub_url, "token": token},
        format="json",
    )
    assert both.status_code == 400
    settings.SIMULTANEOUS_HUB_ALLOWED_URLS = []  # the loopback is no hub's address now
    body = {"tournament": tournament.pk, "hub_url": hub_url, "token": token}
    refused = api.post(JOIN, body, format="json")
    assert refused.status_code == 400 and "https://" in refused.json()["message"]
    assert not SimultaneousLink.objects.exists()
    settings.SIMULTANEOUS_HUB_ALLOWED_URLS = ["http://127.0.0.1", "http://localhost"]
    joined = api.post(JOIN, body, format="json")
    assert joined.status_code == 201, joined.content
    assert joined.json()["tournament"] == tournament.pk
