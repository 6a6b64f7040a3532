"""The player report as a PDF (issue 35): his donnes against the field in both languages,
and nothing of the donnes before every one is complete."""

from __future__ import annotations

import pytest

from scoring.documents.models import Document
from scoring.documents.services import DocumentAccess, document_render
from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tournaments.models import Result, Tournament

from .pdf import pdf_text

pytestmark = pytest.mark.django_db


def render(tournament, *, language="en", part=0) -> str:
    document = Document(
        tournament=tournament, kind=Document.Kind.PLAYER_REPORT, language=language, part=part
    )
    (_filename, _mimetype, content), _renderer = document_render(document)
    assert content.startswith(b"%PDF")
    return pdf_text(content)


@pytest.fixture
def event():
    built = build_tournament(players=8, status=Tournament.Status.FINISHED, seed=21)
    fill_results(built, seed=22)
    ranking_recompute(tournament_id=built.tournament.pk)
    built.tournament.refresh_from_db()
    return built


def test_a_players_report_in_english_and_french(event):
    player = event.players[0]
    english = render(event.tournament, part=player.pk)
    assert player.full_name in english
    for number in event.donnes:
        assert f"Donne {number}" in english
    assert "your hand" in english and "The best third of the field" in english
    assert "Gained most" in english and "Lost most" in english
    assert player.licence not in english
    french = render(event.tournament, language="fr", part=player.pk)
    assert "votre main" in french.lower() or "ta main" in french.lower()
    assert "Gained most" not in french


def test_every_players_report_for_the_arbiters(event):
    text = render(event.tournament)
    for player in event.players:
        assert player.full_name in text


def test_nothing_of_the_donnes_before_they_are_complete(event):
    Result.objects.filter(tournament=event.tournament).order_by("pk").first().delete()
    text = render(event.tournament, part=event.players[0].pk)
    assert "once every table has played every donne" in text
    assert "Donne 1" not in text and "your hand" not in text


def test_a_player_builds_his_own_report_only(event):
    access = DocumentAccess(
        manage=False, own_player=event.players[0].pk, sees_results=True, public=True
    )
    kind = Document.Kind.PLAYER_REPORT
    assert access.may_request(kind, event.players[0].pk)
    assert access.may_download(kind, event.players[0].pk)
    assert not access.may_download(kind, event.players[1].pk)
    assert not access.may_download(kind, 0)  # not public, even once published


def test_the_score_card_prints_the_personal_link_as_a_qr_code(event):
    from django.contrib.auth import get_user_model

    from scoring.documents.fingerprint import document_fingerprint
    from tournaments.services.player_links import player_link_issue, player_link_revoke

    from .pdf import decode_qr_codes, page_count

    def qr(content: bytes) -> list[str]:
        pages = range(1, page_count(content) + 1)
        return [code for n in pages for code in decode_qr_codes(content, page=n)]

    organiser = get_user_model().objects.create_user("qr-orga")
    event.tournament.club.organisers.add(organiser)
    player = event.players[0]

    def card() -> bytes:
        document = Document(
            tournament=event.tournament,
            kind=Document.Kind.SCORE_CARDS,
            language="en",
            part=player.pk,
        )
        (_f, _m, content), _r = document_render(document)
        return content

    before = document_fingerprint(event.tournament, Document.Kind.SCORE_CARDS, "en")
    assert not any("/moi/" in code for code in qr(card()))
    link = player_link_issue(player=player, user=organiser)
    issued = document_fingerprint(event.tournament, Document.Kind.SCORE_CARDS, "en")
    assert issued != before
    codes = qr(card())
    assert any(code.endswith(f"/moi/{link.token}/") for code in codes), codes
    assert "Mon tarot" in pdf_text(card())
    player_link_revoke(player=player, user=organiser)
    assert document_fingerprint(event.tournament, Document.Kind.SCORE_CARDS, "en") != issued
    assert not any("/moi/" in code for code in qr(card()))
