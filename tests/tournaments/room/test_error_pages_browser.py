"""The room's phones see styled error pages (DEBUG is off, as `make run` serves the room)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_404_and_500_pages_in_chromium_with_debug_off(page, settings):
    assert settings.DEBUG is False
    response = page.goto("/nulle-part/")
    assert response.status == 404
    assert page.get_by_role("heading", level=1).inner_text() == "Page introuvable"
    assert page.locator("header.site-header").is_visible()
    assert "URLconf" not in page.content()

    page.get_by_role("link", name="Retour aux tournois").click()
    page.wait_for_url("**/")

    settings.ROOT_URLCONF = "tests.tournaments.room.urls_failing"
    response = page.goto("/broken/")
    assert response.status == 500
    assert "Un problème est survenu" in page.get_by_role("heading", level=1).inner_text()
    assert "a bug in a view" not in page.content()
