"""A worker rides out a Redis outage: it holds a delayed task (as during a burst of results,
whose ranking is coalesced with a countdown) when its own Redis server is killed; it keeps
running, reconnects when Redis is back, and computes the next ranking (tarot_club/broker.py).

The worker runs with the prefork pool, as `manage.py serve` and the deployment start it; the
Redis server is one the test starts on a free port, so the machine's shared one is untouched.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.fixtures.services import (
    ROOT,
    WorkerProcess,
    database_url_for_current_test_db,
    require,
    reset_connections,
)
from tests.fixtures.tournaments import stage_tournament
from tests.rankings.helpers import enter, schedule
from tests.rankings.test_worker import wait_for_version

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """A private `redis-server` without persistence, which the test may kill and restart."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        cmd += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if client.ping():
                    return
            except redis.RedisError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    require("redis-server", shutil.which("redis-server") is not None)
    server = RedisServer(_free_port())
    server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def redis_url(own_redis: RedisServer) -> str:
    """The broker of this module's tests: the private server (celery_broker picks a db)."""
    return f"redis://127.0.0.1:{own_redis.port}/0"


class PreforkWorker(WorkerProcess):
    """The worker as deployed: prefork pool, gossip and mingle on."""

    def start(self) -> None:
        env = dict(os.environ)
        env.update(
            {
                "DATABASE_URL": database_url_for_current_test_db(),
                "REDIS_URL": self.broker,
                "CELERY_EAGER": "0",
                "CELERY_QUEUE": self.queue,
                "SECRET_KEY": "test-only-secret-key",
            }
        )
        cmd = [sys.executable, "-m", "celery", "-A", "tarot_club", "worker", "--loglevel", "INFO"]
        cmd += ["--pool", "prefork", "--concurrency", "2", "-Q", self.queue]
        cmd += ["-n", f"{self.queue}@%h"]
        self.process = subprocess.Popen(
            cmd, env=env, cwd=ROOT, stdout=self.log.open("wb"), stderr=subprocess.STDOUT
        )
        self.wait_ready()


@pytest.fixture
def prefork_worker(celery_broker: str, transactional_db) -> Iterator[PreforkWorker]:
    from tests.fixtures.services import current_broker_url

    worker = PreforkWorker(current_broker_url(), celery_broker)
    try:
        worker.start()
        yield worker
    finally:
        worker.stop()


def _unacked(broker_url: str) -> int:
    return redis.Redis.from_url(broker_url, socket_connect_timeout=0.5).hlen("unacked")


def test_worker_holding_a_delayed_task_survives_redis_killed_and_catches_up(
    prefork_worker: PreforkWorker, own_redis: RedisServer, personas, settings
):
    from scoring.rankings.tasks import recompute_ranking
    from tarot_club.celery import app

    settings.RANKING_STALE_AFTER = 3600  # the worker catches up, not a page read
    tournament = stage_tournament(personas=personas)
    cells = [(t, d) for _r, t, d in schedule(tournament)]
    enter(tournament, *cells[0], personas.arbiter)
    assert wait_for_version(tournament).computed_in == prefork_worker.name

    # A coalesced computation waiting for its countdown is held by the worker, unacknowledged.
    recompute_ranking.apply_async((tournament.pk,), countdown=120)
    deadline = time.monotonic() + 10
    while _unacked(app.conf.broker_url) < 1:
        assert time.monotonic() < deadline, "the worker did not take the delayed task"
        time.sleep(0.1)

    own_redis.kill()
    time.sleep(4)  # the worker notices the lost connection and tries to reconnect
    log = Path(prefork_worker.log).read_text(errors="replace")
    assert prefork_worker.process is not None
    assert prefork_worker.process.poll() is None, log[-3000:]
    assert "Unrecoverable error" not in log, log[-3000:]

    own_redis.start()  # same port: the worker reconnects by itself
    deadline = time.monotonic() + 60
    while True:  # the worker reconnects (its retry interval grows 2, 4, 6 s...)
        reset_connections(app)  # this test process' pooled connections died with the server
        try:
            if app.control.ping(destination=[prefork_worker.name], timeout=0.5):
                break
        except Exception:
            pass
        assert prefork_worker.process.poll() is None
        assert time.monotonic() < deadline, "the worker did not reconnect"
        time.sleep(0.5)
    enter(tournament, *cells[1], personas.arbiter)
    snapshot = wait_for_version(tournament, timeout=60)
    assert snapshot.results_version == 2
    assert snapshot.computed_in == prefork_worker.name
