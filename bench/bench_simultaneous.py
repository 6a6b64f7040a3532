"""Benchmark of a simultaneous event's hub on PostgreSQL (issue 27): 300 clubs × 40 players ×
24 donnes (288,000 results), each figure with a baseline measured in the same run:

- one club's upload of 960 results (40 players × 24 donnes: 240 table results), applied as the
  API applies it (`services.upload_receive`: signature, parse, scores checked with the engine,
  hands against the commitment, licences across the field, one transaction), into a field that
  already holds the other clubs; then the same upload again (all unchanged) and a correction
  (one result replaced). Baseline: a bare INSERT of 960 rows (one multi-row statement).
- the overall ranking recomputed by one worker (`ranking.overall_recompute`: read, pool,
  rank, store every player's row) after one club's upload, after the worker started and for
  the event's first time, at 1/4, 1/2 and all of the clubs, against its floor, a plain
  SELECT of every field result. Linear: the cost per result stays flat.

Run: .venv/bin/python bench/bench_simultaneous.py [--clubs 300] [--repeats 3] [--write]
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club); the
bench creates and drops its own database test_<name>_simbench (or BENCH_DB_NAME).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import statistics
import sys
import time
import warnings
from decimal import Decimal
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

SECTION = "## Simultaneous events"
PLAYERS = 40  # per club: 10 tables of four
DONNES = 24  # 6 relais of 4
POSITIONS = ("N", "E", "S", "W")


def best_of(repeats: int, fn: Any, before: Any = None) -> float:
    return best_of_cpu(repeats, fn, before)[0]


def server_cpu() -> float | None:
    """CPU seconds used so far by this connection's PostgreSQL backend, read from /proc when
    the server runs on this machine (else None)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def best_of_cpu(repeats: int, fn: Any, before: Any = None) -> tuple[float, float, float | None]:
    """The best wall time, the best CPU time of this process (`time.process_time`: on a
    shared machine the wall time waits for the cores; the CPU time does not) and the best
    CPU time of the database server's backend for it (None when not on this machine)."""
    times, cpus, servers = [], [], []
    for _ in range(repeats):
        if before is not None:
            before()
        server = server_cpu()
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        after = server_cpu()
        servers.append(None if server is None or after is None else after - server)
    return min(times), min(cpus), None if None in servers else min(servers)


def contract_pool() -> list[dict[str, Any]]:
    """Valid contracts with their scores (the engine's), to draw results from."""
    from tournaments.simultaneous.hub.wire import expected_scores

    pool = []
    for contract in ("prise", "garde", "garde_sans"):
        for bouts, points in ((1, "45"), (2, "44"), (2, "38"), (1, "56"), (3, "40"), (0, "60")):
            for taker in POSITIONS:
                for poignees in ({}, {taker: "simple"}):
                    scores = expected_scores(
                        taker, contract, bouts, Decimal(points), "", poignees, ""
                    )
                    pool.append(
                        {
                            "taker": taker,
                            "contract": contract,
                            "bouts": bouts,
                            "points": points,
                            "petit_au_bout": "",
                            "poignees": poignees,
                            "chelem": "",
                            "scores": scores,
                        }
                    )
    return pool


