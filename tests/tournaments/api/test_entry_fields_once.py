"""The result entry's serializer fields are built once per language (ApiView.valid): a
refusal still speaks the caller's language whatever was asked before, and says what a
serializer built for the request says."""

from __future__ import annotations

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from tests.tournaments.api.conftest import client_for
from tournaments.api.serializers import ResultCreateSerializer

pytestmark = pytest.mark.django_db

BAD = {"table": 1, "donne": 1, "taker": "Z", "contract": "garde", "bouts": 7, "points": 50}


def in_language(client: APIClient, language: str) -> APIClient:
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    return client


def fresh_errors(language: str) -> dict[str, list[str]]:
    """What a serializer built for this request alone says."""
    with translation.override(language):
        serializer = ResultCreateSerializer(data=BAD)
        assert not serializer.is_valid()
        return {k: [str(m) for m in v] for k, v in serializer.errors.items()}


def test_each_language_its_own_messages(running_tournament, personas) -> None:
    path = f"/api/v1/tournaments/{running_tournament.pk}/results/"
    arbiter = client_for(personas.arbiter)
    for language in ("en", "fr", "en", "fr"):
        response = in_language(arbiter, language).post(path, BAD, format="json")
        assert response.status_code == 400
        assert response.json()["details"] == fresh_errors(language), language
    assert "Assurez-vous" in fresh_errors("fr")["bouts"][0]
    assert "Ensure" in fresh_errors("en")["bouts"][0]
