"""Load test on the loopback: a championship hall of phones following the live ranking.

gunicorn (sync workers, 4 by default as in the README's deployment; DEBUG off) and a real
Celery worker serve a published tournament of 1,000 players on PostgreSQL; 1,000 simulated
viewers poll the ranking every 5 seconds, as the page's script does (a 204 when nothing
changed, the fragment when a new snapshot is stored), while a result is saved every second.
Reports the latency of the polls (p50 / p95), the errors, and how long after its commit a
result is seen by the first viewer. Baselines, in the same run: the home page and /healthz
on the same server before the load, and the viewers' own cost: the same 1,000 viewers
against a trivial server that answers 204 at once (what the load generator and the loopback
alone cost). The viewers run in their own process, apart from the writer of results.

Bounded and local: it listens on 127.0.0.1 only, stops by itself after --seconds (default
30), and stops the server and the worker it started, whatever happens.

Run: .venv/bin/python bench/bench_load.py [--write] [--viewers 1000] [--seconds 30]
                                          [--workers 4]

With --hall it measures the room's server instead: the very command `make run HOST=0.0.0.0`
runs (`manage.py serve`, on 127.0.0.2 with `--server gunicorn`, and its Celery worker) under
a hall of phones: --requests (600) requests, --at-once (60) at a time, each on a fresh
connection, on the mixed pages of a running tournament (home, live ranking, ranking poll,
seats search, table page, room screen), after the same load on a static file as baseline.
Reports the errors (5xx, no answer), p50 / p95 / p99 and the most connections PostgreSQL held
to the site's database (`pg_stat_activity`). Its database is <DATABASE_URL's name>_hall.
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club; the
test creates and drops its own database test_<name>_load) and Redis (REDIS_URL).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import gzip
import multiprocessing
import os
import platform
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

import benchdoc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tarot_club.settings_test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tarot_club")
os.environ.setdefault("LOG_LEVEL", "ERROR")
warnings.filterwarnings("ignore", message="No directory at")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

SECTION = "## Load test: a hall of phones on the live ranking"
HOST = "127.0.0.1"
TIMEOUT = 10.0  # a poll slower than this counts as an error


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def http_get(port: int, path: str) -> tuple[int, bytes, dict[str, str]]:
    """One GET over a fresh connection (gunicorn's sync workers close after each answer)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nAccept-Encoding: gzip\r\n"
            "Accept-Language: fr\r\nConnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        data = await reader.read(-1)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("content-encoding") == "gzip":
        body = gzip.decompress(body)
    return status, body, headers


class Server:
    """gunicorn on a loopback port, pointed at the load test's database."""

    def __init__(self, env: dict[str, str], port: int, workers: int) -> None:
        self.port = port
        self.log = Path(f"/tmp/tarot-load-gunicorn-{port}.log")
        cmd = [sys.executable, "-m", "gunicorn", "tarot_club.wsgi", "--workers", str(workers)]
        cmd += ["--bind", f"{HOST}:{port}", "--backlog", "2048", "--timeout", "60"]
        self.process = subprocess.Popen(
            cmd, env=env, cwd=ROOT, stdout=self.log.open("wb"), stderr=subprocess.STDOUT
        )

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection((HOST, self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("gunicorn did not listen in time")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


async def _trivial_server(port: int, seconds: float) -> None:
    """Answers every request with an empty 204 at once and closes, as gunicorn's sync
    workers do: what remains of a poll's time is the viewers' and the loopback's own."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(answer, HOST, port, backlog=2048)
    async with server:
        await asyncio.sleep(seconds)


def trivial_server(port: int, seconds: float) -> None:
    """Process target: the trivial server for `seconds` (bounded like everything here)."""
    try:
        asyncio.run(_trivial_server(port, seconds))
    finally:
        os._exit(0)


def viewers_process(
    port: int, path: str, since: str, viewers: int, seconds: float, period: float, out: Any
) -> None:
    """Process target: the viewers, apart from the writer and Django (no shared GIL);
    sends back the latencies, the errors and when each version was first seen."""
    try:
        out.send(asyncio.run(load(port, path, since, viewers, seconds, period)))
        out.close()
    finally:
        os._exit(0)  # a forked child: run none of the parent's finalizers (its connections)


def run_viewers(
    port: int, path: str, since: str, viewers: int, seconds: float, period: float
) -> dict[str, Any]:
    """The viewers in a child process (bounded: killed if it overruns by a minute)."""
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(
        target=viewers_process, args=(port, path, since, viewers, seconds, period, send)
    )
    child.start()
    send.close()
    try:
        if not receive.poll(seconds + 60):
            raise RuntimeError("the viewers did not finish in time")
        return receive.recv()
    finally:
        child.join(timeout=5)
        if child.is_alive():
            child.kill()
            child.join()


def generator_baseline(viewers: int, seconds: float, period: float) -> dict[str, Any]:
    """The same viewers against the trivial server, for `seconds`."""
    port = free_port()
    server = multiprocessing.get_context("fork").Process(
        target=trivial_server, args=(port, seconds + 15)
    )
    server.start()
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((HOST, port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        return run_viewers(port, "/", "", viewers, seconds, period)
    finally:
        server.kill()
        server.join()


async def baseline(port: int, path: str, count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        status, _body, _headers = await http_get(port, path)
        assert status == 200, (path, status)
        times.append(time.perf_counter() - start)
    return times


async def load(
    port: int, path: str, since: str, viewers: int, seconds: float, period: float
) -> dict[str, Any]:
    """`viewers` pollers for `seconds`; each keeps the snapshot it last saw, as the script
    does. Returns the latencies by status, the errors and when each version was first seen."""
    latencies: dict[int, list[float]] = {}
    errors: list[str] = []
    first_seen: dict[int, float] = {}
    deadline = time.monotonic() + seconds
    limit = asyncio.Semaphore(500)  # open sockets at once (file descriptors)

    async def viewer(index: int) -> None:
        state = {"since": since, "cur": "1"}
        await asyncio.sleep(random.Random(index).uniform(0, period))
        while time.monotonic() < deadline:
            started = time.perf_counter()
            url = f"{path}?partial=1&since={state['since']}&cur={state['cur']}"
            try:
                async with limit:
                    status, body, _headers = await asyncio.wait_for(http_get(port, url), TIMEOUT)
            except Exception as exc:  # counted and reported
                errors.append(type(exc).__name__)
                status, body = 0, b""
            elapsed = time.perf_counter() - started
            if status in (200, 204):
                latencies.setdefault(status, []).append(elapsed)
            elif status:
                errors.append(f"HTTP {status}")
            if status == 200:
                found = re.search(rb'data-since="(\d*)" data-cur="(\d)"', body)
                version = re.search(rb'data-version="(\d+)"', body)
                if found:
                    state["since"], state["cur"] = found.group(1).decode(), found.group(2).decode()
                if version:
                    first_seen.setdefault(int(version.group(1)), time.time())
            await asyncio.sleep(max(0.0, period - elapsed))

    await asyncio.gather(*(viewer(i) for i in range(viewers)))
    return {"latencies": latencies, "errors": errors, "first_seen": first_seen}


def writer(built: Any, seconds: float, written: dict[int, float], stop: threading.Event) -> None:
    """A result every second, saved as the service does (version bump, task on commit)."""
    from django.db import connections

    from tests.scoring.rankings.builders import random_deal, save_result

    rng = random.Random(7)
    cells = [c for c in built.schedule() if c[0] == 6]  # the last round: left to play
    deadline = time.monotonic() + seconds
    try:
        for round_no, table_no, index, _donne in cells:
            if stop.is_set() or time.monotonic() >= deadline:
                break
            tick = time.monotonic()
            save_result(built, round_no, table_no, index, deal=random_deal(rng))
            built.tournament.refresh_from_db(fields=["results_version"])
            written[built.tournament.results_version] = time.time()
            stop.wait(max(0.0, 1.0 - (time.monotonic() - tick)))
    finally:
        connections.close_all()


def report(
    args: argparse.Namespace,
    out: dict[str, Any],
    base: list[float],
    health: list[float],
    generator: dict[str, Any],
    load_avg: str,
) -> str:
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    polls = [x for values in out["latencies"].values() for x in values]
    total = len(polls) + len(out["errors"])
    p50, p95 = percentile(polls, 0.5), percentile(polls, 0.95)
    b50, b95 = percentile(base, 0.5), percentile(base, 0.95)
    h50, h95 = percentile(health, 0.5), percentile(health, 0.95)
    g_polls = [x for values in generator["latencies"].values() for x in values]
    g_total = len(g_polls) + len(generator["errors"])
    g50, g95 = percentile(g_polls, 0.5), percentile(g_polls, 0.95)
    by_status = ", ".join(
        f"{status}: {len(values):,} (p50 {ms(percentile(values, 0.5))} ms, "
        f"p95 {ms(percentile(values, 0.95))} ms)"
        for status, values in sorted(out["latencies"].items())
    )
    delays = out["delays"]
    errors = ", ".join(sorted(set(out["errors"]))) or "none"
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_load.py --write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, PostgreSQL {connection.pg_version // 10000}; load "
        f"average {load_avg} during the run (the machine was shared with other work; the "
        "viewers, the server, the worker and the database all ran on it).",
        f"gunicorn with {args.workers} sync workers (DEBUG off; the README's deployment) and "
        f"one Celery worker on the loopback; a tournament of {args.players:,} players; "
        f"{args.viewers:,} viewers polling the ranking every {args.period:g} s for "
        f"{args.seconds:g} s while a result is saved every second. The viewers run in their own "
        "process (asyncio, a fresh connection per poll, as gunicorn's sync workers close it).",
        "",
        "| what | p50 | p95 | ratio to the home page (p50 / p95) |",
        "|---|---|---|---|",
        f"| poll of the ranking under load | {ms(p50)} ms | {ms(p95)} ms "
        f"| **{p50 / b50:.1f}× / {p95 / b95:.1f}×** |",
        f"| home page, same server, before the load (baseline) | {ms(b50)} ms | {ms(b95)} ms "
        "| 1× |",
        f"| `/healthz`, same server, before the load (target: under 50 ms) | {ms(h50)} ms "
        f"| {ms(h95)} ms | {h50 / b50:.1f}× / {h95 / b95:.1f}× |",
        f"| the same viewers against a trivial server that answers 204 at once "
        f"({args.generator_seconds:g} s; the generator's and the loopback's own cost) "
        f"| {ms(g50)} ms | {ms(g95)} ms | {g50 / b50:.2f}× / {g95 / b95:.2f}× |",
        "",
        f"{total:,} polls ({total / args.seconds:,.0f}/s): {by_status}; errors: "
        f"{len(out['errors'])} ({errors}). Against the trivial server: {g_total:,} polls, "
        f"{len(generator['errors'])} errors.",
    ]
    if delays:
        lines.append(
            f"A saved result is seen by the first viewer {ms(statistics.median(delays))} ms after "
            f"its commit (median of {len(delays)}; p95 {ms(percentile(delays, 0.95))} ms), "
            "worker and polling period included."
        )
    return "\n".join(lines) + "\n"


def write_section(text: str) -> None:
    """Replace this benchmark's section of docs/BENCHMARKS.md, leaving the others alone."""
    benchdoc.write_section(SECTION, text)


# The room's server: what `make run HOST=0.0.0.0` starts, under a hall of phones.

HALL_SECTION = "## Load test: the room's server (`make run HOST=0.0.0.0`)"
HALL_HOST = "127.0.0.2"  # a loopback address served as the room is (`serve --server gunicorn`)
HALL_KINDS = ("home", "ranking", "poll", "seats", "table", "screen")
HALL_STATIC = "/static/tarot_club/site.css"  # the baseline: served by WhiteNoise, no database


async def hall_get(host: str, port: int, path: str) -> int:
    """One GET over a fresh connection, as a phone arriving in the room; the status."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept-Encoding: gzip\r\n"
            "Accept-Language: fr\r\nConnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        data = await reader.read(-1)
    finally:
        writer.close()
    return int(data.split(b"\r\n", 1)[0].split()[1])


async def hall_load(
    host: str, port: int, paths: list[tuple[str, str]], total: int, at_once: int
) -> dict[str, Any]:
    """`total` requests, `at_once` in flight at any time, taking `paths` in turn; returns the
    latencies by kind of page, the statuses and the errors (5xx, no answer in TIMEOUT)."""
    latencies: dict[str, list[float]] = {kind: [] for kind, _path in paths}
    statuses: dict[int, int] = {}
    errors: list[str] = []
    queue = list(range(total))

    async def phone() -> None:
        while queue:
            kind, path = paths[queue.pop() % len(paths)]
            started = time.perf_counter()
            try:
                status = await asyncio.wait_for(hall_get(host, port, path), TIMEOUT)
            except Exception as exc:  # counted and reported
                errors.append(f"{kind}: {type(exc).__name__}")
                continue
            latencies[kind].append(time.perf_counter() - started)
            statuses[status] = statuses.get(status, 0) + 1
            if status >= 500:
                errors.append(f"{kind}: HTTP {status}")

    started = time.perf_counter()
    await asyncio.gather(*(phone() for _ in range(at_once)))
    return {
        "latencies": latencies,
        "statuses": statuses,
        "errors": errors,
        "seconds": time.perf_counter() - started,
    }


class ConnectionWatch:
    """The most connections PostgreSQL held to one database, sampled every 20 ms from
    pg_stat_activity through a connection of its own (to another database)."""

    def __init__(self, dbname: str) -> None:
        import psycopg

        conf = connection.settings_dict
        self.dbname = dbname
        self.conn = psycopg.connect(
            host=conf.get("HOST") or "127.0.0.1",
            port=conf.get("PORT") or 5432,
            user=conf.get("USER") or None,
            password=conf.get("PASSWORD") or None,
            dbname="postgres",
            autocommit=True,
        )
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def count(self) -> int:
        query = "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
        return self.conn.execute(query, (self.dbname,)).fetchone()[0]

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, self.count())

    def __enter__(self) -> ConnectionWatch:
        self.peak = self.count()
        self._stop.clear()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def close(self) -> None:
        self.conn.close()


class RoomServer:
    """`manage.py serve --host 127.0.0.2 --server gunicorn`: the command `make run HOST=0.0.0.0`
    runs (gunicorn, a Celery worker when Redis answers), in a process group of its own."""

    def __init__(self, env: dict[str, str], port: int) -> None:
        self.port = port
        self.log = Path(f"/tmp/tarot-load-serve-{port}.log")
        cmd = [sys.executable, "manage.py", "serve", "--host", HALL_HOST, "--port", str(port)]
        cmd += ["--server", "gunicorn"]
        self.process = subprocess.Popen(
            cmd,
            env=env,
            cwd=ROOT,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited: {self.log.read_text()[-2000:]}")
            try:
                if asyncio.run(hall_get(HALL_HOST, self.port, "/healthz")) in (200, 503):
                    return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("serve did not answer in time")

    def stop(self) -> None:
        """Ctrl-C: serve stops gunicorn and the worker; the group is killed if it lingers."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def served_by(self) -> str:
        found = re.search(r"\(gunicorn, [^)]*\)", self.log.read_text(errors="replace"))
        return found.group(0)[1:-1] if found else "?"


def hall_tournament(players: int) -> tuple[Any, list[tuple[str, str]]]:
    """A running tournament, public during play, three rounds of six played and its
    ranking computed; the pages a hall of phones opens, by kind."""
    from scoring.rankings.services import ranking_recompute
    from tests.scoring.rankings.builders import build_tournament, fill_results
    from tournaments.services.table_entry import table_access_issue

    built = build_tournament(players=players, rounds=6, per_relais=4, status="running", seed=3)
    fill_results(built, seed=1, share=0.5)
    ranking_recompute(tournament_id=built.tournament.pk)
    pk = built.tournament.pk
    secret = table_access_issue(table_round=built.table_rounds[(4, 1)]).secret
    name = built.players[0].last_name[:5].lower()
    paths = [
        ("home", "/"),
        ("ranking", f"/t/{pk}/ranking/"),
        ("poll", f"/t/{pk}/ranking/?partial=1&since=&cur=1"),
        ("seats", f"/t/{pk}/seats/?q={name}"),
        ("table", f"/table/{secret}/"),
        ("screen", f"/t/{pk}/screen/"),
    ]
    return built, paths


def hall_main(args: argparse.Namespace) -> None:
    """The hall: `--requests` requests, `--at-once` at a time, a fresh connection each, on
    the mixed pages of a running tournament, through `manage.py serve` on 127.0.0.2."""
    from tests.fixtures.services import database_url_for_current_test_db

    setup_test_environment()
    base_name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"{base_name}_hall"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    dbname = connection.settings_dict["NAME"]
    server = watch = None
    try:
        _built, paths = hall_tournament(args.players)
        connection.close()
        watch = ConnectionWatch(dbname)
        port = free_port()
        env = dict(os.environ)
        env.pop("DJANGO_SETTINGS_MODULE", None)
        env.update(
            {
                "DATABASE_URL": database_url_for_current_test_db(),
                "CELERY_QUEUE": f"hall-{uuid.uuid4().hex[:8]}",
                "LOG_LEVEL": "ERROR",
                "SITE_URL": f"http://{HALL_HOST}:{port}",
            }
        )
        server = RoomServer(env, port)
        server.wait_ready()
        idle = watch.count()

        async def run() -> tuple[dict[str, Any], dict[str, Any]]:
            for _round in range(3):  # every thread once: imports, first queries
                await hall_load(HALL_HOST, port, paths, 2 * len(paths), len(paths))
            with watch:
                health = await hall_load(
                    HALL_HOST, port, [("static", HALL_STATIC)], args.requests, args.at_once
                )
            health["peak"] = watch.peak
            with watch:
                hall = await hall_load(HALL_HOST, port, paths, args.requests, args.at_once)
            hall["peak"] = watch.peak
            return health, hall

        health, hall = asyncio.run(asyncio.wait_for(run(), timeout=600))
        served_by = server.served_by()
        postgres = watch.conn.info.server_version // 10000
    finally:
        if server is not None:
            server.stop()
        if watch is not None:
            watch.close()
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
    load_avg = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    text = hall_report(
        args, health, hall, idle=idle, served_by=served_by, postgres=postgres, load_avg=load_avg
    )
    print(text)
    if args.write:
        benchdoc.write_section(HALL_SECTION, text)


def hall_report(
    args: argparse.Namespace,
    health: dict[str, Any],
    hall: dict[str, Any],
    *,
    idle: int,
    served_by: str,
    postgres: int,
    load_avg: str,
) -> str:
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731

    def row(what: str, values: list[float], errors: int | str, peak: int | str) -> str:
        p50, p95, p99 = (percentile(values, share) for share in (0.5, 0.95, 0.99))
        return (
            f"| {what} | {len(values):,} | {errors} | {ms(p50)} ms | {ms(p95)} ms "
            f"| {ms(p99)} ms | {peak} |"
        )

    every = [x for values in hall["latencies"].values() for x in values]
    statuses = ", ".join(f"{code}: {n:,}" for code, n in sorted(hall["statuses"].items()))
    errors = ", ".join(sorted(set(hall["errors"]))) or "none"
    lines = [
        HALL_SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with "
        "`.venv/bin/python bench/bench_load.py --hall --write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, PostgreSQL {postgres}; load "
        f"average {load_avg} after the run (the machine was shared with other work; the "
        "phones, the server, its worker and the database all ran on it).",
        f"`manage.py serve --host {HALL_HOST} --server gunicorn` — what `make run "
        f"HOST=0.0.0.0` runs: {served_by}, DEBUG off, WhiteNoise, and its Celery worker — "
        f"serves a running tournament of {args.players} players (public during play). "
        f"{args.requests} requests, {args.at_once} at once, each on a fresh connection "
        "(phones arriving in the room), in turn: home page, live ranking, ranking poll, "
        "seats search, table page, room screen. Baseline in the same run: the same load on "
        "the site's stylesheet (WhiteNoise, no database). Connections: the most PostgreSQL held to the site's "
        f"database at any time, sampled every 20 ms in `pg_stat_activity` ({idle} before "
        "the load: the worker's and the sweep's).",
        "",
        "| what | requests | errors (5xx, no answer) | p50 | p95 | p99 "
        "| most database connections |",
        "|---|---|---|---|---|---|---|",
        row(
            "the stylesheet (baseline)",
            health["latencies"]["static"],
            len(health["errors"]),
            health["peak"],
        ),
        row("**the hall, every page**", every, f"**{len(hall['errors'])}**", f"**{hall['peak']}**"),
    ]
    for kind in HALL_KINDS:
        if kind in hall["latencies"]:
            failed = sum(1 for e in hall["errors"] if e.startswith(f"{kind}:"))
            lines.append(row(kind, hall["latencies"][kind], failed, ""))
    lines += [
        "",
        f"The hall took {hall['seconds']:.1f} s ({len(every) / hall['seconds']:.0f} "
        f"requests/s); statuses {statuses}; errors: {errors}.",
    ]
    return "\n".join(lines) + "\n"


def _arguments() -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--viewers", type=int, default=1000)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--period", type=float, default=5.0, help="seconds between polls")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument(
        "--generator-seconds", type=float, default=10.0, help="viewers against a trivial server"
    )
    parser.add_argument(
        "--hall", action="store_true", help="the room's server (`serve`) under a hall of phones"
    )
    parser.add_argument("--requests", type=int, default=600, help="with --hall")
    parser.add_argument("--at-once", type=int, default=60, help="with --hall")
    args = parser.parse_args()
    return args


def _published_tournament(players: int) -> Any:
    """A tournament of `players` with five rounds of results ranked, published (anonymous
    viewers may read it) and still polled: the sixth round's results are to come."""
    from scoring.rankings.services import ranking_recompute
    from tests.scoring.rankings.builders import build_tournament, fill_results
    from tournaments.models import Result

    built = build_tournament(
        players=players, rounds=6, per_relais=4, status="running", seed=players
    )
    fill_results(built, seed=1)
    Result.objects.filter(tournament=built.tournament, table_round__round__number=6).delete()
    ranking_recompute(tournament_id=built.tournament.pk)
    built.tournament.status = "published"  # readable by anonymous viewers, still polled
    built.tournament.save(update_fields=["status"])
    return built


def _private_queue(redis_url: str) -> str:
    """Point Celery at a queue of this run's own on `redis_url`; its name."""
    from tarot_club.celery import app
    from tests.fixtures.services import reset_connections

    queue = f"load-{uuid.uuid4().hex[:8]}"
    app.conf.update(
        task_always_eager=False,
        broker_url=redis_url,
        result_backend=redis_url,
        task_default_queue=queue,
    )
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    reset_connections(app)
    return queue


def _server_env(redis_url: str, queue: str) -> dict[str, str]:
    """The web server's environment: the test database, the broker and queue, DEBUG off."""
    from tests.fixtures.services import database_url_for_current_test_db

    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "tarot_club.settings",
            "DATABASE_URL": database_url_for_current_test_db(),
            "REDIS_URL": redis_url,
            "CELERY_EAGER": "0",
            "CELERY_QUEUE": queue,
            "DEBUG": "0",
            "SECRET_KEY": "load-test-only-secret-key",
            "ALLOWED_HOSTS": HOST,
            "LOG_LEVEL": "ERROR",
        }
    )
    return env


