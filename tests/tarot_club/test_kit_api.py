"""The kit's API parts (tarot_club/kit/api): the error handler answers an app's domain errors
through the mappings the app registered, and the Idempotency-Key records moved from
tournaments to tarot_club in state only, their table and rows untouched, both ways."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tarot_club.kit.api import errors
from tarot_club.models import IdempotencyRecord

TABLE = "tournaments_idempotencyrecord"
MOVED_FROM = ("tarot_club", "0002_cache_table")


class Refused(Exception):
    """A domain error of an app the kit does not know."""


class RefusedLoudly(Refused):
    """A subclass registered first: it answers, not its base's converter."""


@pytest.fixture
def registered() -> Iterator[None]:
    before = list(errors._MAPPINGS)
    errors.register_error_mapping(
        RefusedLoudly,
        lambda exc, request: errors.ApiError(status_code=409, code="loud", message="!"),
    )
    errors.register_error_mapping(Refused, lambda exc, request: errors.refused(str(exc)))
    yield
    errors._MAPPINGS[:] = before


def test_the_handler_answers_a_registered_domain_error_in_the_one_shape(registered: None):
    response = errors.api_exception_handler(Refused("Closed."), {"request": None})
    assert response is not None
    assert response.status_code == 400
    assert response.data == {
        "code": "refused",
        "message": "Closed.",
        "details": {"__all__": ["Closed."]},
    }
    loud = errors.api_exception_handler(RefusedLoudly("x"), {"request": None})
    assert loud is not None and (loud.status_code, loud.data["code"]) == (409, "loud")


def test_an_unregistered_error_is_left_to_the_server_error_answer():
    assert errors.api_exception_handler(Refused("Closed."), {"request": None}) is None


def test_tournaments_registers_its_domain_errors():
    from tournaments.services.results import ResultInvalid
    from tournaments.services.tournaments import TournamentError

    registered_classes = [exc_class for exc_class, _converter in errors._MAPPINGS]
    assert {ResultInvalid, TournamentError} <= set(registered_classes)
    response = errors.api_exception_handler(TournamentError("No."), {"request": None})
    assert response is not None and (response.status_code, response.data["code"]) == (
        400,
        "refused",
    )


def _models_in_state(executor: MigrationExecutor) -> set[tuple[str, str]]:
    state = executor._create_project_state(with_applied_migrations=True)
    return {key for key in state.models if key[1] == "idempotencyrecord"}


def _keys() -> list[Any]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key FROM {TABLE} ORDER BY key")
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.django_db
def test_the_record_moves_in_state_only_and_back():
    user = get_user_model().objects.create_user("kit-move", email="kit-move@example.org")
    IdempotencyRecord.objects.create(
        user=user, key="kept", method="POST", path="/api/x/", fingerprint="f", status_code=201
    )
    executor = MigrationExecutor(connection)
    assert _models_in_state(executor) == {("tarot_club", "idempotencyrecord")}
    assert IdempotencyRecord._meta.db_table == TABLE

    executor.migrate([MOVED_FROM])  # back: tournaments owns it again, nothing else changes
    executor = MigrationExecutor(connection)
    assert _models_in_state(executor) == {("tournaments", "idempotencyrecord")}
    assert _keys() == ["kept"]

    executor.migrate(executor.loader.graph.leaf_nodes())  # and forward again
    executor = MigrationExecutor(connection)
    assert _models_in_state(executor) == {("tarot_club", "idempotencyrecord")}
    assert not executor.migration_plan(executor.loader.graph.leaf_nodes())
    assert list(IdempotencyRecord.objects.values_list("key", "status_code")) == [("kept", 201)]
