"""Shared fixtures: services (PostgreSQL, Redis, a real Celery worker, Chromium) and users.

In CI (CI=true) a missing service is a failure, never a skip; on a laptop without Redis or
Chromium the tests that need them are skipped with the reason.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.utils import translation
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

pytest_plugins = ["tests.fixtures.services", "tests.fixtures.people", "tests.fixtures.tournaments"]

# Property tests check what holds, not how fast: on a shared machine a slow example is load,
# not a failure, so no deadline and no "too slow" health check (the examples are the same).
hypothesis_settings.register_profile(
    "shared_machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("shared_machine")


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the site's default language (French), whatever the previous test
    activated: the active language is per thread and requests leave theirs behind."""
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()
