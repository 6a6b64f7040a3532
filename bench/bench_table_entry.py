"""Benchmarks of entry at the table: how fast a confirmed result reaches the ranking, and how
many taps and seconds a donne takes on a phone.

1. Ranking (default run). A result confirmed at the table reaches the ranking as fast as one
the arbiter enters.

On a tournament of 100 players (25 tables, 6 rounds of a relais of 4 donnes) with every
result already in but the timed ones, it times, from the call to the stored ranking snapshot of the new version
(tasks in-process, ``RANKING_MIN_INTERVAL=0``, so the recomputation happens on commit):

- baseline: the arbiter saves a result (``result_save``);
- the same for an opponent's confirmation at the table (``table_entry_confirm``, after the
  entry was made with ``table_entry_save``, which is not timed: it does not count yet).

Both enter "all passed" (valid whatever the dealt hands). Prints the medians and the ratio.

2. Taps (``--taps``). Real Chromium at 390 × 844 drives the table's page of a live server
(port 8101) through a relais of 4 donnes, twice in the same run: with the phone bound to the
player who enters (he types his code once, at the first donne) and with his name and code
typed at every donne (a phone not bound). In both an opponent confirms each entry on the
same phone with his name and code. It counts taps (clicks, a choice in a list as two) and
key presses, and times each donne from the tap on its tab to the confirmation shown (the
automation types at once: the seconds are the page's and the server's, not the fingers').

Run: .venv/bin/python bench/bench_table_entry.py          (prints the figures)
     .venv/bin/python bench/bench_table_entry.py --write  (also rewrites its section of
                                                           docs/BENCHMARKS.md)
     .venv/bin/python bench/bench_table_entry.py --taps [--write]
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
from typing import Any

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
    from tests.scoring.rankings.builders import build_tournament, fill_results
    from tournaments.models import Result
    from tournaments.services.results import ResultInput, result_save
    from tournaments.services.table_entry import (
        Voucher,
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
            result, _player = table_entry_save(
                access=access,
                donne_number=donne.number,
                data=passed,
                voucher=Voucher(player_id=holders["N"], code=codes[holders["N"]]),
                expected_version=None,
            )
            start = time.perf_counter()
            table_entry_confirm(
                access=access,
                donne_number=donne.number,
                voucher=Voucher(player_id=holders["E"], code=codes[holders["E"]]),
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


# --- taps and seconds per donne, in Chromium ----------------------------------------------

TAPS_SECTION = "## Entry at the table: taps and seconds per donne"
PORT = 8101
PHONE = {"width": 390, "height": 844}


class Taps:
    """Counts what a player does on the page: a tap per click, two for a choice in a list,
    one per key pressed."""

    def __init__(self, page: Any) -> None:
        self.page, self.count = page, 0

    def tap(self, selector: str) -> None:
        self.page.locator(selector).click()
        self.count += 1

    def choose(self, selector: str, value: str) -> None:
        self.page.select_option(selector, value)
        self.count += 2

    def type(self, selector: str, text: str) -> None:
        self.tap(selector)
        self.page.locator(selector).press_sequentially(text)
        self.count += len(text)


def _relais(
    page: Any,
    holding: list[dict[str, int]],
    numbers: list[int],
    codes: dict[int, str],
    *,
    bound: bool,
) -> list[tuple[int, float]]:
    """Enter and confirm the 4 donnes; (taps, seconds) of each."""
    from playwright.sync_api import expect

    figures = []
    for index, number in enumerate(numbers):
        north, east = holding[index]["N"], holding[index]["E"]
        if not bound:  # a phone nobody keeps: the binding is not there
            page.evaluate(
                "Object.keys(localStorage).filter(k => k.startsWith("
                "'tarot-table-binding:')).forEach(k => localStorage.removeItem(k))"
            )
        taps = Taps(page)
        start = time.perf_counter()
        taps.tap(f'#donne-tabs .tab[data-donne="{number}"]')
        if page.locator("#who-enters").is_visible():
            taps.choose("#player", str(north))
            taps.type("#entry-code", codes[north])
            if bound and not page.locator("#bind").is_checked():
                taps.tap("#bind")  # its owner keeps the phone (never ticked the first time)
        taps.tap('input[name="contract"][value="garde"]')
        taps.tap('#takers input[value="N"]')
        taps.tap('input[name="bouts"][value="2"]')
        taps.type("#points", "50")
        taps.tap("#save")
        expect(page.locator('#result-status[data-status="awaiting"]')).to_be_visible()
        taps.tap(f'#confirm-players input[value="{east}"]')
        taps.type("#confirm-code", codes[east])
        taps.tap("#confirm-form button[type=submit]")
        expect(page.locator('#result-status[data-status="confirmed"]')).to_be_visible()
        figures.append((taps.count, time.perf_counter() - start))
    return figures


def measure_taps() -> dict[str, list[tuple[int, float]]]:
    from django.conf import settings
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.test.testcases import LiveServerThread
    from playwright.sync_api import sync_playwright

    from tests.scoring.rankings.builders import build_tournament
    from tournaments.services.table_entry import player_codes_get, table_page_url

    built = build_tournament(players=8, rounds=2, per_relais=4, seed=11)
    codes = player_codes_get(tournament=built.tournament)
    server = LiveServerThread("localhost", StaticFilesHandler, port=PORT)
    server.daemon = True
    server.start()
    server.is_ready.wait()
    if server.error:
        raise server.error
    settings.SITE_URL = f"http://localhost:{PORT}"
    # Read before Playwright runs its event loop (Django refuses queries inside it).
    plans = []
    for table_no, (name, bound) in enumerate((("bound", True), ("code", False)), start=1):
        table_round = built.table_rounds[(1, table_no)]
        numbers = [d.number for d in built.set_donnes[table_round.etui_set_id]]
        holding = [built.holding(1, table_no, i)[0] for i in range(len(numbers))]
        plans.append((name, bound, table_page_url(table_round=table_round), numbers, holding))
    flows = {}
    try:
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path="/usr/bin/chromium")
            for name, bound, url, numbers, holding in plans:
                context = browser.new_context(locale="fr-FR", viewport=PHONE)
                page = context.new_page()
                page.goto(url)
                page.wait_for_selector("#donne-tabs .tab")
                flows[name] = _relais(page, holding, numbers, codes, bound=bound)
                if bound:
                    page.locator(f'#donne-tabs .tab[data-donne="{numbers[-1]}"]').click()
                    page.screenshot(path="/tmp/bench-table-bound.png")
                context.close()
            browser.close()
    finally:
        server.terminate()
    return flows


def report_taps(flows: dict[str, list[tuple[int, float]]]) -> str:
    def row(label: str, figures: list[tuple[int, float]]) -> str:
        taps = [n for n, _s in figures]
        seconds = statistics.median(s for _n, s in figures)
        return (
            f"| {label} | {taps[0]} | {' / '.join(str(n) for n in taps[1:])} | {sum(taps)} | "
            f"{seconds:.2f} |"
        )

    fields = 1 + 1 + 1 + (1 + 2) + 1  # contract, taker, bouts, points (tap + 2 keys), save
    confirm = 1 + (1 + 4) + 1  # who confirms, his code, the button
    return "\n".join(
        [
            TAPS_SECTION,
            "",
            f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_table_entry.py "
            "--taps --write`.",
            f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
            f"{platform.python_version()}, PostgreSQL, Chromium at 390 × 844, live server in the "
            "same process; the machine was shared with other work.",
            "A relais of 4 donnes (a garde of North, 2 bouts, 50 points), each confirmed by East "
            "on the same phone with his name and code. Taps: clicks, a choice in a list as two, "
            "one per key pressed; seconds: from the tap on the donne's tab to the confirmation "
            "shown (typed at machine speed: the page's and the server's share).",
            "",
            "| flow | taps, donne 1 | taps, donnes 2 / 3 / 4 | taps, relais | median s per donne |",
            "|---|---|---|---|---|",
            row("phone bound to who enters (code typed once)", flows["bound"]),
            row("name and code typed at each donne", flows["code"]),
            "",
            f"The result alone (contract, taker, bouts, points, save) is {fields} taps and the "
            f"opponent's confirmation {confirm}, plus one for the donne's tab: after its first "
            f"donne a bound phone adds nothing to them ({1 + fields + confirm}). Before entries "
            "had to be proven, the page remembered the name picked once, so its donnes 2 to 4 "
            f"took {1 + fields + confirm} taps as well: a bound phone keeps that speed, and "
            "typing the code at each donne would cost 7 more. When the opponent's own phone is "
            'bound too, his confirmation is one tap ("I confirm this result, as …").',
            "",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--taps", action="store_true", help="taps and seconds in Chromium")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")
    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = (
        f"test_{connection.settings_dict['NAME']}_table_bench"
    )
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        text = report_taps(measure_taps()) if args.taps else report(*measure(args.samples))
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
    print(text)
    if args.write:
        benchdoc.write_section(TAPS_SECTION if args.taps else SECTION, text)


if __name__ == "__main__":
    main()
