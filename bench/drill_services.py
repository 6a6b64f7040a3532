"""Private services for the fault drills (bench/drill_faults.py, bench/drill_multihost.py):
a PostgreSQL cluster of their own (initdb + pg_ctl on a free port under /tmp, so restarting
it touches no other database), a Redis server of their own with a password, Celery workers
and gunicorn web processes that the drills may kill, and a small HTTP client that retries an
unanswered write with the same Idempotency-Key, as the table page and the API's clients do.

Everything listens on loopback addresses (127.0.0.0/8 is all loopback on Linux) and is
stopped when the drill ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def wait_port(host: str, port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.3):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {host}:{port}")


def _pg_bin(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if not candidates:
        raise RuntimeError(f"{name} not found (PostgreSQL server binaries)")
    return str(candidates[-1])


class PrivatePostgres:
    """A PostgreSQL cluster of the drill's own, owned by the `postgres` system user when run
    as root (PostgreSQL refuses to run as root), with a password-protected role `tarot`."""

    def __init__(
        self, work: Path, *, host: str = "127.0.0.1", password: str = "", port: int = 0
    ) -> None:
        self.host = host
        self.port = port or free_port(host)
        self.password = password or "drill-pg-password"
        self.data = work / "pgdata"
        self.log = work / "postgres.log"
        self.as_user = "postgres" if os.geteuid() == 0 else None
        self.work = work

    def _run(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        if self.as_user:
            cmd = ("runuser", "-u", self.as_user, "--", *cmd)
        return subprocess.run(cmd, check=check, capture_output=True, text=True)

    def init(self) -> None:
        if self.as_user:  # the postgres user must reach its folder
            uid = pwd.getpwnam(self.as_user).pw_uid
            os.chown(self.work, uid, -1)
            for parent in self.work.parents:
                if parent == Path("/tmp"):
                    break
                parent.chmod(parent.stat().st_mode | 0o711)
        pwfile = self.work / "pgpass.txt"
        pwfile.write_text(self.password + "\n")
        if self.as_user:
            os.chown(pwfile, pwd.getpwnam(self.as_user).pw_uid, -1)
        self._run(
            _pg_bin("initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            f"--pwfile={pwfile}",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
        )
        with (self.data / "pg_hba.conf").open("a") as fh:  # every loopback address
            fh.write("host all all 127.0.0.0/8 scram-sha-256\n")
        conf = self.data / "postgresql.conf"
        with conf.open("a") as fh:
            fh.write(
                f"\nlisten_addresses = '{self.host}'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.work}'\nfsync = off\n"
                "synchronous_commit = on\nmax_connections = 60\n"
            )
        self.start()
        sql = (
            f"CREATE ROLE tarot LOGIN PASSWORD '{self.password}' CREATEDB;"
            "CREATE DATABASE tarot_club OWNER tarot;"
        )
        for statement in sql.split(";"):
            if statement:
                self._run(
                    _pg_bin("psql"),
                    "-h",
                    str(self.work),
                    "-p",
                    str(self.port),
                    "-U",
                    "postgres",
                    "-c",
                    statement,
                )

    def url(self) -> str:
        return f"postgres://tarot:{self.password}@{self.host}:{self.port}/tarot_club"

    def start(self) -> None:
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run(_pg_bin("pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop", check=False)


class PrivateRedis:
    """A redis-server of the drill's own (no persistence), with a password."""

    def __init__(self, *, host: str = "127.0.0.1", password: str = "", port: int = 0) -> None:
        self.host = host
        self.port = port or free_port(host)
        self.password = password or "drill-redis-password"
        self.process: subprocess.Popen | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://:{self.password}@{self.host}:{self.port}/{db}"

    def start(self) -> None:
        cmd = ["redis-server", "--port", str(self.port), "--bind", self.host]
        cmd += ["--save", "", "--appendonly", "no", "--requirepass", self.password]
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        wait_port(self.host, self.port, timeout=10)

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def drill_environment(
    work: Path, pg: PrivatePostgres, redis: PrivateRedis, **overrides: str
) -> dict[str, str]:
    """The environment of a drill's web and worker processes (and of the orchestrator, which
    sets it on itself before django.setup()): production settings on the drill's own
    PostgreSQL and Redis, a broker in use, the sweep on, files under `work`."""
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "tarot_club.settings",
            "DEBUG": "0",
            "SECRET_KEY": "drill-only-secret-key-" + "x" * 40,
            "DATABASE_URL": pg.url(),
            "REDIS_URL": redis.url(),
            "CELERY_EAGER": "0",
            "CELERY_QUEUE": "drill",
            "MEDIA_ROOT": str(work / "media"),
            "TAROT_VAR_DIR": str(work / "var"),
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
            "TAROT_SWEEP": "1",
        }
    )
    env.update(overrides)
    return env


