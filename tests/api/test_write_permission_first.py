"""Permission before validation: a write by someone who may not make it gets the same
answer whatever the body says, so its errors cannot reveal which user names exist."""

from __future__ import annotations

import pytest

from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/tournaments/"


def body(club: int, arbiter: str) -> dict:
    return {"club": club, "name": "Sonde", "date": "2026-12-05", "rounds": 2, "arbiters": [arbiter]}


def test_anonymous_gets_401_for_known_and_unknown_arbiter_names(running_tournament, personas):
    client = client_for(None)
    club = running_tournament.club_id
    known = client.post(URL, body(club, "arbitre"), format="json")
    unknown = client.post(URL, body(club, "personne-de-ce-nom"), format="json")
    assert known.status_code == unknown.status_code == 401
    assert known.json() == unknown.json()


def test_a_player_gets_403_for_known_and_unknown_names_and_clubs(running_tournament, personas):
    client = client_for(personas.player_user)
    club = running_tournament.club_id
    answers = [
        client.post(URL, body(club, "arbitre"), format="json"),
        client.post(URL, body(club, "personne-de-ce-nom"), format="json"),
        client.post(URL, body(987654, "arbitre"), format="json"),
    ]
    assert [a.status_code for a in answers] == [403, 403, 403]
    assert answers[0].json() == answers[1].json() == answers[2].json()


def test_the_organiser_still_gets_the_validation_error(running_tournament, personas):
    client = client_for(personas.organiser)
    response = client.post(
        URL, body(running_tournament.club_id, "personne-de-ce-nom"), format="json"
    )
    assert response.status_code == 400
