"""Shared fixtures: services (PostgreSQL, Redis, a real Celery worker, Chromium) and users.

In CI (CI=true) a missing service is a failure, never a skip; on a laptop without Redis or
Chromium the tests that need them are skipped with the reason.
"""

from __future__ import annotations

import os

import pytest
from django.conf import settings
from django.utils import translation
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from tests.fixtures import flush, statics
from tests.fixtures.template import shared_template

pytest_plugins = [
    "tests.fixtures.cpu",
    "tests.fixtures.services",
    "tests.fixtures.people",
    "tests.fixtures.shared",
    "tests.fixtures.tournaments",
]

# Property tests check what holds, not how fast: on a shared machine a slow example is load,
# not a failure, so no deadline and no "too slow" health check (the examples are the same).
hypothesis_settings.register_profile(
    "shared_machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# CI (CI=true, `.ci/run`) checks each property on 30 examples instead of 100, the same ones
# at every run (derandomized: a failure is reproduced by running again); properties whose
# test sets its own `max_examples` keep it. The other runs (`make test` on a laptop) keep
# Hypothesis's 100 random examples. HYPOTHESIS_PROFILE chooses either by name.
hypothesis_settings.register_profile(
    "ci",
    parent=hypothesis_settings.get_profile("shared_machine"),
    max_examples=30,
    derandomize=True,
    database=None,
)
hypothesis_settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE")
    or ("ci" if os.environ.get("CI", "").lower() == "true" else "shared_machine")
)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix) -> None:
    """On PostgreSQL, in a run with a template database (tests/lanes.py: migrated once), each
    test database is created as a copy of it, so that the migration Django runs next finds
    nothing left to apply."""
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.postgresql" and (name := shared_template()):
        database.setdefault("TEST", {})["TEMPLATE"] = name


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test databases, whose end first ends the sessions a subprocess of a
    test may have left connected (PostgreSQL refuses to drop a database in use)."""
    yield
    with django_db_blocker.unblock():
        flush.end_other_sessions()


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the site's default language (French), whatever the previous test
    activated: the active language is per thread and requests leave theirs behind."""
    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.deactivate()


# The two lanes of `make test` (tests/lanes.py). The slow lane holds what drives real
# processes or a browser: Chromium, a live server, a real Celery worker on Redis, a site or
# worker started as a subprocess, and the PDF builds; everything else is the fast lane,
# which runs on every core with pytest-xdist (a PostgreSQL database per worker).
SLOW_FIXTURES = frozenset(
    {"page", "browser", "chromium_path", "live_server", "celery_worker", "celery_broker"}
)
SLOW_MARKERS = frozenset({"browser", "services", "slow"})
SLOW_PATHS = (
    "tests/a11y/",
    "tests/scoring/documents/",
    "tests/tournaments/simultaneous/test_end_to_end.py",
    "tests/tarot_club/test_serve_supervision.py",
    "tests/tarot_club/test_worker_outage.py",
    "tests/tarot_club/test_celery.py",
    "tests/tarot_club/test_gunicorn_cmd_args.py",
    "tests/tarot_club/test_deploy_settings.py",
    "tests/tournaments/room/test_serve.py",
)


def is_slow_lane(item: pytest.Item) -> bool:
    """Whether a test belongs to the slow lane (see SLOW_FIXTURES, SLOW_MARKERS, SLOW_PATHS)."""
    path = item.nodeid.split("::", 1)[0]
    if any(path.startswith(prefix) for prefix in SLOW_PATHS):
        return True
    if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    return any(mark.name in SLOW_MARKERS for mark in item.iter_markers())


def pytest_configure(config: pytest.Config) -> None:
    flush.install()  # transactional tests end with a faster flush on PostgreSQL
    statics.install()  # the static files listed once per process, not once per client
    config.addinivalue_line(
        "markers", "slow_lane: set on collection for the slow lane of make test (tests/lanes.py)"
    )


# The slow lane's longest tests (a minute or more each on a quiet machine), sent to the
# workers first so that none of them is left running alone at the end of the lane.
LONGEST_FIRST = (
    "tests/tournaments/simultaneous/test_end_to_end.py",
    "tests/a11y/test_axe.py",
    "tests/tarot_club/test_deploy_settings.py",
    "tests/tarot_club/test_serve_supervision.py",
    "tests/tournaments/room/test_serve.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow_lane(item):
            item.add_marker(pytest.mark.slow_lane)
    # A stable sort: the other tests keep their order.
    items.sort(key=lambda item: not item.nodeid.startswith(LONGEST_FIRST))
