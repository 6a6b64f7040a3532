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


# --- the PDF from the report page: signed in, or through the personal link -------------------


def _link(event, player):
    from django.contrib.auth import get_user_model

    from tournaments.services.player_links import player_link_issue

    organiser = get_user_model().objects.create_user("orga-pdf", password="x")
    event.tournament.club.organisers.add(organiser)
    return player_link_issue(player=player, user=organiser)


def test_a_link_holder_reaches_his_report_pdf_in_both_languages(client, event):
    from django.urls import reverse

    player = event.players[0]
    link = _link(event, player)
    page = client.get(reverse("mine_link_report", args=[link.token, event.tournament.pk]))
    assert page.status_code == 200
    pdf_url = reverse("mine_link_report_pdf", args=[link.token, event.tournament.pk])
    body = page.content.decode()
    assert f"{pdf_url}?lang=fr" in body and f"{pdf_url}?lang=en" in body
    english = client.get(f"{pdf_url}?lang=en")
    assert english.status_code == 200 and english["Content-Type"] == "application/pdf"
    assert english["Cache-Control"] == "private, no-store"
    text = pdf_text(english.content)
    assert player.full_name in text and "your hand" in text
    assert player.licence not in text
    assert not any(other.full_name in text for other in event.players[1:])
    french = pdf_text(client.get(f"{pdf_url}?lang=fr").content)
    assert "Gained most" not in french and player.full_name in french


def test_the_link_opens_only_its_players_pdf(client, event):
    from django.urls import reverse

    from tournaments.services.player_links import player_link_revoke

    player, other = event.players[0], event.players[1]
    link = _link(event, player)
    # the link names its player: no route takes another player's id with it, and the
    # signed-in route refuses an anonymous reader
    other_pdf = reverse("player_event_report_pdf", args=[other.pk, event.tournament.pk])
    assert client.get(other_pdf).status_code == 302
    unknown_event = reverse("mine_link_report_pdf", args=[link.token, 10**8])
    assert client.get(unknown_event).status_code == 404
    unknown = reverse("mine_link_report_pdf", args=["x" * 43, event.tournament.pk])
    assert client.get(unknown).status_code == 404
    elsewhere = build_tournament(players=8, status=Tournament.Status.FINISHED, seed=31)
    fill_results(elsewhere, seed=32)
    not_his = reverse("mine_link_report_pdf", args=[link.token, elsewhere.tournament.pk])
    assert client.get(not_his).status_code == 404
    player_link_revoke(player=player, user=event.tournament.club.organisers.first())
    revoked = reverse("mine_link_report_pdf", args=[link.token, event.tournament.pk])
    assert client.get(revoked).status_code == 410


def test_the_signed_in_pdf_follows_the_pages_rules(client, event):
    from django.contrib.auth import get_user_model
    from django.urls import reverse

    me = get_user_model().objects.create_user("me-pdf", password="x")
    player, other = event.players[0], event.players[1]
    player.user = me
    player.save(update_fields=["user"])
    client.force_login(me)
    mine = reverse("player_event_report_pdf", args=[player.pk, event.tournament.pk])
    response = client.get(f"{mine}?lang=en")
    assert response.status_code == 200 and player.full_name in pdf_text(response.content)
    theirs = reverse("player_event_report_pdf", args=[other.pk, event.tournament.pk])
    assert client.get(theirs).status_code == 403
    Result.objects.filter(tournament=event.tournament).order_by("pk").first().delete()
    closed = client.get(mine, HTTP_ACCEPT_LANGUAGE="en")
    assert closed.status_code == 403
    assert b"once every table has played every donne" in closed.content


def test_the_link_pdf_is_the_stored_document_while_up_to_date(client, event, monkeypatch):
    """Rendered once and stored as the player's `player_report` document; read back while
    what it prints is unchanged; a corrected name renders it again."""
    from django.urls import reverse

    from scoring.documents import services
    from tournaments.models import Player

    player = event.players[0]
    link = _link(event, player)
    url = reverse("mine_link_report_pdf", args=[link.token, event.tournament.pk]) + "?lang=en"
    first = client.get(url)
    assert first.status_code == 200
    stored = Document.objects.get(kind=Document.Kind.PLAYER_REPORT, part=player.pk)
    assert stored.status == Document.Status.DONE and stored.language == "en"
    renders = []
    real = services.document_render
    monkeypatch.setattr(
        services, "document_render", lambda *a, **k: renders.append(1) or real(*a, **k)
    )
    again = client.get(url)
    assert again.content == first.content and not renders
    Player.objects.filter(pk=player.pk).update(first_name="Renommé")
    renamed = client.get(url)
    assert renders and "Renommé" in pdf_text(renamed.content)
    assert Document.objects.filter(kind=Document.Kind.PLAYER_REPORT, part=player.pk).count() == 1
