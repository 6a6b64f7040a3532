"""Results unlike the others on the same donne: what the arbiter should look at first.

In duplicate every table holds the same cards, so a result far from the others is usually an
entry mistake (a wrong taker, a swapped sign, a misread score) rather than play. The rule,
applied to the results of one donne (annulled ones left out):

1. **Opposite sign.** Among the results with the same contract and the same taker position,
   a result whose taker's score has the opposite sign (won where they lost, or the reverse)
   to a strict majority of the *other* results of that group is unusual. With two such
   results of opposite signs, both are (nobody can tell which one is wrong).
2. **Far from the others.** When at least ``MIN_OTHERS`` other results exist, a result is
   unusual if, for some position, its score differs from the median of the others' scores
   at that position by more than ``max(SPREAD × their median absolute deviation, MIN_GAP)``.

Pure: no Django. Scores are those of the four positions (N, E, S, W); all passed is 0 each.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import median

__all__ = [
    "FAR",
    "MIN_GAP",
    "MIN_OTHERS",
    "OPPOSITE",
    "SPREAD",
    "Line",
    "Unusual",
    "unusual_results",
]

POSITIONS = ("N", "E", "S", "W")
OPPOSITE = "opposite_sign"
FAR = "far_from_others"
MIN_OTHERS = 3
SPREAD = 4
MIN_GAP = 150


@dataclass(frozen=True)
class Line:
    """One table's result on the donne."""

    key: Hashable  # what the caller uses to find the result again
    contract: str  # "" when all passed
    taker: str  # "" when all passed
    scores: Mapping[str, int]


@dataclass(frozen=True)
class Unusual:
    key: Hashable
    reason: str  # OPPOSITE or FAR
    position: str  # the taker (OPPOSITE) or the position furthest from the others (FAR)
    others: Fraction  # OPPOSITE: how many others disagree; FAR: the others' median there


def _sign(value: int) -> int:
    return (value > 0) - (value < 0)


def _opposite(line: Line, lines: Sequence[Line]) -> Unusual | None:
    if not line.contract or not line.taker:
        return None
    mine = _sign(int(line.scores.get(line.taker, 0)))
    others = [
        o for o in lines if o is not line and o.contract == line.contract and o.taker == line.taker
    ]
    if not others or mine == 0:
        return None
    against = sum(1 for o in others if _sign(int(o.scores.get(o.taker, 0))) == -mine)
    if 2 * against > len(others):
        return Unusual(line.key, OPPOSITE, line.taker, Fraction(against))
    return None


def _far(line: Line, lines: Sequence[Line]) -> Unusual | None:
    others = [o for o in lines if o is not line]
    if len(others) < MIN_OTHERS:
        return None
    worst: tuple[Fraction, str, Fraction] | None = None
    for position in POSITIONS:
        values = [Fraction(int(o.scores.get(position, 0))) for o in others]
        middle = Fraction(median(values))
        spread = Fraction(median([abs(v - middle) for v in values]))
        gap = abs(Fraction(int(line.scores.get(position, 0))) - middle)
        if gap > max(SPREAD * spread, MIN_GAP) and (worst is None or gap > worst[0]):
            worst = (gap, position, middle)
    if worst is None:
        return None
    return Unusual(line.key, FAR, worst[1], worst[2])


def unusual_results(lines: Sequence[Line]) -> list[Unusual]:
    """The unusual results of one donne (each at most once, opposite sign first), in the
    order of ``lines``."""
    found: list[Unusual] = []
    for line in lines:
        hit = _opposite(line, lines) or _far(line, lines)
        if hit is not None:
            found.append(hit)
    return found
