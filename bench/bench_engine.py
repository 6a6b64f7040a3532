"""Benchmark of the pure scoring engine: deals scored per second against a plain Python
reference scorer measured in the same run (the ratio is what to compare across machines),
and the full ranking time.

Run: .venv/bin/python bench/bench_engine.py          (prints the figures)
     .venv/bin/python bench/bench_engine.py --write  (also rewrites its section of
                                                      docs/BENCHMARKS.md)
Pinned to one CPU when the OS allows it, so the figures are per core. The headline is the
first sight of each deal: every round scores deals made for it, and the script checks that the
engine keeps nothing of the deals it scored.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import math
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import benchdoc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring.rules import engine  # noqa: E402
from scoring.rules.engine import THRESHOLDS, score_deal  # noqa: E402
from scoring.rules.errors import ScoringError  # noqa: E402
from scoring.rules.ranking import Penalty, Play, compute_ranking  # noqa: E402

SECTION = "## Scoring engine"
DOC = ROOT / "docs" / "BENCHMARKS.md"


def pin_to_one_core() -> str:
    """Run on a single CPU so the rate is per core; say whether it worked."""
    if hasattr(os, "sched_setaffinity"):
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    return "not pinned (no sched_setaffinity)"


def random_deals(
    count: int, rnd: random.Random, *, text_points: bool = False, four_only: bool = False
) -> list[dict[str, Any]]:
    """Valid deals like a tournament's: mostly plain, some half points, poignées, petit au bout."""
    deals = []
    for _ in range(count):
        players = 4 if four_only else rnd.choice([4, 4, 4, 5, 3])
        bouts = rnd.randint(0, 3)
        low, high = 9 * bouts, 182 - 9 * (3 - bouts)
        half = rnd.randint(low, high)
        if players == 4 and half % 2 and (four_only or rnd.random() < 0.9):
            half += 1 if half < high else -1  # at four players half points are rare
        points: Any = half // 2 if half % 2 == 0 else half / 2
        if text_points:
            points = str(points)
        won = half >= 2 * THRESHOLDS[bouts]
        deal: dict[str, Any] = {
            "players": players,
            "contract": rnd.choice(
                ["prise", "prise", "garde", "garde", "garde_sans", "garde_contre"]
            ),
            "bouts": bouts,
            "points": points,
        }
        if rnd.random() < 0.05:
            deal["petit_au_bout"] = rnd.choice(["attack", "defence"])
        if rnd.random() < 0.1:
            deal["poignees"] = [rnd.choice(["simple", "double", "triple"])]
        if rnd.random() < 0.01:
            deal["chelem"] = "unannounced_made" if won else "announced_failed"
        if players == 5 and rnd.random() < 0.1:
            deal["called_self"] = True
        try:
            score_deal(**deal)
        except ScoringError:  # a petit au bout or chelem the bouts and points contradict
            deal.pop("petit_au_bout", None)
            deal.pop("chelem", None)
        deals.append(deal)
    return deals


_COEFFICIENT = {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}
_THRESHOLD = (56, 51, 41, 36)
_POIGNEE = {"simple": 20, "double": 30, "triple": 40}
_CHELEM = {"announced_made": 400, "unannounced_made": 200, "announced_failed": -200}


def reference_score(
    players: int,
    contract: str,
    bouts: int,
    points: Any,
    petit_au_bout: str | None = None,
    poignees: Any = (),
    chelem: str | None = None,
    called_self: bool = False,
) -> tuple[int, int | None, int]:
    """The baseline: a plain scorer written straight from the rules (RULES §5), no
    validation, no tables: (taker, partner, defender). Points are half points at most, so a
    float holds them exactly."""
    coefficient = _COEFFICIENT[contract]
    gap = float(points) - _THRESHOLD[bouts]
    won = gap >= 0
    base = (25 + math.ceil(abs(gap))) * coefficient
    unit = base if won else -base
    if petit_au_bout == "attack":
        unit += 10 * coefficient
    elif petit_au_bout == "defence":
        unit -= 10 * coefficient
    bonus = sum(_POIGNEE[size] for size in poignees)
    unit += bonus if won else -bonus
    if chelem == "defence":
        unit -= 200
    elif chelem:
        unit += _CHELEM[chelem]
    if players == 5 and not called_self:
        return 2 * unit, unit, -unit
    return (players - 1) * unit, None, -unit


