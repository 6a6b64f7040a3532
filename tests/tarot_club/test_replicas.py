"""Read replicas (tarot_club/kit/replicas.py): the public pages of a stranger read a replica;
writes, a signed-in reader, a writer's next requests and every unmarked page read the
primary; a replica that does not answer leaves the reads on the primary without an error.

The replica here is a second connection to the test database (committed data: transactional
tests), so what each alias ran is observable; the stopped replica is a connection to a
closed port (PostgreSQL) or an unreachable file (SQLite), a real refused connection."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections, transaction
from django.db.utils import load_backend
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from tarot_club.kit import replicas
from tests.fixtures.tournaments import Personas, stage_tournament
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

ALIAS = "replica_test"


def _add_alias(settings_dict: dict[str, Any]) -> None:
    """A connection under ALIAS made here, not from the settings (Django's test case allows
    such dynamically created connections besides its own databases)."""
    backend = load_backend(settings_dict["ENGINE"])
    setattr(connections._connections, ALIAS, backend.DatabaseWrapper(settings_dict, ALIAS))


def _drop_alias() -> None:
    connections[ALIAS].close()
    delattr(connections._connections, ALIAS)


@pytest.fixture
def replica() -> Iterator[str]:
    """A replica alias reading the test database, configured as the site's only replica."""
    _add_alias(dict(connections["default"].settings_dict))
    replicas.forget_health()
    with override_settings(DATABASE_REPLICAS=[ALIAS]):
        yield ALIAS
    _drop_alias()
    replicas.forget_health()


@pytest.fixture
def stopped_replica() -> Iterator[str]:
    """A replica alias whose server does not answer."""
    dead = dict(connections["default"].settings_dict)
    if dead["ENGINE"].endswith("sqlite3"):
        dead["NAME"] = "/nonexistent/replica/db.sqlite3"
    else:
        dead.update(HOST="127.0.0.1", PORT="1", OPTIONS={**dead["OPTIONS"], "connect_timeout": 2})
    _add_alias(dead)
    replicas.forget_health()
    with override_settings(DATABASE_REPLICAS=[ALIAS]):
        yield ALIAS
    _drop_alias()
    replicas.forget_health()


@pytest.fixture
def published(personas: Personas) -> Tournament:
    return stage_tournament(personas=personas, status=Tournament.Status.PUBLISHED)


def _get(client: Client, path: str) -> tuple[Any, int, int]:
    """The answer and how many queries the primary and the replica ran for it, once a first
    read has stored the ranking's snapshot (a catch-up writes, so it runs on the primary)."""
    Client().get(path)
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections[ALIAS]) as replica,
    ):
        response = client.get(path)
    return response, len(primary), len(replica)


def test_a_strangers_public_ranking_reads_the_replica(replica: str, published: Tournament) -> None:
    response, on_primary, on_replica = _get(Client(), f"/t/{published.pk}/ranking/")
    assert response.status_code == 200
    assert on_replica > 0
    assert on_primary == 0


def test_a_signed_in_reader_reads_the_primary(
    replica: str, published: Tournament, personas: Personas
) -> None:
    client = Client()
    client.force_login(personas.arbiter)
    response, on_primary, on_replica = _get(client, f"/t/{published.pk}/ranking/")
    assert response.status_code == 200
    assert on_replica == 0
    assert on_primary > 0


def test_a_writer_reads_the_primary_for_a_while_after_his_write(
    replica: str, published: Tournament
) -> None:
    client = Client()
    answer = client.post("/i18n/setlang/", {"language": "fr", "next": "/"})
    assert answer.cookies[replicas.STICKY_COOKIE]["max-age"] == 15
    response, on_primary, on_replica = _get(client, f"/t/{published.pk}/ranking/")
    assert response.status_code == 200
    assert on_replica == 0
    assert on_primary > 0


def test_unmarked_pages_read_the_primary(replica: str, published: Tournament) -> None:
    response, on_primary, on_replica = _get(Client(), "/")
    assert response.status_code == 200
    assert on_replica == 0
    assert on_primary > 0


def test_reads_inside_a_transaction_go_to_the_primary(replica: str) -> None:
    token = replicas._reading_replicas.set(True)
    try:
        assert replicas.read_alias() == ALIAS
        with transaction.atomic():
            assert replicas.read_alias() is None
    finally:
        replicas._reading_replicas.reset(token)


def test_a_stopped_replica_leaves_reads_on_the_primary_without_an_error(
    stopped_replica: str, published: Tournament
) -> None:
    client = Client()
    with CaptureQueriesContext(connections["default"]) as primary:
        first = client.get(f"/t/{published.pk}/ranking/")
        second = client.get(f"/t/{published.pk}/ranking/")
    assert first.status_code == second.status_code == 200
    assert len(primary) > 0
    assert replicas._down_until[ALIAS] > 0  # left out until its retry time


def test_without_replicas_nothing_changes(published: Tournament) -> None:
    assert replicas.replica_aliases() == []
    response = Client().get(f"/t/{published.pk}/ranking/")
    assert response.status_code == 200
    assert replicas.STICKY_COOKIE not in Client().post("/i18n/setlang/", {"language": "fr"}).cookies
