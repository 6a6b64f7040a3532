"""The booklet is built by the hub's worker after the final recompute once the embargo ends,
and kept on the storage, so the first reader gets it at once; on demand as a fallback."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import TestCase
from django.urls import reverse

from tests.scoring.documents.pdf import pdf_text
from tests.tournaments.simultaneous.pages.builders import small_field
from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.booklet import booklet_key
from tournaments.simultaneous.hub.models import EventBooklet
from tournaments.simultaneous.hub.tasks import recompute_overall_ranking

pytestmark = pytest.mark.django_db


def close(field) -> None:
    """The organiser closes the event, and what it asks for on commit runs (as after a
    request): the final recompute, then the booklet."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.event_close(event=field.event, user=field.organiser)
    field.event.refresh_from_db()


def test_the_worker_builds_the_booklet_once_the_embargo_ends(client, people):
    field = small_field(people["organiser"])
    recompute_overall_ranking.apply(args=(field.event.pk,))
    assert not EventBooklet.objects.exists()  # under embargo: nothing built ahead
    close(field)
    stored = {b.language: b for b in EventBooklet.objects.filter(event=field.event)}
    assert set(stored) == {"fr", "en"}
    key = booklet_key(field.event)
    assert {b.key for b in stored.values()} == {key} and key.endswith(":1")
    with stored["fr"].file.open("rb") as f:
        kept = f.read()
    assert "Livret" in pdf_text(kept) and field.event.seed in pdf_text(kept).replace(" ", "")
    cache.clear()  # another web process: nothing in its memory, the stored file is served
    response = client.get(
        reverse("simultaneous_booklet", args=[field.event.public_id]), HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert response.status_code == 200 and response.content == kept
    # A second run finds the booklets current and builds nothing.
    built_at = {b.language: b.built_at for b in EventBooklet.objects.all()}
    recompute_overall_ranking.apply(args=(field.event.pk,))
    assert {b.language: b.built_at for b in EventBooklet.objects.all()} == built_at


def test_without_the_worker_the_first_request_builds_and_keeps_it(client, people):
    field = small_field(people["organiser"])
    services.event_close(event=field.event, user=field.organiser)  # on-commit never runs
    assert not EventBooklet.objects.exists()
    url = reverse("simultaneous_booklet", args=[field.event.public_id])
    first = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert first.status_code == 200 and "Booklet" in pdf_text(first.content)
    kept = EventBooklet.objects.get(event=field.event, language="en")
    assert kept.key == booklet_key(field.event)
    cache.clear()
    assert client.get(url, HTTP_ACCEPT_LANGUAGE="en").content == first.content
