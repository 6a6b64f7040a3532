"""What a poll of an unchanged ranking costs the web host's Python, before and after the cached
reads of tarot_club/kit/cached_read.py (issue 36, point 1), each against its baseline in the
same run, and how soon a poller sees a new computation.

Staged as the hub receives it: an event of `--clubs` clubs × 40 players × 24 donnes, every
club's upload applied by `services.upload_receive`, the overall ranking computed and stored
(`ranking.overall_recompute`), the embargo lifted; and a published tournament of
`--room-players` players for the room's screen (the tournament's live ranking was already
answered from the rendered snapshot with a 204, see "Rankings"; its ETag only names it). Then, per read, CPU
seconds per request (`time.process_time`, Django's test client in this process: no network,
no queue), `--count` requests of each:

- **uncached**: `CACHED_READS = False`, every poll renders the page (the site before);
- **cached 200**: a phone without the ETag yet, the page from this process's cache (Redis's
  when `--redis` is given and the process's own memory is cleared before each request);
- **304**: a phone that sends the ETag of the page it shows (`If-None-Match`);
- baseline: `/healthz` (the smallest answer of the same stack).

Then the delay from a computation to a poller seeing it: a thread polls the ranking's first
page back to back with its ETag while the main thread applies a club's corrected upload and
computes the ranking, `--changes` times; the delay is from the end of the computation (its
commit) to the first answer with the new ETag.

Run: .venv/bin/python bench/bench_polls.py [--clubs 300] [--count 60] [--redis URL] [--write]
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club); the
bench creates and drops its own database test_<name>_pollbench (or BENCH_DB_NAME).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchdoc
from bench_simultaneous import DONNES, club_upload, contract_pool, send
from django.conf import settings
from django.db import connection
from django.test.utils import override_settings

SECTION = "## Polls of an unchanged ranking (cached reads)"
PHONES, PHONE_EVERY = 5000, 12.5


def stage_event(clubs: int) -> dict[str, Any]:
    """The event, every club's upload applied, ranked, the embargo lifted; the tokens and
    bodies kept for the corrections of the delay's measure."""
    from tournaments.simultaneous.hub import services
    from tournaments.simultaneous.hub.ranking import overall_recompute

    settings.SIMULTANEOUS_RANKING_INLINE = False
    event = services.event_create(
        user=None, name="Bench", date=dt.date(2027, 1, 16), rounds=6, sets=DONNES // 4
    )
    donnes = services.event_donnes(event)
    pool = contract_pool()
    uploads = []
    for index in range(clubs):
        invitation, token = services.invitation_create(
            event=event, user=None, club_name=f"Club {index}"
        )
        body = club_upload(event, invitation, index, donnes, pool)
        send(body, token)
        uploads.append((invitation, token, body))
    overall_recompute(event_id=event.pk)
    event.refresh_from_db()
    return {"event": event, "uploads": uploads}


def stage_room(players: int) -> Any:
    """A published tournament of `players` with every result, ranked."""
    from scoring.rankings.services import ranking_recompute
    from tests.scoring.rankings.builders import build_tournament, fill_results

    built = build_tournament(players=players, rounds=3, status="published", seed=36)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    return built.tournament


def lift_embargo(event: Any) -> None:
    from django.utils import timezone

    type(event).objects.filter(pk=event.pk).update(embargo_lifted_at=timezone.now())
    event.refresh_from_db()


def reads(event: Any, tournament: Any) -> dict[str, str]:
    from django.urls import reverse

    public_id = event.public_id
    return {
        "hub ranking, page 1": reverse("simultaneous_ranking", args=[public_id]),
        "hub ranking, page 60": reverse("simultaneous_ranking", args=[public_id]) + "?page=60",
        "hub club page": reverse(
            "simultaneous_field_club", args=[public_id, event.invitations.first().public_id]
        ),
        "hub player card": reverse("simultaneous_player", args=[public_id, "0000000"]),
        "room screen": reverse("room_screen_ranking", args=[tournament.pk]) + "?every=120",
    }