def _viewers_and_writer(
    args: argparse.Namespace, built: Any, port: int, stop: threading.Event
) -> tuple[dict[str, Any], list[float], list[float], Any]:
    """Warm the server, measure its baselines and the generator's, then run the viewers
    while a writer saves results: their figures, with each result's delay to its first
    viewer."""
    path = f"/t/{built.tournament.pk}/ranking/"

    async def warm() -> tuple[list[float], list[float], str]:
        for _ in range(3 * args.workers):  # every worker: caches, first health check
            await http_get(port, path)
            await http_get(port, "/healthz")
        base = await baseline(port, "/", 60)
        health = await baseline(port, "/healthz", 60)
        _status, body, _ = await http_get(port, path)
        since = re.search(rb'data-since="(\d*)"', body).group(1).decode()  # type: ignore[union-attr]
        return base, health, since

    base, health, since = asyncio.run(asyncio.wait_for(warm(), timeout=120))
    generator = generator_baseline(args.viewers, args.generator_seconds, args.period)
    connection.close()  # the viewers' process is forked: it must not share a connection
    written: dict[int, float] = {}
    thread = threading.Thread(target=writer, args=(built, args.seconds, written, stop), daemon=True)
    thread.start()
    out = run_viewers(port, path, since, args.viewers, args.seconds, args.period)
    stop.set()
    thread.join(timeout=30)
    seen = out["first_seen"]
    out["delays"] = [seen[v] - t for v, t in written.items() if v in seen]
    return out, base, health, generator


def main() -> None:
    args = _arguments()
    if connection.vendor != "postgresql":
        sys.exit("This load test runs on PostgreSQL: set DATABASE_URL.")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    if args.hall:
        args.players = 64 if args.players == 1000 else args.players
        hall_main(args)
        return

    from tarot_club.health import redis_reachable
    from tests.fixtures.services import WorkerProcess

    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    if not redis_reachable(redis_url):
        print(f"Redis does not answer at {redis_url}: the load test needs a worker; skipped.")
        return
    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = f"test_{connection.settings_dict['NAME']}_load"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    server = worker = None
    stop = threading.Event()
    try:
        built = _published_tournament(args.players)
        queue = _private_queue(redis_url)
        worker = WorkerProcess(redis_url, queue)
        worker.start()
        port = free_port()
        server = Server(_server_env(redis_url, queue), port, args.workers)
        server.wait_ready()
        out, base, health, generator = _viewers_and_writer(args, built, port, stop)
    finally:
        stop.set()
        if server is not None:
            server.stop()
        if worker is not None:
            worker.stop()
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
    load_avg = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    text = report(args, out, base, health, generator, load_avg)
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
