"""Benchmark: a result confirmed at the table reaches the ranking as fast as one the arbiter
enters.

On a tournament of 100 players (25 tables, 6 rounds of a relais of 4 donnes) with every
result already in but the timed ones, it times, from the call to the stored ranking snapshot of the new version
(tasks in-process, ``RANKING_MIN_INTERVAL=0``, so the recomputation happens on commit):

- baseline: the arbiter saves a result (``result_save``);
- the same for an opponent's confirmation at the table (``table_entry_confirm``, after the
  entry was made with ``table_entry_save``, which is not timed: it does not count yet).

Both enter "all passed" (valid whatever the dealt hands). Prints the medians and the ratio.

Run: .venv/bin/python bench/bench_table_entry.py          (prints the figures)
     .venv/bin/python bench/bench_table_entry.py --write  (also rewrites its section of
                                                           docs/BENCHMARKS.md)
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club; the
bench creates and drops its own database test_<name>_bench).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import benchdoc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tarot_club.settings_test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tarot_club")
os.environ.setdefault("LOG_LEVEL", "ERROR")
os.environ["RANKING_MIN_INTERVAL"] = "0"
os.environ["REDIS_URL"] = ""  # no broker: the ranking is computed in-process on commit
warnings.filterwarnings("ignore", message="No directory at")

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

SECTION = "## Results confirmed at the table"
PLAYERS = 100


def _snapshot_current(tournament_id: int) -> bool:
    from scoring.models import RankingSnapshot
    from tournaments.models import Tournament

    version = Tournament.objects.values_list("results_version", flat=True).get(pk=tournament_id)
    return RankingSnapshot.objects.filter(
        tournament_id=tournament_id, results_version__gte=version
    ).exists()


def measure(samples: int) -> tuple[list[float], list[float]]:
    from tests.rankings.builders import build_tournament, fill_results
    from tournaments.models import Result
    from tournaments.services.results import ResultInput, result_save
    from tournaments.services.table_entry import (
        player_codes_get,
        table_access_issue,
        table_entry_confirm,
        table_entry_save,
    )

    built = build_tournament(players=PLAYERS, rounds=6, per_relais=4, seed=7)
    fill_results(built, seed=7, share=1.0)
    tournament = built.tournament
    tournament.arbiters.add(built.user)
    cells = built.schedule()[-2 * samples :]
    Result.objects.filter(
        table__in=[built.table_rounds[(r, t)].table for r, t, _i, _d in cells],
        donne__in=[d for _r, _t, _i, d in cells],
    ).delete()
    codes = player_codes_get(tournament=tournament)
    passed = ResultInput(status="all_passed")
    arbiter, table = [], []
    for n, (round_no, table_no, index, donne) in enumerate(cells):
        table_round = built.table_rounds[(round_no, table_no)]
        if n % 2 == 0:
            start = time.perf_counter()
            result_save(
                tournament=tournament,
                table=table_round.table,
                donne=donne,
                data=passed,
                user=built.user,
                expected_version=None,
            )
            assert _snapshot_current(tournament.pk)
            arbiter.append(time.perf_counter() - start)
        else:
            access = table_access_issue(table_round=table_round)
            holders, _sitter = built.holding(round_no, table_no, index)
            result = table_entry_save(
                access=access,
                donne_number=donne.number,
                data=passed,
                entered_by_id=holders["N"],
                expected_version=None,
            )
            start = time.perf_counter()
            table_entry_confirm(
                access=access,
                donne_number=donne.number,
                player_id=holders["E"],
                code=codes[holders["E"]],
                version=result.version,
            )
            assert _snapshot_current(tournament.pk)
            table.append(time.perf_counter() - start)
    return arbiter, table


def report(arbiter: list[float], table: list[float]) -> str:
    ms = lambda v: f"{v * 1000:.0f}"  # noqa: E731
    a, t = statistics.median(arbiter), statistics.median(table)
    return "\n".join(
        [
            SECTION,
            "",
            f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_table_entry.py "
            "--write`.",
            f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
            f"{platform.python_version()}, PostgreSQL, {platform.system()}; the machine was shared "
            "with other work.",
            f"Tournament of {PLAYERS} players with every result entered but the timed ones: "
            f"{len(arbiter)} results saved by the arbiter and as many confirmed at the table, "
            "alternately; from the call to the stored ranking snapshot (computed in-process on "
            "commit).",
            "",
            "| path | median (ms) | worst (ms) |",
            "|---|---|---|",
            f"| arbiter saves the result (baseline) | {ms(a)} | {ms(max(arbiter))} |",
            f"| opponent confirms the table's entry | {ms(t)} | {ms(max(table))} |",
            "",
            f"Ratio confirmed / arbiter: {t / a:.2f}.",
            "",
        ]
    )


def write_section(text: str) -> None:
    """Replace this benchmark's section of docs/BENCHMARKS.md, leaving the others alone."""
    benchdoc.write_section(SECTION, text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--samples", type=int, default=10)
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")
    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = (
        f"test_{connection.settings_dict['NAME']}_table_bench"
    )
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        arbiter, table = measure(args.samples)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
    text = report(arbiter, table)
    print(text)
    if args.write:
        write_section(text)


if __name__ == "__main__":
    main()
