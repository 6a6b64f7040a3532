"""Separate tarot_club sites for the end-to-end test of simultaneous events: each one a
gunicorn process (and, where asked, a Celery worker) with its own database, reached over HTTP
on the loopback; `manage.py shell` scripts for what has no HTTP entry (the club's data set-up,
table entries, the database read at the end)."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from tests.fixtures.template import shared_template
from tests.lanes import admin_connection

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "e2e-Password-42"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Databases:
    """One migrated database cloned for every site: PostgreSQL databases made from a
    template when ``base_url`` is PostgreSQL, SQLite files copied otherwise."""

    def __init__(self, base_url: str, workdir: Path) -> None:
        self.postgres = base_url.startswith("postgres")
        self.base_url = base_url
        self.workdir = workdir
        self.prefix = f"e2e_{uuid.uuid4().hex[:8]}"
        self.made: list[str] = []

    def _admin(self) -> Any:
        return admin_connection(self.base_url)

    def url(self, name: str) -> str:
        if self.postgres:
            return urlsplit(self.base_url)._replace(path=f"/{name}").geturl()
        return f"sqlite:///{self.workdir / (name + '.sqlite3')}"

    def template(self) -> str:
        """The migrated template's name: on PostgreSQL, the run's own when it has one
        (tests/fixtures/template.py; tests/lanes.py drops it), else one created and
        migrated here."""
        shared = shared_template() if self.postgres else ""
        if shared:
            return shared
        name = f"{self.prefix}_template"
        if self.postgres:
            with self._admin() as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
        self.made.append(name)
        run_manage(["migrate", "-v0"], {"DATABASE_URL": self.url(name)}, timeout=240)
        return name

    def clone(self, template: str, name: str) -> str:
        full = f"{self.prefix}_{name}"
        if self.postgres:
            with self._admin() as conn:
                conn.execute(f'CREATE DATABASE "{full}" TEMPLATE "{template}"')
        else:
            shutil.copyfile(self.workdir / f"{template}.sqlite3", self.workdir / f"{full}.sqlite3")
        self.made.append(full)
        return self.url(full)

    def drop_all(self) -> None:
        if not self.postgres:
            return
        with contextlib.suppress(Exception), self._admin() as conn:
            for name in self.made:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def site_env(extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "SECRET_KEY": "e2e-only-secret-key-" + "x" * 40,
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "PYTHONUNBUFFERED": "1",
            # The hub is another site on the loopback: allowed by the site's setting only.
            "SIMULTANEOUS_HUB_ALLOWED_URLS": "http://127.0.0.1",
        }
    )
    env.update(extra)
    return env


def run_manage(args: list[str], env: dict[str, str], *, timeout: float = 120) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=site_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"manage.py {args[0]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done.stdout


def start_script(script: str, env: dict[str, str], args: dict[str, Any]) -> subprocess.Popen:
    """A `manage.py shell` script in the site's environment; its last output line is JSON."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "shell", "-c", script],
        cwd=ROOT,
        env=site_env({**env, "E2E_ARGS": json.dumps(args)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def script_result(process: subprocess.Popen, timeout: float = 120) -> Any:
    out, err = process.communicate(timeout=timeout)
    if process.returncode != 0:
        raise RuntimeError(f"script failed:\n{out[-3000:]}\n{err[-4000:]}")
    return json.loads(out.strip().splitlines()[-1])


def run_scripts(jobs: list[tuple[str, dict[str, str], dict[str, Any]]]) -> list[Any]:
    """Run scripts in parallel (one per site); their results in order."""
    processes = [start_script(script, env, args) for script, env, args in jobs]
    return [script_result(p) for p in processes]


class Site:
    """A site: gunicorn on a loopback port, optionally a Celery worker, and an HTTP client
    with a cookie jar (login, CSRF and the forms' one-time tokens) and API tokens."""

    def __init__(self, name: str, env: dict[str, str], logdir: Path) -> None:
        self.name = name
        self.env = env
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.logdir = logdir
        self.processes: list[subprocess.Popen] = []
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.token = ""

    def start(self, *, worker: bool = False) -> None:
        env = site_env({**self.env, "SITE_URL": self.url})
        log = (self.logdir / f"{self.name}-web.log").open("wb")
        self.processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "tarot_club.wsgi:application", "-b",
                 f"127.0.0.1:{self.port}", "-w", "1", "--threads", "4", "--timeout", "60"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            )
        )  # fmt: skip
        if worker:
            log = (self.logdir / f"{self.name}-worker.log").open("wb")
            self.processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "celery", "-A", "tarot_club", "worker", "--pool",
                     "solo", "-Q", env["CELERY_QUEUE"], "-n", f"{env['CELERY_QUEUE']}@%h",
                     "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
                    cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                )
            )  # fmt: skip

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(f"{self.name} exited: {self.logs()}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(self.url + "/healthz", timeout=2),
            ):
                return
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not answer in {timeout}s: {self.logs()}")

    def logs(self) -> str:
        return "\n".join(
            f"--- {path.name}\n{path.read_text(errors='replace')[-3000:]}"
            for path in sorted(self.logdir.glob(f"{self.name}-*.log"))
        )

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes = []

    # --- HTTP ---------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        data: Any = None,
        *,
        token: str | None = None,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """(status, decoded JSON or text). ``token``: None for the site's API token, "" for
        none (a session or an anonymous reader)."""
        headers = dict(headers or {})
        body = None
        if form is not None:
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Referer"] = self.url + path
        elif data is not None:
            body = json.dumps(data).encode()
            headers["Content-Type"] = "application/json"
        key = self.token if token is None else token
        if key:
            headers["Authorization"] = f"Token {key}"
        req = urllib.request.Request(self.url + path, data=body, headers=headers, method=method)
        try:
            with self.opener.open(req, timeout=60) as response:
                status, raw, kind = (
                    response.status,
                    response.read(),
                    response.headers.get("Content-Type", ""),
                )
        except urllib.error.HTTPError as err:
            status, raw, kind = err.code, err.read(), err.headers.get("Content-Type", "")
        text = raw.decode("utf-8", errors="replace")
        return status, json.loads(text) if "json" in kind and text else text

    def api(self, method: str, path: str, data: Any = None, **kwargs: Any) -> Any:
        status, body = self.request(method, "/api/v1/" + path, data, **kwargs)
        if status >= 400:
            raise AssertionError(f"{self.name} {method} {path}: {status} {body}")
        return body

    def login(self, username: str) -> None:
        _status, page = self.request("GET", "/login/", token="")
        self.submit("/login/", page, {"username": username, "password": PASSWORD})

    def submit(self, path: str, page: str, fields: dict[str, str]) -> tuple[int, str]:
        """POST a site form as a browser would: its CSRF token and one-time token from
        ``page`` (the page the form is on)."""
        form = dict(fields)
        for name in ("csrfmiddlewaretoken", "_once"):
            found = re.search(rf'name="{name}" value="([^"]+)"', page)
            if found:
                form[name] = found.group(1)
        return self.request("POST", path, token="", form=form)


class Proxy:
    """A TCP relay from a loopback port to a site: stopping it makes the site unreachable
    for whoever goes through it (a club that lost its connection); it can start again on
    the same port."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = free_port()
        self.server: socket.socket | None = None

    def start(self) -> None:
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", self.port))
        server.listen(16)
        self.server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                client, _addr = server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=10)
            except OSError:
                client.close()
                continue
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                sink.shutdown(socket.SHUT_WR)

    def stop(self) -> None:
        if self.server is not None:
            with contextlib.suppress(OSError):
                self.server.shutdown(socket.SHUT_RDWR)
            self.server.close()
            self.server = None


def wait_for(what: str, check: Any, timeout: float = 40, every: float = 0.3) -> Any:
    """Poll ``check()`` until it returns something true; its value, or AssertionError."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")
