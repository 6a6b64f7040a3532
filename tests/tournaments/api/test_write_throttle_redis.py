"""The write throttle with its counters in Redis (one round trip, tarot_club.kit.rate_log):
the same answers as DRF's own throttle, what a client sees at the limit, and the database
taking over while Redis does not answer."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.test import override_settings
from rest_framework.throttling import SimpleRateThrottle

from tarot_club.kit.throttling import WriteRateThrottle
from tests.fixtures.services import private_redis_db
from tests.tournaments.api.conftest import client_for
from tournaments.models import Penalty

pytestmark = pytest.mark.django_db


def shared_cache(location: str) -> Any:
    shared = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": location,
        "KEY_PREFIX": f"test-{uuid.uuid4().hex[:8]}",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    return override_settings(CACHES={**settings.CACHES, "shared": shared})


def write_rate(rate: str) -> Any:
    conf = dict(settings.REST_FRAMEWORK)
    conf["DEFAULT_THROTTLE_RATES"] = {**conf["DEFAULT_THROTTLE_RATES"], "write": rate}
    return override_settings(REST_FRAMEWORK=conf)


@pytest.fixture
def counters_in_redis(redis_url: str) -> Iterator[None]:
    with shared_cache(private_redis_db(redis_url)):
        yield


class DrfWrites(SimpleRateThrottle):
    """DRF's own throttle, as the reference: same rate and key, its history in memory."""

    rate = "5/min"
    cache = LocMemCache("drf-reference", {})

    def get_cache_key(self, request: Any, view: Any) -> str:
        return f"throttle_write_u{request.user.pk}"


def test_same_answers_and_waits_as_drf(counters_in_redis, personas) -> None:
    DrfWrites.cache.clear()
    rng = random.Random(16)
    times = sorted(1_000_000 + rng.uniform(0, 300) for _ in range(120))
    request = SimpleNamespace(method="POST", user=personas.arbiter, META={})
    answers = []
    with write_rate("5/min"):
        for now in times:
            ours, theirs = WriteRateThrottle(), DrfWrites()
            ours.timer = theirs.timer = lambda now=now: now  # type: ignore[method-assign]
            allowed = ours.allow_request(request, None)
            assert allowed == theirs.allow_request(request, None), now
            if not allowed:
                assert ours.wait() == pytest.approx(theirs.wait())
            answers.append(allowed)
    assert True in answers and False in answers  # both cases were met


def test_the_limit_answers_429_and_each_user_has_his_own(
    counters_in_redis, running_tournament, personas
) -> None:
    t = running_tournament
    path = f"/api/v1/tournaments/{t.pk}/penalties/"
    player = personas.player_user.player.pk

    def body(n: int) -> dict[str, object]:
        return {"player": player, "kind": "other", "points": n, "reason": f"Slow play {n}"}

    arbiter = client_for(personas.arbiter)
    with write_rate("2/min"):
        assert arbiter.post(path, body(1), format="json").status_code == 201
        assert arbiter.post(path, body(2), format="json").status_code == 201
        third = arbiter.post(path, body(3), format="json")
        assert third.status_code == 429 and third.json()["code"] == "throttled"
        assert 0 < int(third["Retry-After"]) <= 60
        assert client_for(personas.organiser).post(path, body(3), format="json").status_code == 201
    assert Penalty.objects.count() == 3


def test_redis_down_counts_in_the_database(running_tournament, personas) -> None:
    t = running_tournament
    path = f"/api/v1/tournaments/{t.pk}/penalties/"
    player = personas.player_user.player.pk
    arbiter = client_for(personas.arbiter)
    with shared_cache("redis://127.0.0.1:1/0"), write_rate("2/min"):  # nothing listens there
        codes = [
            arbiter.post(
                path,
                {"player": player, "kind": "other", "points": n, "reason": f"Slow play {n}"},
                format="json",
            ).status_code
            for n in range(3)
        ]
    assert codes == [201, 201, 429]
