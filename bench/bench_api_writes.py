"""Benchmark: results written through the REST API, per second, against a bare DRF endpoint.

gunicorn (2 sync workers, DEBUG off, the production settings) and a real Celery worker serve a
running tournament of 400 players on PostgreSQL, with Redis as broker and shared cache. Client
threads on the loopback (1, then 8 at once) POST real results, each to its own cell and valid
per the dealt hands (no error, no warning to confirm), with an Idempotency-Key and the
arbiter's token, as a tablet does: the whole path (token, permission, engine, checks against
the cards, ledger, version, idempotency record, ranking dispatch on commit) is measured.

Baseline, in the same run, on the same server and the same clients: a bare DRF endpoint that
parses the JSON body and does one INSERT (bench/bare_urls.py, served only by this bench through
bench/bare_settings.py). The phases alternate (bare, API, bare, API…) and each figure is the
median of its repetitions. The queries of one API write are counted in-process, as
tests/tournaments/api/test_write_queries.py does.

Throttles: the write throttle runs as in production (its counter in Redis), its rate raised
to 1,000,000/min through API_WRITE_RATE for the server, so that it costs what it costs and
refuses nothing.

Run: .venv/bin/python bench/bench_api_writes.py [--write] [--seconds 3] [--repeat 2]
     .venv/bin/python bench/bench_api_writes.py --profile   (where the time of a write goes,
                                                             in-process, cProfile)
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club; the
bench creates and drops its own database test_<name>_api_writes) and Redis (REDIS_URL).
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import inspect
import json
import os
import platform
import random
import statistics
import sys
import threading
import time
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import benchdoc
from bench_load import HOST, Server, free_port  # one way to start gunicorn for every bench

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

SECTION = "## API result writes"
PLAYERS = 400  # 100 tables × 24 donnes: 2,400 cells, each written once
WEB_WORKERS = 2
QUERY_BUDGET = (
    10  # statements that read or write data (tests/tournaments/api/test_write_queries.py)
)
CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")
# Points that make each count of bouts a plausible, valid entry (won or lost).
POINTS = {0: (40, 70), 1: (35, 65), 2: (30, 60), 3: (25, 55)}


# --- valid results --------------------------------------------------------------------------


def clean_entry(donne: Any, seats: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """An entry for this donne that the service accepts without a warning: the engine's own
    checks and those against the cards (RULES §5.1) find nothing; "all passed" otherwise."""
    from scoring.rules import engine
    from tournaments.services.checks import card_checks

    takers = list("NESW")
    rng.shuffle(takers)
    contracts = ["prise", "garde", "garde_sans", "garde_contre"]
    for taker in takers:
        for contract in rng.sample(contracts, len(contracts)):
            for bouts in rng.sample(range(4), 4):
                points = Decimal(rng.randint(*POINTS[bouts]))
                if engine.deal_errors(4, contract, bouts, points, None, [], None):
                    continue
                errors, warnings = card_checks(
                    hands=donne.hands,
                    chien=donne.chien,
                    taker=taker,
                    contract=contract,
                    bouts=bouts,
                    points=points,
                    poignees={},
                    seats=seats,
                )
                if not errors and not warnings:
                    return {
                        "taker": taker,
                        "contract": contract,
                        "bouts": bouts,
                        "points": int(points),
                    }
    return {"status": "all_passed"}


def bodies(built: Any) -> list[dict[str, Any]]:
    """One body per cell of the tournament, in a random order."""
    rng = random.Random(16)
    out = []
    for round_no, table_no, index, donne in built.schedule():
        holders, _sitter = built.holding(round_no, table_no, index)
        entry = clean_entry(donne, holders, rng)
        out.append({"table": table_no, "donne": donne.number, **entry})
    rng.shuffle(out)
    return out


# --- the clients ----------------------------------------------------------------------------


def post(port: int, path: str, body: dict[str, Any], headers: dict[str, str]) -> int:
    """One POST on a fresh connection (gunicorn's sync workers close after each answer)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request(
            "POST",
            path,
            json.dumps(body),
            {"Content-Type": "application/json", "Accept-Language": "en", **headers},
        )
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def burst(
    port: int, path: str, clients: int, seconds: float, work: list[dict[str, Any]], token: str
) -> tuple[int, float, dict[int, int]]:
    """`clients` threads POST the bodies of `work` (taken in turn) for `seconds`; returns
    the writes done, the time they took and the count of each status."""
    lock = threading.Lock()
    statuses: dict[int, int] = {}
    start_line = threading.Barrier(clients + 1)
    deadline: list[float] = []
    auth = {"Authorization": f"Token {token}"} if token else {}

    def client() -> None:
        start_line.wait()
        while time.perf_counter() < deadline[0]:
            with lock:
                if not work:
                    return
                body = work.pop()
            headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
            try:
                status = post(port, path, body, headers)
            except OSError:
                status = 0
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for thread in threads:
        thread.start()
    deadline.append(time.perf_counter() + seconds)
    started = time.perf_counter()
    start_line.wait()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    return sum(statuses.values()), elapsed, statuses


