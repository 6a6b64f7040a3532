"""Benchmark of the player's own pages (issue 35) on PostgreSQL, each figure with a baseline
measured in the same run (the ratio is what to compare across machines):

- a player's history ("Mon tarot") with 300 events: `history_lines` and the API's answer
  (`/api/v1/players/{id}/history/`, the whole Django stack) against the floor, the one SELECT
  of his 300 registrations with their tournaments and clubs; targets: under 100 ms, at most
  3 queries (the player, his registrations with their snapshots' ids, those snapshots' rows);
- an event report at 64 players (16 tables, 6 rounds of a relais of 4 donnes): the report's
  read (`report_state` + `event_report`) and its page (test client) against the floor, the
  one SELECT of the event's counted results; target: under 200 ms.

Run: .venv/bin/python bench/bench_player.py          (prints the figures)
     .venv/bin/python bench/bench_player.py --write  (also rewrites its section of
                                                      docs/BENCHMARKS.md)
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club; the
bench creates and drops its own database test_<name>_bench, or BENCH_DB_NAME if set). The
300 events are one real tournament (built, played and ranked) and 299 copies of its
registration and snapshot (bulk_create): the history reads nothing else.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
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

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402

SECTION = "## A player's pages (Mon tarot)"
EVENTS = 300


def best_of(repeats: int, fn: Callable[[], Any]) -> float:
    """Fastest of `repeats` timed runs, in milliseconds (the least disturbed one)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def queries(fn: Callable[[], Any]) -> int:
    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured)


def history_setup() -> Any:
    """A player with EVENTS published events, each with its snapshot."""
    from scoring.models import RankingSnapshot
    from scoring.rankings.services import ranking_recompute
    from tests.scoring.rankings.builders import build_tournament, fill_results
    from tournaments.models import Registration, Tournament

    built = build_tournament(players=16, rounds=4, status=Tournament.Status.PUBLISHED, seed=3)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    player = built.players[0]
    snapshot = RankingSnapshot.objects.get(tournament=built.tournament)
    start = dt.date(2020, 1, 1)
    copies = Tournament.objects.bulk_create(
        Tournament(
            club=built.tournament.club,
            name=f"Tournoi {i}",
            date=start + dt.timedelta(days=7 * i),
            status=Tournament.Status.PUBLISHED,
            results_version=built.tournament.results_version,
        )
        for i in range(EVENTS - 1)
    )
    Registration.objects.bulk_create(Registration(tournament=t, player=player) for t in copies)
    RankingSnapshot.objects.bulk_create(
        RankingSnapshot(
            tournament=t,
            results_version=snapshot.results_version,
            method=snapshot.method,
            matchpoint_penalty_rate=snapshot.matchpoint_penalty_rate,
            data=snapshot.data,
            cards={},
        )
        for t in copies
    )
    return player


def measure_history(repeats: int) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from scoring.rankings.player_history import history_lines
    from tournaments.models import Player, Registration

    player = history_setup()
    user = get_user_model().objects.create_user("bench-player")
    Player.objects.filter(pk=player.pk).update(user=user)
    player = Player.objects.select_related("club").get(pk=player.pk)

    def floor() -> None:
        list(Registration.objects.filter(player=player).select_related("tournament__club"))

    def read() -> None:
        assert len(history_lines(player)) == EVENTS

    client = Client()
    client.force_login(user)
    url = reverse("api_player_history", args=[player.pk])
    client.get(url)  # the session, once

    def api() -> None:
        assert client.get(url).status_code == 200

    mine = reverse("mine")

    def page() -> None:
        assert client.get(mine).status_code == 200

    fetched = Player.objects.select_related("club")
    return {
        "floor": best_of(repeats, floor),
        "read": best_of(repeats, read),
        "read_queries": queries(lambda: history_lines(fetched.get(pk=player.pk))),
        "api": best_of(repeats, api),
        "api_queries": queries(api),
        "page": best_of(repeats, page),
        "page_queries": queries(page),
    }


