"""Benchmark of the live rankings on PostgreSQL; every figure comes with a baseline measured
in the same run, and the ratio is what to compare across machines:

- recomputation (`ranking_recompute`, as the worker runs it) against the floor: the one
  SELECT of the result rows it cannot avoid (`ranked_results`, through Django, which decodes
  the JSON columns; the recomputation itself reads the same rows with those columns as text,
  for msgspec), at 1,000, 3,000 and 10,000 players of 24 donnes (linear: the cost per result
  stays flat as the field grows);
- the ranking page, a poll with nothing new, a score card and a traveller (Django test
  client, the whole request through the middleware) against the home page; the ranking's
  bytes, raw and compressed;
- the delay from a saved result (commit) to the stored snapshot with a real Celery worker,
  at 1,000 players against 16 players.

Run: .venv/bin/python bench/bench_rankings.py          (prints the figures)
     .venv/bin/python bench/bench_rankings.py --write  (also rewrites its section of
                                                        docs/BENCHMARKS.md)
     --quick: 1,000 players only (no 3,000 / 10,000), for a quick look.
     --only-recompute: the recomputation only (no pages, no worker), while working on it.
     --sizes 1000,3000: the field sizes to measure.
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club; the
bench creates and drops its own database test_<name>_bench, or BENCH_DB_NAME if set) and
Redis (REDIS_URL) for the worker part. Tournaments are built with bulk_create
(tests/scoring/rankings/builders.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import time
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import benchdoc

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

SECTION = "## Rankings"
SIZES = (1000, 3000, 10000)


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


def measure_recompute(players: int, repeats: int) -> dict[str, Any]:
    """Recomputation of a tournament of `players` × 24 donnes against its floor SELECT."""
    from scoring.models import RankingSnapshot
    from scoring.rankings.services import ranked_results, ranking_recompute
    from tests.scoring.rankings.builders import build_tournament, fill_results

    start = time.perf_counter()
    built = build_tournament(
        players=players, rounds=6, per_relais=4, status="published", seed=players
    )
    results = fill_results(built, seed=players)
    setup = time.perf_counter() - start
    tid = built.tournament.pk

    def forget() -> None:
        RankingSnapshot.objects.filter(tournament_id=tid).delete()

    select = best_of(repeats, lambda: list(ranked_results(tournament_id=tid)))
    recompute = best_of(repeats, lambda: ranking_recompute(tournament_id=tid), forget)
    select = min(select, best_of(repeats, lambda: list(ranked_results(tournament_id=tid))))
    forget()
    with CaptureQueriesContext(connection) as ctx:
        ranking_recompute(tournament_id=tid)
    snapshot = RankingSnapshot.objects.get(tournament_id=tid)
    return {
        "players": players,
        "tables": len(built.tables),
        "results": results,
        "setup": setup,
        "select": select,
        "recompute": recompute,
        "ratio": recompute / select,
        "per_1000": recompute / results * 1000,
        "queries": len(ctx.captured_queries),
        "size_kb": (len(str(snapshot.data)) + len(str(snapshot.cards))) / 1024,
        "built": built,
    }


def measure_plain(players: int, repeats: int, names: list[str]) -> str:
    """What the recomputation's fast paths earn: a recomputation of a tournament of
    `players` with every fast path, then with each plain version (bench/plain_paths.py),
    the kinds alternating, `repeats` rounds; the best time of each kind."""
    from plain_paths import plain

    from scoring.models import RankingSnapshot
    from scoring.rankings.services import ranking_recompute
    from tests.scoring.rankings.builders import build_tournament, fill_results

    built = build_tournament(
        players=players, rounds=6, per_relais=4, status="published", seed=players
    )
    fill_results(built, seed=players)
    tid = built.tournament.pk
    kinds = ["fast", *names]
    best: dict[str, float] = {}
    for _ in range(repeats):
        for kind in kinds:
            with plain([] if kind == "fast" else [kind]):
                RankingSnapshot.objects.filter(tournament_id=tid).delete()
                started = time.perf_counter()
                ranking_recompute(tournament_id=tid)
                elapsed = time.perf_counter() - started
            best[kind] = min(best.get(kind, elapsed), elapsed)
    lines = [
        f"Recomputation of {players:,} players, best of {repeats}; gain: computations per "
        "second with the fast path over those with its plain version, minus one.",
        "",
        "| plain version of | ms | the fast path's gain |",
        "|---|---|---|",
    ]
    for kind in kinds:
        gain = "—" if kind == "fast" else f"{(best[kind] / best['fast'] - 1) * 100:+.0f} %"
        lines.append(f"| {kind} | {best[kind] * 1000:.0f} | {gain} |")
    return "\n".join(lines)


def measure_pages(built: Any, repeats: int) -> dict[str, Any]:
    """Server time of the pages against the home page, as an anonymous visitor."""
    import gzip

    from django.core.cache import cache

    from scoring.models import RankingSnapshot

    tid = built.tournament.pk
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    home_url = reverse("home")
    ranking_url = reverse("ranking", args=[tid])
    player = built.players[len(built.players) // 2]
    card_url = reverse("score_card", args=[tid, player.pk])
    traveller_url = reverse("traveller", args=[tid, 1])
    snapshot = RankingSnapshot.objects.filter(tournament_id=tid).latest("pk")
    poll_url = f"{ranking_url}?partial=1&since={snapshot.pk}&cur=1"
    for url in (home_url, ranking_url, card_url, traveller_url):
        assert client.get(url).status_code == 200, url
    assert client.get(poll_url).status_code == 204
    out: dict[str, Any] = {}
    for name, url in (
        ("home", home_url),
        ("ranking", ranking_url),
        ("poll", poll_url),
        ("card", card_url),
        ("traveller", traveller_url),
    ):
        out[name] = best_of(repeats, lambda url=url: client.get(url))
        with CaptureQueriesContext(connection) as ctx:
            client.get(url)
        out[f"{name}_queries"] = len(ctx.captured_queries)
    out["ranking_first"] = best_of(repeats, lambda: client.get(ranking_url), lambda: cache.clear())
    raw = client.get(ranking_url).content
    zipped = client.get(ranking_url, HTTP_ACCEPT_ENCODING="gzip")
    assert zipped["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.content).count(b"<tr data-p=") == len(built.players)
    out["raw_kb"] = len(raw) / 1024
    out["gzip_kb"] = len(zipped.content) / 1024
    return out


def measure_worker_delays(builts: dict[str, Any], samples: int) -> dict[str, list[float]]:
    """Seconds from a result's commit to the snapshot of its version, via a real worker, for
    each tournament given (one worker for all)."""
    from scoring.models import RankingSnapshot
    from scoring.rankings.services import min_interval
    from tarot_club.celery import app
    from tarot_club.health import redis_reachable
    from tests.fixtures.services import WorkerProcess, reset_connections
    from tests.scoring.rankings.builders import random_deal, save_result

    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    if not redis_reachable(redis_url):
        print(f"Redis not reachable at {redis_url}: no worker delay measured")
        return {}
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
    delays: dict[str, list[float]] = {}
    import random

    rng = random.Random(5)
    try:
        for name, built in builts.items():
            cells = built.schedule()
            delays[name] = []
            for i in range(samples):
                time.sleep(min_interval() + 0.5)  # one result at a time: no coalescing wait
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
                delays[name].append(time.perf_counter() - start)
    finally:
        worker.stop()
    return delays


def report(
    rows: list[dict[str, Any]],
    pages: dict[str, Any],
    delays: dict[str, list[float]],
    repeats: int,
    load: str,
) -> str:
    """The section of docs/BENCHMARKS.md: the recomputation, the pages, the worker's delay
    and how it is done."""
    lines = [
        *_recompute_lines(rows, repeats, load),
        *_page_lines(rows[0], pages),
        *_worker_lines(delays),
        "",
        HOW,
    ]
    return "\n".join(lines) + "\n"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def _ms1(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def _recompute_lines(rows: list[dict[str, Any]], repeats: int, load: str) -> list[str]:
    """The heading and the recomputation's table (with its linearity over several sizes)."""
    ms, ms1 = _ms, _ms1
    first = rows[0]
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_rankings.py "
        "--write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, PostgreSQL {connection.pg_version // 10000}, "
        f"{platform.system()}; load average {load} during the run (the machine was shared "
        f"with other work); best of {repeats} runs. Times move with the load; the ratios, "
        "each against a baseline measured in the same run, are what to compare.",
        "Tournaments of 6 rounds of a relais of 4 donnes (24 donnes), every result entered "
        "(about 4 % all passed).",
        "",
        "Recomputation (`ranking_recompute`, as the worker runs it) against its floor, the one "
        "SELECT of the result rows (`ranked_results`: the same rows and columns, through "
        "Django's values_list, which decodes the JSON columns with json.loads; target: at most "
        "2× at 1,000 players, and linear):",
        "",
        "| players | results | ratio to the SELECT | recomputation (ms) | SELECT (ms) "
        "| ms per 1,000 results | its queries | snapshot (KB) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['players']:,} | {r['results']:,} | **{r['ratio']:.1f}×** "
            f"| {ms(r['recompute'])} | {ms(r['select'])} | {ms1(r['per_1000'])} "
            f"| {r['queries']} | {r['size_kb']:,.0f} |"
        )
    if len(rows) > 1:
        last = rows[-1]
        lines += [
            "",
            f"Linearity: {last['results'] / first['results']:.0f}× the results cost "
            f"{last['recompute'] / first['recompute']:.1f}× the time "
            f"(cost per result ×{last['per_1000'] / first['per_1000']:.2f}; the SELECT "
            f"×{last['select'] / first['select']:.1f}).",
        ]
    return lines


