"""The championships' API: create with the rule, add and remove events, séries, the ranking
with ?serie= and paging, the qualifiers; bad input a translated 400 naming the field with
nothing saved; who may do what."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tournaments.championships.models import Championship, ChampionshipEvent, SeasonSerie

from .conftest import RULE, published

pytestmark = pytest.mark.django_db

URL = "/api/v1/championships/"


def client_for(user, language: str = "fr") -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def body(season, **extra):
    return {
        "name": "Championnat du club",
        "season_start": "2026-09-01",
        "season_end": "2027-08-31",
        "club": season.club.pk,
        **RULE,
        **extra,
    }


def created(season, **extra) -> dict:
    answer = client_for(season.organiser).post(URL, body(season, **extra), format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def test_an_organiser_builds_a_championship_and_reads_its_ranking_by_serie(season):
    client = client_for(season.organiser)
    championship = created(season, qualify_top=3, qualify_top_per_serie=1, final_name="Finale")
    base = f"{URL}{championship['id']}/"
    for built in season.tournaments:
        answer = client.post(base + "events/", {"tournament": built.tournament.pk}, format="json")
        assert answer.status_code == 201 and answer.json()["agreed"] is True
    licences = [p.licence for p in season.tournaments[0].players]
    series = [{"licence": x, "serie": "2e" if i < 3 else "3e"} for i, x in enumerate(licences)]
    assert client.post(base + "series/", {"series": series}, format="json").status_code == 200
    anonymous = client_for(None)
    page = anonymous.get(base + "ranking/?limit=5").json()
    assert page["count"] == 12 and len(page["results"]) == 5 and page["provisional"] == []
    assert page["results"][0]["rank"] == 1 and len(page["results"][0]["events"]) >= 1
    second = anonymous.get(base + "ranking/?limit=5&offset=5").json()["results"]
    assert {x["licence"] for x in second}.isdisjoint({x["licence"] for x in page["results"]})
    deux = anonymous.get(base + "ranking/?serie=2e").json()
    assert deux["count"] == 3 and deux["results"][0]["rank"] == 1
    found = anonymous.get(base + "ranking/", {"q": page["results"][1]["last_name"].lower()})
    assert page["results"][1]["licence"] in {x["licence"] for x in found.json()["results"]}
    qualifiers = anonymous.get(base + "qualifiers/").json()
    assert qualifiers["final_name"] == "Finale"
    assert len(qualifiers["overall"]) >= 3 and set(qualifiers["per_serie"]) == {"2e", "3e"}
    entry = ChampionshipEvent.objects.filter(championship_id=championship["id"]).first()
    assert client.delete(f"{base}events/{entry.pk}/").status_code == 204
    assert ChampionshipEvent.objects.filter(championship_id=championship["id"]).count() == 2


@pytest.mark.parametrize(
    "extra, field",
    [
        ({"places": [25, -3, 1]}, "places"),
        ({"places": [16, 20, 25]}, "places"),
        ({"best_of": 6, "planned_events": 4}, "best_of"),
        ({"season_end": "2026-01-01"}, "season_end"),
        ({"tie_breaks": ["luck"]}, "tie_breaks"),
        ({"handicaps": {"Élite": "2"}}, "handicaps"),
    ],
)
def test_bad_rules_are_a_translated_400_naming_the_field_and_save_nothing(season, extra, field):
    for language in ("fr", "en"):
        answer = client_for(season.organiser, language).post(
            URL, body(season, **extra), format="json"
        )
        assert answer.status_code == 400
        assert any(key.split(".")[0] == field for key in answer.json()["details"]), answer.json()
    assert not Championship.objects.exists()


def test_bad_events_are_a_400_naming_the_field(season):
    client = client_for(season.organiser)
    championship = created(season, kind="total", places=[], places_beyond=0)
    base = f"{URL}{championship['id']}/"
    first = season.tournaments[0].tournament.pk
    assert client.post(base + "events/", {"tournament": first}, format="json").status_code == 201
    twice = client.post(base + "events/", {"tournament": first}, format="json")
    assert twice.status_code == 400 and "tournament" in twice.json()["details"]
    assert "compte déjà" in twice.json()["message"]
    other = published(season.club, dt.date(2027, 1, 9), method="matchpoints", seed=12)
    method = client.post(base + "events/", {"tournament": other.tournament.pk}, format="json")
    assert method.status_code == 400 and "tournament" in method.json()["details"]
    dates = client.patch(base, {"season_end": "2026-10-01"}, format="json")
    assert dates.status_code == 400 and "season_end" in dates.json()["details"]
    frozen = client.patch(base, {"best_of": 1}, format="json")
    assert frozen.status_code == 400 and "best_of" in frozen.json()["details"]
    assert "figée" in frozen.json()["details"]["best_of"][0]
    unknown = client.post(base + "events/", {"tournament": 987654}, format="json")
    assert unknown.status_code == 400 and "tournament" in unknown.json()["details"]
    series = client.post(base + "series/", {"series": [{"licence": "12", "serie": "2e"}]},
                         format="json")  # fmt: skip
    assert series.status_code == 400 and "series" in series.json()["details"]
    assert ChampionshipEvent.objects.count() == 1 and not SeasonSerie.objects.exists()


def test_only_organisers_write_and_the_events_organiser_agrees(season, make_user):
    championship = created(season)
    base = f"{URL}{championship['id']}/"
    player = make_user("joueuse")
    assert client_for(None).post(URL, body(season), format="json").status_code == 401
    assert client_for(player).post(URL, body(season), format="json").status_code == 403
    assert client_for(player).patch(base, {"name": "X"}, format="json").status_code == 403
    # an organiser of another club may not manage it, but may agree for his own tournament
    from tournaments.models import Club

    other_organiser = make_user("voisin")
    other = Club.objects.create(name="Club voisin", federation_number="0777")
    other.organisers.add(other_organiser)
    theirs = published(other, dt.date(2027, 2, 6), seed=21).tournament
    neighbour = client_for(other_organiser)
    assert neighbour.patch(base, {"name": "X"}, format="json").status_code == 403
    added = client_for(season.organiser).post(
        base + "events/", {"tournament": theirs.pk}, format="json"
    )
    assert added.status_code == 201 and added.json()["agreed"] is False
    entry = added.json()["id"]
    assert client_for(season.organiser).post(f"{base}events/{entry}/agree/").status_code == 403
    agreed = neighbour.post(f"{base}events/{entry}/agree/")
    assert agreed.status_code == 200 and agreed.json()["agreed"] is True
    assert client_for(None).get(base + "ranking/").status_code == 200
