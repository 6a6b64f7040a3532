"""A licence never goes to the public (issue 35): the player himself, the organisers and
arbiters of his club or of his tournaments, and the staff read it; an anonymous visitor,
another player and a personal link's holder (for others' licences) never do, on the pages
and in the API answers that name players."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tournaments.models import Player, Tournament
from tournaments.permissions import LicenceReader, can_see_licence
from tournaments.services.player_links import player_link_issue

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def event():
    """A published event whose first player is `me`'s, the club's organiser, the event's
    arbiter (of another club), and a stranger with a player of his own elsewhere."""
    users = get_user_model().objects
    built = build_tournament(players=8, status=Tournament.Status.PUBLISHED, seed=41)
    fill_results(built, seed=42)
    ranking_recompute(tournament_id=built.tournament.pk)
    built.tournament.refresh_from_db()
    roles = {
        "me": users.create_user("me-licence"),
        "organiser": users.create_user("orga-licence"),
        "arbiter": users.create_user("arbitre-licence"),
        "other": users.create_user("autre-licence"),
        "staff": users.create_user("staff-licence", is_staff=True),
    }
    built.tournament.club.organisers.add(roles["organiser"])
    built.tournament.arbiters.add(roles["arbiter"])
    Player.objects.filter(pk=built.players[0].pk).update(user=roles["me"])
    Player.objects.filter(pk=built.players[1].pk).update(user=roles["other"])
    built.roles = roles
    return built


def licences_in(text: str, players) -> set[str]:
    return {p.licence for p in players if re.search(rf"\b{p.licence}\b", text)}


def read(client, url, user=None):
    client.logout()
    if user is not None:
        client.force_login(user)
    response = client.get(url, **EN)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def test_the_rule(event):
    me, other = event.players[0], event.players[1]
    me.refresh_from_db()
    roles = event.roles
    from django.contrib.auth.models import AnonymousUser

    assert not can_see_licence(AnonymousUser(), me)
    assert can_see_licence(roles["me"], me)
    assert not can_see_licence(roles["other"], me)
    assert can_see_licence(roles["organiser"], me)
    assert can_see_licence(roles["arbiter"], me)  # an arbiter of a tournament he plays
    assert can_see_licence(roles["staff"], me)
    reader = LicenceReader.of(roles["other"], event.tournament)
    assert reader.licence(me) is None and reader.licence(Player.objects.get(pk=other.pk))
    assert LicenceReader.of(roles["arbiter"], event.tournament).everyone
    assert not LicenceReader.of(AnonymousUser()).searches_licences


def test_the_public_player_pages(client, event):
    me = event.players[0]
    t = event.tournament
    pages = [
        reverse("player_detail", args=[me.pk]),
        reverse("player_results", args=[me.pk]),
        reverse("score_card", args=[t.pk, me.pk]),
    ]
    for url in pages:
        for user in (None, event.roles["other"]):
            assert not licences_in(read(client, url, user), event.players), url
        for role in ("me", "organiser", "arbiter", "staff"):
            assert me.licence in read(client, url, event.roles[role]), (url, role)


def test_the_players_search_matches_licences_for_club_staff_only(client, event):
    me = event.players[0]
    by_licence = f"{reverse('player_search')}?q={me.licence}"
    by_name = f"{reverse('player_search')}?q={me.last_name}"
    for user in (None, event.roles["other"]):
        assert me.full_name not in read(client, by_licence, user)  # no match: nothing told
        assert me.last_name in read(client, by_name, user)
        assert not licences_in(read(client, by_name, user), event.players)
    found = read(client, by_licence, event.roles["organiser"])
    assert me.last_name in found and me.licence in found


def test_the_players_api(client, event):
    me = event.players[0]
    detail = reverse("api_player", args=[me.pk])
    listing = f"{reverse('api_players')}?club={me.club_id}"
    search = f"{reverse('api_players')}?search={me.licence}"
    client.logout()
    assert client.get(detail).json()["licence"] is None
    assert {p["licence"] for p in client.get(listing).json()["results"]} == {None}
    assert client.get(search).json()["count"] == 0
    client.force_login(event.roles["other"])
    assert client.get(detail).json()["licence"] is None
    own = reverse("api_player", args=[event.players[1].pk])
    assert client.get(own).json()["licence"] == event.players[1].licence
    for role in ("me", "organiser", "arbiter", "staff"):
        client.force_login(event.roles[role])
        assert client.get(detail).json()["licence"] == me.licence, role
    client.force_login(event.roles["organiser"])
    assert None not in {p["licence"] for p in client.get(listing).json()["results"]}
    assert client.get(search).json()["count"] == 1


def test_the_tournaments_answers(client, event):
    t = event.tournament
    me = event.players[0]
    urls = [
        reverse("api_ranking", args=[t.pk]),
        reverse("api_score_card", args=[t.pk, me.pk]),
        reverse("api_traveller", args=[t.pk, 1]),
        reverse("api_registrations", args=[t.pk]),
        reverse("api_seats", args=[t.pk]),
    ]
    for url in urls:
        client.logout()
        response = client.get(url)
        if response.status_code == 200:
            assert not licences_in(response.content.decode(), event.players), url
        client.force_login(event.roles["other"])
        response = client.get(url)
        if response.status_code == 200:
            seen = licences_in(response.content.decode(), event.players)
            assert seen <= {event.players[1].licence}, url  # his own at most
        client.force_login(event.roles["arbiter"])
        body = client.get(url).content.decode()
        assert licences_in(body, event.players), url


def test_a_personal_link_shows_no_other_licence(client, event):
    me = event.players[0]
    link = player_link_issue(player=me, user=event.roles["organiser"])
    pages = [
        reverse("mine_link", args=[link.token]),
        reverse("mine_link_report", args=[link.token, event.tournament.pk]),
    ]
    for url in pages:
        assert not licences_in(read(client, url), event.players[1:]), url
