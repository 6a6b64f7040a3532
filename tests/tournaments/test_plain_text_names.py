"""Names that others read refuse control characters and direction overrides, whichever way
they come in (form service, CSV import, API), saying which characters to remove."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.tournaments.api.conftest import client_for
from tournaments.models import Club, Player
from tournaments.services.players import PlayerImportError, player_create, players_import_csv
from tournaments.services.tournaments import tournament_update
from tournaments.validators import (
    BIDI_CONTROLS,
    hidden_characters,
    nothing_visible,
    prints_nothing,
    stacked_marks,
    validate_plain_text,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def club() -> Club:
    return Club.objects.create(name="Tarot Club de Lyon", federation_number="0101", city="Lyon")


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp"))))
def test_printable_text_with_accents_and_emoji_passes(text):
    # Blank-looking letters, default-ignorable marks, piles of accents and blank values are
    # refused too (issue 30.7 c): tests/tournaments/test_visible_text.py.
    text = "".join(c for c in text if c not in BIDI_CONTROLS and not prints_nothing(c))
    assume(stacked_marks(text) is None and not nothing_visible(text))
    assert hidden_characters(text) == []
    validate_plain_text(text)


def test_a_right_to_left_override_is_refused_and_named(club):
    with translation.override("en"), pytest.raises(ValidationError) as caught:
        player_create(club=club, licence="0123456", last_name="Mercier\u202e", first_name="Zoé")
    assert "U+202E" in " ".join(caught.value.messages)
    assert not Player.objects.exists()


def test_the_csv_import_names_the_line_and_the_character(club):
    text = "licence;nom;prénom\n0123456;Arnaud;Camille\n0123457;Ber\x07nard;Louis\n"
    with translation.override("en"), pytest.raises(PlayerImportError) as caught:
        players_import_csv(club=club, text=text)
    errors = dict(caught.value.line_errors)
    assert list(errors) == [3] and "U+0007" in " ".join(errors[3])
    assert not Player.objects.exists()  # nothing half-saved


def test_a_tournament_venue_and_an_api_player_are_refused_too(running_tournament, personas):
    with pytest.raises(ValidationError):
        tournament_update(tournament=running_tournament, venue="Salle\u2066 des fêtes")
    running_tournament.refresh_from_db()
    assert "\u2066" not in running_tournament.venue
    club_id = running_tournament.club_id
    response = client_for(personas.organiser).post(
        "/api/v1/players/",
        {"club": club_id, "licence": "0999999", "last_name": "Roux\u202d", "first_name": "Théo"},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert "U+202D" in response.content.decode()