def measure_report(repeats: int) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from scoring.rankings.player_report import OPEN, event_report, report_state
    from scoring.rankings.services import ranking_recompute
    from tests.scoring.rankings.builders import build_tournament, fill_results
    from tournaments.models import Player, Result, Tournament

    built = build_tournament(players=64, rounds=6, status=Tournament.Status.FINISHED, seed=11)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    tournament = Tournament.objects.select_related("club").get(pk=built.tournament.pk)
    user = get_user_model().objects.create_user("bench-report")
    Player.objects.filter(pk=built.players[0].pk).update(user=user)
    player = Player.objects.select_related("club").get(pk=built.players[0].pk)

    def floor() -> None:
        list(
            Result.objects.counted().filter(tournament=tournament).values_list("scores", "holders")
        )

    def read() -> None:
        assert report_state(tournament) == OPEN
        assert event_report(tournament, player) is not None

    client = Client()
    client.force_login(user)
    url = reverse("player_event_report", args=[player.pk, tournament.pk])
    client.get(url)

    def page() -> None:
        assert client.get(url).status_code == 200

    return {
        "floor": best_of(repeats, floor),
        "read": best_of(repeats, read),
        "read_queries": queries(read),
        "page": best_of(repeats, page),
        "page_queries": queries(page),
        "results": Result.objects.filter(tournament=tournament).count(),
    }


def report_text(history: dict[str, Any], report: dict[str, Any], repeats: int) -> str:
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    h, r = history, report
    return f"""{SECTION}

Run on {dt.date.today().isoformat()} with `.venv/bin/python bench/bench_player.py --write`.
Machine: {os.cpu_count()} cores ({platform.machine()}), Python {platform.python_version()}, PostgreSQL, Linux; {benchdoc.machine_load(load)} (during the run); best of {repeats} runs.

A player's history with {EVENTS} published events (`scoring/rankings/player_history.py`), against the floor, the one SELECT of his {EVENTS} registrations with their tournaments and clubs ({h["floor"]:.1f} ms); target: under 100 ms and at most 3 queries:

| read | ratio to the SELECT | ms | queries |
|---|---|---|---|
| `history_lines` (after the player's own query) | **{h["read"] / h["floor"]:.1f}×** | {h["read"]:.1f} | {h["read_queries"] - 1} + 1 |
| API `/players/{{id}}/history/` (whole stack, signed in) | **{h["api"] / h["floor"]:.1f}×** | {h["api"]:.1f} | {h["api_queries"]} |
| page `/moi/` (whole stack, with the chart) | **{h["page"] / h["floor"]:.1f}×** | {h["page"]:.1f} | {h["page_queries"]} |

The API's and the page's counts include the session and the user (2) and the player (1).

An event report at 64 players (16 tables, 24 donnes, {r["results"]} results), against the floor, the one SELECT of the event's counted results' scores and holders ({r["floor"]:.1f} ms); target: under 200 ms:

| read | ratio to the SELECT | ms | queries |
|---|---|---|---|
| `report_state` + `event_report` | **{r["read"] / r["floor"]:.1f}×** | {r["read"]:.1f} | {r["read_queries"]} |
| page (whole stack, 24 donnes with hands, field and spread charts) | **{r["page"] / r["floor"]:.1f}×** | {r["page"]:.1f} | {r["page_queries"]} |

How: the history reads the registrations with, per tournament, the id of its latest snapshot under its method and rate (a correlated subquery on the snapshots' index), then only this player's row of those snapshots, extracted from the JSON by the database (`data -> 'rows' -> 'p<id>'`), never the snapshots themselves. The report reads the event's donnes and its counted results once, as plain values, and compares each of the player's donnes in Python with the pure `scoring/rules/player_report.py`; whether it may be shown costs the complete donnes' three flat queries and one for a simultaneous embargo.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = os.environ.get(
        "BENCH_DB_NAME", f"test_{connection.settings_dict['NAME']}_bench_player"
    )
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        history = measure_history(args.repeats)
        report = measure_report(args.repeats)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    text = report_text(history, report, args.repeats)
    print(text)
    if args.write:
        benchdoc.write_section(SECTION, text)


if __name__ == "__main__":
    main()
