"""Duplicate comparison of one group: same donne, same position, one score per table (RULES §6).

Pure and exact: differentials are Fractions, rounding is left to the display.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from numbers import Rational

from scoring.rules.errors import InvalidMethod, InvalidScore, display_value

__all__ = [
    "Method",
    "differentials",
    "matchpoint_percentage",
    "matchpoints",
    "parse_method",
    "to_exact",
]


class Method(StrEnum):
    """How a result is compared with the others of its group."""

    AVERAGE = "average"
    PAIRWISE = "pairwise"
    MATCHPOINTS = "matchpoints"


_METHODS: dict[str, Method] = {m.value: m for m in Method}


def parse_method(method: object) -> Method:
    """Return the Method for a plain string or a Method; raise InvalidMethod otherwise."""
    try:
        return _METHODS[method]  # type: ignore[index]
    except (KeyError, TypeError):
        raise InvalidMethod("method_unknown", value=display_value(method)) from None


def to_exact(value: object) -> int | Fraction:
    """Convert a score to an exact number (int kept as int for speed); reject anything inexact."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or value is None:
        raise InvalidScore("score_not_a_number", value=display_value(value))
    if isinstance(value, int):
        return int(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, Rational):
        return Fraction(value.numerator, value.denominator)
    if isinstance(value, (float, Decimal)):
        try:
            return Fraction(value)
        except (ValueError, OverflowError):
            pass
    if isinstance(value, str):
        try:
            return Fraction(value.strip())
        except ValueError:
            pass
    raise InvalidScore("score_not_a_number", value=display_value(value))


def matchpoints(scores: list[int | Fraction]) -> list[int]:
    """Matchpoints of each score: 2 per other result beaten, 1 per other result equalled."""
    ordered = sorted(scores)
    out = []
    for s in scores:
        below = bisect_left(ordered, s)
        ties = bisect_right(ordered, s, below) - below - 1
        out.append(2 * below + ties)
    return out


def differentials(
    scores: Iterable[int | Fraction | float | Decimal | str],
    method: Method | str = Method.AVERAGE,
) -> list[Fraction]:
    """Differentials of a group's scores, in the same order (exact Fractions).

    average: score - mean(G); pairwise: mean over the others of (score - other);
    matchpoints: 2 per other result beaten + 1 per tie. A group of one gives [0].
    """
    m = parse_method(method)
    values = [to_exact(s) for s in scores]
    n = len(values)
    if n == 0:
        return []
    if n == 1:
        return [Fraction(0)]
    if m is Method.MATCHPOINTS:
        return [Fraction(mp) for mp in matchpoints(values)]
    total = sum(values)
    # average: (n*s - total)/n ; pairwise: sum over others of (s - o) = n*s - total, over n - 1.
    denominator = n if m is Method.AVERAGE else n - 1
    return [Fraction(n * s - total) / denominator for s in values]


def differentials_by_score(
    counts: Mapping[int | Fraction, int], method: Method | str = Method.AVERAGE
) -> dict[int | Fraction, Fraction]:
    """The differential of each distinct score of a group given as {score: how many times},
    exactly what `differentials` gives each occurrence of that score in the group spelled
    out (tied to it by a property test); linear in the distinct scores, for the frequency
    sheets of a field where thousands of tables share a few dozen scores."""
    m = parse_method(method)
    n = sum(counts.values())
    if n == 0:
        return {}
    if n == 1:
        return {score: Fraction(0) for score in counts}
    if m is Method.MATCHPOINTS:
        out: dict[int | Fraction, Fraction] = {}
        below = 0
        for score in sorted(counts):
            out[score] = Fraction(2 * below + counts[score] - 1)
            below += counts[score]
        return out
    total = sum(score * count for score, count in counts.items())
    denominator = n if m is Method.AVERAGE else n - 1
    return {score: Fraction(n * score - total) / denominator for score in counts}


def matchpoint_percentage(mp: int | Fraction, group_size: int) -> Fraction | None:
    """Matchpoints as a fraction of the maximum 2*(n-1) (0 to 1); None for a group of one."""
    if group_size < 2:
        return None
    return Fraction(mp) / (2 * (group_size - 1))