# --- queries of one write, in-process ----------------------------------------------------------


def counters_in_redis() -> Any:
    """The in-process settings with the throttle counters in Redis, as on the server."""
    from django.test import override_settings

    shared = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        "KEY_PREFIX": f"bench-{uuid.uuid4().hex[:8]}",
    }
    return override_settings(CACHES={**settings.CACHES, "shared": shared})


def queries_of_one_write(
    tournament: Any, token: str, work: list[dict[str, Any]]
) -> tuple[int, int, int]:
    """(statements reading or writing data, BEGIN/COMMIT, savepoint statements) of one API
    write, its on-commit dispatch included; throttle counters in Redis, tasks sent to the
    broker. After a first write (which creates the ranking's state and tidies the user's old idempotency
    records, as happens once), with the ranking's state as a computation that just started
    leaves it, so that the dispatch does all its work."""
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from scoring.models import RankingState

    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    path = f"/api/v1/tournaments/{tournament.pk}/results/"
    with counters_in_redis():
        for body in (work.pop(), work.pop()):
            RankingState.objects.filter(pk=tournament.pk).update(queued_at=None, stale_since=None)
            with CaptureQueriesContext(connection) as ctx:
                key = uuid.uuid4().hex
                response = client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=key)
            assert response.status_code == 201, response.content
    sql = [q["sql"] for q in ctx.captured_queries]
    control = [q for q in sql if q.startswith(CONTROL)]
    savepoints = [q for q in control if "SAVEPOINT" in q]
    return len(sql) - len(control), len(control) - len(savepoints), len(savepoints)


def cpu_per_request(tournament: Any, token: str, work: list[dict[str, Any]], count: int) -> dict:
    """CPU milliseconds of this process per request, through the Django test client (no HTTP
    server, no client threads): `count` API writes, then `count` bare writes. What the
    database and Redis spend is not in it; what the site's Python spends is, whatever the
    load of the machine (which stretches the wall clock, not the CPU time)."""
    from django.test import override_settings
    from rest_framework.test import APIClient

    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    path = f"/api/v1/tournaments/{tournament.pk}/results/"
    out = {}
    with counters_in_redis():
        batch = [work.pop() for _ in range(count)]
        client.post(path, batch.pop(), format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)
        started = time.process_time()
        for body in batch:
            response = client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)
            assert response.status_code == 201, response.content
        out["api"] = (time.process_time() - started) * 1000 / len(batch)
        with override_settings(ROOT_URLCONF="bare_urls"):
            bare = {"table": 1, "donne": 1, "taker": "N"}
            client.post("/bench/bare/", bare, format="json")
            started = time.process_time()
            for _ in batch:
                assert client.post("/bench/bare/", bare, format="json").status_code == 201
            out["bare"] = (time.process_time() - started) * 1000 / len(batch)
    return out


