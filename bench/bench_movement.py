"""Benchmark: movement generation, validation and donne dealing (pure code, no database).

Each figure carries a baseline measured in the same run, on the same inputs, and the ratio:
- generating a movement against a naive seating (players shuffled and cut into tables each
  round, every constraint of RULES §6–§7 ignored): what meeting the rules costs;
- validating against one plain pass over the seats (counting each player's seats);
- dealing (HMAC-SHA256 stream, unbiased Fisher–Yates, petit sec redeal, sorted hands) against
  Python's own `random.shuffle` of the 78 cards cut into hands (not verifiable).
The sit-out sweep (RULES §7) is a property check over 1,536 movements, reported as counts.

Run: .venv/bin/python bench/bench_movement.py [--write] [--no-sweep]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import benchdoc

from scoring.rules import movement
from scoring.rules.cards import DECK
from scoring.rules.dealing import generate_donnes
from scoring.rules.movement import (
    generate_movement,
    least_sit_out_spread,
    sit_out_spread,
    validate,
)
from scoring.rules.movement_algebra import ring, stage_design

SECTION = "## Movements and dealing"
CASES = [(24, 6), (25, 8), (121, 8), (200, 8), (400, 10)]


def cold() -> None:
    """Forget every cached design, so each generation is timed from scratch."""
    ring.cache_clear()
    stage_design.cache_clear()
    movement._generate.cache_clear()


def best(fn: Callable[[], object], repeat: int) -> float:
    """Best wall time of `repeat` calls, caches cold before each."""
    times = []
    for _ in range(repeat):
        cold()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def naive_seating(players: int, rounds: int) -> list[list[list[int]]]:
    """The baseline: each round the players shuffled and cut into tables of four (the last
    ones take the remainder); no rule about meeting, étuis or sitting out."""
    rng = random.Random(players * 1000 + rounds)
    order = list(range(1, players + 1))
    plan = []
    for _ in range(rounds):
        rng.shuffle(order)
        plan.append([order[i : i + 4] for i in range(0, players, 4)])
    return plan


def plain_seat_count(m: movement.Movement) -> Counter[int]:
    """The validation baseline: one pass over every seat of every round."""
    seen: Counter[int] = Counter()
    for rnd in m.rounds:
        for sitting in rnd.sittings:
            for _position, player in sitting.seats:
                seen[player] += 1
    return seen


def shuffled_deals(count: int) -> list[tuple[tuple[str, ...], ...]]:
    """The dealing baseline: Mersenne Twister shuffles cut into four hands and a chien."""
    rng = random.Random(7)
    out = []
    pack = list(DECK)
    for _ in range(count):
        rng.shuffle(pack)
        out.append(tuple(tuple(sorted(pack[18 * k : 18 * k + 18])) for k in range(4)))
    return out


def speed_rows(repeat: int) -> list[tuple[str, float, float]]:
    """(what, seconds, baseline seconds), each pair timed in turn."""
    rows = []
    for n, rounds in CASES:
        ours = best(lambda n=n, rounds=rounds: generate_movement(n, rounds), repeat)
        base = best(lambda n=n, rounds=rounds: naive_seating(n, rounds), repeat)
        rows.append((f"`generate_movement({n}, {rounds})`, caches cold", ours, base))
    m = generate_movement(400, 10)
    rows.append(
        (
            "`validate`, 400 players, 10 rounds",
            best(lambda: validate(m), repeat),
            best(lambda: plain_seat_count(m), repeat),
        )
    )
    seed = bytes(range(32))
    rows.append(
        (
            "`generate_donnes`: 1,000 donnes",
            best(lambda: generate_donnes(seed, "bench", 1000), repeat),
            best(lambda: shuffled_deals(1000), repeat),
        )
    )
    return rows


def spread_sweep() -> tuple[dict[int, int], list[tuple[int, int, int]], int, float]:
    """RULES §7 over every n 8..200 (11 excepted) × 1..8 rounds: the sit-out spread of each
    movement with tables of five; also checks each validates and declares its spread."""
    spreads: Counter[tuple[bool, int]] = Counter()
    worst: list[tuple[int, int, int]] = []
    start = time.perf_counter()
    for n in range(8, 201):
        if n == 11:
            continue
        for rounds in range(1, 9):
            m = generate_movement(n, rounds)
            spread = sit_out_spread(m)
            assert m.sit_out_allowance == max(1, spread) and validate(m) == [], (n, rounds)
            spreads[(bool(m.five_tables), spread)] += 1
            if spread > 1:
                worst.append((spread, n, rounds))
    five = {s: k for (f, s), k in spreads.items() if f}
    return five, sorted(worst, reverse=True), sum(spreads.values()), time.perf_counter() - start


def machine() -> str:
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"{os.cpu_count()} cores ({platform.machine()}), Python {platform.python_version()}, "
        f"{platform.system()}; load average {load} at the end of the run"
    )


def report(rows: list[tuple[str, float, float]], sweep: tuple | None, repeat: int) -> str:
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today().isoformat()} with `.venv/bin/python bench/bench_movement.py "
        "--write`.",
        f"Machine: {machine()}. Best of {repeat} runs, each figure and its baseline timed in "
        "turn; pure code, no database.",
        "",
        "Baselines: a naive seating (players shuffled and cut into tables each round, no rule "
        "kept) for generating; one pass over the seats for validating; `random.shuffle` of the "
        "78 cards cut into hands (not verifiable) for dealing.",
        "",
        "| what | ratio to the baseline | seconds | baseline seconds |",
        "|---|---|---|---|",
    ]
    for what, ours, base in rows:
        lines.append(f"| {what} | **{ours / base:.0f}×** | {ours:.4f} | {base:.4f} |")
    slowest = max(ours for what, ours, _base in rows if "generate_movement" in what)
    lines += [
        "",
        f"The slowest generation here takes {slowest:.1f} s and dealing 1,000 verifiable donnes "
        f"{rows[-1][1]:.2f} s, once per tournament (generation is cached per arguments).",
    ]
    if sweep is not None:
        five, worst, total, seconds = sweep
        with_five = sum(five.values())
        within = five.get(0, 0) + five.get(1, 0)
        lines += [
            "",
            "### Sitting out shared (RULES §7)",
            "",
            f"Every n from 8 to 200 (11 excepted) × 1 to 8 rounds: {total:,} movements, "
            f"{with_five:,} of them with tables of five, generated and validated in "
            f"{seconds:.0f} s.",
            "",
            "| sit-out spread | movements with tables of five |",
            "|---|---|",
        ]
        lines.append(f"| 0 or 1 (shared as RULES §7 asks) | {within:,} |")
        for spread in sorted(s for s in five if s > 1):
            lines.append(f"| {spread} (declared) | {five[spread]:,} |")
        lines += [
            "",
            f"{within:,} of {with_five:,} share within one donne; the others declare their "
            "spread (`sit_out_allowance`, checked by `validate` and stated on the seating "
            "plan). Above one (spread, players, rounds), with the least spread any movement "
            "reaches where an exhaustive search settles it (`least_sit_out_spread`): "
            + ", ".join(
                f"({s}, {n}, {r}): {proved_label(least_sit_out_spread(n, r))}"
                for s, n, r in worst[:8]
            )
            + ".",
        ]
    return "\n".join(lines) + "\n"


def proved_label(least: int | None) -> str:
    """How the sweep names a spread's standing: proved least, or not settled."""
    return "no proof" if least is None else f"least possible {least}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--no-sweep", action="store_true", help="skip the sit-out sweep")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = speed_rows(args.repeat)
    for what, ours, base in rows:
        print(f"{what:<52} {ours:9.4f} s  baseline {base:9.4f} s  ratio {ours / base:7.1f}×")
    sweep = None if args.no_sweep else spread_sweep()
    if sweep is not None:
        five, _worst, total, seconds = sweep
        print(f"sit-out sweep: {total} movements in {seconds:.0f} s; spreads {dict(five)}")
    text = report(rows, sweep, args.repeat)
    if args.write:
        if sweep is None:
            sys.exit("--write needs the sweep (the section reports it)")
        benchdoc.write_section(SECTION, text)
    else:
        print(text)


if __name__ == "__main__":
    main()
