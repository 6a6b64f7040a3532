"""Files built once for every web process (`reads.built_once`): kept in the shared Redis
cache, a second process waits for the file the first is building instead of building it
too, and without Redis each process builds its own."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache, caches
from django.test import override_settings

from tests.fixtures.services import private_redis_db
from tournaments.simultaneous.hub.reads import built_once


def shared_cache(location: str) -> Any:
    shared = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": location,
        "KEY_PREFIX": f"test-{uuid.uuid4().hex[:8]}",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    return override_settings(CACHES={**settings.CACHES, "shared": shared})


class Builder:
    def __init__(self, value: bytes) -> None:
        self.value, self.calls = value, 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.value


def test_another_process_reads_the_file_from_redis(redis_url):
    key = f"booklet:{uuid.uuid4().hex}"
    with shared_cache(private_redis_db(redis_url)):
        first = Builder(b"%PDF one")
        assert built_once(key, first) == b"%PDF one" and first.calls == 1
        cache.delete(key)  # another process: nothing in its own memory
        second = Builder(b"%PDF two")
        assert built_once(key, second) == b"%PDF one" and second.calls == 0


def test_a_process_waits_for_the_file_being_built(redis_url):
    key = f"booklet:{uuid.uuid4().hex}"
    with shared_cache(private_redis_db(redis_url)):
        shared = caches["shared"]
        assert shared.add(f"{key}:building", 1, 30)  # another process is building it
        timer = threading.Timer(1.0, lambda: shared.set(key, b"%PDF theirs", 60))
        timer.start()
        mine = Builder(b"%PDF mine")
        try:
            assert built_once(key, mine, wait=10) == b"%PDF theirs"
        finally:
            timer.join()
        assert mine.calls == 0
        # a builder that never delivers: the process builds its own after the wait
        other = f"booklet:{uuid.uuid4().hex}"
        assert shared.add(f"{other}:building", 1, 30)
        assert built_once(other, mine, wait=1) == b"%PDF mine" and mine.calls == 1


@pytest.mark.parametrize("location", ["redis://127.0.0.1:1/0", None])
def test_without_redis_each_process_builds_its_own(location):
    key = f"booklet:{uuid.uuid4().hex}"
    settings_cm = shared_cache(location) if location else override_settings()
    with settings_cm:
        builder = Builder(b"%PDF")
        assert built_once(key, builder) == b"%PDF"
        assert built_once(key, builder) == b"%PDF" and builder.calls == 1  # this process
        cache.delete(key)
        assert built_once(key, builder) == b"%PDF" and builder.calls == 2
