"""What the live "provisional until HH:MM / final" line costs the web host (issue 34 §4): the
line's own poll (`claims_window_line`, asked by claims-window.js every 30 s by every page that
shows it), against the polls the same phones already make, in the same run.

A published tournament of `--players` players whose claims window is open, its ranking
computed. Per read, CPU seconds per request (`time.process_time`, Django's test client in this
process: no network), `--count` requests of each:

- baseline: `/healthz` (the smallest answer of the same stack);
- **line 204**: the line's poll with the stamp it shows (nothing changed: nearly every poll);
- **line 200**: the line's poll with an old stamp (the window passed or closed: once a page);
- **ranking 204**: the ranking page's live poll with the snapshot it shows (every 2 to 5 s);
- **room 304**: the room screen's ranking poll with its ETag (every 2 s).

Then what the line adds in a room: phones × (line's CPU per poll) / 30 s, as a share of one
core, beside what their ranking polls already cost.

Run: .venv/bin/python bench/bench_claims_line.py [--players 160] [--count 300] [--phones 150]
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club); the
bench creates and drops its own database test_<name>_claimsline.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tarot_club.settings_test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tarot_club")
os.environ.setdefault("LOG_LEVEL", "ERROR")
warnings.filterwarnings("ignore", message="No directory at")

import benchdoc  # noqa: E402
import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

LINE_EVERY = 30.0  # claims-window.js EVERY
RANKING_EVERY = 5.0  # the ranking page's slowest poll (scoring.rankings poll_seconds)


def stage(players: int) -> dict[str, Any]:
    """A published tournament, its ranking computed, its claims window open for 30 min."""
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone

    from tests.scoring.rankings.builders import build_tournament
    from tournaments.models import Tournament
    from tournaments.services.claims_window import claims_window

    built = build_tournament(players=players, rounds=3, per_relais=4, status="published", seed=7)
    pk = built.tournament.pk
    Tournament.objects.filter(pk=pk).update(
        claims_close_at=timezone.now() + dt.timedelta(minutes=30)
    )
    tournament = Tournament.objects.get(pk=pk)
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    ranking = reverse("ranking", args=[pk])
    client.get(ranking)  # computes the snapshot once
    partial = client.get(ranking, {"partial": "1"})
    since = partial.content.decode().split('data-since="', 1)[-1].split('"', 1)[0]
    room = reverse("room_screen_ranking", args=[pk]) + "?rows=40&every=120"
    client.get(room)
    room_tag = client.get(room)["ETag"]
    return {
        "client": client,
        "line": reverse("claims_window_line", args=[pk]),
        "stamp": claims_window(tournament).stamp,
        "ranking": ranking,
        "since": since,
        "room": room,
        "room_tag": room_tag,
    }


def cpu_per_request(count: int, ask: Callable[[], Any], expect: int) -> float:
    """Median CPU seconds of one request over `count` (after 10 to warm up)."""
    for _ in range(10):
        ask()
    times = []
    for _ in range(count):
        started = time.process_time()
        status = ask().status_code
        times.append(time.process_time() - started)
        assert status == expect, (status, expect)
    return statistics.median(times)


def measure(setup: dict[str, Any], count: int) -> dict[str, float]:
    client = setup["client"]
    line, stamp = setup["line"], setup["stamp"]
    ranking_poll = {"partial": "1", "since": setup["since"], "cur": "1"}
    return {
        "baseline /healthz": cpu_per_request(count, lambda: client.get("/healthz"), 200),
        "line 204 (unchanged)": cpu_per_request(
            count, lambda: client.get(line, {"stamp": stamp}), 204
        ),
        "line 200 (changed)": cpu_per_request(count, lambda: client.get(line, {"stamp": "x"}), 200),
        "ranking poll 204": cpu_per_request(
            count, lambda: client.get(setup["ranking"], ranking_poll), 204
        ),
        "room screen 304": cpu_per_request(
            count,
            lambda: client.get(setup["room"], HTTP_IF_NONE_MATCH=setup["room_tag"]),
            304,
        ),
    }


def report(args: argparse.Namespace, cpu: dict[str, float], load_avg: str) -> str:
    base = cpu["baseline /healthz"]
    lines = [
        "## The claims window's live line",
        "",
        f"{args.players} players, published, window open; {args.count} requests each, median "
        f"CPU per request in this process; {benchdoc.machine_load(load_avg)}.",
        "",
        "| read | CPU ms / request | × baseline |",
        "|---|---:|---:|",
    ]
    lines += [
        f"| {name} | {value * 1000:.2f} | {value / base:.1f} |" for name, value in cpu.items()
    ]
    line = cpu["line 204 (unchanged)"] * args.phones / LINE_EVERY
    ranking = cpu["ranking poll 204"] * args.phones / RANKING_EVERY
    lines += [
        "",
        f"{args.phones} phones: the line's polls every {LINE_EVERY:.0f} s cost "
        f"{line * 100:.2f} % of a core; their ranking polls (every {RANKING_EVERY:.0f} s at the "
        f"slowest) {ranking * 100:.2f} %.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=160)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--phones", type=int, default=150)
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")
    setup_test_environment()
    name = connection.settings_dict["NAME"]
    connection.settings_dict["TEST"]["NAME"] = f"test_{name}_claimsline"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        cpu = measure(stage(args.players), args.count)
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
    print(report(args, cpu, ", ".join(f"{v:.1f}" for v in os.getloadavg())))


if __name__ == "__main__":
    main()
