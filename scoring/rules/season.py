"""A club's season ranking, pure: the lines of the players of the tournaments counted in a
season (each tournament's ranking rows, compared under one method) and their ranks.

A line adds up, over the counted tournaments a player has a row in: the totals, the number of
tournaments, the donnes played, the donnes compared and what their average is taken over (the
differential total; under match points the mean percentage times the donnes compared, so
that the average is per donne compared). Lines are ranked by total, highest first; equal
totals share a rank and the next rank skips (1, 1, 3).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

MATCHPOINTS = "matchpoints"


@dataclass(frozen=True)
class EventRow:
    """A player's row in one counted tournament's ranking."""

    player: int
    total: Fraction
    differential_total: Fraction
    donnes_played: int
    donnes_compared: int


@dataclass(frozen=True)
class SeasonRow:
    """A player's season line: `compared_sum / compared` is his average per donne compared."""

    player: int
    rank: int
    total: Fraction
    tournaments: int
    donnes: int
    compared_sum: Fraction
    compared: int


def shared_ranks(totals: Sequence[Fraction]) -> list[int]:
    """The ranks of totals given highest first: equal totals share a rank, the next one skips."""
    ranks: list[int] = []
    for index, total in enumerate(totals, start=1):
        ranks.append(ranks[-1] if index > 1 and total == totals[index - 2] else index)
    return ranks


def season_table(
    events: Iterable[Iterable[EventRow]],
    method: str,
    order: Callable[[int], Hashable] | None = None,
) -> list[SeasonRow]:
    """The season's lines from each counted tournament's rows (one iterable per tournament,
    in any order: the result does not depend on it), sorted by total, highest first, then by
    `order(player)` (the player's id when not given), with their shared ranks."""
    sums: dict[int, list[Any]] = {}
    for rows in events:
        for row in rows:
            line = sums.setdefault(row.player, [Fraction(0), 0, 0, Fraction(0), 0])
            line[0] += row.total
            line[1] += 1
            line[2] += row.donnes_played
            diff = row.differential_total
            line[3] += diff * row.donnes_compared if method == MATCHPOINTS else diff
            line[4] += row.donnes_compared
    key = order or (lambda player: player)
    players = sorted(sums, key=lambda player: (-sums[player][0], key(player)))
    ranks = shared_ranks([sums[player][0] for player in players])
    return [
        SeasonRow(player, rank, *sums[player]) for player, rank in zip(players, ranks, strict=True)
    ]
