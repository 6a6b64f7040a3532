"""Tournament ranking from every player's results (RULES §6, §7, §8). Pure Python, no Django.

Results are grouped by (donne, position); each group is compared once, with exact Fractions.
Annulled tables and sit-outs give a differential of 0; penalties come off the penalised
player's total only.

Speed (a recomputation ranks every play of a championship again): plays and score-card lines
are named tuples (several times cheaper to build than frozen dataclasses), and a player's total is
summed as whole numerators per denominator, turned into one Fraction at the end, instead of
adding thousands of Fractions (each addition normalises with a gcd). `compute_ranking_table`
values each group once per distinct score (a field's group of thousands holds a few dozen) and
sorts matchpoint totals as whole numbers over one common denominator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Hashable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import cached_property
from itertools import chain
from math import gcd, lcm
from typing import Any, NamedTuple, NoReturn

from scoring.rules.duplicate import Method, matchpoints, parse_method, to_exact
from scoring.rules.errors import (
    InvalidPenalty,
    InvalidPlays,
    InvalidScore,
    ScoringError,
    display_value,
)

__all__ = [
    "DonneLine",
    "DonneStatus",
    "GroupRanking",
    "Method",
    "Penalty",
    "Play",
    "PlayGroups",
    "Ranking",
    "RankingRow",
    "RankingTable",
    "annulled_line",
    "compute_group_ranking",
    "compute_ranking",
    "compute_ranking_table",
    "exact_value",
    "group_line",
    "sat_out_line",
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
    lines, groups = _cards_and_groups(plays, set(annulled), set(sit_outs))
    sums, compared, played = _compare_groups(groups, lines, m)
    penalty_points = _penalty_points(penalties, lines)
    is_mp = m is Method.MATCHPOINTS
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


def _cards_and_groups(
    plays: Iterable[Play],
    annulled_set: set[tuple[Hashable, Hashable]],
    sat_out: set[tuple[Hashable, Hashable]],
) -> tuple[dict[Hashable, dict[Hashable, DonneLine]], dict[tuple[Hashable, str], list[Play]]]:
    """Each player's card (annulled and sat-out lines filled, played donnes marked None until
    compared) and the plays grouped by (donne, position); raises InvalidPlays on a
    contradiction (see `compute_ranking`)."""
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
    return lines, groups


def _compare_groups(
    groups: dict[tuple[Hashable, str], list[Play]],
    lines: dict[Hashable, dict[Hashable, DonneLine]],
    m: Method,
) -> tuple[dict[Hashable, dict[int, Any]], dict[Hashable, int], dict[Hashable, int]]:
    """Compare each group under the method: fills the players' lines of every play and
    returns, per player, his sums (denominator -> sum of numerators: exact, and whole-number
    additions only), his donnes compared and his donnes played."""
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
    return sums, compared, played


def _penalty_points(
    penalties: Iterable[Penalty], lines: dict[Hashable, dict[Hashable, DonneLine]]
) -> dict[Hashable, int]:
    """Each penalised player's penalty points (a penalised player without a play gets an
    empty card); raises InvalidPenalty for points that are not a whole number >= 0."""
    penalty_points: dict[Hashable, int] = {}
    for penalty in penalties:
        points = penalty.points
        if type(points) is not int or points < 0:
            raise InvalidPenalty(
                "penalty_invalid", value=display_value(points), player=display_value(penalty.player)
            )
        penalty_points[penalty.player] = penalty_points.get(penalty.player, 0) + points
        lines.setdefault(penalty.player, {})
    return penalty_points


# --- the same ranking as plain, exact, JSON-ready values ---------------------------------------


def exact_value(value: int | Fraction) -> int | str:
    """An exact number as plain data: the int when whole, else "p/q" in lowest terms."""
    if type(value) is int:
        return value
    numerator, denominator = value.as_integer_ratio()
    return numerator if denominator == 1 else f"{numerator}/{denominator}"


def _ratio(numerator: int, denominator: int) -> int | str:
    """numerator / denominator (denominator > 0) as `exact_value` writes it, without a Fraction."""
    g = gcd(numerator, denominator)
    if g == denominator:
        return numerator // g
    return f"{numerator // g}/{denominator // g}"


class RankingTable(NamedTuple):
    """`compute_ranking`'s result as plain values (what a stored snapshot holds), every number
    exact as `exact_value` writes it.

    ``rows``: (player, [rank, total, differential total, penalty points, donnes played,
    donnes compared]) in ranking order. ``lines``: each player's score-card lines, in the order
    of `RankingRow.per_donne`: [donne, position, table, score, differential, percentage,
    status, group size]. ``room_rows``: given the complete donnes, the same rows counting
    only the results of those donnes (RULES §6.1: what the room sees during play), every
    player still listed; None when no set of complete donnes was given. When every donne
    with a result is complete, it is ``rows`` itself (the same list).
    """

    method: Method
    matchpoint_penalty_rate: Fraction
    rows: list[tuple[Hashable, list[Any]]]
    lines: dict[Hashable, list[list[Any]]]
    room_rows: list[tuple[Hashable, list[Any]]] | None = None


def _quotient(numerator: int | Fraction, denominator: int) -> int | str:
    """numerator / denominator as `exact_value` writes it (Fractions only for Fraction scores)."""
    if type(numerator) is int:
        return _ratio(numerator, denominator)
    return exact_value(Fraction(numerator) / denominator)


class _Contradiction(Exception):
    """The plays are invalid: `compute_ranking` is asked to say exactly how."""


def compute_ranking_table(
    plays: Iterable[tuple[Hashable, Hashable, str, Hashable, Any]],
    *,
    method: Method | str = Method.AVERAGE,
    annulled: Iterable[tuple[Hashable, Hashable]] = (),
    sit_outs: Iterable[tuple[Hashable, Hashable]] = (),
    penalties: Iterable[Penalty] = (),
    matchpoint_penalty_rate: Fraction | int | str = Fraction(1, 10),
    complete: Collection[Hashable] | None = None,
) -> RankingTable:
    """`compute_ranking` (same arguments, same exact values, same errors) for a recomputation
    that stores the result: plays may be plain (player, donne, position, table, score) tuples,
    and the score-card lines are built directly as lists of plain values.

    ``complete``: the donnes every scheduled table has played; when given, ``room_rows`` also
    ranks on those donnes alone (the other donnes' sums are taken off the totals, so the
    cost grows with the incomplete donnes only).

    Why a second function: a championship has tens of thousands of lines, and building each
    as a DonneLine of Fractions, then converting it, cost several times the reading of the
    results. Here a differential is an integer numerator over the group's known denominator,
    reduced by one gcd (once per distinct value of the group); the totals of average and
    pairwise are integers over the least common multiple of the groups' denominators, so
    sorting compares integers. The checks are counts (a duplicate play or a taken seat
    leaves fewer lines than plays); when one fails, `compute_ranking` itself raises the
    error it would have raised, so both functions reject the same input the same way.
    """
    plays = plays if isinstance(plays, list) else list(plays)
    annulled = list(annulled)
    sit_outs = list(sit_outs)
    penalties = list(penalties)
    try:
        return _ranking_table(
            plays,
            parse_method(method),
            annulled,
            sit_outs,
            penalties,
            matchpoint_penalty_rate,
            complete,
        )
    except _Contradiction:
        pass
    _raise_as_compute_ranking(
        [Play(*play) for play in plays],
        "compute_ranking_table",
        method=method,
        annulled=annulled,
        sit_outs=sit_outs,
        penalties=penalties,
        matchpoint_penalty_rate=matchpoint_penalty_rate,
    )


def _raise_as_compute_ranking(plays: list[Play], rejected_by: str, **options: Any) -> NoReturn:
    """Raise the error `compute_ranking` raises for ``plays`` and ``options``, where the faster
    ``rejected_by`` found a contradiction: both reject the same input the same way."""
    compute_ranking(plays, **options)
    raise AssertionError(f"compute_ranking accepted plays that {rejected_by} rejected")


def _ranking_table(
    plays: list[tuple[Hashable, Hashable, str, Hashable, Any]],
    m: Method,
    annulled: list[tuple[Hashable, Hashable]],
    sit_outs: list[tuple[Hashable, Hashable]],
    penalties: list[Penalty],
    matchpoint_penalty_rate: Any,
    complete: Collection[Hashable] | None = None,
) -> RankingTable:
    """`compute_ranking_table`'s work; raises _Contradiction where `compute_ranking` would
    raise (it is then asked to say how)."""
    rate = _rate(matchpoint_penalty_rate)
    cards, groups, unplayed = _table_cards(plays, set(annulled), set(sit_outs))
    if complete is not None and not isinstance(complete, (set, frozenset)):
        complete = set(complete)
    is_mp = m is Method.MATCHPOINTS
    group_sums = _table_compare(groups, is_mp, 1 if m is Method.PAIRWISE else 0, complete)
    penalty_points = _table_penalties(penalties, cards)

    # Every player's summed values as one numerator over the common denominator.
    common = 1
    for denominator in group_sums.by_denominator:
        common = common * denominator // gcd(common, denominator)
    sums = _common_sums(group_sums.by_denominator, common)
    played = {player: len(card) - unplayed[player] for player, card in cards.items()}
    alone = group_sums.alone
    compared = {player: count - alone[player] for player, count in played.items()}
    rows = _table_rows(cards, sums, common, penalty_points, played, compared, is_mp, rate)

    room_rows: list[tuple[Hashable, list[Any]]] | None = None
    if complete is not None:
        pending_played, pending_compared = group_sums.pending_played, group_sums.pending_compared
        if pending_played:
            taken = _common_sums(group_sums.pending, common)
            room_sums = {player: summed - taken.get(player, 0) for player, summed in sums.items()}
            room_played = {p: count - pending_played[p] for p, count in played.items()}
            room_compared = {p: count - pending_compared[p] for p, count in compared.items()}
            room_rows = _table_rows(
                cards, room_sums, common, penalty_points, room_played, room_compared, is_mp, rate
            )
        else:
            room_rows = rows
    return RankingTable(
        method=m,
        matchpoint_penalty_rate=rate,
        rows=rows,
        lines={player: list(card.values()) for player, card in cards.items()},
        room_rows=room_rows,
    )


_TableGroups = dict[tuple[Hashable, str], tuple[list[Hashable], dict[Hashable, list[Any]]]]


def _table_cards(
    plays: list[tuple[Hashable, Hashable, str, Hashable, Any]],
    annulled_set: set[tuple[Hashable, Hashable]],
    sat_out: set[tuple[Hashable, Hashable]],
) -> tuple[dict[Hashable, dict[Hashable, list[Any]]], _TableGroups, Counter[Hashable]]:
    """Each player's card (a line per play and sit-out, annulled and sat-out lines final),
    the plays grouped by (donne, position) as (players, lines by table), and per player his
    lines that are no play (annulled, sat out); raises _Contradiction on a duplicate play,
    a seat annulled twice or a play on a donne sat out."""
    cards: dict[Hashable, dict[Hashable, list[Any]]] = {}
    groups: _TableGroups = {}
    annulled_seats: set[tuple[Hashable, str, Hashable]] = set()
    annulled_plays = 0
    # Per player, the lines that are no play (annulled, sat out): rare, so counted one by
    # one; the donnes played follow from them and the card's length.
    unplayed: Counter[Hashable] = Counter()
    played_text = DonneStatus.PLAYED.value
    annulled_text = DonneStatus.ANNULLED.value
    cards_get, groups_get = cards.get, groups.get

    for player, donne, position, table, score in plays:
        card = cards_get(player)
        if card is None:
            card = cards[player] = {}
        line = [donne, position, table, score, 0, None, played_text, 1]
        card[donne] = line
        if annulled_set and (donne, table) in annulled_set:
            line[3], line[6], line[7] = None, annulled_text, 0
            annulled_seats.add((donne, position, table))
            annulled_plays += 1
            unplayed[player] += 1
            continue
        key = (donne, position)
        group = groups_get(key)
        if group is None:
            groups[key] = ([player], {table: line})
        else:
            group[0].append(player)
            group[1][table] = line

    # One line per play, or a player played a donne twice; every annulled seat once.
    if sum(map(len, cards.values())) != len(plays) or len(annulled_seats) != annulled_plays:
        raise _Contradiction
    sat_out_text = DonneStatus.SAT_OUT.value
    for player, donne in sat_out:
        card = cards.get(player)
        if card is None:
            card = cards[player] = {}
        elif donne in card:
            raise _Contradiction
        card[donne] = [donne, None, None, None, 0, None, sat_out_text, 0]
        unplayed[player] += 1
    return cards, groups, unplayed


class _GroupSums(NamedTuple):
    """What comparing the groups gives `_ranking_table`.

    ``by_denominator``: per denominator of the compared groups, player -> sum of his
    numerators. ``pending`` (only with `complete`): the same for the groups of donnes not
    complete, taken off for the room's rows with the plays (``pending_played``) and
    comparisons (``pending_compared``) they count. ``alone``: per player, his plays alone in
    their group (played, not compared)."""

    by_denominator: dict[int, dict[Hashable, Any]]
    pending: dict[int, dict[Hashable, Any]]
    pending_played: Counter[Hashable]
    pending_compared: Counter[Hashable]
    alone: Counter[Hashable]


def _table_compare(
    groups: _TableGroups, is_mp: bool, offset: int, complete: set[Hashable] | frozenset | None
) -> _GroupSums:
    """Compare each group: writes the exact scores, differentials, percentages and group
    sizes into its lines and sums every player's numerators while the group is at hand (a
    second pass over every play costs cache misses on big fields). `offset`: 1 for
    pairwise (n - 1 comparisons), else 0. Raises _Contradiction on two plays in one seat
    or a score that is not a number."""
    by_denominator: dict[int, dict[Hashable, Any]] = {}
    pending: dict[int, dict[Hashable, Any]] = {}
    pending_played: Counter[Hashable] = Counter()
    pending_compared: Counter[Hashable] = Counter()
    alone: Counter[Hashable] = Counter()

    for (donne, _position), (members, by_table) in groups.items():
        lines = list(by_table.values())
        if len(lines) != len(members):  # two plays in one seat
            raise _Contradiction
        scores = [line[3] for line in lines]
        whole = set(map(type, scores)) == {int}
        if not whole:
            for index, line in enumerate(lines):
                try:
                    score = to_exact(line[3])
                except ScoringError:
                    raise _Contradiction from None
                scores[index] = score
                line[3] = exact_value(score)
        n = len(scores)
        waiting = complete is not None and donne not in complete
        if n == 1:
            alone[members[0]] += 1
            if waiting:
                pending_played[members[0]] += 1
            continue
        # Each distinct score's values once (a field's group of 3,000 holds a few dozen
        # scores), then one pass over the plays: lines written, sums added.
        denominator, values = _group_values(scores, n, is_mp, offset, whole)
        bucket = by_denominator.get(denominator)
        if bucket is None:
            bucket = by_denominator[denominator] = {}
        bucket_get = bucket.get
        if is_mp:
            for player, line, score in zip(members, lines, scores, strict=True):
                differential, percentage, numerator = values[score]
                line[4], line[5], line[7] = differential, percentage, n
                bucket[player] = bucket_get(player, 0) + numerator
        else:  # no percentage: the line's None stays
            for player, line, score in zip(members, lines, scores, strict=True):
                differential, _none, numerator = values[score]
                line[4], line[7] = differential, n
                bucket[player] = bucket_get(player, 0) + numerator
        if waiting:
            taken = pending.setdefault(denominator, {})
            for player, score in zip(members, scores, strict=True):
                taken[player] = taken.get(player, 0) + values[score][2]
            pending_played.update(members)
            pending_compared.update(members)
    return _GroupSums(by_denominator, pending, pending_played, pending_compared, alone)


def _group_values(
    scores: list[Any], n: int, is_mp: bool, offset: int, whole: bool
) -> tuple[int, dict[Any, tuple[Any, Any, Any]]]:
    """A compared group's denominator and, per distinct score, (differential as stored,
    percentage as stored, numerator summed over that denominator): matchpoints, 2 per
    score below and 1 per other equal score (`duplicate.matchpoints`), in percent of
    2 * (n - 1); average and pairwise, (n * score - total) over n or n - 1."""
    counts = Counter(scores)
    values: dict[Any, tuple[Any, Any, Any]] = {}
    if is_mp:
        denominator = 2 * (n - 1)
        below = 0
        for score in sorted(counts):
            count = counts[score]
            mp = 2 * below + count - 1
            values[score] = (mp, _ratio(100 * mp, denominator), 100 * mp)
            below += count
        return denominator, values
    total = sum(scores)
    denominator = n - offset  # average: n; pairwise: n - 1
    for score in counts:
        numerator = n * score - total
        text = _ratio(numerator, denominator) if whole else _quotient(numerator, denominator)
        values[score] = (text, None, numerator)
    return denominator, values


def _table_penalties(
    penalties: list[Penalty], cards: dict[Hashable, dict[Hashable, list[Any]]]
) -> dict[Hashable, int]:
    """Each penalised player's penalty points (a penalised player without a play gets an
    empty card); raises _Contradiction for points that are not a whole number >= 0."""
    penalty_points: dict[Hashable, int] = {}
    for penalty in penalties:
        points = penalty.points
        if type(points) is not int or points < 0:
            raise _Contradiction
        penalty_points[penalty.player] = penalty_points.get(penalty.player, 0) + points
        cards.setdefault(penalty.player, {})
    return penalty_points


def _common_sums(
    by_denominator: dict[int, dict[Hashable, Any]], common: int
) -> dict[Hashable, Any]:
    """Per player, his numerators over each denominator as one numerator over `common` (a
    multiple of every denominator)."""
    if len(by_denominator) == 1 and next(iter(by_denominator)) == common:
        (sums,) = by_denominator.values()  # every group of one size: nothing to rescale
        return sums
    sums: dict[Hashable, Any] = {}
    for denominator, bucket in by_denominator.items():
        scale = common // denominator
        for player, summed in bucket.items():
            sums[player] = sums.get(player, 0) + summed * scale
    return sums


def _table_rows(
    players: Iterable[Hashable],
    sums: dict[Hashable, Any],
    common: int,
    penalty_points: dict[Hashable, int],
    played: dict[Hashable, int],
    compared: dict[Hashable, int],
    is_mp: bool,
    rate: Fraction,
) -> list[tuple[Hashable, list[Any]]]:
    """The ranking rows of `RankingTable.rows` from each player's sum over `common`."""
    sums_get = sums.get
    # (sort key, player, total, differential total); the key orders exactly as the total.
    ranked: list[tuple[Any, Hashable, int | str, int | str]] = []
    if is_mp:
        # Every total over one denominator (the rate's and each count's, a few distinct
        # values), so the key is a whole number: sorting Fractions cost more than ranking.
        scale = lcm(rate.denominator, *(common * c for c in set(compared.values()) if c))
        penalty_unit = rate.numerator * (scale // rate.denominator)
    for player in players:
        summed = sums_get(player, 0)
        pen = penalty_points.get(player, 0)
        if is_mp:
            count = compared[player]
            base = summed * (scale // (common * count)) if count else 0
            key = base - pen * penalty_unit
            text = _ratio(key, scale)
            ranked.append((key, player, text, text if key == base else _ratio(base, scale)))
        else:
            key = summed - pen * common
            text = _quotient(key, common)
            ranked.append((key, player, text, text if not pen else _quotient(summed, common)))
    try:
        ranked.sort(key=lambda item: (-item[0], item[1]))
    except TypeError:
        ranked.sort(key=lambda item: (-item[0], type(item[1]).__name__, repr(item[1])))

    rows: list[tuple[Hashable, list[Any]]] = []
    previous: Any = None
    rank = 0
    for place, (key, player, total_text, base_text) in enumerate(ranked, start=1):
        if key != previous:
            rank, previous = place, key
        rows.append(
            (
                player,
                [
                    rank,
                    total_text,
                    base_text,
                    penalty_points.get(player, 0),
                    played[player],
                    compared[player],
                ],
            )
        )
    return rows


# --- the same ranking from plays already grouped by (donne, position) ---------------------------

# Per (donne, position): the players, their tables and their scores, three lists in step.
PlayGroups = dict[tuple[Hashable, str], tuple[list[Hashable], list[Hashable], list[Any]]]


class GroupRanking(NamedTuple):
    """`compute_group_ranking`'s result: the rows of `RankingTable.rows` and, instead of every
    player's card, what a card line's values come from.

    ``values``: per (donne, position) with a compared or lone play, (group size, {score as
    stored: (differential as stored, percentage as stored or None)}). A card line is then the
    play's (donne, position, table, score) with ``values[donne, position]``'s size and its
    score's entry; an annulled play's line is (score None, differential 0, no percentage,
    size 0), a sit-out's the same without position or table (`DonneLine`'s conventions).
    """

    method: Method
    matchpoint_penalty_rate: Fraction
    rows: list[tuple[Hashable, list[Any]]]
    values: dict[tuple[Hashable, str], tuple[int, dict[Any, tuple[Any, Any]]]]


def compute_group_ranking(
    groups: PlayGroups,
    *,
    method: Method | str = Method.AVERAGE,
    annulled: Iterable[tuple[Hashable, Hashable]] = (),
    sit_outs: Iterable[tuple[Hashable, Hashable]] = (),
    penalties: Iterable[Penalty] = (),
    matchpoint_penalty_rate: Fraction | int | str = Fraction(1, 10),
) -> GroupRanking:
    """`compute_ranking_table`'s rows (same exact values, same errors) for plays given already
    grouped by (donne, position), without building anyone's card.

    Why a third function: a national field pools hundreds of thousands of plays; a caller that
    reads them grouped (a simultaneous event's results are one row per table) saves grouping
    them again, and a card is a line per play that only one player's page reads. Each group's
    values are kept once (``GroupRanking.values``), so a card is built when it is read. When a
    check fails, `compute_ranking` itself raises the error it would have raised.
    """
    annulled = list(annulled)
    sit_outs = list(sit_outs)
    penalties = list(penalties)
    try:
        return _group_ranking(
            groups,
            parse_method(method),
            set(annulled),
            set(sit_outs),
            penalties,
            matchpoint_penalty_rate,
        )
    except _Contradiction:
        pass
    _raise_as_compute_ranking(
        [
            Play(player, donne, position, table, score)
            for (donne, position), (players, tables, scores) in groups.items()
            for player, table, score in zip(players, tables, scores, strict=True)
        ],
        "compute_group_ranking",
        method=method,
        annulled=annulled,
        sit_outs=sit_outs,
        penalties=penalties,
        matchpoint_penalty_rate=matchpoint_penalty_rate,
    )


def _group_ranking(
    groups: PlayGroups,
    m: Method,
    annulled_set: set[tuple[Hashable, Hashable]],
    sat_out: set[tuple[Hashable, Hashable]],
    penalties: list[Penalty],
    matchpoint_penalty_rate: Any,
) -> GroupRanking:
    """`compute_group_ranking`'s work; raises _Contradiction where `compute_ranking` would."""
    rate = _rate(matchpoint_penalty_rate)
    compared_groups, others = _checked_groups(groups, annulled_set, sat_out)
    is_mp = m is Method.MATCHPOINTS
    offset = 1 if m is Method.PAIRWISE else 0
    exact = _exact_groups(compared_groups)
    # Whole numerators (matchpoints always; average and pairwise of whole scores) are summed
    # packed with a count of 1 (`_PACK`): one pass over the plays sums and counts them.
    packed = is_mp or all(stored is scores for _players, scores, stored in exact.values())
    by_denominator: dict[int, dict[Hashable, Any]] = {}
    values: dict[tuple[Hashable, str], tuple[int, dict[Any, tuple[Any, Any]]]] = {}
    alone: Counter[Hashable] = Counter()
    for key, (players, scores, stored) in exact.items():
        n = len(scores)
        if n == 1:
            alone[players[0]] += 1
            values[key] = (1, {stored[0]: (0, None)})
            continue
        denominator, group_values = _group_values(scores, n, is_mp, offset, stored is scores)
        bucket = by_denominator.get(denominator)
        if bucket is None:
            bucket = by_denominator[denominator] = {}
        bucket_get = bucket.get
        if packed:
            summands = {score: value[2] * _PACK + 1 for score, value in group_values.items()}
        else:
            summands = {score: value[2] for score, value in group_values.items()}
        for player, summand in zip(players, map(summands.__getitem__, scores), strict=True):
            bucket[player] = bucket_get(player, 0) + summand
        # Once per distinct score: a score as stored (exact_value) for each exact one.
        shown = dict(zip(scores, stored, strict=True)) if stored is not scores else None
        values[key] = (
            n,
            {
                score if shown is None else shown[score]: value[:2]
                for score, value in group_values.items()
            },
        )
    counted = _unpacked(by_denominator) if packed else _counted(compared_groups, alone)
    everyone = dict.fromkeys(counted)
    everyone.update(dict.fromkeys(alone))
    everyone.update(dict.fromkeys(others))
    penalty_points = _table_penalties(penalties, everyone)
    common = 1
    for denominator in by_denominator:
        common = common * denominator // gcd(common, denominator)
    sums = _common_sums(by_denominator, common)
    counted_get, alone_get = counted.get, alone.get
    compared = {player: counted_get(player, 0) for player in everyone}
    played = {player: count + alone_get(player, 0) for player, count in compared.items()}
    rows = _table_rows(everyone, sums, common, penalty_points, played, compared, is_mp, rate)
    return GroupRanking(method=m, matchpoint_penalty_rate=rate, rows=rows, values=values)


_PACK = 1 << 32
"""A packed sum is numerator * _PACK + count: a player's plays are far fewer than _PACK."""


def _exact_groups(
    groups: dict[tuple[Hashable, str], tuple[list[Hashable], list[Any]]],
) -> dict[tuple[Hashable, str], tuple[list[Hashable], list[Any], list[Any]]]:
    """Each group as (players, exact scores, scores as stored): the same list twice when every
    score is an int; raises _Contradiction for a score that is not a number."""
    exact = {}
    for key, (players, scores) in groups.items():
        if set(map(type, scores)) == {int}:
            exact[key] = (players, scores, scores)
            continue
        try:
            converted = [to_exact(score) for score in scores]
        except ScoringError:
            raise _Contradiction from None
        exact[key] = (players, converted, [exact_value(score) for score in converted])
    return exact


def _unpacked(by_denominator: dict[int, dict[Hashable, Any]]) -> dict[Hashable, int]:
    """Undo the packing in place (each bucket's values become the numerators' sums) and
    return each player's count of compared plays, over every denominator."""
    counted: dict[Hashable, int] = {}
    counted_get = counted.get
    for bucket in by_denominator.values():
        for player, value in bucket.items():
            count = value % _PACK  # every summand is 1 modulo _PACK
            bucket[player] = (value - count) // _PACK
            counted[player] = counted_get(player, 0) + count
    return counted


def _counted(
    groups: dict[tuple[Hashable, str], tuple[list[Hashable], list[Any]]],
    alone: Counter[Hashable],
) -> dict[Hashable, int]:
    """Each player's count of compared plays, counted over the groups (their lone plays out)."""
    counted = Counter(chain.from_iterable(players for players, _scores in groups.values()))
    counted.subtract(alone)
    return counted


def _checked_groups(
    groups: PlayGroups,
    annulled_set: set[tuple[Hashable, Hashable]],
    sat_out: set[tuple[Hashable, Hashable]],
) -> tuple[dict[tuple[Hashable, str], tuple[list[Hashable], list[Any]]], list[Hashable]]:
    """The groups' compared plays as (players, scores) (annulled tables left out) and the
    players of the lines that are no play (annulled plays, sit-outs). Raises
    ValueError on lists out of step; _Contradiction on two plays in one seat, a player twice
    on one donne or a play on a donne sat out."""
    compared: dict[tuple[Hashable, str], tuple[list[Hashable], list[Any]]] = {}
    on_donne: dict[Hashable, set[Hashable]] = {}
    others: list[Hashable] = []
    for key, (players, tables, scores) in groups.items():
        n = len(players)
        if len(tables) != n or len(scores) != n:
            raise ValueError(f"group {key!r}: players, tables and scores out of step")
        if len(set(tables)) != n:
            raise _Contradiction  # two plays in one seat
        donne = key[0]
        seen = on_donne.get(donne)
        if seen is None:
            seen = on_donne[donne] = set()
        before = len(seen)
        seen.update(players)
        if len(seen) - before != n:
            raise _Contradiction  # a player twice on one donne
        if annulled_set and any((donne, table) in annulled_set for table in tables):
            gone = {i for i, table in enumerate(tables) if (donne, table) in annulled_set}
            others.extend(players[i] for i in sorted(gone))
            players = [player for i, player in enumerate(players) if i not in gone]
            scores = [score for i, score in enumerate(scores) if i not in gone]
        if players:
            compared[key] = (players, scores)
    for player, donne in sat_out:
        if player in on_donne.get(donne, ()):
            raise _Contradiction  # a play on a donne sat out
    others.extend(player for player, _donne in sat_out)
    return compared, others


def group_line(
    values: dict[tuple[Hashable, str], tuple[int, dict[Any, tuple[Any, Any]]]],
    donne: Hashable,
    position: str,
    table: Hashable,
    score: Any,
) -> list[Any]:
    """A compared (or lone) play's score-card line as `RankingTable.lines` writes it, from
    `GroupRanking.values` (``score`` as stored: `exact_value` of the exact score)."""
    size, by_score = values[(donne, position)]
    differential, percentage = by_score[score]
    return [donne, position, table, score, differential, percentage, _PLAYED_TEXT, size]


def annulled_line(donne: Hashable, position: str, table: Hashable) -> list[Any]:
    """An annulled play's score-card line as `RankingTable.lines` writes it."""
    return [donne, position, table, None, 0, None, DonneStatus.ANNULLED.value, 0]


def sat_out_line(donne: Hashable) -> list[Any]:
    """A sit-out's score-card line as `RankingTable.lines` writes it."""
    return [donne, None, None, None, 0, None, DonneStatus.SAT_OUT.value, 0]


_PLAYED_TEXT = DonneStatus.PLAYED.value