@dataclass
class Process:
    """A worker or web process started from a checkout, in its own process group so that
    killing it kills its children (gunicorn's and Celery's pool processes) too."""

    name: str
    cmd: list[str]
    cwd: Path
    env: dict[str, str]
    log_dir: Path
    ready_port: tuple[str, int] | None = None
    process: subprocess.Popen | None = None
    starts: int = 0
    pids: list[int] = field(default_factory=list)

    def start(self) -> None:
        log = (self.log_dir / f"{self.name}-{self.starts}.log").open("wb")
        self.process = subprocess.Popen(
            self.cmd,
            cwd=self.cwd,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.starts += 1
        self.pids.append(self.process.pid)
        if self.ready_port:
            wait_port(*self.ready_port, timeout=60)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL to the whole group: nothing finishes, nothing is handed back."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.alive():
            assert self.process is not None
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def log_text(self) -> str:
        return "".join(
            (self.log_dir / f"{self.name}-{n}.log").read_text(errors="replace")
            for n in range(self.starts)
        )


def worker_process(
    name: str, *, cwd: Path, env: dict[str, str], log_dir: Path, concurrency: int = 2
) -> Process:
    cmd = [sys.executable, "-m", "celery", "-A", "tarot_club", "worker"]
    cmd += ["-Q", env["CELERY_QUEUE"], "-n", f"tarot@{name}", "--concurrency", str(concurrency)]
    cmd += ["--loglevel", "INFO"]
    return Process(name, cmd, cwd, env, log_dir)


def web_process(
    name: str,
    *,
    cwd: Path,
    env: dict[str, str],
    log_dir: Path,
    host: str,
    port: int,
    workers: int = 2,
) -> Process:
    """gunicorn serving tarot_club on host:port with `workers` processes."""
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    cmd = [gunicorn, "tarot_club.wsgi", "--bind", f"{host}:{port}", "--workers", str(workers)]
    cmd += ["--timeout", "60", "--graceful-timeout", "5"]
    return Process(name, cmd, cwd, env, log_dir, ready_port=(host, port))


class NoAnswer(Exception):
    """The request got no HTTP answer (connection refused or cut)."""


@dataclass
class Answer:
    status: int
    body: bytes
    headers: dict[str, str]
    cookies: dict[str, str] = field(default_factory=dict)

    def json(self) -> object:
        return json.loads(self.body or b"null")


class Client:
    """HTTP to one web host by its address, with the Host (and proxy) headers a load
    balancer would send."""

    def __init__(self, base: str, *, host_header: str = "", proxy_https: bool = False) -> None:
        self.base = base.rstrip("/")
        self.headers: dict[str, str] = {}
        if host_header:
            self.headers["Host"] = host_header
        if proxy_https:
            self.headers["X-Forwarded-Proto"] = "https"
            self.headers["X-Forwarded-For"] = "192.0.2.10"

    def request(
        self,
        method: str,
        path: str,
        *,
        body: object = None,
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
        timeout: float = 20,
    ) -> Answer:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        all_headers = {**self.headers, **(headers or {})}
        if body is not None:
            all_headers.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(self.base + path, data=data, method=method)
        for key, value in all_headers.items():
            req.add_header(key, value)
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            with opener.open(req, timeout=timeout) as resp:
                return Answer(resp.status, resp.read(), dict(resp.headers), _cookies(resp.headers))
        except urllib.error.HTTPError as err:
            return Answer(err.code, err.read(), dict(err.headers or {}), _cookies(err.headers))
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as err:
            raise NoAnswer(str(err)) from err


def _cookies(headers: object) -> dict[str, str]:
    """name -> value of the Set-Cookie headers of an answer."""
    out = {}
    for line in getattr(headers, "get_all", lambda _name: None)("Set-Cookie") or []:
        name, _, rest = line.partition("=")
        out[name.strip()] = rest.split(";", 1)[0]
    return out


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def result_body(table: int, donne: int, warnings: list[str] | None = None) -> dict:
    body = {"table": table, "donne": donne, "taker": "N", "contract": "garde"}
    body.update({"bouts": 2, "points": 50})
    if warnings:
        body["confirm"] = warnings
    return body


def post_result(
    clients: list[Client],
    *,
    tournament_id: int,
    table: int,
    donne: int,
    token: str,
    give_up_after: float = 60,
) -> tuple[bool, int]:
    """Send one result until a web host acknowledges it (201/200), with the same
    Idempotency-Key each time, trying the hosts in turn; returns (acknowledged, number of
    times it was sent again for want of an answer or after a 5xx). A 422 asks to confirm the
    cards' warnings: the same body is sent with them (not counted as sent again)."""
    key = f"drill-{tournament_id}-{table}-{donne}"
    path = f"/api/v1/tournaments/{tournament_id}/results/"
    headers = {"Authorization": f"Token {token}", "Idempotency-Key": key}
    warnings: list[str] = []
    tries = resent = 0
    deadline = time.monotonic() + give_up_after
    while time.monotonic() < deadline:
        client = clients[tries % len(clients)]
        tries += 1
        try:
            answer = client.request(
                "POST", path, body=result_body(table, donne, warnings), headers=headers
            )
        except NoAnswer:
            resent += 1
            time.sleep(0.3)
            continue
        if answer.status in (200, 201):
            return True, resent
        if answer.status == 422 and not warnings:
            warnings = list((answer.json() or {}).get("warnings", {}))  # type: ignore[union-attr]
            headers["Idempotency-Key"] = key + "-confirmed"
            continue
        if answer.status == 409:  # already saved by an earlier try whose answer was lost
            return True, resent
        resent += 1
        time.sleep(0.3)  # 503 (database down), 502, 500…: try again
    return False, resent


SIMULTANEOUS_UPLOAD = "/api/v1/simultaneous/club/uploads/"


def post_upload(
    clients: list[Client], *, body: bytes, token: str, give_up_after: float = 300
) -> tuple[Answer | None, int]:
    """Send a simultaneous event's club upload to the hub until it answers something other
    than a 5xx or a 429 (no answer, a timeout: the same body again, trying the hosts in turn,
    as the club's Celery task does); returns (the last answer, None when none came in
    `give_up_after` seconds; the number of times it was sent again). The body is signed with
    the club's token (`X-Simultaneous-Signature`, HMAC-SHA256)."""
    import hashlib
    import hmac

    signature = hmac.new(token.encode(), body, hashlib.sha256).hexdigest()
    headers = {
        "Authorization": f"Bearer {token}",
        "X-Simultaneous-Signature": f"sha256={signature}",
        "Content-Type": "application/json",
    }
    tries = resent = 0
    deadline = time.monotonic() + give_up_after
    while time.monotonic() < deadline:
        client = clients[tries % len(clients)]
        tries += 1
        try:
            answer = client.request(
                "POST", SIMULTANEOUS_UPLOAD, raw=body, headers=headers, timeout=60
            )
        except NoAnswer:
            answer = None
        if answer is not None and answer.status < 500 and answer.status != 429:
            return answer, resent
        resent += 1
        time.sleep(1)
    return None, resent


def wait_overall_current(event_id: int, timeout: float) -> float | None:
    """Seconds until the event's stored overall ranking is current (None: not in time)."""
    from tournaments.simultaneous.hub.models import OverallRankingState, SimultaneousEvent

    start = time.monotonic()
    while time.monotonic() < start + timeout:
        version = SimultaneousEvent.objects.get(pk=event_id).results_version
        if OverallRankingState.objects.filter(pk=event_id, results_version=version).exists():
            return time.monotonic() - start
        time.sleep(0.2)
    return None


def overall_equal(event_id: int) -> tuple[bool, str]:
    """(the stored overall ranking's rows equal a recomputation from the database, the
    process that stored them)."""
    from tournaments.simultaneous.hub.models import OverallRankingRow, OverallRankingState
    from tournaments.simultaneous.hub.ranking import (
        ROW_FIELDS,
        overall_compute,
        overall_inputs,
        overall_rows,
    )

    inputs = overall_inputs(event_id=event_id)
    if inputs is None:
        return False, ""
    keys = ("place", "rank", "licence", "total", "penalty_points", "donnes_played")
    index = [ROW_FIELDS.index(key) for key in keys]
    expected = sorted(
        tuple(str(row[i]) for i in index) for row in overall_rows(inputs, overall_compute(inputs))
    )
    stored = sorted(
        tuple(str(v) for v in row)
        for row in OverallRankingRow.objects.filter(event_id=event_id).values_list(*keys)
    )
    state = OverallRankingState.objects.filter(pk=event_id).first()
    return expected == stored, state.computed_in if state else ""