def profile(tournament: Any, token: str, work: list[dict[str, Any]], count: int) -> None:
    """Where the time of a write goes: `count` writes through the Django test client (no HTTP
    server), tasks sent to the broker (no worker), counters in Redis, under cProfile."""
    import cProfile
    import pstats

    from rest_framework.test import APIClient

    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    path = f"/api/v1/tournaments/{tournament.pk}/results/"
    for body in work[:20]:  # warm up
        client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)
    batch = work[20 : 20 + count]
    profiler = cProfile.Profile(time.process_time)  # CPU of this process, not waits
    started = time.perf_counter()
    profiler.enable()
    for body in batch:
        client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)
    profiler.disable()
    elapsed = time.perf_counter() - started
    print(
        f"{len(batch)} writes in-process: {len(batch) / elapsed:.0f}/s under cProfile (CPU time below)"
    )
    stats = pstats.Stats(profiler).sort_stats("cumulative")
    stats.print_stats(40)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(
        "_evaluate|card_checks|score_deal|fingerprint|_store|allow_request|authenticate|"
        "schedule_ranking|to_representation|is_valid|result_cell|tournament\\b|render"
    )


# --- report ---------------------------------------------------------------------------------


def report(args: argparse.Namespace, rates: dict[str, dict[int, list[float]]], extra: dict) -> str:
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_api_writes.py "
        "--write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, PostgreSQL {connection.pg_version // 10000}, Redis; load "
        f"average {extra['load']} during the run (the machine was shared with other work; the "
        "clients, the server, the worker and the database all ran on it).",
        f"One web host: gunicorn with {WEB_WORKERS} sync workers (DEBUG off, production "
        f"settings) and {'no' if args.no_worker else 'one'} Celery worker on the loopback; a "
        f"running tournament of {PLAYERS} players. Each write "
        "is a real result, to its own cell, valid per the dealt hands, sent with the "
        "arbiter's token and an Idempotency-Key; the throttle counts in Redis (rate raised so "
        f"that it refuses nothing). Phases of {args.seconds:g} s, alternating with the "
        f"baseline, {args.repeat} of each; medians.",
        "",
        "| clients | ratio to the baseline | API result writes/s | bare DRF endpoint, one "
        "INSERT (baseline), per s |",
        "|---|---|---|---|",
    ]
    for clients in (1, 8):
        api = statistics.median(rates["api"][clients])
        bare = statistics.median(rates["bare"][clients])
        lines.append(f"| {clients} | **{api / bare:.2f}** | {api:.0f} | {bare:.0f} |")
    met = extra["data"] <= QUERY_BUDGET
    lines += [
        "",
        f"Queries of one API write: **{extra['data']}** statements that read or write data, "
        "the ranking's dispatch on commit included, plus "
        f"{extra['savepoints']} savepoint and {extra['control']} BEGIN/COMMIT statements "
        "(as Django lists them); the baseline does 1. Budget: 10 "
        "(tests/tournaments/api/test_write_queries.py).",
        f"Answers: {extra['statuses']} (every write 201 expected).",
        f"CPU of the site's Python per request (in-process, Django test client, 100 of each): "
        f"API result write {extra['cpu']['api']:.1f} ms, bare endpoint "
        f"{extra['cpu']['bare']:.1f} ms: ratio **{extra['cpu']['bare'] / extra['cpu']['api']:.2f}** "
        "(the machine's load stretches wall times, not this).",
        f"Target: a write within its query budget ({QUERY_BUDGET} statements): "
        f"**{'met' if met else 'not met'}**. No throughput target: a 1,000-player event writes "
        "under one result a second; the ratios above are watched, not targeted.",
    ]
    return "\n".join(lines) + "\n"


