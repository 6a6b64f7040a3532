"""One normalisation of names (`fold`) and one French order of names (`name_order`, and
`name_ordering` in SQL) for every list and search, on PostgreSQL as on SQLite."""

from __future__ import annotations

import html
import importlib

import pytest
from django.apps import apps as django_apps
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from tests.fixtures.tournaments import Personas, stage_tournament
from tournaments.models import Club, Player, Registration, Seat
from tournaments.search import fold, name_order, name_ordering, players_matching
from tournaments.services.seat_lookup import seats_lookup

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
# As a French reader files them; a binary collation puts Ç, É and Œ after R.
FRENCH_ORDER = [
    ("Çelik", "Deniz"),
    ("de La Tour", "Anne"),
    ("Dupont", "Zoé"),
    ("Dupontel", "Albert"),
    ("Ébrard", "Luc"),
    ("N'Diaye", "Aïssatou"),
    ("Œuvray", "Éloïse"),
    ("Roussel", "Marc"),
]


@pytest.mark.parametrize("typed", ["n’diaye", "N'Diaye", "NDiaye", "ndiaye", "N‘DIAYE", "Nʼdiaye"])
def test_an_apostrophe_typed_or_left_out_folds_alike(typed):
    assert fold(typed) == fold("N'Diaye") == "ndiaye"


def test_hyphens_separate_words_and_ligatures_are_spelt_out():
    assert fold("Le-Gall") == fold("Le Gall") == fold("LE – GALL") == "le gall"
    assert fold("Œuvray") == "oeuvray" and fold("Lætitia") == "laetitia"


def test_the_french_order_in_python():
    people = [
        Player(pk=i, last_name=last, first_name=first)
        for i, (last, first) in enumerate(reversed(FRENCH_ORDER))
    ]
    assert [(p.last_name, p.first_name) for p in sorted(people, key=name_order)] == FRENCH_ORDER


@pytest.fixture
def club(db) -> Club:
    club = Club.objects.create(name="Les Rois", federation_number="4242")
    for number, (last, first) in enumerate(reversed(FRENCH_ORDER)):
        Player.objects.create(
            club=club, licence=f"04242{number:02d}", last_name=last, first_name=first
        )
    return club


def _order(players) -> list[tuple[str, str]]:
    return [(p.last_name, p.first_name) for p in players]


@pytest.mark.django_db
def test_the_database_files_names_in_the_french_order(club):
    assert _order(Player.objects.all()) == FRENCH_ORDER  # the default ordering
    assert _order(Player.objects.order_by(*name_ordering())) == FRENCH_ORDER
    assert _order(sorted(Player.objects.all(), key=name_order)) == FRENCH_ORDER


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    names=st.lists(
        st.tuples(
            st.text(alphabet="aAeéÉèçÇœŒ' ’-zZ", min_size=1, max_size=6),
            st.text(alphabet="aéÉ'- z", min_size=1, max_size=4),
        ),
        min_size=2,
        max_size=8,
    )
)
@pytest.mark.django_db
def test_the_database_and_python_orders_are_one(club, names):
    Player.objects.filter(club=club).delete()
    for number, (last, first) in enumerate(names):
        Player.objects.create(
            club=club, licence=f"09{number:05d}", last_name=last, first_name=first
        )
    in_sql = [p.pk for p in Player.objects.filter(club=club).order_by(*name_ordering())]
    assert in_sql == [p.pk for p in sorted(Player.objects.filter(club=club), key=name_order)]


@pytest.mark.django_db
def test_the_club_players_page_and_the_api_list_in_the_french_order(client, club, personas):
    club.organisers.add(personas.organiser)
    client.force_login(personas.organiser)
    answer = client.get(reverse("organiser_club_players", args=[club.pk]), **EN)
    page = html.unescape(answer.content.decode())
    positions = [page.index(last) for last, _first in FRENCH_ORDER]
    assert positions == sorted(positions)
    api = APIClient()
    api.force_authenticate(personas.organiser)
    listed = api.get("/api/v1/players/", {"club": club.pk}).json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [(r["last_name"], r["first_name"]) for r in rows] == FRENCH_ORDER


@pytest.mark.django_db
def test_where_do_i_sit_finds_a_name_typed_with_any_apostrophe(client, running_tournament):
    t = running_tournament
    seat = Seat.objects.filter(round__tournament=t).select_related("player").first()
    player = seat.player
    player.last_name, player.first_name = "N'Diaye", "Aïssatou"
    player.save()
    for typed in ("n’diaye", "NDiaye", "aissatou n diaye", "N'DIAYE"):
        routes = seats_lookup(tournament=t, query=typed)
        assert [r.player.pk for r in routes] == [player.pk], typed
        page = client.get(reverse("tournament_seats", args=[t.pk]), {"q": typed}, **EN)
        assert "Aïssatou N&#x27;Diaye" in page.content.decode(), typed
    # A query of apostrophes alone finds nobody (it is not "every name").
    assert seats_lookup(tournament=t, query="’’") == []
    assert list(players_matching(Player.objects.all(), "ndiaye")) == [player]


@pytest.mark.django_db
def test_the_registrations_follow_the_same_order(club, personas: Personas):
    tournament = stage_tournament(personas=personas, status="registration")
    Registration.objects.filter(tournament=tournament).delete()
    for player in Player.objects.filter(club=club):
        Registration.objects.create(tournament=tournament, player=player)
    registered = Registration.objects.filter(tournament=tournament).select_related("player")
    assert _order(r.player for r in registered) == FRENCH_ORDER


@pytest.mark.django_db
def test_the_migration_folds_the_players_saved_before_it(club):
    """The names saved before the one normalisation get both columns computed again."""
    Player.objects.update(search_name="n'diaye aissatou", sort_name="")
    migration = importlib.import_module("tournaments.migrations.0013_player_sort_name")
    migration.refold(django_apps, None)
    assert _order(Player.objects.all()) == FRENCH_ORDER
    assert [p.last_name for p in players_matching(Player.objects.all(), "ndiaye")] == ["N'Diaye"]
