"""A player's championships on his own page ("Mon tarot"): his rank, points and events
counted in each championship that lists him, through the player page's sections hook."""

from __future__ import annotations

from django.test import Client

from scoring.rankings.rows import championship_everyone_rows
from tournaments.championships.player_section import player_championships
from tournaments.championships.ranking import championship_caught_up

from .conftest import add, create


def test_mon_tarot_lists_the_players_championships_with_his_line(season, make_user):
    championship = create(season, best_of=2, minimum_events=2)
    for built in season.tournaments:
        add(championship, season.organiser, built.tournament)
    standing = championship_caught_up(championship)
    star = season.tournaments[0].players[0]
    everyone = championship_everyone_rows(standing.data["lines"])
    mine = next(row for row in everyone if row[0] == f"L{star.licence}")

    lines = player_championships(star)
    assert [(c.pk, c.rank, c.counted, c.played) for c in lines] == [
        (championship.pk, mine[1], mine[5], len(mine[6]))
    ]

    user = make_user("joueuse")
    star.user = user
    star.save(update_fields=["user"])
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(user)
    html = client.get("/moi/").content.decode()
    assert "Mes championnats" in html
    assert f"/championships/{championship.pk}/" in html
    assert f"{mine[1]} sur" in html  # "3 sur 16": his rank among the classified


def test_a_player_in_no_championship_gets_no_section(season, make_user):
    outsider = season.tournaments[1].players[-1]
    assert player_championships(outsider) == []
    user = make_user("absent")
    outsider.user = user
    outsider.save(update_fields=["user"])
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(user)
    assert "Mes championnats" not in client.get("/moi/").content.decode()


def test_the_section_costs_one_query(season, django_assert_num_queries):
    championship = create(season)
    for built in season.tournaments:
        add(championship, season.organiser, built.tournament)
    championship_caught_up(championship)
    star = season.tournaments[0].players[0]
    with django_assert_num_queries(1):
        assert len(player_championships(star)) == 1
