"""`manage.py serve`: the room's phones are served by gunicorn (threads sized to the machine,
DEBUG off, static files by WhiteNoise) and this machine alone by the development server; the
site stays up when its Celery worker dies (the worker is started again) and Ctrl-C stops
everything."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.fixtures.services import ROOT
from tests.tarot_club.test_worker_outage import _free_port, own_redis  # noqa: F401

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


def test_the_room_is_served_by_gunicorn_and_this_machine_by_the_development_server():
    from tarot_club.management.commands.serve import gunicorn_size, web_server_command

    room = web_server_command(host="0.0.0.0", port="8000", server="auto", cores=2)
    assert room[1:3] == ["-m", "gunicorn"]
    options = dict(zip(room[4::2], room[5::2], strict=False))
    assert options["--bind"] == "0.0.0.0:8000"
    assert options["--worker-class"] == "gthread"
    assert (int(options["--workers"]), int(options["--threads"])) == gunicorn_size(2) == (2, 8)
    assert "runserver" in web_server_command(host="127.0.0.1", port="8000", server="auto", cores=2)
    assert "--bind" in web_server_command(host="::1", port="80", server="gunicorn", cores=2)
    assert "[::]:80" in web_server_command(host="::", port="80", server="auto", cores=2)
    # Sized to the machine, within bounds: the threads bound the database connections.
    assert gunicorn_size(1) == (2, 8) and gunicorn_size(64) == (3, 8)


def _children(pid: int) -> list[tuple[int, str]]:
    """(pid, whole command line) of the children of `pid`."""
    out = subprocess.run(
        ["ps", "-ww", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True
    ).stdout
    return [(int(line.split()[0]), line.split(None, 1)[1]) for line in out.splitlines()]


def _get(url: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


FORCED = ("--server", "gunicorn")


@pytest.mark.django_db(transaction=True)
def test_serve_for_the_room_runs_gunicorn_with_threads_and_stops_it(tmp_path):
    from tarot_club.management.commands.serve import gunicorn_size, machine_cores
    from tests.fixtures.services import database_url_for_current_test_db

    port = _free_port()
    host = "127.0.0.2"  # a loopback address, served as the room would be (--server gunicorn)
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url_for_current_test_db(),
            "REDIS_URL": "",  # no worker: tasks in-process
            "SECRET_KEY": "test-only-secret-key",
            "DEBUG": "1",  # ignored: the room is never served in DEBUG
            "STATIC_ROOT": str(tmp_path / "static"),
        }
    )
    serve = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--host", host, "--port", str(port), *FORCED],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://{host}:{port}"
    try:
        master = _wait_for(lambda: _children(serve.pid), 30, "the web server")[0]
        processes, threads = gunicorn_size(machine_cores())
        assert "-m gunicorn tarot_club.wsgi:application" in master[1]
        assert f"--bind {host}:{port} --worker-class gthread" in master[1]
        assert f"--workers {processes} --threads {threads}" in master[1]
        _wait_for(lambda: len(_children(master[0])) == processes, 30, "gunicorn's processes")

        status, headers, body = _wait_for(
            lambda: _get(f"{base}/") if _answers_at(base) else None, 30, "the home page"
        )
        assert status == 200 and headers["Server"].startswith("gunicorn")
        assert 'lang="fr"' in body
        stylesheet = re.search(r'href="(/static/[^"]+\.css)"', body).group(1)  # type: ignore[union-attr]
        status, headers, _css = _get(f"{base}{stylesheet}")  # WhiteNoise
        assert status == 200 and headers["Content-Type"].startswith("text/css")
        status, _headers, body = _get(f"{base}/no-such-page/")
        assert status == 404 and "DEBUG = True" not in body  # the site's page, no traceback
        gunicorn_pids = [master[0], *(pid for pid, _args in _children(master[0]))]
    finally:
        os.killpg(serve.pid, signal.SIGTERM)  # Ctrl-C or a service manager's stop
        try:
            output = serve.communicate(timeout=30)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            output = serve.communicate()[0].decode(errors="replace")
    assert f"served on {base}/ (gunicorn, {processes} processes of {threads} threads)" in output
    assert "Stopped." in output
    for pid in gunicorn_pids:
        assert (
            not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()
        )


def _answers_at(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=5):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False
