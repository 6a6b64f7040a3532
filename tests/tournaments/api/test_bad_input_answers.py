"""Answers that are never an HTML page or a 500: unknown API paths are a JSON 404 for every
method (POST without a CSRF token too), and a database outage is a 503 with Retry-After."""

from __future__ import annotations

import pytest
from django.db import OperationalError

from tests.tournaments.api.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("method", ["get", "post", "put", "patch", "delete"])
def test_unknown_api_paths_answer_json_404_for_every_method(method, personas):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(personas.organiser)  # a session: CSRF would apply
    response = getattr(client, method)("/api/v1/no-such-thing/", content_type="application/json")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "not_found"


def test_a_database_outage_answers_503_with_retry_after(running_tournament, personas, monkeypatch):
    from tournaments.api.views import tournaments as views

    def down(*args, **kwargs):
        raise OperationalError("could not connect to server: Connection refused")

    monkeypatch.setattr(views, "TournamentSerializer", down)
    response = client_for(personas.organiser).get(f"/api/v1/tournaments/{running_tournament.pk}/")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    body = response.json()
    assert body["code"] == "unavailable"
    assert "Connection refused" not in response.content.decode()


def test_json_nested_fifty_thousand_deep_is_a_400_even_without_logging_in(client):
    body = "[" * 50_000 + "]" * 50_000
    response = client.post("/api/v1/auth/token/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "too_deep"
    # Ordinary nesting, and brackets inside strings, go through to the view.
    fine = '{"username": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "password": "x"}'
    assert (
        client.post("/api/v1/auth/token/", fine, content_type="application/json").json()["code"]
        != "too_deep"
    )