def in_process(
    tournament: Any, token: str, work: list[dict[str, Any]], count: int, args: argparse.Namespace
) -> str:
    """What each fast path earns: ``count`` API writes through the Django test client (no
    HTTP server) with every fast path, then with each plain version of `--plain` (all of
    bench/plain_paths.py by default), the kinds alternating, `--repeat` times; wall and CPU
    milliseconds per write, medians. Tasks go to the broker (nobody computes)."""
    from plain_paths import PLAIN, plain
    from rest_framework.test import APIClient

    names = [n for n in (args.plain or ",".join(PLAIN)).split(",") if n]
    kinds = ["fast", *names]
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    path = f"/api/v1/tournaments/{tournament.pk}/results/"
    wall: dict[str, list[float]] = {kind: [] for kind in kinds}
    cpu: dict[str, list[float]] = {kind: [] for kind in kinds}
    with counters_in_redis():
        for body in [work.pop() for _ in range(20)]:  # warm up
            client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex)
        for _ in range(args.repeat):
            for kind in kinds:
                batch = [work.pop() for _ in range(count)]
                with plain([] if kind == "fast" else kind.split("+")):
                    first = client.post(
                        path, batch.pop(), format="json", HTTP_IDEMPOTENCY_KEY=uuid.uuid4().hex
                    )
                    assert first.status_code == 201, (kind, first.content)
                    started, cpu_started = time.perf_counter(), time.process_time()
                    for body in batch:
                        key = uuid.uuid4().hex
                        got = client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=key)
                        assert got.status_code == 201, (kind, got.content)
                    wall[kind].append((time.perf_counter() - started) * 1000 / len(batch))
                    cpu[kind].append((time.process_time() - cpu_started) * 1000 / len(batch))
    best = {kind: min(wall[kind]) for kind in kinds}  # the least disturbed phase
    median = {kind: statistics.median(wall[kind]) for kind in kinds}
    cpu_median = {kind: statistics.median(cpu[kind]) for kind in kinds}
    lines = [
        f"{count - 1} writes per phase, {args.repeat} phases of each kind alternating, "
        "in-process (Django test client, PostgreSQL, Redis). Gain: writes per second with "
        "the fast path over those with its plain version, minus one (best phase; median "
        "phase; CPU of this process, median).",
        "",
        "| plain version of | ms per write, best | gain | gain, median | gain, CPU |",
        "|---|---|---|---|---|",
    ]

    def gain(values: dict[str, float], kind: str) -> str:
        return "—" if kind == "fast" else f"{(values[kind] / values['fast'] - 1) * 100:+.0f} %"

    for kind in kinds:
        lines.append(
            f"| {kind} | {best[kind]:.2f} | {gain(best, kind)} | {gain(median, kind)} "
            f"| {gain(cpu_median, kind)} |"
        )
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each phase")
    parser.add_argument("--repeat", type=int, default=2, help="phases of each kind")
    parser.add_argument("--profile", action="store_true", help="profile writes in-process")
    parser.add_argument(
        "--no-worker",
        action="store_true",
        help="no Celery worker (tasks are sent, nobody computes): to see what the ranking's "
        "computations take from the writes",
    )
    parser.add_argument("--profile-count", type=int, default=200)
    parser.add_argument(
        "--in-process",
        type=int,
        default=0,
        metavar="N",
        help="what each fast path earns: N writes in-process per phase, with every fast path "
        "and with each plain version (bench/plain_paths.py); no server",
    )
    parser.add_argument(
        "--plain",
        default="",
        help="with --in-process: the plain versions to measure, comma-separated "
        "(a+b: together); all by default",
    )
    return parser.parse_args()


