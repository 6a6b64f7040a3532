"""Tournament ranking from every player's results (RULES §6, §7, §8). Pure Python, no Django.

Results are grouped by (donne, position); each group is compared once, with exact Fractions.
Annulled tables and sit-outs give a differential of 0; penalties come off the penalised
player's total only.

Speed (a recomputation ranks every play of a championship again): plays and score-card lines
are named tuples (several times cheaper to build than frozen dataclasses), and a player's total is
summed as whole numerators per denominator, turned into one Fraction at the end, instead of
adding thousands of Fractions (each addition normalises with a gcd).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import cached_property
from typing import Any, NamedTuple

from scoring.duplicate import Method, matchpoints, parse_method, to_exact
from scoring.errors import InvalidPenalty, InvalidPlays, InvalidScore, ScoringError, display_value

__all__ = [
    "DonneLine",
    "DonneStatus",
    "Method",
    "Penalty",
    "Play",
    "Ranking",
    "RankingRow",
    "compute_ranking",
]

_ZERO = Fraction(0)
_FREE = object()  # sentinel: nobody in that seat yet (None may be a player id)


class Play(NamedTuple):
    """One player's result on one donne, at one position of one table."""

    player: Hashable
    donne: Hashable
    position: str
    table: Hashable
    score: int | Fraction


@dataclass(frozen=True, slots=True)
class Penalty:
    """Arbiter's penalty: points off one player's total (optionally tied to a donne, for show)."""

    player: Hashable
    points: int
    donne: Hashable | None = None


class DonneStatus(StrEnum):
    """What happened to a player on a donne."""

    PLAYED = "played"
    ANNULLED = "annulled"
    SAT_OUT = "sat_out"


class DonneLine(NamedTuple):
    """A player's line on one donne of his score card.

    ``differential`` is the method's value (matchpoints: the count of matchpoints);
    ``percentage`` is, for matchpoints only, the matchpoints in percent (0-100) of the maximum,
    None otherwise or when there was nothing to compare with. Annulled and sat-out donnes have
    no score and a differential of 0.
    """

    position: str | None
    table: Hashable | None
    score: int | Fraction | None
    differential: Fraction
    percentage: Fraction | None
    status: DonneStatus = DonneStatus.PLAYED
    group_size: int = 0


@dataclass(frozen=True, slots=True)
class RankingRow:
    """One player's place and totals.

    ``total`` is what the ranking sorts on. average/pairwise: sum of differentials minus
    penalty points. matchpoints: mean percentage (0-100) over the donnes compared (groups of
    two or more) minus penalty points times the tournament's rate; 0 before any comparison.
    """

    player: Hashable
    rank: int
    total: Fraction
    differential_total: Fraction
    penalty_points: int
    donnes_played: int
    donnes_compared: int
    per_donne: dict[Hashable, DonneLine]


@dataclass(frozen=True)
class Ranking:
    """The ranking: rows sorted by rank then player; ``by_player`` finds one row."""

    method: Method
    rows: list[RankingRow]
    matchpoint_penalty_rate: Fraction

    @cached_property
    def by_player(self) -> dict[Hashable, RankingRow]:
        """Row of each player."""
        return {row.player: row for row in self.rows}


def _rate(value: Any) -> Fraction:
    try:
        rate = Fraction(to_exact(value))
    except ScoringError:
        rate = None
    if rate is None or rate < 0:
        raise InvalidScore("penalty_rate_invalid", value=display_value(value))
    return rate


def _sort_rows(items: list[tuple[Fraction, Hashable]]) -> list[tuple[Fraction, Hashable]]:
    """Best total first, then by player id; a stable order even for mixed id types."""
    try:
        return sorted(items, key=lambda item: (-item[0], item[1]))
    except TypeError:
        return sorted(items, key=lambda item: (-item[0], type(item[1]).__name__, repr(item[1])))


