"""Accent- and case-blind search of people (tournaments/search.py), on SQLite and PostgreSQL,
and the reading of CSV files in the encodings spreadsheets write."""

from __future__ import annotations

import pytest
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from tests.fixtures.tournaments import Personas, stage_tournament
from tournaments.models import Club, Player
from tournaments.search import _fold_unicode, fold, players_matching
from tournaments.services.players import CsvEncodingError, csv_decode, players_import_csv

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def test_fold_drops_accents_case_and_extra_spaces():
    assert fold("  Hélène   LEFÈVRE ") == "helene lefevre"
    assert fold("Éloïse Œuvray") == "eloise oeuvray"
    assert fold("Françoise Lætitia") == "francoise laetitia"


@given(st.text())
def test_fold_is_idempotent_and_never_has_combining_marks(text):
    folded = fold(text)
    assert fold(folded) == folded
    assert folded == folded.casefold()


@pytest.fixture
def club(db) -> Club:
    club = Club.objects.create(name="Les Rois", federation_number="4242")
    for licence, last, first in [
        ("0424201", "Lefèvre", "Hélène"),
        ("0424202", "Dupré", "Éloïse"),
        ("0424203", "Lefebvre", "Paul"),
    ]:
        Player.objects.create(club=club, licence=licence, last_name=last, first_name=first)
    return club


def _names(queryset) -> list[str]:
    return sorted(p.full_name for p in queryset)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("helene", ["Hélène Lefèvre"]),
        ("lefevre", ["Hélène Lefèvre"]),
        ("LEFÈVRE hel", ["Hélène Lefèvre"]),
        ("eloise", ["Éloïse Dupré"]),
        ("ELOÏSE dupre", ["Éloïse Dupré"]),
        ("lefe", ["Hélène Lefèvre", "Paul Lefebvre"]),
        ("04242", ["Hélène Lefèvre", "Paul Lefebvre", "Éloïse Dupré"]),
        ("zoé", []),
    ],
)
def test_players_matching_ignores_accents_and_case_in_the_database(club, query, expected):
    assert _names(players_matching(Player.objects.all(), query)) == sorted(expected)


@pytest.mark.django_db
def test_the_search_name_follows_edits_and_imports(club):
    player = Player.objects.get(licence="0424203")
    player.first_name = "Élodie"
    player.save(update_fields=["first_name"])
    assert _names(players_matching(Player.objects.all(), "elodie")) == ["Élodie Lefebvre"]

    players_import_csv(
        club=club,
        text="licence;nom;prenom\n0424203;Lefebvre;Anaïs\n0424209;Hérault;Noémie\n",
    )
    assert _names(players_matching(Player.objects.all(), "anais")) == ["Anaïs Lefebvre"]
    assert _names(players_matching(Player.objects.all(), "herault noemie")) == ["Noémie Hérault"]


@pytest.mark.django_db
def test_every_search_page_is_accent_blind(client, club, personas: Personas):
    """The public players page, the organiser's players and the registration search."""
    response = client.get(reverse("player_search"), {"q": "helene"}, **EN)
    assert "Lefèvre Hélène" in response.content.decode()
    assert "Lefebvre" not in response.content.decode()

    club.organisers.add(personas.organiser)
    client.force_login(personas.organiser)
    response = client.get(reverse("organiser_club_players", args=[club.pk]), {"q": "eloise"})
    assert "Dupré" in response.content.decode()
    assert "Lefèvre" not in response.content.decode()

    tournament = stage_tournament(personas=personas, status="registration")
    response = client.get(
        reverse("organiser_registration_search", args=[tournament.pk]), {"q": "lefevre"}
    )
    assert "Lefèvre" in response.content.decode()
    assert "Lefebvre" not in response.content.decode()


def test_csv_decode_reads_utf8_with_and_without_bom_and_windows_1252():
    text = "licence;nom;prénom\n0999011;Lefèvre;Zoé\n"
    assert csv_decode(text.encode("utf-8")) == (text, "utf-8")
    assert csv_decode(b"\xef\xbb\xbf" + text.encode("utf-8")) == (text, "utf-8-sig")
    assert csv_decode(text.encode("cp1252")) == (text, "cp1252")
    # The letters only Windows-1252 has among the single-byte encodings (Œ, €, ’).
    assert csv_decode("Œuvray’s €".encode("cp1252")) == ("Œuvray’s €", "cp1252")


def test_csv_decode_refuses_what_is_not_text():
    with pytest.raises(CsvEncodingError):
        csv_decode("licence".encode("utf-16"))
    with pytest.raises(CsvEncodingError):
        csv_decode(b"abc\x81\x8d")  # bytes Windows-1252 leaves undefined


@given(st.text() | st.text(alphabet=st.characters(max_codepoint=127)))
def test_fold_of_ascii_text_is_the_unicode_fold(text):
    """The shortcut for ASCII text (no decomposition) against the one for any text."""
    assert fold(text) == _fold_unicode(text)
