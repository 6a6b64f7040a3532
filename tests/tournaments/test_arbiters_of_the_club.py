"""Only the club's own organisers and arbiters can be named arbiter (issue 30.9).

The tournament form lists them and nobody else (not another club's arbiter, a player, a
stranger or the site's administrator); the form and the API refuse anyone else with a clear
error, the same whether the account exists or not.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation

from tests.fixtures.tournaments import stage_tournament
from tests.tournaments.api.conftest import client_for
from tournaments.models import Tournament
from tournaments.services.clubs import club_account_create

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
REFUSED = "Not an organiser or arbiter of this club"


@pytest.fixture
def t(personas) -> Tournament:
    tournament = stage_tournament(personas=personas, status=Tournament.Status.DRAFT)
    get_user_model().objects.create_superuser("admin", password="x-admin-password")
    return tournament


def form_data(t: Tournament, arbiters: list[int]) -> dict:
    return {
        "club": t.club_id,
        "name": "Tournoi de Noël",
        "date": "2026-12-24",
        "rounds": 4,
        "donnes_per_relais": 4,
        "method": "average",
        "matchpoint_penalty_rate": "0.1",
        "arbiters": arbiters,
    }


def test_the_form_offers_only_the_clubs_organisers_and_arbiters(client, t, personas):
    client.force_login(personas.organiser)
    page = client.get(reverse("organiser_tournament_create"), **EN).content.decode()
    offered = {int(pk) for pk in re.findall(r'name="arbiters" value="(\d+)"', page)}
    assert offered == {personas.organiser.pk, personas.arbiter.pk}


@pytest.mark.parametrize("who", ["other_arbiter", "player_user", "stranger"])
def test_the_form_refuses_anyone_else(client, t, personas, who):
    client.force_login(personas.organiser)
    outsider = getattr(personas, who)
    response = client.post(
        reverse("organiser_tournament_create"), form_data(t, [outsider.pk]), **EN
    )
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()
    assert not Tournament.objects.filter(name="Tournoi de Noël").exists()


def test_the_edit_form_refuses_anyone_else_and_keeps_the_arbiters(client, t, personas):
    client.force_login(personas.organiser)
    data = form_data(t, [personas.other_arbiter.pk])
    response = client.post(reverse("organiser_tournament_edit", args=[t.pk]), data, **EN)
    assert response.status_code == 200
    assert list(t.arbiters.all()) == [personas.arbiter]


def test_an_arbiter_account_made_for_the_club_is_offered(client, t, personas):
    made = club_account_create(club=t.club, by=personas.organiser, username="juge", role="arbiter")
    client.force_login(personas.organiser)
    response = client.post(
        reverse("organiser_tournament_create"), form_data(t, [made.user.pk]), **EN
    )
    assert response.status_code == 302
    assert list(Tournament.objects.get(name="Tournoi de Noël").arbiters.all()) == [made.user]


@pytest.mark.parametrize("name", ["arbitre2", "joueur", "admin", "personne"])
def test_the_api_refuses_anyone_else_the_same_way(t, personas, name):
    api = client_for(personas.organiser)
    body = {"club": t.club_id, "name": "Tournoi de Noël", "date": "2026-12-24"}
    response = api.post("/api/v1/tournaments/", {**body, "arbiters": [name]}, format="json")
    assert response.status_code == 400, response.json()
    assert f"{REFUSED}: “{name}”" in str(response.json())
    assert not Tournament.objects.filter(name="Tournoi de Noël").exists()
    response = api.patch(f"/api/v1/tournaments/{t.pk}/", {"arbiters": [name]}, format="json")
    assert response.status_code == 400, response.json()
    assert list(t.arbiters.all()) == [personas.arbiter]
    ok = api.post("/api/v1/tournaments/", {**body, "arbiters": ["arbitre"]}, format="json")
    assert ok.status_code == 201, ok.json()


def test_the_service_refuses_anyone_else(t, personas):
    from django.core.exceptions import ValidationError

    from tournaments.services.tournaments import tournament_update

    with translation.override("en"), pytest.raises(ValidationError, match=REFUSED):
        tournament_update(tournament=t, arbiters=[personas.other_arbiter], user=personas.organiser)
    assert list(t.arbiters.all()) == [personas.arbiter]
