"""Helpers for the API tests: clients authenticated by token per persona, and a clean cache
(the throttles count in it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def clean_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def client_for(user: Any | None) -> APIClient:
    """An API client speaking English, with the user's token (anonymous for None)."""
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def api_client() -> Callable[[Any | None], APIClient]:
    return client_for
