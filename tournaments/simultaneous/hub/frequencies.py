"""A donne's frequency sheet across the whole field of a simultaneous event (RULES §6.3): how
often each contract was bid from each position and how often it was made, and for each
position every score with the number of tables that scored it and what that score is worth
against the field (differential, or match points in percent) — what bridge players call the
frequency sheet.

Pure (no Django, no database): the pages and the booklet pass the field's results of one donne,
read from the hub's stored results; nothing here ranks anybody.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from scoring.rules.duplicate import differentials_by_score, matchpoint_percentage
from scoring.rules.engine import THRESHOLDS

POSITIONS = ("N", "E", "S", "W")
CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
PLAYED = "played"
ANNULLED = "annulled"
ALL_PASSED = "all_passed"


class FieldResult(NamedTuple):
    """One table's result on the donne, anywhere in the field: `status` "played" or
    "annulled"; for a played one the contract, the taker's position, bouts and points (None
    when everybody passed) and each position's score."""

    status: str  # "played", "all_passed" or "annulled"
    contract: str
    taker: str
    bouts: int | None
    points: Fraction | None
    scores: Mapping[str, int]


@dataclass(frozen=True)
class ContractLine:
    """A contract bid from one position: how many tables, how many made it."""

    contract: str
    taker: str
    tables: int
    made: int

    @property
    def failed(self) -> int:
        return self.tables - self.made


@dataclass(frozen=True)
class ScoreLine:
    """A score at one position, the tables that scored it and its worth against the field
    (differential; `percentage` 0–100 under match points, None for a group of one)."""

    score: int
    tables: int
    differential: Fraction
    percentage: Fraction | None


@dataclass(frozen=True)
class FrequencySheet:
    """The whole field on one donne."""

    tables: int  # played (compared) results
    annulled: int
    passed: int  # played results where everybody passed
    contracts: list[ContractLine]
    scores: dict[str, list[ScoreLine]]  # by position, best score first
    method: str

    @property
    def is_matchpoints(self) -> bool:
        return self.method == "matchpoints"

    @property
    def positions(self) -> list[tuple[str, list[ScoreLine]]]:
        """(position, its score lines) in the order N, E, S, W."""
        return [(p, self.scores.get(p, [])) for p in POSITIONS]


def contract_made(result: FieldResult) -> bool:
    """The taker reached the points his bouts require (RULES §2: 56, 51, 41, 36)."""
    if result.bouts is None or result.points is None:
        return False
    return result.points >= THRESHOLDS[result.bouts]


def frequency_sheet(results: Iterable[FieldResult], method: str) -> FrequencySheet:
    """The frequency sheet of one donne from every table's result on it (any order). Each
    position's scores are compared as the overall ranking compares them (one group per
    position across the field, annulled tables left out), so a score's differential here is
    the one a player who scored it gets for this donne."""
    every = list(results)
    played = [r for r in every if r.status != ANNULLED]
    return _sheet(played, len(every) - len(played), method)


def _sheet(played: list[FieldResult], annulled: int, method: str) -> FrequencySheet:
    bids: Counter[tuple[str, str]] = Counter()
    made: Counter[tuple[str, str]] = Counter()
    passed = 0
    for r in played:
        if r.status == ALL_PASSED or not r.contract:
            passed += 1
            continue
        bids[(r.contract, r.taker)] += 1
        if contract_made(r):
            made[(r.contract, r.taker)] += 1
    order = {c: k for k, c in enumerate(CONTRACTS)}
    seat = {p: k for k, p in enumerate(POSITIONS)}
    contracts = [
        ContractLine(contract, taker, count, made[(contract, taker)])
        for (contract, taker), count in sorted(
            bids.items(), key=lambda item: (order.get(item[0][0], 9), seat.get(item[0][1], 9))
        )
    ]
    scores = {
        p: _score_lines([r.scores[p] for r in played if p in r.scores], method) for p in POSITIONS
    }
    return FrequencySheet(len(played), annulled, passed, contracts, scores, method)


def _score_lines(scores: list[int], method: str) -> list[ScoreLine]:
    """Each distinct score with its count and its value in the group of all of them."""
    if not scores:
        return []
    counts = Counter(scores)
    distinct = sorted(counts, reverse=True)
    values = differentials_by_score(counts, method)
    n = len(scores)
    lines = []
    for score in distinct:
        value = values[score]
        pct = None
        if method == "matchpoints":
            share = matchpoint_percentage(value, n)
            pct = share * 100 if share is not None else None
        lines.append(ScoreLine(score, counts[score], value, pct))
    return lines
