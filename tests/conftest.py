"""Shared fixtures: services (PostgreSQL, Redis, a real Celery worker, Chromium) and users.

In CI (CI=true) a missing service is a failure, never a skip; on a laptop without Redis or
Chromium the tests that need them are skipped with the reason.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils import translation

pytest_plugins = ["tests.fixtures.services", "tests.fixtures.people", "tests.fixtures.tournaments"]


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the site's default language (French), whatever the previous test
    activated: the active language is per thread and requests leave theirs behind."""
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()
