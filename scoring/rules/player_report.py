"""A player's donne against the field (RULES.md §6), pure: what his event report shows.

For one donne the field at his position is the group G of RULES §6 (one score per table that
played the donne, annulled tables left out). This module says, exactly:

- `compare`: his match points in G (2 per other result beaten, 1 per tie), their share of
  the maximum 2·(|G| − 1), and his difference from the mean of G;
- `field_outcomes`: the results of G grouped by what happened (the same outcome and score),
  with how many tables, most frequent first;
- `spread`: the scores of G and how many tables made each, lowest first (the small chart);
- `best_third`: what the best third of G (the ⌈|G| / 3⌉ highest scores, ties at the cut
  included) did with those cards, and their mean score;
- `swings`: the donnes that gained and lost most against the field.

No Django, no app: the event report's selector (`scoring.rankings.player_report`) reads the
rows and calls these.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from scoring.rules.duplicate import matchpoint_percentage

__all__ = [
    "BestThird",
    "Comparison",
    "FieldOutcome",
    "best_third",
    "compare",
    "field_outcomes",
    "spread",
    "swings",
]

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


@dataclass(frozen=True)
class Comparison:
    """One result against its group: match points (of `top`), their share (None for a group
    of one: nothing to compare with) and the difference from the group's mean (0 alone)."""

    matchpoints: int
    top: int
    percentage: Fraction | None
    from_mean: Fraction
    tables: int


def compare(score: int | Fraction, field: Sequence[int | Fraction]) -> Comparison:
    """`score` against the group `field`, which holds it (one score per table, his among
    them). Raises ValueError when `score` is not in `field`."""
    if score not in field:
        raise ValueError("the player's score must be one of the field's")
    beaten = sum(1 for other in field if other < score)
    ties = sum(1 for other in field if other == score) - 1
    points = 2 * beaten + ties
    n = len(field)
    mean = Fraction(sum(field)) / n
    return Comparison(
        matchpoints=points,
        top=2 * (n - 1),
        percentage=matchpoint_percentage(points, n),
        from_mean=Fraction(score) - mean if n > 1 else Fraction(0),
        tables=n,
    )


@dataclass(frozen=True)
class FieldOutcome(Generic[K]):
    """An outcome of the field at one position: its key (what happened, as the caller names
    it), the score it gave at that position, and how many tables had it."""

    key: K
    score: int | Fraction
    tables: int


def field_outcomes(entries: Sequence[tuple[K, int | Fraction]]) -> list[FieldOutcome[K]]:
    """The (outcome, score) of each table grouped: most tables first, then the higher score,
    then the order of first appearance. The tables add up to the number of entries."""
    counts: Counter[tuple[K, int | Fraction]] = Counter(entries)
    first = {entry: i for i, entry in reversed(list(enumerate(entries)))}
    ordered = sorted(counts, key=lambda e: (-counts[e], -e[1], first[e]))
    return [FieldOutcome(key, score, counts[(key, score)]) for key, score in ordered]


def spread(scores: Sequence[int | Fraction]) -> list[tuple[int | Fraction, int]]:
    """Each distinct score of the group and how many tables made it, lowest first."""
    return sorted(Counter(scores).items())


@dataclass(frozen=True)
class BestThird(Generic[K]):
    """The best third of a group: its outcomes (as `field_outcomes`), how many tables, the
    lowest score in it and its mean score."""

    outcomes: list[FieldOutcome[K]]
    tables: int
    cut: int | Fraction
    mean: Fraction


def best_third(entries: Sequence[tuple[K, int | Fraction]]) -> BestThird[K] | None:
    """The ⌈n / 3⌉ best results of a group of n (every result scoring as much as the last of
    them is in too: a tie is never split). None for an empty group."""
    if not entries:
        return None
    ordered = sorted(entries, key=lambda e: e[1], reverse=True)
    size = -(-len(ordered) // 3)
    cut = ordered[size - 1][1]
    chosen = [e for e in ordered if e[1] >= cut]
    return BestThird(
        outcomes=field_outcomes(chosen),
        tables=len(chosen),
        cut=cut,
        mean=Fraction(sum(score for _key, score in chosen)) / len(chosen),
    )


def swings(
    lines: Sequence[tuple[T, Fraction | int]], count: int = 3
) -> tuple[list[tuple[T, Fraction | int]], list[tuple[T, Fraction | int]]]:
    """The `count` lines that gained most (positive values, highest first) and lost most
    (negative values, lowest first); equal values keep the lines' order. A line of 0 is in
    neither."""
    gained = sorted((line for line in lines if line[1] > 0), key=lambda line: -line[1])
    lost = sorted((line for line in lines if line[1] < 0), key=lambda line: line[1])
    return gained[:count], lost[:count]