def compute_ranking(
    plays: Iterable[Play],
    *,
    method: Method | str = Method.AVERAGE,
    annulled: Iterable[tuple[Hashable, Hashable]] = (),
    sit_outs: Iterable[tuple[Hashable, Hashable]] = (),
    penalties: Iterable[Penalty] = (),
    matchpoint_penalty_rate: Fraction | int | str = Fraction(1, 10),
) -> Ranking:
    """Rank the players of a tournament.

    annulled: (donne, table) pairs the arbiter annulled; sit_outs: (player, donne) pairs;
    matchpoint_penalty_rate: percentage points taken off per penalty point (matchpoints only).
    Raises InvalidPlays for contradictory input (two results for one player on one donne, two
    results for one seat, a player both playing and sitting out a donne).
    """
    m = parse_method(method)
    rate = _rate(matchpoint_penalty_rate)
    annulled_set = set(annulled)
    sat_out = set(sit_outs)

    lines: dict[Hashable, dict[Hashable, DonneLine]] = {}
    groups: dict[tuple[Hashable, str], list[Play]] = {}
    seat_player: dict[tuple[Hashable, str, Hashable], Hashable] = {}

    for play in plays:
        player, donne = play.player, play.donne
        card = lines.get(player)
        if card is None:
            card = lines[player] = {}
        if donne in card:
            raise InvalidPlays(
                "duplicate_play", player=display_value(player), donne=display_value(donne)
            )
        if (player, donne) in sat_out:
            raise InvalidPlays(
                "play_and_sit_out", player=display_value(player), donne=display_value(donne)
            )
        seat = (donne, play.position, play.table)
        other = seat_player.get(seat, _FREE)
        if other is not _FREE:
            raise InvalidPlays(
                "seat_taken",
                donne=display_value(donne),
                position=display_value(play.position),
                table=display_value(play.table),
                player=display_value(other),
                other=display_value(player),
            )
        seat_player[seat] = player
        if (donne, play.table) in annulled_set:
            card[donne] = DonneLine(
                play.position, play.table, None, _ZERO, None, DonneStatus.ANNULLED, 0
            )
            continue
        key = (donne, play.position)
        group = groups.get(key)
        if group is None:
            groups[key] = [play]
        else:
            group.append(play)
        card[donne] = None  # type: ignore[assignment]  # filled below, marks the donne as taken

    for player, donne in sat_out:
        card = lines.get(player)
        if card is None:
            card = lines[player] = {}
        card[donne] = DonneLine(None, None, None, _ZERO, None, DonneStatus.SAT_OUT, 0)

    # player -> {denominator: sum of numerators}: exact, and whole-number additions only.
    sums: dict[Hashable, dict[int, Any]] = {}
    compared: dict[Hashable, int] = {}
    played: dict[Hashable, int] = {}
    is_mp = m is Method.MATCHPOINTS
    played_status = DonneStatus.PLAYED
    denominator_of = {Method.AVERAGE: 0, Method.PAIRWISE: 1}.get(m, 0)

    for group in groups.values():
        scores = []
        for play in group:
            try:
                scores.append(to_exact(play.score))
            except ScoringError:
                raise InvalidPlays(
                    "score_not_a_number",
                    player=display_value(play.player),
                    donne=display_value(play.donne),
                    value=display_value(play.score),
                ) from None
        n = len(scores)
        if n == 1:
            play = group[0]
            lines[play.player][play.donne] = DonneLine(
                play.position, play.table, scores[0], _ZERO, None, played_status, 1
            )
            played[play.player] = played.get(play.player, 0) + 1
            continue
        if is_mp:
            # The total sums percentages: 100 * mp over the group's maximum 2 * (n - 1).
            denominator = 2 * (n - 1)
            numerators = matchpoints(scores)
            values = [
                (Fraction(mp), Fraction(100 * mp, denominator), 100 * mp) for mp in numerators
            ]
        else:
            total = sum(scores)
            denominator = n - denominator_of  # average: n; pairwise: n - 1
            if all(type(s) is int for s in scores):
                values = [
                    (Fraction(n * s - total, denominator), None, n * s - total) for s in scores
                ]
            else:
                values = [
                    (Fraction(n * s - total) / denominator, None, Fraction(n * s - total))
                    for s in scores
                ]
        for play, score, (differential, percentage, numerator) in zip(
            group, scores, values, strict=True
        ):
            player = play.player
            lines[player][play.donne] = DonneLine(
                play.position, play.table, score, differential, percentage, played_status, n
            )
            played[player] = played.get(player, 0) + 1
            compared[player] = compared.get(player, 0) + 1
            bucket = sums.get(player)
            if bucket is None:
                sums[player] = {denominator: numerator}
            else:
                bucket[denominator] = bucket.get(denominator, 0) + numerator

    penalty_points: dict[Hashable, int] = {}
    for penalty in penalties:
        points = penalty.points
        if type(points) is not int or points < 0:
            raise InvalidPenalty(
                "penalty_invalid", value=display_value(points), player=display_value(penalty.player)
            )
        penalty_points[penalty.player] = penalty_points.get(penalty.player, 0) + points
        lines.setdefault(penalty.player, {})

    totals: dict[Hashable, tuple[Fraction, Fraction]] = {}
    for player in lines:
        bucket = sums.get(player)
        if bucket is None:
            summed = _ZERO
        else:
            summed = sum(
                (Fraction(numerator, denominator) for denominator, numerator in bucket.items()),
                _ZERO,
            )
        count = compared.get(player, 0)
        pen = penalty_points.get(player, 0)
        if is_mp:
            base = summed / count if count else _ZERO
            totals[player] = (base - pen * rate, base)
        else:
            totals[player] = (summed - pen, summed)

    ordered = _sort_rows([(total, player) for player, (total, _) in totals.items()])
    rows: list[RankingRow] = []
    previous_total: Fraction | None = None
    rank = 0
    for position, (total, player) in enumerate(ordered, start=1):
        if total != previous_total:
            rank, previous_total = position, total
        rows.append(
            RankingRow(
                player=player,
                rank=rank,
                total=Fraction(total),
                differential_total=Fraction(totals[player][1]),
                penalty_points=penalty_points.get(player, 0),
                donnes_played=played.get(player, 0),
                donnes_compared=compared.get(player, 0),
                per_donne=lines[player],
            )
        )
    return Ranking(method=m, rows=rows, matchpoint_penalty_rate=rate)
