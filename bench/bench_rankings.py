"""Benchmark of the live rankings (issue 6) on PostgreSQL, for 10, 100 and 1,000 players
(6 rounds of a relais of 4 donnes: 24 donnes each):

- a full recomputation as the worker runs it (`ranking_recompute`), and its queries;
- server time of the ranking page, a score card and a traveller (Django test client: the
  whole request through the middleware, templates included, no network);
- the delay from a saved result (commit) to the updated snapshot with a real Celery worker.

Run: .venv/bin/python bench/bench_rankings.py          (prints the figures)
     .venv/bin/python bench/bench_rankings.py --write  (also rewrites its section of
                                                        docs/BENCHMARKS.md)
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club; the
bench creates and drops its own database test_<name>_bench) and Redis (REDIS_URL) for the
worker part. Tournaments are built with bulk_create (tests/rankings/builders.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import statistics
import sys
import time
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tarot_club.settings_test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tarot_club")
os.environ.setdefault("LOG_LEVEL", "ERROR")
warnings.filterwarnings("ignore", message="No directory at")  # static files not collected

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402

SECTION = "## Rankings (issue 6)"
DOC = ROOT / "docs" / "BENCHMARKS.md"
SIZES = (10, 100, 1000)


def best_of(repeats: int, fn: Callable[[], Any], before: Callable[[], Any] | None = None) -> float:
    """Fastest of `repeats` timed runs, in seconds (the least disturbed one)."""
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def measure_size(players: int, repeats: int) -> dict[str, Any]:
    from scoring.models import RankingSnapshot
    from scoring.services.ranking import ranking_recompute
    from tests.rankings.builders import build_tournament, fill_results
    from tournaments.models import Result

    start = time.perf_counter()
    built = build_tournament(
        players=players, rounds=6, per_relais=4, status="published", seed=players
    )
    results = fill_results(built, seed=players)
    setup = time.perf_counter() - start
    tournament = built.tournament
    tid = tournament.pk

    def forget() -> None:
        RankingSnapshot.objects.filter(tournament_id=tid).delete()

    recompute = best_of(repeats, lambda: ranking_recompute(tournament_id=tid), forget)
    forget()
    with CaptureQueriesContext(connection) as ctx:
        ranking_recompute(tournament_id=tid)
    queries = len(ctx.captured_queries)
    snapshot = RankingSnapshot.objects.get(tournament_id=tid)
    size_kb = (len(str(snapshot.data)) + len(str(snapshot.cards))) / 1024

    client = Client()
    ranking_url = reverse("ranking", args=[tid])
    player = built.players[len(built.players) // 2]
    card_url = reverse("score_card", args=[tid, player.pk])
    traveller_url = reverse("traveller", args=[tid, 1])
    for url in (ranking_url, card_url, traveller_url):
        assert client.get(url).status_code == 200, url
    pages = {}
    for name, url in (("ranking", ranking_url), ("card", card_url), ("traveller", traveller_url)):
        pages[name] = best_of(repeats, lambda url=url: client.get(url))
        with CaptureQueriesContext(connection) as ctx:
            client.get(url)
        pages[f"{name}_queries"] = len(ctx.captured_queries)
    assert Result.objects.filter(tournament_id=tid).count() == results
    return {
        "players": players,
        "tables": len(built.tables),
        "results": results,
        "setup": setup,
        "recompute": recompute,
        "queries": queries,
        "size_kb": size_kb,
        "built": built,
        **pages,
    }


def measure_worker_delay(built: Any, samples: int) -> list[float]:
    """Seconds from a result's commit to the snapshot of its version, via a real worker."""
    from scoring.models import RankingSnapshot
    from scoring.services.ranking import min_interval
    from tarot_club.celery import app
    from tarot_club.health import redis_reachable
    from tests.fixtures.services import WorkerProcess, reset_connections
    from tests.rankings.builders import random_deal, save_result

    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    if not redis_reachable(redis_url):
        print(f"Redis not reachable at {redis_url}: no worker delay measured")
        return []
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    app.conf.update(
        task_always_eager=False,
        broker_url=redis_url,
        result_backend=redis_url,
        task_default_queue=queue,
    )
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    reset_connections(app)
    worker = WorkerProcess(redis_url, queue)
    worker.start()
    delays = []
    import random

    rng = random.Random(5)
    try:
        cells = built.schedule()
        for i in range(samples):
            time.sleep(min_interval() + 0.5)  # one result at a time: no coalescing countdown
            round_no, table_no, index, _donne = cells[i]
            start = time.perf_counter()
            save_result(built, round_no, table_no, index, deal=random_deal(rng))
            built.tournament.refresh_from_db(fields=["results_version"])
            version = built.tournament.results_version
            while not RankingSnapshot.objects.filter(
                tournament=built.tournament, results_version=version
            ).exists():
                if time.perf_counter() - start > 30:
                    raise RuntimeError(f"no snapshot for v{version} after 30 s")
                time.sleep(0.01)
            delays.append(time.perf_counter() - start)
    finally:
        worker.stop()
    return delays