Clock = Callable[[], float]


def best_of(repeats: int, run: Callable[[], object], clock: Clock = time.perf_counter) -> float:
    """Shortest time of several runs (the least disturbed one)."""
    times = []
    for _ in range(repeats):
        start = clock()
        run()
        times.append(clock() - start)
    return min(times)


Call = Callable[[Callable[..., Any], list[Any]], None]


def by_keywords(scorer: Callable[..., Any], deals: list[Any]) -> None:
    for deal in deals:
        scorer(**deal)


def by_position(scorer: Callable[..., Any], deals: list[Any]) -> None:
    for deal in deals:
        scorer(*deal)


def positional(deals: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The deals with every argument by position, as the result service passes them."""
    defaults = {"petit_au_bout": None, "poignees": (), "chelem": None, "called_self": False}
    names = ("players", "contract", "bouts", "points", *defaults)
    return [tuple(deal.get(name, defaults.get(name)) for name in names) for deal in deals]


def as_the_service(deals: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The deals exactly as the result service passes them (tournaments/services/results.py):
    by position, the points as the Decimal of the result's form or row, the poignées a tuple."""
    return [
        (n, contract, bouts, Decimal(str(points)), petit, tuple(poignees), chelem, alone)
        for n, contract, bouts, points, petit, poignees, chelem, alone in positional(deals)
    ]


class Row(NamedTuple):
    """One line of the table: how a round's deals are made, passed and scored."""

    make: Callable[[int], list[Any]]
    call: Call = by_keywords
    scorer: Callable[..., Any] = score_deal


def compare(rows: dict[str, Row], rounds: int) -> dict[str, tuple[float, float]]:
    """Deals per second of the engine (or the row's scorer) and of the reference, by row.

    In each round every row makes its own deals (``make(round)``, not timed), which both
    scorers score once, in turn (the order alternating), so that both see the same deals, for
    the first time, under the same load; the rows take turns within a round, so that a burst
    of load on the shared machine falls on all of them; the best round of each. Timed in CPU
    time of this thread: time the machine gives to other processes counts against neither."""
    rates: dict[tuple[str, int], list[float]] = {}
    for number in range(rounds):
        for name, row in rows.items():
            deals = row.make(number)
            pair = [(row.scorer, 0), (reference_score, 1)]
            for scorer, side in pair if number % 2 == 0 else pair[::-1]:
                start = time.thread_time()
                row.call(scorer, deals)
                elapsed = time.thread_time() - start
                rates.setdefault((name, side), []).append(len(deals) / elapsed)
    return {name: (max(rates[name, 0]), max(rates[name, 1])) for name in rows}


def call_alone(
    players: Any,
    contract: Any,
    bouts: Any,
    points: Any,
    petit_au_bout: Any = None,
    poignees: Any = (),
    chelem: Any = None,
    called_self: Any = False,
) -> None:
    """A scorer that does nothing: what the call alone costs, in both scorers' figures."""


def table_read(
    players: Any,
    contract: Any,
    bouts: Any,
    points: Any,
    petit_au_bout: Any = None,
    poignees: Any = (),
    chelem: Any = None,
    called_self: Any = False,
) -> Any:
    """The engine's table of plain deals read with no check at all: what any scorer built on
    it could reach at best, on plain deals."""
    table = engine._PLAIN_ALONE if called_self else engine._PLAIN
    return table[players][contract][bouts][engine._HALVES[points]]


def engine_tables() -> dict[str, int]:
    """The size of every table the engine module holds, to show it keeps none of the deals."""
    return {
        name: len(value)
        for name, value in vars(engine).items()
        if isinstance(value, dict | list | set)
    }


def check_reference(deals: list[dict[str, Any]]) -> None:
    """The baseline is a real scorer: it agrees with the engine on every deal, however the
    deal is passed."""
    for deal in deals:
        score = score_deal(**deal)
        assert reference_score(**deal) == (score.taker, score.partner, score.defender), deal
    for call in as_the_service(deals):
        score = score_deal(*call)
        assert reference_score(*call) == (score.taker, score.partner, score.defender), call


def bench_invalid(count: int, repeats: int = 3) -> float:
    bad = [
        {"players": 4, "contract": "garde", "bouts": 2, "points": 87},
        {"players": 4, "contract": "gard", "bouts": 2, "points": 50},
        {"players": 4, "contract": "garde", "bouts": 2, "points": 40.3},
        {"players": 3, "contract": "garde", "bouts": 2, "points": 50, "called_self": True},
    ] * (count // 4)

    def run() -> None:
        for deal in bad:
            with contextlib.suppress(ScoringError):
                score_deal(**deal)

    return len(bad) / best_of(repeats, run, time.thread_time)


def tournament_plays(players: int, donnes: int, rnd: random.Random) -> list[Play]:
    """Tables of four keep their positions; every table plays every donne (groups of n/4)."""
    tables = players // 4
    plays = []
    for donne in range(donnes):
        for table in range(tables):
            seats = score_deal(**random_deals(1, rnd, four_only=True)[0]).seat_scores()
            for seat, position in enumerate("NESW"):
                plays.append(Play(table * 4 + seat, donne, position, table, seats[seat]))
    rnd.shuffle(plays)
    return plays


def bench_ranking(plays: list[Play], method: str, repeats: int = 5) -> float:
    penalties = [Penalty(7, 100), Penalty(42, 0)]
    return best_of(
        repeats,
        lambda: compute_ranking(
            plays, method=method, annulled=[(0, 3)], sit_outs=(), penalties=penalties
        ),
    )


def write_section(text: str) -> None:
    """Replace this benchmark's section of docs/BENCHMARKS.md, leaving the others alone."""
    benchdoc.write_section(SECTION, text)


def _measure(args: argparse.Namespace) -> dict[str, Any]:
    """Every figure of the report: the scoring rates of each row against the reference,
    the invalid entries' rate and the ranking's times."""
    pinned = pin_to_one_core()
    rnd = random.Random(2026)
    check_reference(random_deals(20_000, rnd))
    tables_before = engine_tables()

    def fresh(number: int, *, text_points: bool = False) -> list[dict[str, Any]]:
        """Deals made for one round: new dicts and draws that neither scorer has seen."""
        return random_deals(args.deals, random.Random(number), text_points=text_points)

    def four(number: int) -> list[dict[str, Any]]:
        """Deals of a table of four, the only size of a duplicate tournament's tables."""
        return random_deals(args.deals, random.Random(number), four_only=True)

    def kind(announced: bool) -> Callable[[int], list[dict[str, Any]]]:
        plain = {"players", "contract", "bouts", "points", "called_self"}
        return lambda number: [d for d in fresh(number) if (d.keys() <= plain) != announced]

    one = [{"players": 4, "contract": "garde", "bouts": 2, "points": 50}] * args.deals
    # Each row its own fresh deals (seeds 1000+, 2000+, ...): a first sight in every row.
    rows = {
        "mixed": Row(lambda n: fresh(1000 + n)),
        "plain": Row(lambda n: kind(False)(2000 + n)),
        "announced": Row(lambda n: kind(True)(3000 + n)),
        "read": Row(lambda n: kind(False)(6000 + n), scorer=table_read),
        "position": Row(lambda n: positional(fresh(4000 + n)), by_position),
        "service": Row(lambda n: as_the_service(four(8000 + n)), by_position),
        "text": Row(lambda n: fresh(5000 + n, text_points=True)),
        "one": Row(lambda n: one),
        "call": Row(lambda n: fresh(7000 + n), scorer=call_alone),
    }
    rates = compare(rows, args.rounds)
    share = 1 - len(kind(False)(1000)) / args.deals
    rate_bad = bench_invalid(args.deals // 5)
    assert engine_tables() == tables_before, "the engine kept something of the deals it scored"

    plays = tournament_plays(1000, 24, rnd)
    ranking_times = {m: bench_ranking(plays, m) for m in ("average", "pairwise", "matchpoints")}

    return {
        "pinned": pinned,
        "rates": rates,
        "share": share,
        "rate_bad": rate_bad,
        "plays": len(plays),
        "ranking_times": ranking_times,
    }


def _scoring_lines(args: argparse.Namespace, figures: dict[str, Any]) -> list[str]:
    """The report's heading and its table of the single-deal scoring."""
    rates, rounds, share = figures["rates"], args.rounds, figures["share"]
    rate_mixed, ref_mixed = rates["mixed"]
    rate_plain, ref_plain = rates["plain"]
    rate_ann, ref_ann = rates["announced"]
    rate_read, ref_read = rates["read"]
    rate_pos, ref_pos = rates["position"]
    rate_service, ref_service = rates["service"]
    rate_text, ref_text = rates["text"]
    rate_one, ref_one = rates["one"]
    rate_call, ref_call = rates["call"]
    rate_bad = figures["rate_bad"]
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    cores = os.cpu_count()
    machine = (
        f"{cores} cores ({platform.machine()}), Python {platform.python_version()}, "
        f"{platform.system()}; process {figures['pinned']}"
    )
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today().isoformat()} with `.venv/bin/python bench/bench_engine.py"
        " --write`.",
        f"Machine: {machine}; load average {load} during the run. The machine was shared with "
        "other work: scoring is timed in CPU time of the process (time given to other "
        "processes is not counted), but their use of the caches still slows both scorers; "
        "rates move with the load, and the ratios with it, by a tenth or two.",
        "",
        "Single-deal scoring, `scoring.rules.engine.score_deal` (with its validation), against a "
        "plain reference scorer written straight from the rules (no validation, no tables; "
        "checked to agree on 20,000 deals, passed either way) in the same run. Target: at least 2× on the first "
        f"sight of each deal, as the software calls the engine. {rounds} rounds; in each, every row makes its own "
        f"{args.deals:,} random valid deals (new dicts, new draws), which the engine and the "
        "reference each score once, in turn, the order alternating (the rows take turns "
        "within a round, so a burst of load falls on all of them); the best round of each. "
        "The engine keeps nothing of the deals it scores (the script checks that none of its "
        "tables grows), so the first sight of a deal is also every later one.",
        "",
        "| input | ratio to the reference | deals/s | reference deals/s |",
        "|---|---|---|---|",
        f"| **as the result service calls it** (tables of four; every argument by position, "
        f"the points a Decimal, the poignées a tuple) | **{rate_service / ref_service:.2f}×** "
        f"| {rate_service:,.0f} | {ref_service:,.0f} |",
        f"| **realistic mix** (3 to 5 players; points as int/float; keyword arguments, "
        f"`scorer(**deal)`) | **{rate_mixed / ref_mixed:.2f}×** | {rate_mixed:,.0f} "
        f"| {ref_mixed:,.0f} |",
        f"| its plain deals (no petit au bout, poignée nor chelem: {1 - share:.0%}) "
        f"| {rate_plain / ref_plain:.2f}× | {rate_plain:,.0f} | {ref_plain:,.0f} |",
        f"| its deals with a petit au bout, poignée or chelem ({share:.0%}) "
        f"| {rate_ann / ref_ann:.2f}× | {rate_ann:,.0f} | {ref_ann:,.0f} |",
        f"| its plain deals, the engine's table read with no check at all (a ceiling) "
        f"| {rate_read / ref_read:.2f}× | {rate_read:,.0f} | {ref_read:,.0f} |",
        f"| realistic mix, every argument by position (points as int/float) "
        f"| {rate_pos / ref_pos:.2f}× | {rate_pos:,.0f} | {ref_pos:,.0f} |",
        f'| realistic mix, points as text ("40.5") | {rate_text / ref_text:.2f}× '
        f"| {rate_text:,.0f} | {ref_text:,.0f} |",
        f"| one plain deal repeated (garde, 2 bouts, 50; not a first sight) | {rate_one / ref_one:.2f}× "
        f"| {rate_one:,.0f} | {ref_one:,.0f} |",
        f"| the call alone: a function of the same signature that does nothing "
        f"| {rate_call / ref_call:.2f}× | {rate_call:,.0f} | {ref_call:,.0f} |",
        f"| invalid entries (raise a ScoringError; best of 3) | | {rate_bad:,.0f} | |",
        "",
    ]
    return lines


def _closing_lines(args: argparse.Namespace, figures: dict[str, Any]) -> list[str]:
    """The report's summary of the scoring, the ranking's times and how it is done."""
    rates, share = figures["rates"], figures["share"]
    rate_mixed, ref_mixed = rates["mixed"]
    rate_plain, ref_plain = rates["plain"]
    rate_ann, ref_ann = rates["announced"]
    rate_service, ref_service = rates["service"]
    rate_call, ref_call = rates["call"]
    plays, ranking_times = figures["plays"], figures["ranking_times"]
    lines = [
        f"First sight of each deal, as the software scores it (the result service, the "
        f"engine's one caller): **{rate_service / ref_service:.2f}×** the reference; target "
        f"2×: {'met' if rate_service >= 2 * ref_service else 'not met'}. The realistic mix "
        f"of every table size with keyword arguments: **{rate_mixed / ref_mixed:.2f}×** "
        f"({'at least' if rate_mixed >= 2 * ref_mixed else 'under'} 2×). Plain deals "
        f"({1 - share:.0%} of the mix) come out of the table at {rate_plain / ref_plain:.2f}×; "
        f"deals with announcements (most of them out of the tables too; a chelem's is built) at "
        f"{rate_ann / ref_ann:.2f}×. The keyword call, the same for both scorers, takes "
        f"{ref_call / rate_call:.0%} of the reference's time per deal, and even reading the "
        "table with no check at all reaches only the ceiling row above; the same plain deal "
        "scored again and again (the repeated row) shows what the rest costs when the deal is "
        "in the processor's caches, which a random deal among 9,984 seldom is.",
        "",
        "Tournament ranking, `scoring.rules.ranking.compute_ranking`, 1,000 players × 24 donnes "
        f"({plays:,} plays, 96 groups of 250, one annulled table, two penalties; "
        "target well under 1 s):",
        "",
        "| method | seconds |",
        "|---|---|",
        *[f"| {m} | {t:.3f} |" for m, t in ranking_times.items()],
        "",
        "How: every plain deal (9,984 of them: players, contract, bouts, points) is scored "
        "once, at import, into nested tables whose last level is a tuple indexed by the half "
        "points, so a plain deal costs a few lookups in small tables and returns a shared, "
        "immutable DealScore; so is every deal with a petit au bout, one poignée or both and "
        "no chelem (about 90,000 more, some 25 MB per process, a third of a second at "
        "import), since building a DealScore costs more than finding it, even cold in memory; "
        "for the other announcements (a chelem, several poignées) the chelem or petit au bout "
        "is checked against a table of the half points at which it is possible, poignées "
        "against a table of every hand, and their parts are added to the plain deal's; "
        "points are whole half points (exact, no Fraction arithmetic on the hot path); "
        "anything else, and every invalid entry, goes through the thorough validation, whose "
        "checks and builder also fill the tables (the tests compare every entry of them). "
        "The ranking groups plays by "
        "(donne, position) in dicts and compares each group once (matchpoints by sorting and "
        "bisection, not pair by pair).",
        "",
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    figures = _measure(args)
    report = "\n".join([*_scoring_lines(args, figures), *_closing_lines(args, figures)])
    print(report)
    if args.write:
        write_section(report)
        print(f"written to {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
