"""The API of the player's own pages (issue 35): the same rules as the pages, clear 4xx."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tournaments.models import Result, Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def event():
    built = build_tournament(players=8, status=Tournament.Status.FINISHED)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    users = get_user_model().objects
    me = users.create_user("api-moi")
    built.players[0].user = me
    built.players[0].save(update_fields=["user"])
    built.me = me
    built.organiser = users.create_user("api-orga")
    built.tournament.club.organisers.add(built.organiser)
    built.stranger = users.create_user("api-inconnu")
    return built


def get(client, url, user=None):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(url, **EN)


def test_history_for_the_player_and_his_clubs_organisers(client, event):
    player = event.players[0]
    url = reverse("api_player_history", args=[player.pk])
    for user in (event.me, event.organiser):
        answer = get(client, url, user)
        assert answer.status_code == 200
        data = answer.json()
        assert data["player"] == {"id": player.pk, "name": player.full_name, "club": player.club_id}
        (line,) = data["events"]
        assert line["tournament"]["id"] == event.tournament.pk
        assert line["rank"] and line["field_size"] == 8
        assert player.licence not in answer.content.decode()
    assert get(client, url).status_code == 401
    refused = get(client, url, event.stranger)
    assert refused.status_code == 403
    assert refused.json()["message"]
    assert get(client, reverse("api_player_history", args=[10**8]), event.me).status_code == 404


def test_history_in_three_queries_at_most(client, event, django_assert_max_num_queries):
    url = reverse("api_player_history", args=[event.players[0].pk])
    client.force_login(event.me)
    client.get(url)  # the session, read once
    # session and user (2, the session machinery), the player, registrations, snapshots
    with django_assert_max_num_queries(5):
        assert client.get(url).status_code == 200


def test_report_for_the_player_and_the_events_managers(client, event):
    player, other = event.players[0], event.players[1]
    url = reverse("api_player_report", args=[player.pk, event.tournament.pk])
    answer = get(client, url, event.me)
    assert answer.status_code == 200
    data = answer.json()
    assert len(data["donnes"]) == len(event.donnes)
    first = data["donnes"][0]
    assert set(first["hands"]) == {"N", "E", "S", "W"}
    assert sum(o["tables"] for o in first["field"]) == first["tables"]
    other_url = reverse("api_player_report", args=[other.pk, event.tournament.pk])
    assert get(client, other_url, event.me).status_code == 403
    assert get(client, other_url, event.organiser).status_code == 200
    assert get(client, other_url).status_code == 401
    missing = reverse("api_player_report", args=[player.pk, 10**8])
    assert get(client, missing, event.me).status_code == 404


def test_report_before_every_donne_is_complete_reveals_nothing(client, event):
    Result.objects.filter(tournament=event.tournament).order_by("pk").first().delete()
    url = reverse("api_player_report", args=[event.players[0].pk, event.tournament.pk])
    for user in (event.me, event.organiser):
        answer = get(client, url, user)
        assert answer.status_code == 403
        data = answer.json()
        assert data["code"] == "report_not_open"
        assert "every donne" in data["message"]
        assert "hands" not in answer.content.decode()
