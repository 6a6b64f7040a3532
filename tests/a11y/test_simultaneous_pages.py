"""The simultaneous event's pages people reach from the new links, in Chromium: "find me" on
the overall ranking at a phone's width lands on the player's row, and no blocking axe-core
violation on the organiser's event page, the overall ranking, the join page and the club's
simultaneous page (with its link to the overall ranking)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from tests.a11y.axe import DESKTOP, PHONE, violations
from tests.a11y.test_axe import log_in
from tests.tournaments.simultaneous.pages.builders import Field, small_field
from tests.tournaments.simultaneous.test_club import link
from tournaments.models import Tournament
from tournaments.simultaneous.club.models import SimultaneousLink
from tournaments.simultaneous.hub import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def event(db: Any) -> Field:
    """The demo data, and a closed event of the demo's organiser ranked across two clubs."""
    call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    organiser = get_user_model().objects.get(username="organisateur")
    field = small_field(organiser, name="Simultané d’hiver")
    services.event_close(event=field.event, user=organiser)
    return field


def test_find_me_at_a_phones_width_lands_on_the_players_row(browser, live_server, event):
    page = log_in(browser, live_server, None, PHONE)
    try:
        page.goto(f"/simultanes/{event.event.public_id}/classement/")
        page.fill("#find-me", "dupont")
        page.locator(".find-me button[type=submit]").click()
        page.wait_for_load_state("load")
        assert page.url.endswith("#me")
        row = page.locator("table.ranking tr.me")
        assert row.count() == 1 and "Chloé Dupont" in row.inner_text()
        assert row.get_attribute("aria-current") == "true"
        box = row.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"]
        assert page.evaluate("window.scrollY") > 0  # scrolled down to it
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        # the field is kept with what was typed, for a second search
        assert page.input_value("#find-me") == "dupont"
    finally:
        page.context.close()


def test_no_blocking_violation_on_the_new_pages(browser, live_server, axe_source, event):
    """At a phone's width and a laptop's, each page loaded once at the first and resized
    (tests/a11y/axe.py, on widths)."""
    tournament = Tournament.objects.get(name="Tournoi de démonstration")
    joined = link(tournament, sets=8)
    ranking = f"{live_server.url}/simultanes/{event.event.public_id}/classement/"
    SimultaneousLink.objects.filter(pk=joined.pk).update(ranking_url=ranking)
    found: list[str] = []
    page = log_in(browser, live_server, "organisateur", PHONE)
    try:
        for path in (
            f"/simultanes/{event.event.public_id}/",
            f"/simultanes/{event.event.public_id}/classement/?q=Dupont",
            "/simultaneous/join/",
            f"/t/{tournament.pk}/simultaneous/",
            f"/t/{tournament.pk}/",
        ):
            response = page.goto(path)
            assert response is not None and response.ok, (path, response and response.status)
            page.wait_for_load_state("load")
            if path.endswith("/simultaneous/"):
                assert page.locator("#overall-ranking-link a").get_attribute("href") == ranking
            for viewport in (PHONE, DESKTOP):
                page.set_viewport_size(viewport)
                fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
                assert fits, (path, viewport)
                found += [f"@{viewport['width']}px {v}" for v in violations(page, axe_source)]
            page.set_viewport_size(PHONE)
    finally:
        page.context.close()
    assert not found, "\n".join(found)
