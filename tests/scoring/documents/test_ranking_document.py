"""The printed ranking: provisional after round N or final in its title, set at 10 pt or more,
the donnes each player played, numbers in the document's language."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from scoring.documents.base import FOOTER_H, MARGIN
from scoring.documents.models import Document
from scoring.documents.ranking import rounds_complete
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.helpers import ranking_read
from tournaments.models import Tournament

from .pdf import pdf_text
from .play import play_results
from .test_renderers import render

pytestmark = pytest.mark.django_db


def test_the_title_says_provisional_after_the_last_complete_round(personas):
    tournament = stage_tournament(players=8, rounds=3, personas=personas)
    assert rounds_complete(tournament) == (0, 3)
    text = pdf_text(render(tournament, Document.Kind.RANKING))
    assert "Ranking, provisional — no round complete yet" in text
    play_results(tournament, personas.arbiter, rounds={1, 3})  # round 2 still missing
    tournament.refresh_from_db()
    assert rounds_complete(tournament) == (1, 3)
    french = pdf_text(render(tournament, Document.Kind.RANKING, language="fr"))
    assert "Classement provisoire — après le tour 1" in french
    assert "définitif" not in french


def test_the_title_says_final_once_the_tournament_is_over_and_complete(personas):
    tournament = stage_tournament(players=8, rounds=2, personas=personas)
    play_results(tournament, personas.arbiter)
    tournament.refresh_from_db()
    # Every result in, but still running: provisional after the last round.
    assert "Classement provisoire — après le tour 2" in pdf_text(
        render(tournament, Document.Kind.RANKING, language="fr")
    )
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    tournament.refresh_from_db()
    french = pdf_text(render(tournament, Document.Kind.RANKING, language="fr"))
    assert "Classement définitif" in french and "provisoire" not in french
    assert "Ranking, final" in pdf_text(render(tournament, Document.Kind.RANKING))


def body_font_sizes(content: bytes) -> list[tuple[str, float]]:
    """(text, size) of every piece of text between the page header and the footer."""
    sizes: list[tuple[str, float]] = []
    for page in PdfReader(io.BytesIO(content)).pages:
        height = float(page.mediabox.height)

        def visit(text, cm, tm, font_dict, font_size, height=height):
            y = tm[5] * cm[3] + cm[5]
            scale = abs(tm[3] * cm[3]) or 1
            if text.strip() and MARGIN + FOOTER_H < y < height - MARGIN - 20:
                sizes.append((text.strip(), font_size * scale))

        page.extract_text(visitor_text=visit)
    return sizes


def test_everything_on_the_ranking_is_at_least_10_points(played_tournament):
    sizes = body_font_sizes(render(played_tournament, Document.Kind.RANKING))
    assert sizes
    small = [(text, size) for text, size in sizes if size < 10 - 1e-6]
    assert not small, small[:10]


def test_the_ranking_shows_the_donnes_played_and_french_numbers(played_tournament):
    text = pdf_text(render(played_tournament, Document.Kind.RANKING, language="fr"))
    assert "Donnes jouées" in text
    view = ranking_read(played_tournament)
    for line in view.rows:
        # Rank, name, club, licence, then the donnes he played.
        assert re.search(rf"{re.escape(line.player.licence)} {line.donnes_played} ", text), (
            line.player
        )
    # Half points of the differentials are written with a comma, never a point.
    assert re.search(r"[+-]\d+,5\b", text)
    assert not re.search(r"[+-]\d+\.5\b", text)
    tournament = stage_tournament(players=8, rounds=1, method="matchpoints")
    french = pdf_text(render(tournament, Document.Kind.RANKING, language="fr"))
    assert "un point de pénalité coûte 0,1 points de pourcentage" in french