def _page_lines(first: dict[str, Any], pages: dict[str, Any]) -> list[str]:
    """The pages' table against the home page, and the ranking page's weight."""
    ms1 = _ms1
    home = pages["home"]
    return [
        "",
        f"Pages at {first['players']:,} players, server time through the whole Django stack "
        "(test client, anonymous visitor, published tournament), against the home page "
        f"({ms1(home)} ms, {pages['home_queries']} queries) in the same run:",
        "",
        "| page | ratio to the home page | ms | queries |",
        "|---|---|---|---|",
        f"| ranking, table from the cache (every reader but the first of a snapshot) "
        f"| **{pages['ranking'] / home:.1f}×** | {ms1(pages['ranking'])} "
        f"| {pages['ranking_queries']} |",
        f"| ranking, first reader of a new snapshot (renders and caches the table) "
        f"| **{pages['ranking_first'] / home:.1f}×** | {ms1(pages['ranking_first'])} | |",
        f"| poll with nothing new (204) | **{pages['poll'] / home:.1f}×** "
        f"| {ms1(pages['poll'])} | {pages['poll_queries']} |",
        f"| score card | **{pages['card'] / home:.1f}×** | {ms1(pages['card'])} "
        f"| {pages['card_queries']} |",
        f"| traveller | **{pages['traveller'] / home:.1f}×** | {ms1(pages['traveller'])} "
        f"| {pages['traveller_queries']} |",
        "",
        f"The {first['players']:,}-row ranking page weighs {pages['raw_kb']:,.0f} KB of HTML, "
        f"**{pages['gzip_kb']:,.0f} KB on the wire** compressed (target: under 80 KB).",
        "",
    ]


