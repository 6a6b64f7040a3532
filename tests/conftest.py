"""Shared fixtures: services (PostgreSQL, Redis, a real Celery worker, Chromium) and users.

In CI (CI=true) a missing service is a failure, never a skip; on a laptop without Redis or
Chromium the tests that need them are skipped with the reason.
"""

from __future__ import annotations

pytest_plugins = ["tests.fixtures.services", "tests.fixtures.people", "tests.fixtures.tournaments"]
