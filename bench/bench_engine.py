"""Benchmark of the pure scoring engine (issue 3): deals scored per second, full ranking time.

Run: .venv/bin/python bench/bench_engine.py          (prints the figures)
     .venv/bin/python bench/bench_engine.py --write  (also rewrites its section of
                                                      docs/BENCHMARKS.md)
Pinned to one CPU when the OS allows it, so the figures are per core.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import platform
import random
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scoring.engine import THRESHOLDS, score_deal  # noqa: E402
from scoring.errors import ScoringError  # noqa: E402
from scoring.ranking import Penalty, Play, compute_ranking  # noqa: E402

SECTION = "## Scoring engine (issue 3)"
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
        deals.append(deal)
    return deals


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """Shortest wall time of several runs (the least disturbed one)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_deals(deals: list[dict[str, Any]], repeats: int = 5) -> float:
    def run() -> None:
        for deal in deals:
            score_deal(**deal)

    return len(deals) / best_of(repeats, run)


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

    return len(bad) / best_of(repeats, run)


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
    DOC.parent.mkdir(parents=True, exist_ok=True)
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
    parser.add_argument("--deals", type=int, default=100_000)
    args = parser.parse_args()

    pinned = pin_to_one_core()
    rnd = random.Random(2026)
    deals = random_deals(args.deals, rnd)
    text_deals = random_deals(args.deals, rnd, text_points=True)
    plain = [{"players": 4, "contract": "garde", "bouts": 2, "points": 50}] * args.deals

    rate_mixed = bench_deals(deals)
    rate_plain = bench_deals(plain)
    rate_text = bench_deals(text_deals)
    rate_bad = bench_invalid(args.deals // 5)

    plays = tournament_plays(1000, 24, rnd)
    ranking_times = {m: bench_ranking(plays, m) for m in ("average", "pairwise", "matchpoints")}

    cores = os.cpu_count()
    machine = (
        f"{cores} cores ({platform.machine()}), Python {platform.python_version()}, "
        f"{platform.system()}; process {pinned}"
    )
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today().isoformat()} with `.venv/bin/python bench/bench_engine.py"
        " --write`.",
        f"Machine: {machine}. Best of 5 runs (3 for invalid input); the machine was shared "
        "with other work, so these are the least disturbed runs.",
        "",
        "Single-deal scoring, `scoring.engine.score_deal` (target ≥ 200,000 deals/s on one core):",
        "",
        "| input | deals/s |",
        "|---|---|",
        f"| realistic mix ({args.deals:,} random valid deals, points as int/float) "
        f"| {rate_mixed:,.0f} |",
        f"| one plain deal repeated (garde, 2 bouts, 50) | {rate_plain:,.0f} |",
        f'| realistic mix, points as text ("40.5") | {rate_text:,.0f} |',
        f"| invalid entries (raise a ScoringError) | {rate_bad:,.0f} |",
        "",
        "Tournament ranking, `scoring.ranking.compute_ranking`, 1,000 players × 24 donnes "
        f"({len(plays):,} plays, 96 groups of 250, one annulled table, two penalties; "
        "target well under 1 s):",
        "",
        "| method | seconds |",
        "|---|---|",
        *[f"| {m} | {t:.3f} |" for m, t in ranking_times.items()],
        "",
        "How: valid (contract, bouts, half points) combinations are precomputed into one table, "
        "so a valid deal costs a few dict lookups and one frozen-dataclass construction; points "
        "are handled as whole half points (exact, no Fraction arithmetic on the hot path); "
        "invalid input falls through to the thorough validation. The ranking groups plays by "
        "(donne, position) in dicts and compares each group once (matchpoints by sorting and "
        "bisection, not pair by pair).",
        "",
    ]
    report = "\n".join(lines)
    print(report)
    if args.write:
        write_section(report)
        print(f"written to {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
