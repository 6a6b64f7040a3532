"""Concurrent drill of a simultaneous event's hub (issue 27, point 7): the clubs' uploads
arrive over HTTP within a time window while phones poll the overall ranking, on the hub as it
runs in production — gunicorn (several processes) and a real Celery worker on Redis, on a
PostgreSQL cluster of the drill's own (bench/drill_services.py, as bench/drill_faults.py).

- N clubs (default 300) each send one upload of 960 results (40 players × 24 donnes, built
  by bench/bench_simultaneous.py's `club_upload`), signed with the club's token
  (`X-Simultaneous-Signature`), POSTed to /api/v1/simultaneous/club/uploads/ by `--senders`
  concurrent senders, each club at its own moment spread evenly over `--window` seconds
  (default 60 s, the ten minutes of the issue scaled down; `--full` runs the 600 s). A
  sender sends again, the same body, while it gets no answer, a timeout or a 5xx, as the
  club's Celery task does; a 200 is the acknowledgement.
- `--pollers` phones (default 24), each asking every `--poll-every` seconds (default 2) for
  the overall ranking, in turn its first page (/simultanes/<id>/classement/) and the API
  (/api/v1/simultaneous/events/<id>/ranking/), as the event's organiser (during the embargo
  only organisers see it: the heaviest read, the one the public gets after it). 5,000 phones
  every 12.5 s would be 400 requests/s: the drill states the rate it reached and the ratio.
- one more thread reads /api/v1/me/ at the same pace: the floor of a request through the same
  stack (gunicorn, middleware, token authentication), the pollers' baseline in the same run.

Checked at the end: every upload acknowledged; the hub's field results = the sum of the
uploads' results (none lost, none doubled) and each acknowledgement said 240 new; the stored
overall ranking is current and equals a recomputation from the database
(`overall_compute` on `overall_inputs`); the lag from the last acknowledgement to the stored
ranking being current. Baselines of the database in the same run, as bench_simultaneous.py:
the recomputation's floor SELECT and a bare INSERT of 960 rows. Then the CPU of the site's
Python per request (ranking page, API, baseline), in the drill's own process with Django's
test client, turned into the cores 5,000 phones would need.

    .venv/bin/python bench/drill_simultaneous.py [--clubs 300] [--window 60 | --full] \\
        [--senders 8] [--pollers 24] [--poll-every 2] [--web-workers 3] \\
        [--worker-concurrency 1] [--folder /tmp/simdrill] [--keep] [--write]
About 6 minutes with --window 300 on 2 cores (the run in docs/BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import queue
import shutil
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench.drill_services import (
    ROOT,
    Client,
    NoAnswer,
    PrivatePostgres,
    PrivateRedis,
    Process,
    drill_environment,
    free_port,
    overall_equal,
    post_upload,
    wait_overall_current,
    web_process,
    worker_process,
)

SECTION = "## Simultaneous events: uploads and polls at once (drill)"
PHONES, PHONE_EVERY = 5000, 12.5  # the phones, one poll every 10–15 s


@dataclass
class Tally:
    """What the senders and pollers saw (appended from their threads)."""

    acks: list[float] = field(default_factory=list)  # seconds from start to each 200
    upload_ms: list[float] = field(default_factory=list)
    resent: int = 0
    not_new: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    polls: dict[str, list[float]] = field(default_factory=dict)
    poll_errors: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def poll(self, kind: str, ms: float, ok: bool) -> None:
        with self.lock:
            self.polls.setdefault(kind, []).append(ms)
            self.poll_errors[kind] = self.poll_errors.get(kind, 0) + (not ok)


def send_upload(client: Client, name: str, body: bytes, token: str, tally: Tally) -> None:
    """POST one club's upload until it is acknowledged (`post_upload`: the same body again
    after no answer, a timeout or a 5xx); anything but a 200 is a failure, named."""
    asked = time.monotonic()
    answer, resent = post_upload([client], body=body, token=token)
    with tally.lock:
        tally.resent += resent
        if answer is None or answer.status != 200:
            status = "no answer in 300 s" if answer is None else answer.status
            tally.failed.append(f"{name}: {status} {answer.body[:120] if answer else ''!r}")
            return
        tally.upload_ms.append((time.monotonic() - asked) * 1000)
        new = (answer.json() or {}).get("results", {}).get("new")  # type: ignore[union-attr]
        if new != 240:
            tally.not_new.append(f"{name}: {new}")


def run_senders(
    client: Client, uploads: list[tuple[str, bytes, str]], window: float, senders: int
) -> Tally:
    """Each club's upload at start + window·i/N, by `senders` threads; returns the tally."""
    tally = Tally()
    todo: queue.Queue = queue.Queue()
    start = time.monotonic()
    for index, upload in enumerate(uploads):
        todo.put((start + window * index / len(uploads), upload))

    def sender() -> None:
        while True:
            try:
                at, (name, body, token) = todo.get_nowait()
            except queue.Empty:
                return
            time.sleep(max(0.0, at - time.monotonic()))
            send_upload(client, name, body, token, tally)
            with tally.lock:
                tally.acks.append(time.monotonic() - start)

    threads = [threading.Thread(target=sender) for _ in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def run_pollers(
    client: Client, targets: dict[str, tuple[str, dict[str, str]]], pollers: int, every: float,
    tally: Tally, stop: threading.Event,
) -> list[threading.Thread]:  # fmt: skip
    """`pollers` phones, each reading the ranking's page and API in turn every `every`
    seconds (staggered), and one more reading /api/v1/me/ (the baseline); returns the started threads."""
    kinds = [kind for kind in targets if kind != "baseline"]

    def phone(number: int, kinds: list[str]) -> None:
        time.sleep(every * number / max(1, pollers))
        turn = number
        while not stop.is_set():
            kind = kinds[turn % len(kinds)]
            turn += 1
            path, headers = targets[kind]
            asked = time.monotonic()
            try:
                ok = client.request("GET", path, headers=headers, timeout=30).status == 200
            except NoAnswer:
                ok = False
            elapsed = time.monotonic() - asked
            tally.poll(kind, elapsed * 1000, ok)
            stop.wait(max(0.0, every - elapsed))

    threads = [threading.Thread(target=phone, args=(n, kinds)) for n in range(pollers)]
    threads.append(threading.Thread(target=phone, args=(0, ["baseline"])))
    for thread in threads:
        thread.start()
    return threads


def stage(clubs: int) -> dict[str, Any]:
    """The hub's event, its organiser (API token and session) and every club's invitation
    and signed-to-be upload body, made in the drill's database by the orchestrator."""
    from bench_simultaneous import DONNES, club_upload, contract_pool
    from django.contrib.auth import get_user_model
    from django.test import Client as DjangoClient

    from tournaments.api.tokens import token_create
    from tournaments.simultaneous.hub import services

    organiser = get_user_model().objects.create_user("drill-organiser", password="x")
    event = services.event_create(
        user=organiser, name="Drill", date=dt.date(2027, 1, 16), rounds=6, sets=DONNES // 4
    )
    donnes = services.event_donnes(event)
    pool = contract_pool()
    uploads = []
    for index in range(clubs):
        invitation, token = services.invitation_create(
            event=event, user=organiser, club_name=f"Club {index}"
        )
        body = club_upload(event, invitation, index, donnes, pool)
        uploads.append((invitation.public_id, body, token))
    browser = DjangoClient()
    browser.force_login(organiser)
    return {
        "event": event,
        "uploads": uploads,
        "api_token": token_create(user=organiser).key,
        "session": browser.cookies["sessionid"].value,
    }


def final_checks(event_id: int, clubs: int) -> dict[str, Any]:
    """The field's results count, the stored ranking against a recomputation from the
    database, the computations' count, and the database baselines of the same run."""
    from bench_simultaneous import PLAYERS, bare_insert, floor_select

    from tournaments.simultaneous.hub.models import (
        FieldResult,
        OverallRankingRow,
        OverallRankingState,
    )
    from tournaments.simultaneous.hub.ranking import overall_compute, overall_inputs

    started = time.perf_counter()
    inputs = overall_inputs(event_id=event_id)
    assert inputs is not None
    overall_compute(inputs)
    recompute = time.perf_counter() - started
    equal, _computed_in = overall_equal(event_id)
    state = OverallRankingState.objects.get(pk=event_id)
    started = time.perf_counter()
    floor_select(event_id)
    select = time.perf_counter() - started
    return {
        "field_results": FieldResult.objects.filter(event_id=event_id).count(),
        "expected_results": clubs * PLAYERS * 24 // 4,
        "ranking_equal": equal,
        "players": OverallRankingRow.objects.filter(event_id=event_id).count(),
        "expected_players": clubs * PLAYERS,
        "computations": state.computations,
        "computed_in": state.computed_in,
        "last_duration_ms": state.duration_ms,
        "recompute": recompute,
        "select": select,
        "insert": min(bare_insert(PLAYERS * 24) for _ in range(3)),
    }


def cpu_per_request(staged: dict[str, Any], count: int = 40) -> dict[str, float]:
    """CPU seconds of the site's Python per request, in this process (Django's test client,
    no network, no queue): the ranking's page, its API and the baseline, `count` of each."""
    from django.test import Client as DjangoClient

    event = staged["event"]
    browser = DjangoClient(HTTP_HOST="127.0.0.1")
    browser.cookies["sessionid"] = staged["session"]
    token = {"HTTP_AUTHORIZATION": f"Token {staged['api_token']}"}
    asks = {
        "page": (f"/simultanes/{event.public_id}/classement/", {}),
        "api": (f"/api/v1/simultaneous/events/{event.public_id}/ranking/", token),
        "baseline": ("/api/v1/me/", token),
    }
    out = {}
    for kind, (path, extra) in asks.items():
        assert browser.get(path, **extra).status_code == 200, kind
        started = time.process_time()
        for _ in range(count):
            browser.get(path, **extra)
        out[kind] = (time.process_time() - started) / count
    return out


def start_hub(work: Path, env: dict[str, str], args: argparse.Namespace) -> list[Process]:
    """gunicorn (`--web-workers` processes) and one Celery worker, from this checkout."""
    web = web_process(
        "hub-web",
        cwd=ROOT,
        env=env,
        log_dir=work,
        host="127.0.0.1",
        port=args.web_port,
        workers=args.web_workers,
    )
    worker = worker_process(
        "hub-worker", cwd=ROOT, env=env, log_dir=work, concurrency=args.worker_concurrency
    )
    for process in (web, worker):
        process.start()
    return [web, worker]


def drive(args: argparse.Namespace, staged: dict[str, Any]) -> dict[str, Any]:
    """The uploads and the polls at once; then the lag until the ranking is current."""
    event = staged["event"]
    client = Client(f"http://127.0.0.1:{args.web_port}")
    targets = {
        "page": (
            f"/simultanes/{event.public_id}/classement/",
            {"Cookie": f"sessionid={staged['session']}"},
        ),
        "api": (
            f"/api/v1/simultaneous/events/{event.public_id}/ranking/",
            {"Authorization": f"Token {staged['api_token']}"},
        ),
        "baseline": ("/api/v1/me/", {"Authorization": f"Token {staged['api_token']}"}),
    }
    for _ in range(3 * args.web_workers):  # each gunicorn process loads its code once
        for path, headers in targets.values():
            client.request("GET", path, headers=headers, timeout=60)
    stop = threading.Event()
    poll_tally = Tally()
    started = time.monotonic()
    threads = run_pollers(client, targets, args.pollers, args.poll_every, poll_tally, stop)
    tally = run_senders(client, staged["uploads"], args.window, args.senders)
    last_ack = time.monotonic()
    lag = wait_overall_current(event.pk, timeout=300)
    polled_for = time.monotonic() - started
    stop.set()
    for thread in threads:
        thread.join()
    tally.polls, tally.poll_errors = poll_tally.polls, poll_tally.poll_errors
    return {
        "tally": tally,
        "lag": lag,
        "uploads_took": last_ack - started,
        "polled_for": polled_for,
    }


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clubs", type=int, default=300)
    parser.add_argument("--window", type=float, default=60, help="seconds the uploads span")
    parser.add_argument("--full", action="store_true", help="the issue's ten minutes")
    parser.add_argument("--senders", type=int, default=8, help="concurrent senders")
    parser.add_argument("--pollers", type=int, default=24, help="polling phones")
    parser.add_argument("--poll-every", type=float, default=2.0, help="seconds per phone")
    parser.add_argument("--web-workers", type=int, default=3, help="gunicorn processes")
    parser.add_argument("--worker-concurrency", type=int, default=1)
    parser.add_argument("--folder", type=Path, help="work folder (logs)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    if args.full:
        args.window = 600.0
    args.web_port = free_port()
    return args


def main() -> int:
    args = parse_args()
    work = args.folder or Path(tempfile.mkdtemp(prefix="tarot-simdrill-"))
    shutil.rmtree(work / "pg", ignore_errors=True)
    (work / "pg").mkdir(parents=True)
    pg, redis = PrivatePostgres(work / "pg"), PrivateRedis()
    env = drill_environment(work, pg, redis, CELERY_QUEUE="simdrill")
    os.environ.update(env)
    processes: list[Process] = []
    failures = 1
    try:
        pg.init()
        redis.start()
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        began = time.monotonic()
        staged = stage(args.clubs)
        print(f"staged {args.clubs} clubs in {time.monotonic() - began:.0f} s", flush=True)
        connections.close_all()
        processes = start_hub(work, env, args)
        outcome = drive(args, staged)
        outcome.update(final_checks(staged["event"].pk, args.clubs))
        outcome["cpu"] = cpu_per_request(staged)
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
        text, failures = report(args, outcome, load)
        print(text)
        if args.write:
            import benchdoc

            benchdoc.write_section(SECTION, text)
    finally:
        for process in reversed(processes):
            process.stop()
        redis.kill()
        pg.stop()
        if args.keep or failures or args.folder:
            print(f"logs in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def percentiles(values: list[float]) -> str:
    """p50 / p95 / p99 / max of `values` (ms), as text."""
    if not values:
        return "-"
    ordered = sorted(values)
    at = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return f"{statistics.median(ordered):.0f} / {at(0.95):.0f} / {at(0.99):.0f} / {ordered[-1]:.0f}"


def report(args: argparse.Namespace, r: dict[str, Any], load: str) -> tuple[str, int]:
    """The section of docs/BENCHMARKS.md, and the number of failed checks."""
    tally: Tally = r["tally"]
    polls = sum(len(v) for k, v in tally.polls.items() if k != "baseline")
    rate = polls / r["polled_for"]
    target = PHONES / PHONE_EVERY
    checks = [
        (not tally.failed and len(tally.upload_ms) == args.clubs,
         f"uploads acknowledged: {len(tally.upload_ms)}/{args.clubs}, {tally.resent} sent "
         f"again after no answer or a 5xx, refused: {tally.failed[:3] or 'none'}"),
        (not tally.not_new, f"every acknowledgement said 240 new results "
         f"({len(tally.not_new)} did not: {tally.not_new[:3]})"),
        (r["field_results"] == r["expected_results"],
         f"field results at the hub: {r['field_results']:,} = the uploads' "
         f"{r['expected_results']:,} (none lost, none doubled)"),
        (r["ranking_equal"] and r["players"] == r["expected_players"],
         f"stored overall ranking ({r['players']:,} players) "
         f"{'equals' if r['ranking_equal'] else 'DIFFERS FROM'} a recomputation from the "
         "database (place, rank, licence, total, penalties, donnes played)"),
        (r["lag"] is not None,
         "ranking current " + (f"{r['lag']:.1f} s" if r["lag"] is not None else "never (300 s)")
         + f" after the last acknowledgement ({r['computations']} computations in all, the "
         f"last {r['last_duration_ms']} ms by {r['computed_in']})"),
        (not any(tally.poll_errors.values()),
         f"poll errors: {tally.poll_errors}"),
    ]  # fmt: skip
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/drill_simultaneous.py "
        f"--clubs {args.clubs} --window {args.window:g} --senders {args.senders} --pollers "
        f"{args.pollers} --poll-every {args.poll_every:g} --web-workers {args.web_workers} "
        "--write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, {platform.system()}; load average {load} at the end "
        "(shared machine). Everything on this one machine: PostgreSQL, Redis, gunicorn "
        f"({args.web_workers} processes), one Celery worker (concurrency "
        f"{args.worker_concurrency}), and the drill's own senders and pollers (Python threads).",
        f"{args.clubs} clubs × 960 results (240 table results) = "
        f"{r['expected_results'] * 4:,} results, uploads spread evenly over {args.window:g} s "
        f"by {args.senders} concurrent senders (the issue: 300 clubs within 600 s); the last "
        f"acknowledged {r['uploads_took']:.0f} s after the first was sent.",
        f"Polls: {args.pollers} phones each every {args.poll_every:g} s, the ranking's first "
        f"page and its API in turn, as the organiser: {args.pollers / args.poll_every:.1f} "
        f"requests/s asked, {rate:.1f} reached (a phone asks every `--poll-every` seconds, or "
        "as soon as its answer comes when that took longer, so slow answers slow it down), "
        f"{rate / target:.1%} of the {target:.0f}/s that {PHONES:,} phones polling every "
        f"{PHONE_EVERY:g} s would send (two cores cannot both generate and serve that; the "
        "figures below say what one such machine serves while it also applies the uploads).",
        "",
        "| check | |",
        "|---|---|",
    ]
    lines += [f"| {'ok' if ok else '**FAIL**'} | {text} |" for ok, text in checks]
    lines += [
        "",
        "| request (during the uploads) | count | p50 / p95 / p99 / max (ms) |",
        "|---|---|---|",
        f"| upload POST (960 results, until acknowledged) | {len(tally.upload_ms)} | "
        f"{percentiles(tally.upload_ms)} |",
    ]
    for kind, label in (
        ("page", "ranking page 1 (HTML)"),
        ("api", "ranking API page 1 (JSON)"),
        ("baseline", "baseline: /api/v1/me/ (the API's smallest read)"),
    ):
        values = tally.polls.get(kind, [])
        lines.append(f"| {label} | {len(values)} | {percentiles(values)} |")
    cpu = r["cpu"]
    page = statistics.median(tally.polls.get("page") or [0])
    floor = statistics.median(tally.polls.get("baseline") or [1])
    lines += [
        "",
        f"Uploads applied at {args.clubs / r['uploads_took']:.1f} per second over the run "
        f"(asked: {args.clubs / args.window:.1f}/s; the issue's 300 in ten minutes is 0.5/s). "
        f"The ranking's page answered at the median in {page / floor:.1f}× the time of the "
        "smallest read of the same moment (the baseline row): what a phone waits for is mostly "
        "the queue of a machine whose two cores also check and write the uploads, compute the "
        "overall ranking (one worker, one computation at most every 2 s) and run the drill's "
        "own threads; the CPU each request costs is below.",
        "",
        "CPU of the site's Python per request, measured in the drill's own process after the "
        "run (Django's test client: no network, no queue), 40 of each: the ranking page "
        f"{ms(cpu['page'])} ms, the API {ms(cpu['api'])} ms, the baseline "
        f"{ms(cpu['baseline'])} ms (ratios {cpu['page'] / cpu['baseline']:.1f}× and "
        f"{cpu['api'] / cpu['baseline']:.1f}×). {PHONES:,} phones every {PHONE_EVERY:g} s "
        f"alternating the two: about {target * (cpu['page'] + cpu['api']) / 2:.0f} cores of "
        "web hosts' Python alone at this machine's speed (PostgreSQL's share comes on top).",
        "",
        f"Database baselines of the same run: the recomputation's floor SELECT of every field "
        f"result {ms(r['select'])} ms (the recomputation from the database for the check: "
        f"{ms(r['recompute'])} ms without storing, {r['recompute'] / r['select']:.0f}×); a bare "
        f"INSERT of 960 rows {ms(r['insert'])} ms (the median upload answered in "
        f"{statistics.median(tally.upload_ms or [0]):.0f} ms, "
        f"{statistics.median(tally.upload_ms or [0]) / 1000 / r['insert']:.0f}×).",
    ]
    return "\n".join(lines) + "\n", sum(not ok for ok, _ in checks)


if __name__ == "__main__":
    sys.exit(main())
