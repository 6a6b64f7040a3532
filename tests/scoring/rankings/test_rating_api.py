"""The rating's API (`scoring.rankings.rating_api`): who may read a player's rating (the
player, his club's organisers and arbiters), clear 4xx for the others and for unknown ids,
the switches (404 `rating_off`), French by default, and the read's queries."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model

from scoring.rankings.models import ClubRatingSetting
from scoring.rankings.rating import rating_recompute
from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tests.tournaments.api.conftest import client_for
from tournaments.models import Club, Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated(personas):
    """A published tournament of a club, rated; the player's account is `player_user`, the
    club's organiser `organiser`, its arbiter `arbiter`."""
    club = Club.objects.create(name="Club du jeudi", federation_number="0420")
    club.organisers.add(personas.organiser)
    club.arbiters.add(personas.arbiter)
    built = build_tournament(
        players=8, club=club, status="published", date=datetime.date(2026, 10, 8), seed=3
    )
    fill_results(built, seed=3)
    ranking_recompute(tournament_id=built.tournament.pk)
    rating_recompute()
    player = built.players[0]
    player.user = personas.player_user
    player.save(update_fields=["user"])
    return club, built, player


def url(player_id: int) -> str:
    return f"/api/v1/players/{player_id}/rating/"


@pytest.mark.parametrize("who", ["player_user", "organiser", "arbiter"])
def test_the_player_and_his_clubs_staff_read_his_rating(rated, personas, who):
    _club, built, player = rated
    response = client_for(getattr(personas, who)).get(url(player.pk))
    assert response.status_code == 200
    body = response.json()
    assert body["player"] == {
        "id": player.pk,
        "name": player.full_name,
        "licence": player.licence,
        "club": player.club_id,
    }
    assert body["rated"] is True and body["updating"] is False
    assert "not the federation" in body["label"]
    assert body["events"] == 1 and body["games"] > 0
    [line] = body["history"]
    assert line["tournament"] == built.tournament.pk
    assert line["date"] == "2026-10-08"
    assert line["rating_before"] == 1500.0 and line["deviation_before"] == 350.0
    assert line["expected_percentage"] == 50.0
    assert line["rating_after"] == body["rating"]
    assert line["change"] == pytest.approx(body["rating"] - 1500.0, abs=0.01)


def test_strangers_get_401_or_403_and_never_the_licence(rated, personas):
    _club, _built, player = rated
    anonymous = client_for(None).get(url(player.pk))
    assert anonymous.status_code == 401
    stranger = client_for(personas.stranger).get(url(player.pk))
    assert stranger.status_code == 403
    for response in (anonymous, stranger):
        assert player.licence not in response.content.decode()
    other_player = Player.objects.exclude(pk=player.pk).first()
    assert client_for(personas.player_user).get(url(other_player.pk)).status_code == 403


def test_unknown_ids_answer_404(rated, personas):
    response = client_for(personas.organiser).get(url(999999999))
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_player_not_rated_yet(personas):
    club = Club.objects.create(name="Club neuf", federation_number="0421")
    club.organisers.add(personas.organiser)
    newcomer = Player.objects.create(
        first_name="Léa", last_name="Neuve", licence="0421001", club=club
    )
    body = client_for(personas.organiser).get(url(newcomer.pk)).json()
    assert body["rated"] is False and body["rating"] is None and body["history"] == []


def test_switched_off_for_the_club_or_the_site_answers_rating_off_in_french(
    rated, personas, settings
):
    club, _built, player = rated
    ClubRatingSetting.objects.create(club=club, enabled=False)
    response = client_for(personas.organiser).get(url(player.pk))
    assert response.status_code == 404 and response.json()["code"] == "rating_off"
    french = client_for(personas.organiser).get(url(player.pk), HTTP_ACCEPT_LANGUAGE="fr")
    message = french.json()["message"]
    assert message == "L’indice est désactivé pour le club de ce joueur."
    ClubRatingSetting.objects.filter(club=club).update(enabled=True)
    assert client_for(personas.organiser).get(url(player.pk)).status_code == 200
    settings.RATING_ENABLED = False
    assert client_for(personas.organiser).get(url(player.pk)).json()["code"] == "rating_off"


def test_the_club_switch_is_for_its_organisers(rated, personas, django_capture_on_commit_callbacks):
    club, _built, player = rated
    path = f"/api/v1/clubs/{club.pk}/rating/"
    assert client_for(None).put(path, {"enabled": False}, format="json").status_code == 401
    assert client_for(personas.arbiter).put(
        path, {"enabled": False}, format="json"
    ).status_code == (403)
    bad = client_for(personas.organiser).put(path, {"enabled": "peut-être"}, format="json")
    assert bad.status_code == 400 and "enabled" in bad.json()["details"]
    with django_capture_on_commit_callbacks(execute=True):
        done = client_for(personas.organiser).put(path, {"enabled": False}, format="json")
    assert done.status_code == 200 and done.json() == {"enabled": False}
    assert ClubRatingSetting.objects.get(club=club).enabled is False
    assert client_for(personas.player_user).get(url(player.pk)).status_code == 404
    unknown = client_for(personas.organiser).put(
        "/api/v1/clubs/999999999/rating/", {"enabled": True}, format="json"
    )
    assert unknown.status_code == 404


def test_the_read_takes_a_fixed_number_of_queries(rated, personas, django_assert_max_num_queries):
    _club, _built, player = rated
    client = client_for(personas.player_user)
    client.get(url(player.pk))
    with django_assert_max_num_queries(
        7
    ):  # token, player, permission, switch, rating, state, names
        assert client.get(url(player.pk)).status_code == 200


def test_a_superuser_reads_any_rating(rated):
    _club, _built, player = rated
    admin = get_user_model().objects.create_superuser("admin35", password="x" * 12)
    assert client_for(admin).get(url(player.pk)).status_code == 200