def _worker_lines(delays: dict[str, list[float]]) -> list[str]:
    """The delay from a saved result to its snapshot with a real worker."""
    ms = _ms
    lines: list[str] = []
    if delays:
        names = list(delays)
        base, big = delays[names[0]], delays[names[-1]]
        lines.append(
            f"Result to updated ranking with a real worker ({len(big)} results saved one at a "
            f"time, from the commit to the stored snapshot): {names[-1]}: median "
            f"{ms(statistics.median(big))} ms, worst {ms(max(big))} ms; against {names[0]} in "
            f"the same run: median {ms(statistics.median(base))} ms "
            f"(**{statistics.median(big) / statistics.median(base):.1f}×**)."
        )
    else:
        lines.append("Result to updated ranking with a real worker: not measured (no Redis).")
    return lines


HOW = (
    "How: the recomputation reads the rows as columns (no model instances; the holders "
    "and scores as JSON text, decoded with msgspec, where Django's json.loads per value "
    "cost as much as the query) in one "
    "REPEATABLE READ transaction of three queries, pauses the garbage collector, and ranks "
    "with `compute_ranking_table`: the same exact values as `compute_ranking` (checked by "
    "property tests), but each score-card line is built once as plain values, a "
    "differential being an integer numerator over the group's denominator reduced by one "
    "gcd, totals integers over a common denominator (no Fraction per line), and the "
    "counts of donnes played and compared follow from the card lengths. The "
    "snapshot stores the ranking rows, and each player's lines as one JSON text "
    "(encoded with msgspec; PostgreSQL takes in a thousand strings far faster than a "
    "jsonb of nested arrays), compressed with lz4, in one INSERT … ON CONFLICT DO "
    "NOTHING whose parameters the server binds: the lines go as one binary text[] of "
    "keys and texts that jsonb_object() makes the same document of, so the server "
    "parses no JSON; that transaction, the computation's own, commits without waiting "
    "for the WAL flush (a crash may lose the snapshot with its state, never corrupt "
    "it: the ranking is then stale and computed again). The ranking page's table is "
    "rendered once per snapshot and language, by one web process for all (kept in Redis): the "
    "reader's own row is marked by the page's script; a poll with nothing new is a 204 "
    "and a poll of a new snapshot gets its fragment, both answered before the session "
    "and authentication middleware from one query, which a process reuses for "
    "RANKING_POLL_CACHE_SECONDS. A burst of results is coalesced (at most one queued "
    "task per tournament, computations at least RANKING_MIN_INTERVAL = 1 s apart; a task "
    "that finds its snapshot stored changes nothing and does not move that clock; a "
    "computation behind a newer result dates the staleness from its read)."
)


