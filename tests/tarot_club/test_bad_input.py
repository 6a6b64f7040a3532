"""Bad input answers 400 / 413, never 500: NUL bytes in a query or a body, oversized bodies;
as JSON under /api/, as a page on the site."""

from __future__ import annotations

import json

import pytest

from tests.tournaments.api.conftest import client_for

pytestmark = pytest.mark.django_db


def test_nul_in_the_query_of_a_page_and_of_the_api(client, personas):
    client.force_login(personas.organiser)
    page = client.get("/", {"search": "\x00"})
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/html")
    assert "NUL" in page.content.decode()  # the page says what to fix
    api = client_for(personas.organiser).get("/api/v1/clubs/?search=%00")
    assert api.status_code == 400
    assert api.json()["code"] == "invalid_characters"


def test_nul_in_a_json_body(running_tournament, personas):
    body = {"club": running_tournament.club_id, "name": "x", "date": "2026-12-05", "rounds": 2}
    body["arbiters"] = ["arbi\x00tre"]
    response = client_for(personas.organiser).post(
        "/api/v1/tournaments/", json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_characters"


def test_a_body_over_the_limit_is_413_even_before_logging_in(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = client_for(None).post(
        "/api/v1/auth/token/", json.dumps({"username": "x" * 2000}), content_type="application/json"
    )
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"


@pytest.mark.django_db
def test_a_database_outage_on_a_page_is_the_styled_503_with_retry_after(client, monkeypatch):
    from django.db import OperationalError

    import tournaments.selectors

    def down(*args, **kwargs):
        raise OperationalError("could not connect to server: Connection refused")

    monkeypatch.setattr(tournaments.selectors, "home_tournaments", down)
    response = client.get("/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    html = response.content.decode()
    assert "Connection refused" not in html and "<!doctype html>" in html.lower()


def test_nul_in_the_players_search_page_and_api(client, personas):
    client.force_login(personas.organiser)
    page = client.get("/players/?search=%00")
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/html")
    api = client_for(personas.organiser).get("/api/v1/players/?search=%00")
    assert api.status_code == 400
    assert api.json()["code"] == "invalid_characters"


@pytest.mark.parametrize("filename", ["joueurs.csv", "jou\x00eurs.csv"])
def test_nul_in_an_uploaded_csv_is_refused_and_saves_nothing(
    client, personas, running_tournament, filename
):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse

    from tournaments.models import Player

    client.force_login(personas.organiser)
    url = reverse("organiser_players_import", args=[running_tournament.club_id])
    before = Player.objects.count()
    raw = "licence;nom;prénom\n0999011;Lefè\x00vre;Zoé\n".encode()
    upload = SimpleUploadedFile(filename, raw, content_type="text/csv")
    response = client.post(url, {"file": upload}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code in (200, 400, 422)
    assert "is not a CSV text file" in response.content.decode()
    assert Player.objects.count() == before
