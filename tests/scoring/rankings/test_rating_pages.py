"""The rating on the player's pages (issue 35): "Mon tarot" shows the indice, each event's
change and the percentage expected from the field's ratings against the one scored; the
history API carries them; the club's players list and CSV have a rating column; the
organiser's switch hides it everywhere; three queries at most for a history."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.rankings.models import ClubRatingSetting, PlayerRating
from scoring.rankings.player_history import history_lines
from scoring.rankings.rating import rating_recompute, rating_summary, with_rating
from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tests.tournaments.api.conftest import client_for
from tournaments.models import Club, Player, Registration, Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def rated():
    """A club's published tournament, rated; its first player signed in as `moi`, the
    club's organiser `orga`."""
    me = get_user_model().objects.create_user("moi", password="x")
    organiser = get_user_model().objects.create_user("orga", password="x")
    club = Club.objects.create(name="Club du jeudi", federation_number="0430")
    club.organisers.add(organiser)
    built = build_tournament(
        players=8, club=club, status="published", date=datetime.date.today(), seed=4
    )
    fill_results(built, seed=4)
    ranking_recompute(tournament_id=built.tournament.pk)
    rating_recompute()
    player = built.players[0]
    player.user = me
    player.save(update_fields=["user"])
    return built, player, me, organiser


def get(client, url, user=None, **extra):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(url, **{**EN, **extra})


def test_mine_shows_the_indice_and_each_events_expected_and_scored(client, rated):
    _built, player, me, _organiser = rated
    stored = PlayerRating.objects.get(player=player)
    body = get(client, reverse("mine"), me).content.decode()
    assert 'id="rating"' in body
    assert f"<strong>{round(stored.rating)}</strong>" in body
    assert "not the federation&#x27;s ranking" in body or "not the federation's ranking" in body
    [line] = stored.history
    change = round(line[3] - line[1])
    shown = f"+{change}" if change > 0 else (f"−{-change}" if change < 0 else "0")
    assert f">{shown}</span>" in body
    assert "Expected / scored" in body and "50 % /" in body  # everyone new: 50 % expected
    french = get(client, reverse("mine"), me, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Attendu / obtenu" in french and "ce n’est pas le classement de la fédération" in french


def test_a_player_not_rated_yet_and_a_club_switched_off(client, rated):
    built, player, me, _organiser = rated
    PlayerRating.objects.filter(player=player).delete()
    body = get(client, reverse("mine"), me).content.decode()
    assert "No indice yet" in body
    ClubRatingSetting.objects.create(club=built.tournament.club, enabled=False)
    body = get(client, reverse("mine"), me).content.decode()
    assert 'id="rating"' not in body and "Indice" not in body


def test_the_history_with_the_rating_reads_three_queries_at_most(
    rated, django_assert_max_num_queries
):
    built, player, _me, _organiser = rated
    for i in range(12):
        t = Tournament.objects.create(
            club=built.tournament.club, name=f"T{i}", date=datetime.date(2025, 1, 1 + i)
        )
        Tournament.objects.filter(pk=t.pk).update(status="published")
        Registration.objects.create(tournament=t, player=player)
    with django_assert_max_num_queries(3):  # the player with his rating, then the history
        player = with_rating(Player.objects.select_related("club")).get(pk=player.pk)
        lines = history_lines(player)
        summary = rating_summary(player)
    assert len(lines) == 13 and summary.shown
    assert list(summary.by_tournament) == [built.tournament.pk]


def test_the_history_api_carries_the_rating(rated):
    built, player, me, _organiser = rated
    body = client_for(me).get(f"/api/v1/players/{player.pk}/history/").json()
    stored = PlayerRating.objects.get(player=player)
    assert body["rating"] == {"shown": True, "rating": stored.rating, "deviation": stored.deviation}
    [event] = body["events"]
    assert event["rating"]["after"] == stored.rating
    assert event["rating"]["expected_percentage"] == 50.0
    assert 0 <= event["rating"]["achieved_percentage"] <= 100
    ClubRatingSetting.objects.create(club=built.tournament.club, enabled=False)
    body = client_for(me).get(f"/api/v1/players/{player.pk}/history/").json()
    assert body["rating"] == {"shown": False, "rating": None, "deviation": None}
    assert body["events"][0]["rating"] is None


def test_the_clubs_players_list_and_csv_have_the_rating(client, rated):
    built, player, _me, organiser = rated
    club = built.tournament.club
    page = get(client, reverse("organiser_club_players", args=[club.pk]), organiser)
    body = page.content.decode()
    assert '<th scope="col" class="num">Indice</th>' in body
    assert f'<td class="num">{round(PlayerRating.objects.get(player=player).rating)}</td>' in body
    csv_text = get(client, reverse("organiser_club_players_csv", args=[club.pk]), organiser)
    lines = csv_text.content.decode("utf-8").splitlines()
    assert lines[0].endswith(",Indice")
    mine = next(line for line in lines if player.licence in line)
    assert mine.endswith(f",{round(PlayerRating.objects.get(player=player).rating)}")


def test_only_the_clubs_organisers_switch_it_and_off_hides_the_column(
    client, rated, django_capture_on_commit_callbacks
):
    built, player, me, organiser = rated
    club = built.tournament.club
    url = reverse("organiser_club_rating", args=[club.pk])
    client.force_login(me)
    assert client.post(url, {"enabled": "0"}).status_code == 403
    client.logout()
    assert client.post(url, {"enabled": "0"}).status_code == 302  # to the login
    assert not ClubRatingSetting.objects.exists()
    client.force_login(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"enabled": "0"}, **EN)
    assert response.status_code == 302
    assert ClubRatingSetting.objects.get(club=club).enabled is False
    assert not PlayerRating.objects.filter(player=player).exists()  # recomputed without it
    body = get(client, reverse("organiser_club_players", args=[club.pk]), organiser)
    text = body.content.decode()
    assert '<th scope="col" class="num">Indice</th>' not in text
    assert "Switch the indice on" in text
    csv_text = get(client, reverse("organiser_club_players_csv", args=[club.pk]), organiser)
    assert "Indice" not in csv_text.content.decode("utf-8")
    assert client.get(url).status_code == 405  # a switch is a POST