def write_section(text: str) -> None:
    """Replace this benchmark's section of docs/BENCHMARKS.md, leaving the others alone."""
    benchdoc.write_section(SECTION, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--samples", type=int, default=5, help="results timed with the worker")
    parser.add_argument("--quick", action="store_true", help="1,000 players only")
    parser.add_argument(
        "--only-recompute", action="store_true", help="the recomputation only (no pages, worker)"
    )
    parser.add_argument("--sizes", help="players per tournament, comma-separated")
    parser.add_argument(
        "--plain",
        default="",
        help="what the fast paths earn: the recomputation at the first size with each of "
        "these plain versions (bench/plain_paths.py, comma-separated), nothing else",
    )
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")

    settings.DEBUG = False
    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = os.environ.get(
        "BENCH_DB_NAME", f"test_{connection.settings_dict['NAME']}_bench"
    )
    sizes = [int(size) for size in args.sizes.split(",")] if args.sizes else list(SIZES)
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        if args.plain:
            print(measure_plain(sizes[0], args.repeats, args.plain.split(",")))
            return
        rows = []
        for players in sizes[:1] if args.quick else sizes:
            row = measure_recompute(players, args.repeats)
            rows.append(row)
            print(
                f"{players:>6} players: recompute {row['recompute'] * 1000:.0f} ms, floor "
                f"SELECT {row['select'] * 1000:.0f} ms: {row['ratio']:.1f}x; "
                f"{row['per_1000'] * 1000:.1f} ms per 1,000 results",
                flush=True,
            )
        if args.only_recompute:
            return
        pages = measure_pages(rows[0]["built"], args.repeats)
        print(
            {
                k: round(v * 1000, 1) if isinstance(v, float) and "kb" not in k else v
                for k, v in pages.items()
            },
            flush=True,
        )
        from tests.scoring.rankings.builders import build_tournament

        small = build_tournament(players=16, rounds=6, per_relais=4, status="published", seed=16)
        builts = {"16 players": small, f"{rows[0]['players']:,} players": rows[0]["built"]}
        delays = measure_worker_delays(builts, args.samples)
        for name, values in delays.items():
            print(
                f"result to ranking with a worker, {name}: {[round(d * 1000) for d in values]} ms"
            )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    text = report(rows, pages, delays, args.repeats, load)
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
