"""Documents of tournaments a test stages for itself, with the personas: a match-points
ranking, route cards before the seating, a score card over two pages, the new kinds at five
tables. They live apart from the modules of the played tournament (test_renderers.py,
test_new_kinds.py), which make it once for the module with the same personas
(tests/scoring/documents/conftest.py): a tournament staged with those personas beside it
would give the player user a second player."""

from __future__ import annotations

import re

import pytest

from scoring.documents.models import Document
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Donne, Player, Seat, TableRound

from . import test_new_kinds as new_kinds
from .pdf import page_texts, pdf_text
from .test_renderers import render

pytestmark = pytest.mark.django_db

Kind = Document.Kind


def test_ranking_under_match_points_names_the_method_and_the_rate(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas, method="matchpoints")
    from .play import play_results

    play_results(tournament, personas.arbiter)
    text = pdf_text(render(tournament, Document.Kind.RANKING))
    assert "Comparison method: Match points" in text
    assert "a penalty point costs 0.1 percentage points" in text
    assert "Match points %" in text


def test_documents_before_the_seating_say_so(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    Seat.objects.filter(round__tournament=tournament).delete()
    TableRound.objects.filter(round__tournament=tournament).delete()
    Donne.objects.filter(tournament=tournament).delete()
    text = pdf_text(render(tournament, Document.Kind.ROUTE_CARDS))
    assert "The seating has not been generated yet." in text


def test_a_long_score_card_continues_on_the_next_page_with_its_header(personas):
    tournament = stage_tournament(players=8, rounds=12, personas=personas)
    player = Player.objects.filter(registrations__tournament=tournament).first()
    content = render(tournament, Document.Kind.SCORE_CARDS, part=player.pk)
    texts = page_texts(content)
    assert len(texts) == 2
    for text in texts:
        assert "Donne Round / table Position Contract" in text  # the header, repeated
        assert player.full_name in text  # the page header names the card's player
    # Not played yet: the position the seating gives, no scores.
    numbers = re.findall(
        r"\b(\d+) \d+ / \d+ (?:North|East|South|West) Not played yet", " ".join(texts)
    )
    expected = {
        d.number
        for d in Donne.objects.filter(
            tournament=tournament, etui_set__table_rounds__seats__player=player
        )
    }
    assert len(expected) == 48
    assert sorted(int(n) for n in numbers) == sorted(expected)


def test_every_new_kind_builds_for_a_tournament_of_five_tables(personas):
    tournament = stage_tournament(players=20, rounds=3, personas=personas)
    for kind in (
        Kind.MOVEMENT_CHART,
        Kind.TABLE_CARDS,
        Kind.CHECK_IN_LIST,
        Kind.ETUI_LABELS,
        Kind.ARBITER_LOG,
        Kind.RESULTS_SUMMARY,
    ):
        for language in ("fr", "en"):
            assert new_kinds.render(tournament, kind, language=language).startswith(b"%PDF")
