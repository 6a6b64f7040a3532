"""French typography of the text the product generates (issue 31.5), not only of its
catalogue: the demo's main pages rendered in French and its PDFs read back (pdftotext) have a
space before « ; : ? ! », say "0 point" and not "0 points", and "la donne 11" for one donne.

The pages are checked block by block (`tarot_club.typography.html_text`), no-break spaces
included; a PDF read back turns a no-break space into a plain one, so there only a sign glued
to its word ("points;") is a fault."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from scoring.documents.models import Document
from scoring.documents.services import document_render
from tarot_club.typography import generated_faults, html_text
from tests.a11y.test_axe import demo_pages, widen_demo
from tests.fixtures.services import require
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Player

pytestmark = pytest.mark.django_db

FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


@pytest.mark.parametrize(
    ("text", "faulty"),
    [
        ("Garde par Nord, 1 bout, 44 points; N −168", True),
        ("Garde par Nord, 1 bout, 44 points\u202f; N −168", False),
        ("Identité: 2026-12-06", True),
        ("Identité\u202f: 2026-12-06", False),
        ("0 résultats manquants", True),
        ("0 point", False),
        ("10 points", False),
        ("1,0 points", False),
        ("Mort sur les donnes 11", True),
        ("Mort sur les donnes 11, 14", False),
        ("Mort sur la donne 11", False),
        ("à 19:50, N: ♠R", False),
    ],
)
def test_the_check_of_generated_text(text, faulty):
    assert bool(generated_faults(text)) is faulty, generated_faults(text)


def test_a_pdf_read_back_only_counts_a_sign_glued_to_its_word():
    assert generated_faults("joue la main du mort ; mort", spaces_known=False) == []
    assert generated_faults("joue la main du mort; mort", spaces_known=False)


def test_the_page_text_keeps_no_break_spaces_and_joins_inline_tags():
    html = "<p>Identité<strong>\u202f:</strong> <code>x: y</code></p><td title='Motif:'>a</td>"
    assert html_text(html) == ["Identité\u202f:", "Motif:", "a"]


def persona_client(username: str | None) -> Client:
    client = Client()
    if username:
        client.force_login(get_user_model().objects.get(username=username))
    return client


def test_the_demo_pages_read_right_in_french():
    demo = widen_demo()
    running, past, club = demo["running"], demo["past"], demo["club"]
    pages = demo_pages()
    player = Player.objects.get(user__username="joueur")
    pages[None] += [f"/t/{past.pk}/ranking/{player.pk}/", f"/players/{player.pk}/results/"]
    pages["arbitre"] += [
        f"/t/{past.pk}/arbiter/",
        f"/t/{past.pk}/arbiter/ledger/",
        f"/t/{past.pk}/arbiter/table/1/donne/1/",
        f"/t/{past.pk}/verify/",
    ]
    pages["organisateur"] += [
        f"/organiser/clubs/{club}/accounts/",
        f"/t/{past.pk}/prepare/",
        f"/t/{past.pk}/seating/",
        f"/t/{demo['five'].pk}/seating/",
        f"/t/{running.pk}/arbiter/penalties/",
    ]
    found: list[str] = []
    for persona, paths in pages.items():
        client = persona_client(persona)
        for path in paths:
            response = client.get(path, **FR)
            assert response.status_code == 200, (path, response.status_code)
            if "text/html" not in response.get("Content-Type", ""):
                continue
            for block in html_text(response.content.decode()):
                found += [f"{path}: {fault}" for fault in generated_faults(block)]
    assert found == [], "\n".join(ascii(f) for f in found[:40])


def pdftotext(content: bytes) -> str:
    require("pdftotext (poppler-utils)", shutil.which("pdftotext") is not None)
    with tempfile.TemporaryDirectory() as folder:
        pdf = Path(folder) / "document.pdf"
        pdf.write_bytes(content)
        text = subprocess.run(
            ["pdftotext", "-enc", "UTF-8", str(pdf), "-"],
            check=True,
            capture_output=True,
            timeout=60,
        ).stdout.decode("utf-8")
    return re.sub(r"\s+", " ", text)


def test_the_demo_documents_read_right_in_french():
    demo: dict[str, Any] = widen_demo()
    # tables of five: the route cards say who sits out and whose hand the fifth plays
    five = stage_tournament(players=21, rounds=2, name="Tournoi à cinq")
    found: list[str] = []
    for tournament in (demo["past"], demo["five"], five):
        for kind in Document.Kind.values:
            document = Document(tournament=tournament, kind=kind, language="fr")
            (_name, _mime, content), _renderer = document_render(document)
            text = pdftotext(content)
            found += [f"{kind}: {f}" for f in generated_faults(text, spaces_known=False)]
    assert found == [], "\n".join(ascii(f) for f in found[:40])


def test_a_simultaneous_events_pages_read_right_in_french():
    """The hub's pages (the catalogue that had ’ when the site's had ') and the club's."""
    from tests.tournaments.simultaneous.pages.builders import small_field
    from tests.tournaments.simultaneous.test_club import link
    from tournaments.simultaneous.hub import services

    demo = widen_demo()
    organiser = get_user_model().objects.get(username="organisateur")
    field = small_field(organiser, name="Simultané d’hiver")
    services.event_close(event=field.event, user=organiser)
    link(demo["running"], sets=8)
    event = f"/simultanes/{field.event.public_id}/"
    client = persona_client("organisateur")
    found: list[str] = []
    for path in (
        "/simultanes/",
        event,
        f"{event}classement/",
        f"{event}donnes/",
        f"{event}donnes/1/",
        "/simultaneous/join/",
        f"/t/{demo['running'].pk}/simultaneous/",
    ):
        response = client.get(path, **FR)
        assert response.status_code == 200, (path, response.status_code)
        for block in html_text(response.content.decode()):
            found += [f"{path}: {fault}" for fault in generated_faults(block)]
    assert found == [], "\n".join(ascii(f) for f in found[:40])
