"""The organiser's event page links to every page of the field, each answering him."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_event_page_links_to_the_field_pages(client, field, people):
    event = field.event
    client.force_login(people["organiser"])
    html = client.get(reverse("simultaneous_event", args=[event.public_id])).content.decode()
    base = f"/simultanes/{event.public_id}/"
    expected = [
        base + "classement/",
        base + "donnes/",
        base + "classement.csv",
        base + "resultats.csv",
        base + "livret.pdf",
        *(base + f"clubs/{club.public_id}/" for club in field.clubs),
    ]
    links = set(re.findall(r'href="([^"]+)"', html))
    for url in expected:
        assert url in links, url
        assert client.get(url).status_code == 200, url
    # Under embargo the page says who sees them; others are still refused.
    assert 'id="field-pages"' in html and "embargo" in html.lower()
    client.force_login(people["stranger"])
    assert client.get(base + "classement/").status_code in (403, 404)
