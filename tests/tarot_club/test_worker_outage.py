"""A worker rides out a Redis outage (tarot_club/broker.py):
- it holds a delayed task (as during a burst of results, whose ranking is coalesced with a
  countdown) when its own Redis server is killed; it keeps running, reconnects when Redis is
  back, and computes the next ranking;
- a task that ends while Redis is down is acknowledged once the worker has reconnected (its
  entry leaves Redis' unacked hash, so it is not delivered again), and the same worker process
  goes on taking tasks.

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
from tests.scoring.rankings.helpers import enter, schedule
from tests.scoring.rankings.test_worker import wait_for_version

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """A private `redis-server`, which the test may kill and restart. Without `data_dir` it
    keeps nothing; with one it writes every command to an append-only file there (fsync
    always), so a restart after SIGKILL finds the data as it was."""

    def __init__(self, port: int, data_dir: Path | None = None) -> None:
        self.port = port
        self.data_dir = data_dir
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        if self.data_dir is None:
            cmd += ["--appendonly", "no"]
        else:
            cmd += ["--appendonly", "yes", "--appendfsync", "always", "--dir", str(self.data_dir)]
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
def own_redis(tmp_path: Path) -> Iterator[RedisServer]:
    """A private Redis that keeps its data across a kill and restart (its own directory)."""
    require("redis-server", shutil.which("redis-server") is not None)
    data_dir = tmp_path / "redis"
    data_dir.mkdir()
    server = RedisServer(_free_port(), data_dir)
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
    """The worker as deployed: prefork pool, gossip and mingle on; it also loads the tasks
    of tests/tarot_club/outage_tasks.py."""

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
        cmd += ["-n", f"{self.queue}@%h", "--include", "tests.tarot_club.outage_tasks"]
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
    _wait_for_reconnection(prefork_worker)
    enter(tournament, *cells[1], personas.arbiter)
    snapshot = wait_for_version(tournament, timeout=60)
    assert snapshot.results_version == 2
    assert snapshot.computed_in == prefork_worker.name


def _wait_for_reconnection(worker: PreforkWorker, timeout: float = 60) -> None:
    """Until the worker answers a ping through the restarted Redis (its retry interval grows
    2, 4, 6 s...); the worker must stay up all along."""
    from tarot_club.celery import app

    deadline = time.monotonic() + timeout
    while True:
        reset_connections(app)  # this test process' pooled connections died with the server
        try:
            if app.control.ping(destination=[worker.name], timeout=0.5):
                return
        except Exception:
            pass
        assert worker.process is not None and worker.process.poll() is None
        assert time.monotonic() < deadline, "the worker did not reconnect"
        time.sleep(0.5)


def _trace(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def _wait_for_trace(path: Path, expected: list[str], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while _trace(path) != expected:
        assert time.monotonic() < deadline, f"{what}: trace {_trace(path)}"
        time.sleep(0.05)


def test_task_ending_during_redis_outage_is_acknowledged_and_the_same_worker_goes_on(
    prefork_worker: PreforkWorker, own_redis: RedisServer, tmp_path: Path
):
    from tarot_club.celery import app
    from tests.tarot_club.outage_tasks import hold_worker

    assert prefork_worker.process is not None
    pid = prefork_worker.process.pid
    first = tmp_path / "first.trace"
    hold_worker.apply_async((str(first), 3.0))
    _wait_for_trace(first, ["started"], 20, "the worker did not start the task")
    assert _unacked(app.conf.broker_url) == 1  # acks_late: held until the task ends

    own_redis.kill()
    _wait_for_trace(first, ["started", "done"], 20, "the task did not end")
    time.sleep(1)  # the result reaches the worker's main process while Redis is down
    own_redis.start()  # same port and data: the task's entry is still in the unacked hash

    _wait_for_reconnection(prefork_worker)
    second = tmp_path / "second.trace"
    reset_connections(app)
    hold_worker.apply_async((str(second), 0.1))
    _wait_for_trace(second, ["started", "done"], 30, "the worker did not run a new task")

    log = Path(prefork_worker.log).read_text(errors="replace")
    assert prefork_worker.process.poll() is None, log[-3000:]
    assert prefork_worker.process.pid == pid
    assert "Unrecoverable error" not in log, log[-3000:]
    deadline = time.monotonic() + 10
    while _unacked(app.conf.broker_url):  # acknowledged through the new connection
        assert time.monotonic() < deadline, log[-3000:]
        time.sleep(0.1)
    assert _trace(first) == ["started", "done"]  # run once, not delivered again
