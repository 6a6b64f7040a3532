"""A document built by a real Celery worker process through Redis, as in production: the
request returns at once with a pending build, the worker renders and stores the PDF, and the
page then offers it for download."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from scoring.documents.models import Document
from scoring.documents.services import document_request
from tests.fixtures.tournaments import stage_tournament

from .pdf import pdf_text
from .play import play_results

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture
def worker_media(media_root: Path, monkeypatch) -> Path:
    """The worker process stores files where this test reads them."""
    monkeypatch.setenv("MEDIA_ROOT", str(media_root))
    return media_root


def wait_until_built(document: Document, timeout: float = 60) -> Document:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        document.refresh_from_db()
        if document.status in (Document.Status.DONE, Document.Status.FAILED):
            return document
        time.sleep(0.1)
    raise AssertionError(f"document still {document.status} at {document.progress} %")


def test_a_worker_builds_the_score_cards(worker_media, celery_worker, personas):
    tournament = stage_tournament(players=9, rounds=2, personas=personas)
    play_results(tournament, personas.arbiter)
    document = document_request(
        tournament=tournament,
        kind=Document.Kind.SCORE_CARDS,
        language="en",
        user=personas.arbiter,
    )
    # Handed to the worker: the request did not build it in-process.
    assert document.status == Document.Status.PENDING
    again = document_request(
        tournament=tournament,
        kind=Document.Kind.SCORE_CARDS,
        language="en",
        user=personas.organiser,
    )
    assert again.pk == document.pk

    built = wait_until_built(document)
    assert built.status == Document.Status.DONE, built.error
    assert built.pages == 9 and built.progress == 100
    path = Path(built.file.path)
    assert path.is_relative_to(worker_media) and path.exists()
    text = pdf_text(path.read_bytes())
    assert "Score card of" in text and "Page 9 of 9" in text
    assert Document.objects.filter(tournament=tournament).count() == 1

    client = Client()
    client.force_login(personas.arbiter)
    response = client.get(reverse("document_download", args=[tournament.pk, built.pk]))
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == path.read_bytes()
