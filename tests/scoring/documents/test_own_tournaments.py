"""Documents of tournaments a test stages for itself: a match-points ranking, route cards
before the seating, a score card over two pages, the new kinds at five tables, the score
sheets of a one-round tournament, the table pages of every sheet read at once. They live
apart from the modules of the played tournament (test_renderers.py, test_new_kinds.py,
test_preparation_documents.py), which make it once for the module with the personas
(tests/scoring/documents/conftest.py): a tournament staged with those personas beside it
would give the player user a second player, and one staged without them would meet the
module's rows (the table pages are counted across the database)."""

from __future__ import annotations

import re

import pytest

from scoring.documents.models import Document
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Donne, Player, Seat, TableAccess, TableRound, Tournament

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


def test_a_tournament_of_one_round_sends_every_etui_set_back_to_the_arbiter(personas):
    tournament = stage_tournament(players=8, rounds=1)
    text = pdf_text(render(tournament, Document.Kind.SCORE_SHEETS))
    assert text.count("to the arbiter.") == 2


@pytest.mark.django_db
def test_score_sheets_read_every_table_page_at_once():
    """The QR codes' table pages are read in one query for the whole tournament, not two a
    sheet: a second build of 16 tables × 2 rounds costs what one of 2 tables × 2 rounds does."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries_of_a_second_build(tournament: Tournament) -> int:
        render(tournament, "score_sheets")  # the first build creates the table pages
        with CaptureQueriesContext(connection) as ctx:
            render(tournament, "score_sheets")
        return len(ctx.captured_queries)

    small = queries_of_a_second_build(stage_tournament(players=8, rounds=2))
    large = queries_of_a_second_build(stage_tournament(players=64, rounds=2, name="Grand"))
    assert large == small
    assert TableAccess.objects.filter(revoked_at=None).count() == (2 + 16) * 2