def cpu(path: str, count: int, *, etag: bool, forget: bool) -> tuple[float, int]:
    """CPU seconds per GET of `path` and the status of the last answer: a new phone each
    time (no cookie, no ETag; the same test client, its cookies cleared), or, with `etag`, one phone asking again with the ETag of the
    page it shows (and the cookies it was given); the process's own cache cleared before
    each when `forget` (the page then comes from Redis)."""
    from django.core.cache import cache
    from django.test import Client

    headers = {"HTTP_ACCEPT_LANGUAGE": "fr", "HTTP_ACCEPT_ENCODING": "gzip"}
    phone = Client()
    warm = phone.get(path, **headers)
    assert warm.status_code == 200, (path, warm.status_code)
    if etag:
        warm = phone.get(path, **headers)  # with the CSRF cookie the first answer set
        headers["HTTP_IF_NONE_MATCH"] = warm.get("ETag", "")
    total, status = 0.0, 0
    for _ in range(count):
        if forget:
            cache.clear()
        if not etag:
            phone.cookies.clear()  # a new phone (one client: its middleware loaded once)
        started = time.process_time()
        response = phone.get(path, **headers)
        total += time.process_time() - started
        status = response.status_code
    return total / count, status


def measure_cpu(staged: dict[str, Any], tournament: Any, count: int, redis: bool) -> dict:
    out: dict[str, dict[str, Any]] = {}
    for label, path in reads(staged["event"], tournament).items():
        row: dict[str, Any] = {}
        with override_settings(CACHED_READS=False):
            row["uncached"], _ = cpu(path, count, etag=False, forget=False)
        row["cached"], _ = cpu(path, count, etag=False, forget=False)
        if redis:
            row["redis"], _ = cpu(path, count, etag=False, forget=True)
        row["304"], row["status"] = cpu(path, count, etag=True, forget=False)
        out[label] = row
        print(label, {k: round(v * 1000, 2) if isinstance(v, float) else v for k, v in row.items()})
    out["baseline"] = {"uncached": cpu("/healthz", count, etag=False, forget=False)[0]}
    return out


def measure_delay(staged: dict[str, Any], changes: int) -> list[float]:
    """Seconds from the end of each computation to the poller's first answer with it."""
    from django.db import connections
    from django.test import Client
    from django.urls import reverse

    from tournaments.simultaneous.hub import services
    from tournaments.simultaneous.hub.ranking import overall_recompute

    event = staged["event"]
    path = reverse("simultaneous_ranking", args=[event.public_id])
    seen: list[tuple[float, str]] = []
    stop = threading.Event()

    def poller() -> None:
        client, tag = Client(), ""
        try:
            while not stop.is_set():
                headers = {"HTTP_IF_NONE_MATCH": tag} if tag else {}
                response = client.get(path, HTTP_ACCEPT_LANGUAGE="fr", **headers)
                if response.status_code == 200 and response["ETag"] != tag:
                    tag = response["ETag"]
                    seen.append((time.monotonic(), tag))
        finally:
            connections.close_all()

    thread = threading.Thread(target=poller)
    thread.start()
    delays = []
    try:
        _invitation, token, body = staged["uploads"][0]
        data = json.loads(body)
        pool = contract_pool()
        for change in range(changes):
            time.sleep(0.5)
            data["sequence"] = change + 2
            data["results"][0].update(pool[change % len(pool)], version=change + 2)
            services.upload_receive(
                body=json.dumps(data).encode(),
                token=token,
                signature=services.signature_of(token, json.dumps(data).encode()),
            )
            before = len(seen)
            overall_recompute(event_id=event.pk)
            computed = time.monotonic()
            while len(seen) <= before or seen[-1][0] < computed:
                if time.monotonic() - computed > 10:
                    break
                time.sleep(0.005)
            delays.append(max(0.0, seen[-1][0] - computed))
    finally:
        stop.set()
        thread.join()
    return delays


