"""Benchmark: movement generation, validation and donne dealing (pure code, no database).

Run: .venv/bin/python bench/bench_movement.py
Prints seconds per call; record notable figures in docs/BENCHMARKS.md by hand.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from collections import Counter

from scoring import movement
from scoring.dealing import generate_donnes
from scoring.movement import generate_movement, opponent_stats, sit_out_spread, validate
from scoring.movement_algebra import ring, stage_design


def timed(label: str, fn, repeat: int = 3) -> None:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        ring.cache_clear()
        stage_design.cache_clear()
        movement._generate.cache_clear()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<58} {best:8.3f} s")


def sweep() -> None:
    for n in range(8, 201):
        if n != 11:
            for rounds in (2, 3, 4, 6):
                validate(generate_movement(n, rounds))


def spread_sweep() -> None:
    """RULES §7 over every n 8..200 (11 excepted) × 1..8 rounds: how many movements share
    sitting out within one donne, and the worst declared spread."""
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
    total = sum(five.values())
    within = five.get(0, 0) + five.get(1, 0)
    print(f"sit-out spread, movements with tables of five: {within} of {total} within one")
    print("  spread -> movements:", dict(sorted(five.items())))
    print("  worst (spread, n, rounds):", sorted(worst, reverse=True)[:8])
    print(f"  sweep of {sum(spreads.values())} movements: {time.perf_counter() - start:.1f} s")


def main() -> None:
    for n, rounds in [(8, 6), (24, 6), (25, 8), (121, 8), (200, 8), (241, 6), (400, 10)]:
        timed(
            f"generate_movement({n}, {rounds}), caches cold",
            lambda n=n, rounds=rounds: generate_movement(n, rounds),
        )
    m = generate_movement(400, 10)
    timed("validate (400 players, 10 rounds)", lambda: validate(m))
    timed("opponent_stats (400 players, 10 rounds)", lambda: opponent_stats(m))
    timed("generate + validate every n 8..200 × R in 2, 3, 4, 6", sweep, repeat=1)
    seed = bytes(range(32))
    timed("generate_donnes: 1,000 donnes", lambda: generate_donnes(seed, "bench", 1000))
    spread_sweep()


if __name__ == "__main__":
    main()