def club_upload(event: Any, invitation: Any, index: int, donnes: list, pool: list) -> bytes:
    """Club `index`'s upload: 10 tables, every table every donne, seats turning each relais."""
    rng = random.Random(index)
    licences = [f"{index:03d}{n:04d}" for n in range(PLAYERS)]
    results = []
    for table in range(1, PLAYERS // 4 + 1):
        players = licences[4 * (table - 1) : 4 * table]
        for donne in range(1, DONNES + 1):
            turn = (donne - 1) // 4
            seats = players[turn % 4 :] + players[: turn % 4]
            entry = dict(rng.choice(pool))
            results.append(
                {
                    "table": table,
                    "donne": donne,
                    "version": 1,
                    "status": "played",
                    "holders": dict(zip(POSITIONS, seats, strict=True)),
                    "sitter": None,
                    **entry,
                }
            )
    data = {
        "format": "tarot_club/simultaneous-upload",
        "version": 1,
        "event": event.public_id,
        "club": invitation.public_id,
        "identity": event.identity,
        "commitment": event.commitment,
        "sequence": 1,
        "generated_at": "2027-01-16T18:00:00Z",
        "final": False,
        "donnes": donnes,
        "players": [{"licence": x, "first_name": "Joueur", "last_name": f"N{x}"} for x in licences],
        "results": results,
        "penalties": [{"ref": "1", "licence": licences[0], "points": 10, "donne": None}],
    }
    return json.dumps(data).encode()


def send(body: bytes, token: str) -> Any:
    from tournaments.simultaneous.hub import services

    return services.upload_receive(
        body=body, token=token, signature=services.signature_of(token, body)
    )


def bare_insert(rows: int) -> float:
    """One multi-row INSERT of `rows` plays into a scratch table: the floor of writing them."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE IF NOT EXISTS bench_plays "
            "(licence text, donne int, position text, tbl int, score int)"
        )
        values = [
            (f"{n:07d}", n % 24 + 1, POSITIONS[n % 4], n // 96, n % 400 - 200) for n in range(rows)
        ]
        sql = "INSERT INTO bench_plays VALUES " + ", ".join(["(%s, %s, %s, %s, %s)"] * rows)
        params = [v for row in values for v in row]
        start = time.perf_counter()
        cursor.execute(sql, params)
        elapsed = time.perf_counter() - start
        cursor.execute("TRUNCATE bench_plays")
    return elapsed


def floor_select(event_id: int) -> int:
    """The floor of the recomputation: every field result, as the recomputation reads them."""
    from django.db.models import TextField
    from django.db.models.functions import Cast

    from tournaments.simultaneous.hub.models import FieldResult

    qs = (
        FieldResult.objects.filter(event_id=event_id)
        .order_by()
        .annotate(h=Cast("holders", TextField()), s=Cast("scores", TextField()))
        .values_list("invitation_id", "table", "donne", "status", "h", "s", "sitter")
    )
    sql, params = qs.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return len(cursor.fetchall())


def autovacuum() -> str:
    """PostgreSQL's autovacuum setting ("on", "off")."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        return cursor.fetchone()[0]


def vacuum_rows() -> None:
    """VACUUM the stored ranking's tables, as autovacuum does on a server that runs it: each
    computation replaces every row, and the earlier sizes' computations left dead ones."""
    with connection.cursor() as cursor:
        for table in ("overallrankingrow", "overallrankinggroup", "overallrankingclub"):
            cursor.execute(f"VACUUM ANALYZE simultaneous_hub_{table}")


def measure_recompute(event_id: int, clubs: int, repeats: int) -> dict[str, Any]:
    """The recomputation as it runs after a club's upload (that club's results serial moved:
    its rows read and pooled again, its results kept again; the worker's pools of the other
    clubs reused), a worker's first computation of the event (every club read, the kept
    results current) and the event's first (every club read and kept), against the SELECT."""
    from django.db.models import F

    from tournaments.simultaneous.hub.models import (
        Invitation,
        OverallRankingClub,
        OverallRankingState,
    )
    from tournaments.simultaneous.hub.pools import KEPT
    from tournaments.simultaneous.hub.ranking import overall_recompute

    last = Invitation.objects.filter(event_id=event_id).order_by("-pk").values_list("pk")[:1]

    def one_club_uploaded() -> None:
        Invitation.objects.filter(pk__in=last).update(results_serial=F("results_serial") + 1)
        OverallRankingState.objects.filter(pk=event_id).update(results_version=None)

    def worker_started() -> None:
        KEPT.clear()
        OverallRankingState.objects.filter(pk=event_id).update(results_version=None)

    def first() -> None:
        worker_started()
        OverallRankingClub.objects.filter(event_id=event_id).delete()

    def compute() -> None:
        overall_recompute(event_id=event_id)

    vacuum_rows()
    select, select_cpu, select_server = best_of_cpu(repeats, lambda: floor_select(event_id))
    compute()  # the worker's pools of this field
    recompute, recompute_cpu, recompute_server = best_of_cpu(repeats, compute, one_club_uploaded)
    restarted = best_of(repeats, compute, worker_started)
    cold = best_of(repeats, compute, first)
    plays = clubs * PLAYERS * DONNES
    return {
        "clubs": clubs,
        "results": plays,
        "select": select,
        "select_cpu": select_cpu,
        "recompute": recompute,
        "recompute_cpu": recompute_cpu,
        "restarted": restarted,
        "cold": cold,
        "cpu_ratio": (
            None
            if select_server is None or recompute_server is None
            else (recompute_cpu + recompute_server) / (select_cpu + select_server)
        ),
        "load": os.getloadavg()[0],
        "ratio": recompute / select,
        "per_1000": recompute / plays * 1000,
    }


def measure_storing(event_id: int, repeats: int) -> dict[str, float]:
    """The hub's SQL seam against its plain version: the stored ranking's rows replaced by
    COPY (`sql.copy_rows`) and by bulk_create (`sql.bulk_rows`), each in a transaction rolled
    back (the DELETE of the rows included, the commit not)."""
    from django.db import transaction

    from tournaments.simultaneous.hub import sql
    from tournaments.simultaneous.hub.models import OverallRankingRow
    from tournaments.simultaneous.hub.ranking import (
        ROW_FIELDS,
        overall_compute,
        overall_inputs,
        overall_rows,
    )

    inputs = overall_inputs(event_id=event_id)
    assert inputs is not None
    rows = overall_rows(inputs, overall_compute(inputs))

    def replaced(store: Any) -> Any:
        def run() -> None:
            with transaction.atomic():
                OverallRankingRow.objects.filter(event_id=event_id).delete()
                store(OverallRankingRow, ROW_FIELDS, rows)
                transaction.set_rollback(True)

        return run

    return {
        "rows": len(rows),
        "copy": best_of(repeats, replaced(sql.copy_rows)),
        "bulk": best_of(repeats, replaced(sql.bulk_rows)),
    }


def run(clubs: int, repeats: int) -> dict[str, Any]:
    from tournaments.simultaneous.hub import services

    settings.SIMULTANEOUS_RANKING_INLINE = False  # the bench times the computation itself
    event = services.event_create(
        user=None, name="Bench", date=dt.date(2027, 1, 16), rounds=6, sets=DONNES // 4
    )
    donnes = services.event_donnes(event)
    pool = contract_pool()
    invitations = [
        services.invitation_create(event=event, user=None, club_name=f"Club {i}")
        for i in range(clubs)
    ]
    checkpoints = sorted({max(1, clubs // 4), max(1, clubs // 2), clubs})
    uploads, recomputes = [], []
    started = time.perf_counter()
    for index, (invitation, token) in enumerate(invitations[:-1]):
        body = club_upload(event, invitation, index, donnes, pool)
        t0 = time.perf_counter()
        send(body, token)
        uploads.append(time.perf_counter() - t0)
        if index + 1 in checkpoints:
            recomputes.append(measure_recompute(event.pk, index + 1, repeats))
            print(f"{index + 1} clubs: {recomputes[-1]}", flush=True)
    # The last club: its first upload into the full field, then the same again, then a
    # correction of one result (timed on fresh bodies each time).
    invitation, token = invitations[-1]
    body = club_upload(event, invitation, clubs - 1, donnes, pool)
    t0 = time.perf_counter()
    first = send(body, token)
    last_upload = time.perf_counter() - t0
    assert first.results["new"] == PLAYERS * DONNES // 4, first.results
    again = best_of(repeats, lambda: send(body, token))
    data = json.loads(body)
    corrections = []
    for version in range(2, repeats + 2):
        data["sequence"] = version
        data["results"][0]["version"] = version
        fixed = json.dumps(data).encode()
        t0 = time.perf_counter()
        outcome = send(fixed, token)
        corrections.append(time.perf_counter() - t0)
        assert outcome.results["replaced"] == 1, outcome.results
    building = time.perf_counter() - started
    recomputes.append(measure_recompute(event.pk, clubs, repeats))
    storing = measure_storing(event.pk, repeats)
    insert = min(bare_insert(PLAYERS * DONNES) for _ in range(repeats))
    return {
        "clubs": clubs,
        "uploads": uploads,
        "last_upload": last_upload,
        "again": again,
        "correction": min(corrections),
        "insert": insert,
        "recomputes": recomputes,
        "building": building,
        "players": clubs * PLAYERS,
        "storing": storing,
        "autovacuum": autovacuum(),
    }


def report(r: dict[str, Any], repeats: int, load: str) -> str:
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    uploads = sorted(r["uploads"]) or [r["last_upload"]]
    full = r["recomputes"][-1]
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_simultaneous.py "
        f"--clubs {r['clubs']} --write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, PostgreSQL {connection.pg_version // 10000}, "
        f"{platform.system()}; load average {load} during the run (shared machine); best of "
        f"{repeats}. The ratios, each against a baseline of the same run, are what to compare.",
        f"The field: {r['clubs']} clubs × {PLAYERS} players × {DONNES} donnes = "
        f"{full['results']:,} results ({r['players']:,} players), every club uploaded through "
        f"`services.upload_receive` as the API applies it (built in {r['building']:.0f} s).",
        "",
        f"One club's upload of {PLAYERS * DONNES} results ({PLAYERS * DONNES // 4} table "
        "results, 40 players, 24 donnes), applied in one transaction with every check (signature, "
        "format, scores with the engine, hands against the commitment, licences across the "
        "field), against a bare INSERT of the same number of rows in one statement "
        f"({ms(r['insert'])} ms) (target: under 1 s):",
        "",
        "| upload | ms | ratio to the bare INSERT |",
        "|---|---|---|",
        f"| the last club's first upload, into the full field | **{ms(r['last_upload'])}** | "
        f"{r['last_upload'] / r['insert']:.0f}× |",
        f"| every club's first upload: median (worst) | {ms(statistics.median(uploads))} "
        f"({ms(uploads[-1])}) | {statistics.median(uploads) / r['insert']:.0f}× |",
        f"| the same upload again (all unchanged) | {ms(r['again'])} | "
        f"{r['again'] / r['insert']:.0f}× |",
        f"| a correction (one result replaced) | {ms(r['correction'])} | "
        f"{r['correction'] / r['insert']:.0f}× |",
        "",
    ]
    return "\n".join([*lines, *recompute_lines(r, load)]) + "\n"


def recompute_lines(r: dict[str, Any], load: str) -> list[str]:
    """The report's overall ranking part: the recomputations, the seam, how, linearity."""
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    full = r["recomputes"][-1]
    small = r["recomputes"][0]
    lines = [
        "The overall ranking recomputed by one worker after a club's upload (`overall_recompute`: "
        "read that club's results again and reuse the worker's pools of the others, rank every "
        "play of the field with `compute_group_ranking`, replace every player's stored row and "
        "each group's values, keep the club's results as ranked) against its floor, the plain "
        "SELECT of every field result (target: at most 3× the SELECT, linear); then a worker's "
        "first computation of the event (every club read) and the event's first (every club "
        "read and its results kept):",
        "",
        "| clubs | results | recomputation (ms) | SELECT (ms) | ratio | ms per 1,000 results "
        "| Python CPU of the recomputation (ms) | ratio of CPU (Python + PostgreSQL) "
        "| worker's first (ms) | event's first (ms) | load (1 min) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in r["recomputes"]:
        lines.append(
            f"| {row['clubs']} | {row['results']:,} | **{ms(row['recompute'])}** | "
            f"{ms(row['select'])} | {row['ratio']:.1f}× | {row['per_1000'] * 1000:.1f} | "
            f"{ms(row['recompute_cpu'])} | "
            + ("–" if row["cpu_ratio"] is None else f"{row['cpu_ratio']:.1f}×")
            + f" | {ms(row['restarted'])} ({row['restarted'] / row['select']:.1f}×) | "
            f"{ms(row['cold'])} ({row['cold'] / row['select']:.1f}×) | {row['load']:.1f} |"
        )
    growth = full["results"] / small["results"]
    storing = r["storing"]
    lines += [
        "",
        f"The hub's SQL seam (`tournaments/simultaneous/hub/sql.py`): the {storing['rows']:,} "
        f"rows replaced (DELETE, then the rows) by COPY in {ms(storing['copy'])} ms against "
        f"{ms(storing['bulk'])} ms by Django's bulk_create, its plain version "
        f"({storing['bulk'] / storing['copy']:.1f}×; tests/tournaments/simultaneous/hub/"
        "test_sql_seam.py: both store the same rows).",
        "",
        "How: the results are pooled club by club into groups by (donne, position) "
        "(`tournaments/simultaneous/hub/pools.py`), and each worker keeps every club's pool "
        "while the club's results serial stays, so a club's upload makes the next "
        "computation read that club only; the pure rule ranks the grouped plays without "
        "building anyone's score card (`compute_group_ranking`, tied to "
        "`compute_ranking_table` and `compute_ranking` by property tests, every card rebuilt "
        "line for line); each group's values are stored once per distinct score, each club's "
        "results as ranked are kept (written again only when they changed), and a player's "
        "card is built when it is read. The stored rows have four indexes, not six, and no "
        "foreign key constraint: their deferred checks ran twice per row at each commit, "
        "100–170 ms of a computation against 1–2 ms without (measured side by side on this "
        "field on 2026-12-07, load average 2). Before (2026-12-06, quiet): 1,883 ms against a "
        "192 ms SELECT, 9.8×, every card built, encoded and stored at each computation.",
        "",
        f"This machine's PostgreSQL runs with autovacuum {r['autovacuum']}: the benchmark "
        "vacuums the stored ranking's tables before each size's measurements, as autovacuum "
        "would between computations (dead rows slow the next one down: docs/deploy/"
        "simultaneous-hub.md).",
        "",
        "The ratio of CPU adds, for the recomputation and for the SELECT each, this process's "
        "CPU time and that of its PostgreSQL backend (read from /proc: the server runs on "
        "this machine); unlike the wall times it does not count the waits for a busy core.",
        "",
        f"Linearity: {growth:.1f}× the results cost {full['recompute'] / small['recompute']:.1f}× "
        f"the time (cost per result ×{full['per_1000'] / small['per_1000']:.2f}; the SELECT "
        f"×{full['select'] / small['select']:.1f}; the recomputation's Python CPU "
        f"×{full['recompute_cpu'] / small['recompute_cpu']:.1f}).",
    ]
    if float(load.split(",")[0]) > (os.cpu_count() or 1):
        lines += [
            "",
            "The load average exceeded the cores during this run (other work on the machine): "
            "the same recomputation then varies up to twofold from one run to the next, so "
            "the smaller sizes' figures, and the linearity drawn from them, are indicative "
            "only; run it on a quiet machine to compare.",
        ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clubs", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")
    settings.DEBUG = False
    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = os.environ.get(
        "BENCH_DB_NAME", f"test_{connection.settings_dict['NAME']}_simbench"
    )
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        result = run(max(2, args.clubs), args.repeats)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    text = report(result, args.repeats, load)
    print(text)
    if args.write:
        benchdoc.write_section(SECTION, text)


if __name__ == "__main__":
    main()