def report(r: dict[str, Any], args: argparse.Namespace, load: str) -> str:
    ms = lambda s: f"{s * 1000:.1f}"  # noqa: E731
    cpu = r["cpu"]
    base = cpu["baseline"]["uncached"]
    redis = "redis" in next(iter(cpu.values()))
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_polls.py "
        f"--clubs {args.clubs} --count {args.count}"
        + (" --redis …" if args.redis else "")
        + " --write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}; {benchdoc.machine_load(load)} (at the end).",
        f"Staged: {args.clubs} clubs × 40 players × 24 donnes through the hub's uploads "
        f"({args.clubs * 40:,} players ranked), the embargo lifted; a published tournament of "
        f"{args.room_players} players for the room's screen.",
        "",
        "CPU of the site's Python per poll (ms; Django's test client in the bench's process, "
        "a new phone each time, French, gzip accepted), before (uncached, `CACHED_READS=0`) "
        "and after:",
        "",
        "| read | uncached | cached 200 |"
        + (" cached 200 from Redis |" if redis else "")
        + " 304 (If-None-Match) | uncached / 304 |",
        "|---|---|---|" + ("---|" if redis else "") + "---|---|",
    ]
    for label, row in cpu.items():
        if label == "baseline":
            continue
        cells = [ms(row["uncached"]), ms(row["cached"])]
        if redis:
            cells.append(ms(row["redis"]))
        cells.append(f"{ms(row['304'])} ({row['status']})")
        cells.append(f"{row['uncached'] / row['304']:.0f}×")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append(f"| baseline: /healthz | {ms(base)} | | " + ("| " if redis else "") + "| |")
    page = cpu["hub ranking, page 1"]
    rate = PHONES / PHONE_EVERY
    delays = r["delays"]
    lines += [
        "",
        f"{PHONES:,} phones polling every {PHONE_EVERY:g} s ({rate:.0f} polls/s) of the hub's "
        f"first page: about {rate * page['uncached']:.1f} cores of web Python uncached, "
        f"{rate * page['cached']:.1f} served from the cache to phones without the ETag, "
        f"{rate * page['304']:.1f} with every phone asking with its ETag (PostgreSQL's share: "
        "the one query of the event and its ranking's state per poll).",
        "",
        f"Delay from a computation to a poller seeing it ({len(delays)} computations, each "
        "after a club's corrected upload, the poller asking back to back with its ETag): "
        f"median {statistics.median(delays) * 1000:.0f} ms, max {max(delays) * 1000:.0f} ms "
        "(the new version is a new key: the first poll after the commit renders it once; a "
        "phone polling every 12.5 s sees it at its next poll).",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clubs", type=int, default=300)
    parser.add_argument("--room-players", type=int, default=120)
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--changes", type=int, default=5)
    parser.add_argument("--redis", default="", help="a Redis URL for the shared cache")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = ["*"]  # the test client's host (no setup_test_environment:
    # its instrumented template rendering would be measured too)
    connection.settings_dict["TEST"]["NAME"] = os.environ.get(
        "BENCH_DB_NAME", f"test_{connection.settings_dict['NAME']}_pollbench"
    )
    shared = (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": args.redis,
            "KEY_PREFIX": f"pollbench-{os.getpid()}",
        }
        if args.redis
        else settings.CACHES["shared"]
    )
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        with override_settings(CACHES={**settings.CACHES, "shared": shared}):
            began = time.monotonic()
            staged = stage_event(args.clubs)
            tournament = stage_room(args.room_players)
            lift_embargo(staged["event"])
            print(f"staged in {time.monotonic() - began:.0f} s", flush=True)
            result = {"cpu": measure_cpu(staged, tournament, args.count, bool(args.redis))}
            result["delays"] = measure_delay(staged, args.changes)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    text = report(result, args, load)
    print(text)
    if args.write:
        benchdoc.write_section(SECTION, text)


if __name__ == "__main__":
    main()
