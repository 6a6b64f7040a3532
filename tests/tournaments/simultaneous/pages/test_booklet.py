"""The booklet of a simultaneous event: hand records of every donne, each donne's frequency
sheet and the overall ranking with licences, drawn like the tournaments' documents."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.scoring.documents.layout import layout_problems
from tests.scoring.documents.pdf import ink_ratio, page_texts, pdf_text, render_pages
from tests.scoring.documents.test_layout import CLUBS, PLAYERS, TITLE
from tests.tournaments.simultaneous.pages.builders import lift_embargo, small_field
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
