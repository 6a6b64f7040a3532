"""A negative number reads "−68" (the minus sign, U+2212) on every page and every PDF, in French
and in English; the CSV exports keep the hyphen-minus that spreadsheets parse.

A played tournament (a seeded score sheet, negative scores and differentials, a penalty) is
read page by page as its arbiter and document by document; the visible text (tags, scripts
and attributes left out) must hold no hyphen-minus before a digit where a number starts.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from scoring.documents.models import Document
from scoring.rankings.services import ranking_recompute
from tests.fixtures.shared import copy_for_the_test
from tests.fixtures.tournaments import make_personas, stage_tournament
from tests.scoring.documents.pdf import pdf_text
from tests.scoring.documents.play import play_results
from tests.scoring.documents.test_renderers import render
from tournaments.models import Player, Result
from tournaments.services.penalties import penalty_give

pytestmark = pytest.mark.django_db

# A hyphen-minus that starts a number: "-68", "(-3,5)", not "2026-12-05" nor "Saint-2".
HYPHEN_NUMBER = re.compile(r"(?<![\w\-/.,:])-\d")
MINUS = "\u2212"
_HIDDEN = re.compile(r"<(script|style|template)\b.*?</\1>|<!--.*?-->", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")


def visible_text(page: str) -> str:
    """The text a reader sees: scripts, styles, comments and tags (attributes) left out."""
    return html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", page)))


def hyphen_numbers(text: str) -> list[str]:
    return [text[max(0, m.start() - 30) : m.end() + 10] for m in HYPHEN_NUMBER.finditer(text)]


def result_holder(result: Result, position: str) -> int:
    return int(result.holders[position])


def play(personas):
    """A running tournament of 8 players, 2 rounds, every result entered, one penalty, its
    ranking computed; with the player penalised and the result he lost."""
    tournament = stage_tournament(players=8, rounds=2, personas=personas)
    play_results(tournament, personas.arbiter)
    loser, position = next(
        (result, position)
        for result in Result.objects.filter(tournament=tournament, status="played")
        .select_related("donne", "table")
        .order_by("pk")
        for position, score in result.scores.items()
        if score < 0
    )
    player = Player.objects.get(pk=result_holder(loser, position))
    penalty_give(
        tournament=tournament,
        player=player,
        kind="other",
        points=20,
        user=personas.arbiter,
        reason="Retard",
        donne=loser.donne,
    )
    ranking_recompute(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    return tournament, player, loser


@pytest.fixture(scope="module")
def played_of_the_module(module_transaction, django_db_blocker):
    """The personas and `play`'s tournament, made once: the tests only read them (or write in
    their own savepoint), tests/fixtures/shared.py."""
    with django_db_blocker.unblock(), translation.override(settings.LANGUAGE_CODE):
        personas = make_personas()
        return personas, play(personas)


@pytest.fixture
def played_for_the_test(played_of_the_module, db):
    return copy_for_the_test(played_of_the_module)


@pytest.fixture
def personas(played_for_the_test):
    return played_for_the_test[0]


@pytest.fixture
def played(played_for_the_test):
    """A running tournament of 8 players, 2 rounds, every result entered, one penalty, its
    ranking computed (`play`)."""
    return played_for_the_test[1]


def pages(tournament, player, loser) -> list[str]:
    """The pages that write scores, differentials, totals or penalties."""
    t = tournament.pk
    return [
        reverse("ranking", args=[t]),
        reverse("score_card", args=[t, player.pk]),
        reverse("player_results", args=[player.pk]),
        reverse("donne_list", args=[t]),
        reverse("traveller", args=[t, loser.donne.number]),
        reverse("room_screen_ranking", args=[t]),
        reverse("arbiter_dashboard", args=[t]),
        reverse("arbiter_result", args=[t, loser.table.number, loser.donne.number]),
        reverse("arbiter_ledger", args=[t]),
        reverse("arbiter_penalties", args=[t]),
    ]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_every_page_writes_negative_numbers_with_a_minus_sign(client, personas, played, language):
    tournament, player, loser = played
    client.force_login(personas.arbiter)
    seen_minus = []
    for url in pages(tournament, player, loser):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200, url
        text = visible_text(response.content.decode())
        assert hyphen_numbers(text) == [], url
        if MINUS in text:
            seen_minus.append(url)
    # The check reads real negative numbers: the ranking, the score card and the traveller
    # hold some.
    ranking, score_card, _results, _donnes, traveller, *_rest = pages(tournament, player, loser)
    assert {ranking, score_card, traveller} <= set(seen_minus), seen_minus


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("kind", Document.Kind.values)
def test_every_document_writes_negative_numbers_with_a_minus_sign(played, kind, language):
    tournament, _player, _loser = played
    text = pdf_text(render(tournament, kind, language=language))
    assert hyphen_numbers(text) == []


def test_the_documents_with_scores_do_print_minus_signs(played):
    tournament, _player, _loser = played
    for kind in (Document.Kind.RANKING, Document.Kind.SCORE_CARDS):
        assert MINUS in pdf_text(render(tournament, kind, language="fr")), kind


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_csv_exports_keep_the_hyphen_minus(client, personas, played, language):
    tournament, _player, _loser = played
    client.force_login(personas.arbiter)
    for name in ("ranking_csv", "score_cards_csv"):
        response = client.get(reverse(name, args=[tournament.pk]), HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200, name
        text = b"".join(response.streaming_content if response.streaming else [response.content])
        text = text.decode("utf-8-sig")
        assert MINUS not in text, name
        assert re.search(r"(^|[;,])-\d", text, re.M), name


def test_the_check_sees_a_hyphen_before_a_number_and_nothing_else():
    assert hyphen_numbers(visible_text("<td>-68</td>"))
    assert hyphen_numbers("total (-3,5)")
    assert hyphen_numbers("scores : -1,5 et +2")
    assert not hyphen_numbers(visible_text('<td data-v="-68">\u221268</td>'))
    assert not hyphen_numbers("le 2026-12-05, salle Saint-2, donnes 1-4, T-21")
    assert not hyphen_numbers(visible_text("<script>var a = -1;</script><p>ok</p>"))


def test_no_message_writes_a_negative_number_with_a_hyphen():
    """The catalogue's messages ("Add between −10 and 10 minutes"), English and French."""
    number = re.compile(r"(?<![\w\-/.,:])-(\d|%\()")
    path = Path(settings.LOCALE_PATHS[0]) / "fr" / "LC_MESSAGES" / "django.po"
    with path.open("rb") as po:
        catalogue = [m for m in read_po(po) if m.id]
    texts = []
    for message in catalogue:
        for value in (message.id, message.string):
            texts.extend(value if isinstance(value, tuple) else [value])
    assert [t for t in texts if t and number.search(t)] == []