def report(rows: list[dict[str, Any]], delays: list[float], repeats: int) -> str:
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_rankings.py "
        "--write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, PostgreSQL {connection.pg_version // 10000}, "
        f"{platform.system()}; best of {repeats} runs; the machine was shared with other work.",
        "Tournaments of 6 rounds of a relais of 4 donnes (24 donnes), every result entered "
        "(about 4 % all passed); pages read by an anonymous visitor (published tournament).",
        "",
        "| players | tables | results | recomputation (ms) | its queries | snapshot (KB) "
        "| ranking page (ms) | score card (ms) | traveller (ms) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['players']:,} | {r['tables']} | {r['results']:,} | {ms(r['recompute'])} "
            f"| {r['queries']} | {r['size_kb']:,.0f} | {ms(r['ranking'])} "
            f"({r['ranking_queries']} queries) | {ms(r['card'])} ({r['card_queries']} queries) "
            f"| {ms(r['traveller'])} ({r['traveller_queries']} queries) |"
        )
    lines.append("")
    if delays:
        lines.append(
            f"Result to updated ranking with a real worker (1,000 players; {len(delays)} "
            f"results saved one at a time, from the commit to the stored snapshot): median "
            f"{ms(statistics.median(delays))} ms, worst {ms(max(delays))} ms."
        )
    else:
        lines.append("Result to updated ranking with a real worker: not measured (no Redis).")
    lines += [
        "",
        "Targets: recomputation under 1 s, pages under 150 ms of server time, result to "
        "ranking under 2 s. The recomputation reads everything in the same few queries "
        "whatever the size (one REPEATABLE READ transaction), ranks with exact fractions, and "
        "stores the ranking rows and every player's score-card lines as two JSON documents "
        "keyed by player, so the ranking page reads the rows only and a score card extracts "
        "its own key in the database. A burst of results is coalesced (at most one queued "
        "task per tournament, computations at least RANKING_MIN_INTERVAL = 1 s apart), so the "
        "delay above is for a result saved on its own; inside a burst it is at most about one "
        "second more.",
    ]
    return "\n".join(lines) + "\n"


def write_section(text: str) -> None:
    """Replace this benchmark's section of docs/BENCHMARKS.md, leaving the others alone."""
    current = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Benchmarks\n"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(current):
        updated = pattern.sub(lambda _: text, current, count=1)
    else:
        updated = current.rstrip("\n") + "\n\n" + text
    DOC.write_text(updated.rstrip("\n") + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--samples", type=int, default=5, help="results timed with the worker")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")

    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = f"test_{connection.settings_dict['NAME']}_bench"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        rows = []
        for players in SIZES:
            row = measure_size(players, args.repeats)
            rows.append(row)
            print(
                f"{players:>5} players: recompute {row['recompute'] * 1000:.0f} ms "
                f"({row['queries']} queries), ranking {row['ranking'] * 1000:.0f} ms, "
                f"card {row['card'] * 1000:.0f} ms, traveller {row['traveller'] * 1000:.0f} ms"
            )
        delays = measure_worker_delay(rows[-1]["built"], args.samples)
        if delays:
            print(f"result to ranking with a worker: {[round(d * 1000) for d in delays]} ms")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    text = report(rows, delays, args.repeats)
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
