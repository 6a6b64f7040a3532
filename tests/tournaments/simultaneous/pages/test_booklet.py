"""The booklet of a simultaneous event: hand records of every donne, each donne's frequency
sheet and the overall ranking with licences, drawn like the tournaments' documents."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from tests.scoring.documents.layout import layout_problems
from tests.scoring.documents.pdf import ink_ratio, page_texts, pdf_text, render_pages
from tests.scoring.documents.test_layout import CLUBS, PLAYERS, TITLE
from tests.tournaments.simultaneous.pages.builders import (
    bulk_ranking_rows,
    lift_embargo,
    make_field,
    small_field,
)
from tournaments.simultaneous.hub import reads
from tournaments.simultaneous.hub.booklet import BookletRenderer
from tournaments.simultaneous.hub.frequencies import frequency_sheet
from tournaments.simultaneous.hub.models import OverallRankingRow

pytestmark = pytest.mark.django_db


def booklet(client, field, language: str) -> bytes:
    response = client.get(
        reverse("simultaneous_booklet", args=[field.event.public_id]),
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    return response.content


def test_the_booklet_holds_hands_frequencies_and_the_ranking(client, field):
    lift_embargo(field)
    content = booklet(client, field, "en")
    texts = page_texts(content)
    text = " ".join(texts)
    for title in ("Booklet", "Hand records", "Frequencies", "Overall ranking"):
        assert title in text, title
    for number in range(1, field.event.donne_count + 1):
        assert f"Donne {number}" in text
    ranking = text[text.index("Overall ranking") :]
    licences = list(
        OverallRankingRow.objects.filter(event=field.event)
        .order_by("place")
        .values_list("licence", flat=True)
    )
    positions = [ranking.index(licence) for licence in licences]
    assert positions == sorted(positions)  # in the ranking's order
    # the seed is revealed once the embargo is over, and nothing says "confidential"
    assert field.event.seed in text.replace(" ", "") and "confidential" not in text
    for image in render_pages(content):  # every page drawn by a second reader, none blank
        assert ink_ratio(image) > 0.005


def test_in_french_and_confidential_for_the_organisers_under_embargo(client, field, people):
    client.force_login(people["organiser"])
    text = pdf_text(booklet(client, field, "fr"))
    assert "Livret" in text and "Fréquences" in text and "Classement général" in text
    assert "confidentiel" in text
    assert field.event.seed not in text.replace(" ", "")


def test_long_names_are_laid_out_without_overprinting(client, people):
    """The documents' layout check (tests/scoring/documents/layout.py) on the booklet, with the
    60–90-character names it uses for every tournament document."""
    f = small_field(people["organiser"], names=PLAYERS * 2, name=TITLE, clubs=(CLUBS[0], CLUBS[1]))
    lift_embargo(f)
    for language in ("fr", "en"):
        content = booklet(client, f, language)
        problems = layout_problems(
            content,
            texts=[TITLE, *CLUBS, *(f"{first} {last}" for first, last in PLAYERS)],
            on_every_page=[TITLE],
        )
        assert not problems, "\n".join(problems[:40])


def test_the_ranking_pages_list_every_player_in_order_with_licence_and_club(people):
    """Every stored row, in the ranking's order, on the ranking pages: rank (= when tied),
    name, licence, club, donnes, penalty and total, across the page breaks."""
    f = make_field(people["organiser"])
    bulk_ranking_rows(f.event, 250, clubs=3)
    lift_embargo(f)
    with translation.override("en"):
        _name, _mime, content = BookletRenderer(f.event).render()
    texts = page_texts(content)
    start = next(k for k, t in enumerate(texts) if "Overall ranking" in t)
    ranking = " ".join(texts[start:])
    rows = OverallRankingRow.objects.filter(event=f.event).order_by("place")
    tied = {r.rank for r in rows if r.place != r.rank}
    at = 0
    for row in rows:
        mark = "=" if row.rank in tied else ""
        penalty = f"\N{MINUS SIGN}{row.penalty_points}" if row.penalty_points else ""
        words = [f"{row.rank}{mark}", row.first_name, row.last_name, row.licence]
        words += [*row.club_name.split(), "24", penalty]
        pattern = r"\s*".join(re.escape(w) for w in words if w)
        found = re.compile(pattern).search(ranking, at)
        assert found is not None and found.start() < at + 200, (row.place, ranking[at : at + 200])
        at = found.end()
    assert len(texts) - start >= 250 // 60  # the table ran over several pages


def test_one_read_of_every_donne_gives_each_donnes_frequencies(field, django_assert_num_queries):
    """The booklet's single read of the field's results makes, donne by donne, the same
    frequency sheet as the page's read of that donne alone."""
    with django_assert_num_queries(1):
        every = reads.every_field_outcome(field.event)
    assert sorted(every) == list(range(1, field.event.donne_count + 1))
    for number, outcomes in every.items():
        alone = reads.field_outcomes(field.event, number)
        method = field.event.method
        assert frequency_sheet(outcomes, method) == frequency_sheet(alone, method)
        assert sorted(map(repr, outcomes)) == sorted(map(repr, alone))
