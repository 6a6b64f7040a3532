"""Sitting out shared (RULES §7), seen through the API before play: a 21-player, 2-round
tournament built entirely through the API seats everyone with a sit-out spread of at most one,
and the seats say who sits out which donne."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.fixtures.tournaments import Personas
from tests.tournaments.api.conftest import client_for
from tournaments.models import Club

pytestmark = pytest.mark.django_db


def test_twenty_one_players_two_rounds_through_the_api(personas: Personas) -> None:
    club = Club.objects.create(name="Club du Mort", federation_number="0777")
    club.organisers.add(personas.organiser)
    api = client_for(personas.organiser)
    lines = ["licence,last_name,first_name"] + [
        f"07770{k:02d},Joueur{k:02d},Prénom{k:02d}" for k in range(1, 22)
    ]
    r = api.post(
        f"/api/v1/clubs/{club.pk}/players/import/", {"csv": "\n".join(lines) + "\n"}, format="json"
    )
    assert r.status_code == 200, r.content
    r = api.post(
        "/api/v1/tournaments/",
        {"club": club.pk, "name": "Vingt et un", "date": "2026-12-20", "rounds": 2},
        format="json",
    )
    assert r.status_code == 201, r.content
    t = r.json()["id"]
    base = f"/api/v1/tournaments/{t}/"
    assert api.post(base + "status/", {"status": "registration"}, format="json").status_code == 200
    players = api.get("/api/v1/players/", {"club": club.pk, "page_size": 100}).json()
    players = players["results"] if isinstance(players, dict) else players
    assert len(players) == 21
    for p in players:
        r = api.post(base + "registrations/", {"player": p["id"]}, format="json")
        assert r.status_code == 201, r.content
    assert api.post(base + "registrations/check-in-all/").status_code == 200
    r = api.post(base + "generate/", {}, format="json")
    assert r.status_code == 200, r.content

    r = api.get(base + "seats/", {"page_size": 500})
    assert r.status_code == 200, r.content
    seats = r.json()
    seats = seats["results"] if isinstance(seats, dict) else seats
    assert len(seats) == 42
    sat_out: Counter[int] = Counter()
    per_donne: Counter[int] = Counter()
    for seat in seats:
        order = seat["sit_out_order"]
        if order:
            assert len(order) == 4 and seat["table"] == 5
        for donne in seat["sits_out"]:
            sat_out[seat["player"]["id"]] += 1
            per_donne[donne] += 1
            assert order[(donne - 1) % 4] == seat["position"]
    counts = [sat_out.get(p["id"], 0) for p in players]
    assert max(counts) - min(counts) <= 1
    assert sorted(counts) == [0] * 13 + [1] * 8
    assert sorted(per_donne.values()) == [1] * 8  # one player sits out each donne of table 5

    # the tables say the same by position, round by round, to anyone who may see them
    tables = api.get(base + "tables/").json()
    tables = tables["results"] if isinstance(tables, dict) else tables
    five = [t for t in tables if t["size"] == 5]
    assert [t["sit_outs"] for t in tables if t["size"] == 4] == [[]] * 4
    assert len(five) == 1 and [s["round"] for s in five[0]["sit_outs"]] == [1, 2]
    orders = {s["round"]: s["order"] for s in five[0]["sit_outs"]}
    for seat in seats:
        if seat["table"] == 5:
            assert seat["sit_out_order"] == orders[seat["round"]]
    detail = api.get(base + "tables/5/").json()
    assert detail["sit_outs"] == five[0]["sit_outs"]
