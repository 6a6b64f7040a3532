"""With DEBUG off, errors show the site's styled pages in French or English, never a
traceback or the list of the site's URLs."""

from __future__ import annotations

import pytest
from django.test import Client

from tarot_club.errors import error_response

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "title"), [("fr", "Page introuvable"), ("en", "Page not found")]
)
def test_404_in_the_layout_in_both_languages(client, language, title):
    response = client.get("/no-such-page/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 404
    page = response.content.decode()
    assert f"<h1>{title}</h1>" in page
    assert 'class="site-header"' in page
    assert "URLconf" not in page and "urlpatterns" not in page


def test_403_for_a_stranger_on_an_organiser_page(client, personas, running_tournament):
    client.force_login(personas.stranger)
    response = client.get(f"/t/{running_tournament.pk}/arbiter/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403
    assert "<h1>This page is not for you</h1>" in response.content.decode()


def test_500_is_styled_and_says_nothing_of_the_bug(settings):
    settings.ROOT_URLCONF = "tests.tournaments.room.urls_failing"
    client = Client(raise_request_exception=False)
    response = client.get("/broken/", HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 500
    page = response.content.decode()
    assert "Un problème est survenu de notre côté" in page
    assert "a bug in a view" not in page and "Traceback" not in page


@pytest.mark.parametrize("status", [400, 413, 503])
def test_the_pages_middleware_answers_with(rf, status):
    request = rf.get("/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    response = error_response(request, status)
    assert response.status_code == status
    assert f"Erreur {status}" in response.content.decode()  # the default language


def test_500_still_answers_when_the_layout_cannot_render(rf, settings):
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [], "APP_DIRS": False}
    ]  # no template at all
    response = error_response(rf.get("/"), 500)
    assert response.status_code == 500
    assert "<h1>" in response.content.decode()
