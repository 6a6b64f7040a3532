"""In real Chromium: an organiser builds the ranking from its row (htmx swaps the row in
place), downloads the PDF, then builds every document with one button."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from scoring.documents.models import Document
from scoring.documents.services import WHOLE_SET
from tests.fixtures.people import PASSWORD
from tournaments.models import Player

from .pdf import pdf_text
from .play import play_results

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BUILD_ALL_TIMEOUT = 120_000  # ms: every document of the tournament, built in one request


def test_organiser_builds_and_downloads_documents(page, running_tournament, personas):
    from playwright.sync_api import expect

    t = running_tournament
    play_results(t, personas.arbiter, rounds={1})
    url = reverse("documents", args=[t.pk])
    page.goto(f"/login/?next={url}")
    page.fill("#id_username", personas.organiser.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(re.compile(rf"{url}$"))

    row = page.locator("#doc-ranking-0")
    expect(row).to_have_attribute("data-state", "none")
    row.locator("button[type=submit]").click()  # hx-post: the row comes back built
    expect(row).to_have_attribute("data-state", "done")
    link = row.locator("a[download]")
    with page.expect_download() as download_info:
        link.click()
    download = download_info.value
    assert download.suggested_filename.endswith("-fr.pdf")
    content = Path(download.path()).read_bytes()
    assert content.startswith(b"%PDF")
    first = Player.objects.filter(registrations__tournament=t).first()
    assert first.full_name in pdf_text(content)

    # Without a worker the tasks run in the request: the click's navigation ends when every
    # document is built, which takes more than the page's 10 s on a loaded 2-core machine.
    page.locator("#build-all").click(timeout=BUILD_ALL_TIMEOUT)
    page.wait_for_load_state()
    expect(page.locator('#tournament-documents tr[data-state="done"]')).to_have_count(
        len(WHOLE_SET), timeout=BUILD_ALL_TIMEOUT
    )
    assert Document.objects.filter(tournament=t, status="done").count() == len(WHOLE_SET)
