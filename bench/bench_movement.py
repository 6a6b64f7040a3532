"""Benchmark: movement generation, validation and donne dealing (pure code, no database).

Run: .venv/bin/python bench/bench_movement.py
Prints seconds per call; record notable figures in docs/BENCHMARKS.md by hand.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scoring.dealing import generate_donnes
from scoring.movement import generate_movement, opponent_stats, validate
from scoring.movement_algebra import ring, stage_design


def timed(label: str, fn, repeat: int = 3) -> None:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        ring.cache_clear()
        stage_design.cache_clear()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<58} {best:8.3f} s")


def sweep() -> None:
    for n in range(8, 201):
        if n != 11:
            for rounds in (2, 3, 4, 6):
                validate(generate_movement(n, rounds))


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


if __name__ == "__main__":
    main()
