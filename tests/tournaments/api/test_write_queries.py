"""An API result write costs at most 10 queries, everything included: the token, the
tournament with the caller's roles, the cell (the donne with its seats; or the
result being corrected, then its seats), the write, the ledger line, the results version, the
idempotency record and, once committed, the ranking's dispatch.

Measured as in production: outside any test transaction (`transaction=True`: the outermost
transaction is BEGIN/COMMIT, not savepoints), the throttles counting in Redis (not the
database), tasks sent through a broker, and the ranking's state as a running computation left
it (nothing queued, nothing noted stale), so that the dispatch does all its work. The checks
themselves are covered by tests/tournaments/api/test_results_api.py and test_idempotency.py; here each
write is also checked to have done its work.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from scoring.models import RankingState
from tests.fixtures.services import private_redis_db
from tests.fixtures.tournaments import stage_tournament
from tests.tournaments.api.conftest import client_for
from tournaments.models import LedgerEntry, Result, Tournament
from tournaments.services.checks import WARNING_CODES

pytestmark = pytest.mark.django_db(transaction=True)

MAX_QUERIES = 10
GARDE = {"taker": "N", "contract": "garde", "bouts": 2, "points": 50}


@pytest.fixture
def counters_in_redis(redis_url: str) -> Iterator[None]:
    """The shared cache (throttle counters) in Redis, as wherever a broker is in use."""
    shared = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": private_redis_db(redis_url),
        "KEY_PREFIX": f"test-{uuid.uuid4().hex[:8]}",
    }
    with override_settings(CACHES={**settings.CACHES, "shared": shared}):
        yield


@pytest.fixture
def tournament(personas, counters_in_redis, celery_broker) -> Tournament:
    t = stage_tournament(personas=personas)
    arbiter = client_for(personas.arbiter)
    # A first write (table 1 plays donnes 1-4 in round 1) opens the round and creates the
    # ranking's state, as happens once per round; it also tidies the arbiter's expired
    # idempotency records, as a web process does at most every few minutes per user.
    first = {"table": 1, "donne": 4, "status": "all_passed"}
    response = arbiter.post(url(t, "results/"), first, format="json", HTTP_IDEMPOTENCY_KEY="0")
    assert response.status_code == 201
    return t


def url(t: Tournament, rest: str) -> str:
    return f"/api/v1/tournaments/{t.pk}/{rest}"


def measured(t: Tournament, send: Any) -> tuple[Any, list[str]]:
    """The response and the queries of one write, its on-commit work included, with the
    ranking's state as a computation that just started leaves it."""
    RankingState.objects.filter(pk=t.pk).update(queued_at=None, stale_since=None)
    with CaptureQueriesContext(connection) as ctx:
        response = send()
    return response, [q["sql"] for q in ctx.captured_queries]


CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


def within_budget(queries: list[str]) -> bool:
    """At most 10 statements that read or write data, in one transaction without savepoints
    (its BEGIN and COMMIT are listed by Django too; they are not counted)."""
    data = [q for q in queries if not q.startswith(CONTROL)]
    control = [q for q in queries if q.startswith(CONTROL)]
    return (
        len(data) <= MAX_QUERIES
        and not any("SAVEPOINT" in q for q in control)
        and len(control) <= 2
    )


def listing(queries: list[str]) -> str:
    return "\n".join(f"{n}. {sql[:200]}" for n, sql in enumerate(queries, 1))