def serve_and_measure(
    args: argparse.Namespace, tournament: Any, token: str, work: list[dict[str, Any]], env: dict
) -> tuple[dict[str, dict[int, list[float]]], dict[int, int]]:
    """gunicorn on the loopback, then the bare and the API phases, alternating: writes per
    second of each kind at 1 and 8 clients, and the statuses of the API's answers."""
    from tournaments.models import Result

    port = free_port()
    # 2 sync workers, as the issue's own measurement (bench_load's Server may take it).
    takes_workers = "workers" in inspect.signature(Server).parameters
    server = Server(env, port, **({"workers": WEB_WORKERS} if takes_workers else {}))
    try:
        server.wait_ready()
        api_path = f"/api/v1/tournaments/{tournament.pk}/results/"
        bare_body = {"table": 1, "donne": 1, "taker": "N", "contract": "garde", "bouts": 2}
        for _ in range(10):  # both workers loaded, connections open
            post(port, "/bench/bare/", bare_body, {})
        warm = [work.pop() for _ in range(10)]
        burst(port, api_path, 2, 30, warm, token)
        rates: dict[str, dict[int, list[float]]] = {"api": {1: [], 8: []}, "bare": {1: [], 8: []}}
        statuses: dict[int, int] = {}
        before = Result.objects.count()
        for _ in range(args.repeat):
            for clients in (1, 8):
                bare_work = [bare_body] * 100_000
                done, elapsed, _st = burst(
                    port, "/bench/bare/", clients, args.seconds, bare_work, ""
                )
                rates["bare"][clients].append(done / elapsed)
                done, elapsed, got = burst(port, api_path, clients, args.seconds, work, token)
                rates["api"][clients].append(done / elapsed)
                for status, count in got.items():
                    statuses[status] = statuses.get(status, 0) + count
        written = Result.objects.count() - before
        assert written == statuses.get(201, 0), (written, statuses)
    finally:
        server.stop()
    return rates, statuses


def server_env(redis_url: str, queue: str) -> dict[str, str]:
    """The environment of the gunicorn server: production settings on the test database."""
    from tests.fixtures.services import database_url_for_current_test_db

    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "bare_settings",
            "PYTHONPATH": str(ROOT / "bench"),
            "DATABASE_URL": database_url_for_current_test_db(),
            "REDIS_URL": redis_url,
            "CELERY_EAGER": "0",
            "CELERY_QUEUE": queue,
            "DEBUG": "0",
            "SECRET_KEY": "bench-only-secret-key",
            "ALLOWED_HOSTS": HOST,
            "LOG_LEVEL": "ERROR",
            "API_WRITE_RATE": "1000000/min",
        }
    )
    return env


def prepare(redis_url: str) -> tuple[Any, str, list[dict[str, Any]], str]:
    """The running tournament, the arbiter's token, one body per cell, and the Celery queue
    of this run (tasks go to the broker)."""
    from rest_framework.authtoken.models import Token

    from tarot_club.celery import app
    from tests.fixtures.services import reset_connections
    from tests.scoring.rankings.builders import build_tournament

    built = build_tournament(players=PLAYERS, rounds=6, per_relais=4, seed=16)
    tournament = built.tournament
    tournament.arbiters.add(built.user)
    token = Token.objects.create(user=built.user).key
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_bare_write (id bigserial PRIMARY KEY, body text)")
    queue = f"api-writes-{uuid.uuid4().hex[:8]}"
    app.conf.update(
        task_always_eager=False,
        broker_url=redis_url,
        result_backend=redis_url,
        task_default_queue=queue,
    )
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    reset_connections(app)
    return tournament, token, bodies(built), queue


def main() -> None:
    args = parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")

    from tarot_club.health import redis_reachable
    from tests.fixtures.services import WorkerProcess

    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    if not redis_reachable(redis_url):
        print(f"Redis does not answer at {redis_url}: this bench needs a worker; skipped.")
        return
    setup_test_environment()
    name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"test_{name}_api_writes"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    worker = None
    try:
        tournament, token, work, queue = prepare(redis_url)
        if args.profile:
            with counters_in_redis():
                profile(tournament, token, work, args.profile_count)
            return
        if args.in_process:
            print(in_process(tournament, token, work, args.in_process, args))
            return
        data, control, savepoints = queries_of_one_write(tournament, token, work)
        cpu = cpu_per_request(tournament, token, work, 100)
        if not args.no_worker:
            worker = WorkerProcess(redis_url, queue)
            worker.start()
        rates, statuses = serve_and_measure(
            args, tournament, token, work, server_env(redis_url, queue)
        )
    finally:
        if worker is not None:
            worker.stop()
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
    load_avg = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    answers = ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items()))
    extra = {
        "load": load_avg,
        "data": data,
        "control": control,
        "savepoints": savepoints,
        "statuses": answers,
        "cpu": cpu,
    }
    text = report(args, rates, extra)
    print(text)
    if args.write:
        benchdoc.write_section(SECTION, text)


if __name__ == "__main__":
    main()
