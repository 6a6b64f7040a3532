"""`manage.py serve` keeps the site up when its Celery worker dies: it starts the worker
again, and the web server goes on answering."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.fixtures.services import ROOT
from tests.foundation.test_worker_outage import _free_port, own_redis  # noqa: F401

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _celery_children(pid: int) -> list[int]:
    out = subprocess.run(
        ["ps", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True
    ).stdout
    return [int(line.split()[0]) for line in out.splitlines() if "celery" in line]


def _wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return response.status in (200, 503)
    except urllib.error.HTTPError as exc:
        return exc.code in (200, 503)
    except OSError:
        return False


def test_serve_restarts_a_dead_worker_and_the_site_stays_up(own_redis, tmp_path):  # noqa: F811
    port = _free_port()
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
            "REDIS_URL": f"redis://127.0.0.1:{own_redis.port}/0",
            "CELERY_EAGER": "0",
            "CELERY_QUEUE": f"serve-{port}",
            "SECRET_KEY": "test-only-secret-key",
            "DEBUG": "1",
        }
    )
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        first = _wait_for(lambda: _celery_children(serve.pid), 30, "the worker")[0]
        _wait_for(lambda: _answers(port), 30, "the web server")
        os.kill(first, signal.SIGKILL)
        second = _wait_for(
            lambda: [p for p in _celery_children(serve.pid) if p != first], 30, "a new worker"
        )[0]
        assert second != first
        assert serve.poll() is None
        assert _answers(port)
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        try:
            output = serve.communicate(timeout=20)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            output = serve.communicate()[0].decode(errors="replace")
    assert "The Celery worker stopped" in output, output[-2000:]