def test_a_result_created_corrected_and_annulled_within_ten_queries(tournament, personas):
    t = tournament
    arbiter = client_for(personas.arbiter)
    body = {"table": 1, "donne": 1, **GARDE, "confirm": list(WARNING_CODES)}
    version = Tournament.objects.get(pk=t.pk).results_version

    created, queries = measured(
        t,
        lambda: arbiter.post(
            url(t, "results/"), body, format="json", HTTP_IDEMPOTENCY_KEY="create-1"
        ),
    )
    assert created.status_code == 201, created.json()
    assert within_budget(queries), listing(queries)
    assert created.json()["scores"] == {"N": 204, "E": -68, "S": -68, "W": -68}
    assert created.json()["round"] == 1 and created.json()["updated_by"] == "arbitre"
    assert Result.objects.get(pk=created.json()["id"]).version == 1

    corrected, queries = measured(
        t,
        lambda: arbiter.put(
            url(t, "results/1/1/"),
            # The dealt hands follow the tournament's id: confirm whatever they make unlikely.
            {
                **GARDE,
                "points": 52,
                "reason": "Score sheet misread",
                "confirm": list(WARNING_CODES),
            },
            format="json",
            HTTP_IF_MATCH='"1"',
            HTTP_IDEMPOTENCY_KEY="correct-1",
        ),
    )
    assert corrected.status_code == 200, corrected.json()
    assert within_budget(queries), listing(queries)
    assert corrected.json()["version"] == 2 and corrected.headers["ETag"] == '"2"'
    assert corrected.json()["scores"]["N"] == 3 * 2 * (25 + 11)
    saved = Result.objects.get(pk=created.json()["id"])
    assert saved.version == 2 and str(saved.points) == "52.0"
    assert (
        corrected.json()["updated_at"] == arbiter.get(url(t, "results/1/1/")).json()["updated_at"]
    )

    annulled, queries = measured(
        t,
        lambda: arbiter.post(
            url(t, "results/1/1/annul/"),
            {"reason": "Cards of two étuis mixed"},
            format="json",
            HTTP_IF_MATCH='"2"',
            HTTP_IDEMPOTENCY_KEY="annul-1",
        ),
    )
    assert annulled.status_code == 200, annulled.json()
    assert within_budget(queries), listing(queries)
    assert annulled.json()["status"] == "annulled" and annulled.json()["version"] == 3

    actions = list(
        LedgerEntry.objects.filter(result_id=created.json()["id"])
        .order_by("pk")
        .values_list("action", flat=True)
    )
    assert actions == ["result_created", "result_changed", "result_annulled"]
    assert Tournament.objects.get(pk=t.pk).results_version == version + 3
    state = RankingState.objects.get(pk=t.pk)
    assert state.stale_since is not None and state.queued_at is not None  # a task was sent


def test_a_write_without_a_key_and_a_replay_within_ten_queries(tournament, personas):
    t = tournament
    arbiter = client_for(personas.arbiter)
    body = {"table": 1, "donne": 2, "status": "all_passed"}
    created, queries = measured(t, lambda: arbiter.post(url(t, "results/"), body, format="json"))
    assert created.status_code == 201, created.json()
    assert within_budget(queries), listing(queries)

    again = {"table": 1, "donne": 3, "status": "all_passed"}
    send = lambda: arbiter.post(  # noqa: E731
        url(t, "results/"), again, format="json", HTTP_IDEMPOTENCY_KEY="twice"
    )
    first, _queries = measured(t, send)
    replayed, queries = measured(t, send)
    assert replayed.status_code == 201 and replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.json() == first.json()
    assert within_budget(queries), listing(queries)
    assert Result.objects.filter(donne__number=3, table__number=1).count() == 1


def test_a_write_while_a_task_is_queued_dispatches_nothing(tournament, personas):
    """A write committed while a ranking task is queued and the tournament noted stale leaves
    the computation to that task: after the commit, the scheduler reads the ranking's state
    once (results_changed's receiver) and writes nothing; the claim and the stale mark stay
    as they were."""
    from django.utils import timezone

    t = tournament
    arbiter = client_for(personas.arbiter)
    claimed = timezone.now()
    RankingState.objects.filter(pk=t.pk).update(queued_at=claimed, stale_since=claimed)
    with CaptureQueriesContext(connection) as ctx:
        response = arbiter.post(
            url(t, "results/"),
            {"table": 1, "donne": 2, "status": "all_passed"},
            format="json",
            HTTP_IDEMPOTENCY_KEY="queued",
        )
    assert response.status_code == 201, response.json()
    queries = [q["sql"] for q in ctx.captured_queries]
    after_commit = queries[[q.startswith("COMMIT") for q in queries].index(True) + 1 :]
    assert len(after_commit) == 1 and "rankingstate" in after_commit[0], listing(queries)
    assert after_commit[0].startswith("SELECT"), listing(queries)
    state = RankingState.objects.get(pk=t.pk)
    assert (state.queued_at, state.stale_since) == (claimed, claimed)
