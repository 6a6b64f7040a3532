"""A championship over a season, pure: from each counted event's final rows, the players'
championship lines, their ranks, and who qualifies. No Django.

An event's field is its lines (one per player, a player plays an event once). What a player
earns in one event (his event points) depends on the rule's kind:

- ``total``: his event total;
- ``percentage``: his matchpoints percentage (None counts as 0), weighted by his donnes compared;
- ``places``: the table's points for his place, ``places[0]`` for the first, ``places_beyond``
  for every place past the table. Players of equal rank share the mean of the points of the
  places they hold together (two equal second take the mean of places 2 and 3), so the points
  given in one event always sum to the table's points for that field. With ``scale_by_field``
  they are multiplied by ``field / largest field of the championship``.

``best_of`` N keeps a player's N best events (highest event points; on equal points the more
recent, then the smaller event key); the others are listed, not counted. His championship
points are, for ``total`` and ``places``, the sum of his counted events' points plus his série's
handicap once per counted event; for ``percentage`` the mean of his counted percentages weighted
by the donnes compared (0 when none was compared) plus his série's handicap (added to each
counted percentage, so once to the mean). A player with fewer events played than
``minimum_events`` is "non classé": listed after the classified players, with no rank.

Lines go highest points first; equal points are separated by the rule's tie-breaks in order:

- ``events``: more events counted;
- ``best``: the best counted event, then the second best, and so on (a further counted event
  beats none);
- ``recent``: the most recent counted event's points, then the one before, and so on
  (countback; events of one day by points);

then players still equal share the rank (1, 2, 2, 4), listed by player key. Everything is exact
(Fractions); round only for display. The result never depends on the order of the events or of
their lines.
"""

from __future__ import annotations

import datetime
import gc
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from types import MappingProxyType
from typing import NamedTuple

from scoring.rules.errors import ScoringError, display_value

__all__ = [
    "KINDS",
    "TIE_BREAKS",
    "Event",
    "EventLine",
    "EventScore",
    "InvalidChampionshipEvents",
    "Line",
    "Rule",
    "Standings",
    "championship_ranking",
    "championship_scopes",
    "championship_standings",
    "event_points",
    "player_events",
    "qualifiers",
    "rule_errors",
    "validate_rule",
]

KINDS = ("total", "percentage", "places")
TIE_BREAKS = ("events", "best", "recent")

_ZERO = Fraction(0)
_NO_HANDICAPS: Mapping[str, Fraction] = MappingProxyType({})
_NO_SERIES: Mapping[str, str] = MappingProxyType({})


def _(message: str) -> str:
    """Mark a string for translation (makemessages extracts it) without importing Django."""
    return message


@dataclass(frozen=True)
class Rule:
    """How a championship counts; `validate_rule` says what is wrong with one.

    ``places``: points for place 1, 2, … (kind places), non-increasing, zero or more;
    ``places_beyond``: points for every place past the table; ``scale_by_field``: places'
    points times field / largest field; ``best_of``: only the N best events count;
    ``minimum_events``: fewer events played make a player "non classé"; ``tie_breaks``: from
    TIE_BREAKS, in order; ``handicaps``: série -> points added per counted event.
    """

    kind: str
    places: tuple[int, ...] = ()
    places_beyond: int = 0
    scale_by_field: bool = False
    best_of: int | None = None
    minimum_events: int = 0
    tie_breaks: tuple[str, ...] = ()
    handicaps: Mapping[str, Fraction] = field(default_factory=lambda: _NO_HANDICAPS)


class EventLine(NamedTuple):
    """A player's final row in one counted event (a named tuple: a season holds many).

    ``player`` is a key stable across events ("L<licence>", else "P<site player id>");
    ``rank`` his place (equal ranks share); ``total`` the event total; ``percentage`` his
    matchpoints percentage (None when not matchpoints); ``donnes_compared`` its weight.
    """

    player: str
    rank: int
    total: Fraction
    percentage: Fraction | None
    donnes_compared: int


@dataclass(frozen=True)
class Event:
    """One counted event: its key ("t:<tournament id>", "s:<simultaneous event id>"), its
    date, and its field (every player's final line)."""

    key: str
    date: datetime.date
    lines: tuple[EventLine, ...]


class EventScore(NamedTuple):
    """What a player earned in one event; ``counted`` False when best_of dropped it (shown
    struck through, never hidden)."""

    event: str
    points: Fraction
    counted: bool


@dataclass(frozen=True)
class Line:
    """A player's championship line.

    ``rank`` is None for a non classé (``classified`` False); ``points`` the championship score
    (kind percentage: the weighted mean percentage), handicap included; ``handicap`` what the
    handicap added (its own column); ``events`` every event he played, in date order (then by
    event key); ``counted`` how many of them count.
    """

    player: str
    rank: int | None
    classified: bool
    points: Fraction
    handicap: Fraction
    events: tuple[EventScore, ...]
    counted: int


class InvalidChampionshipEvents(ScoringError):
    """The counted events contradict themselves (an event twice, a player twice in one)."""

    field = "events"
    templates = {
        "championship_event_twice": _(
            "Event %(event)s is counted twice in this championship. Count it once."
        ),
        "championship_player_twice": _(
            "Player %(player)s has two lines in event %(event)s; a player plays an event once. "
            "Correct that event's results."
        ),
    }


# --- event points ------------------------------------------------------------------------
#
# Speed (a federation season is some 100,000 event lines): every value a season adds or
# compares is put on one common denominator (`_Scale`), so a player's event is a plain tuple
# of ints (units, weight, date ordinal) with its key and its exact points, and sums, best_of's
# sort and the tie-breaks add and compare ints; the places' shares are made once per
# distinct value; a Fraction is made once per distinct championship score; tie-breaks are
# read only among equal points; a série is ranked from everyone's order (`Standings`).

_UNITS, _WEIGHT, _DAY, _KEY, _POINTS = range(5)
_Entry = tuple[int, int, int, str, Fraction]


class _Scale:
    """Exact values as whole multiples of ``1 / denominator``, the least common multiple of
    their denominators: ``units[id(v)] == v * denominator`` exactly, so sums and comparisons
    of units are those of the values. Units are looked up by identity (values repeat as one
    object: the places' shares, the totals parsed once per text); the values are kept alive
    here so no identity is reused while the scale is."""

    def __init__(self, values: Iterable[Fraction]) -> None:
        self._kept = {id(value): value for value in values}
        self.denominator = lcm(*{value.denominator for value in self._kept.values()})
        den = self.denominator
        self.units = {
            ident: value.numerator * (den // value.denominator)
            for ident, value in self._kept.items()
        }
        self._values: dict[int, Fraction] = {}

    def keep(self, values: Iterable[Fraction]) -> None:
        """Look these values up by identity too (their denominators must divide the scale's)."""
        for value in values:
            self._kept[id(value)] = value
            self.units[id(value)] = self.unit(value)

    def unit(self, value: Fraction) -> int:
        """``value * denominator``; ``value``'s denominator must divide the scale's (a value
        equal to one of the scale's, or a whole number)."""
        units = self.units.get(id(value))  # the kept values are alive: an id is theirs
        if units is None:
            whole, left = divmod(self.denominator, value.denominator)
            if left:
                raise ValueError(f"{value} is not on the scale 1/{self.denominator}")
            units = value.numerator * whole
        return units

    def value(self, units: int) -> Fraction:
        """``units / denominator``, one object per value."""
        made = self._values.get(units)
        if made is None:
            made = self._values[units] = Fraction(units, self.denominator)
        return made


def _place_points(rule: Rule) -> list[int]:
    """Prefix sums of the places table: ``sums[p]`` is the points of places 1..p, p <= len."""
    sums = [0]
    for value in rule.places:
        sums.append(sums[-1] + value)
    return sums


def _places_of(
    rule: Rule,
    sums: list[int],
    lines: Sequence[EventLine],
    largest: int,
    made: dict[object, Fraction],
) -> dict[int, Fraction]:
    """The places points of each rank in one event: the mean of the places its rank group
    holds, scaled; ``made`` keeps the Fractions already made (few distinct values)."""
    table = len(rule.places)
    beyond = rule.places_beyond
    field, scaled = len(lines), rule.scale_by_field and largest
    shares: dict[int, Fraction] = {}
    group = Counter([line.rank for line in lines])
    lone = None  # the share of a place past the table held alone, the commonest
    first = 1
    for rank in sorted(group):
        size = group[rank]
        if size == 1 and first > table and lone is not None:
            shares[rank] = lone
            first += 1
            continue
        last = first + size - 1
        inside = min(last, table)
        held = (sums[inside] - sums[first - 1] if first <= table else 0) + beyond * (
            last - max(inside, first - 1)
        )
        pair = (held * field, size * largest) if scaled else (held, size)
        share = made.get(pair)
        if share is None:  # one object per value: (2, 2) and (1, 1) are the same 1
            value = Fraction(*pair)
            share = made[pair] = made.setdefault(value, value)
        shares[rank] = share
        if size == 1 and first > table:
            lone = share
        first = last + 1
    return shares


def event_points(rule: Rule, event: Event, largest: int) -> dict[str, tuple[Fraction, int]]:
    """Each player's (event points, weight) in one event under the rule; ``largest`` is the
    largest field of the championship (for ``scale_by_field``). The weight is the donnes
    compared under ``percentage``, 1 otherwise."""
    return {player: (points, weight) for player, points, weight in _event(rule, event, largest, {})}


def _event(
    rule: Rule, event: Event, largest: int, made: dict[object, Fraction]
) -> list[tuple[str, Fraction, int]]:
    """(player, event points, weight) for every line of the event."""
    if rule.kind == "places":
        shares = _places_of(rule, _place_points(rule), event.lines, largest, made)
        return [(line.player, shares[line.rank], 1) for line in event.lines]
    if rule.kind == "percentage":
        return [
            (
                line.player,
                _ZERO if line.percentage is None else line.percentage,
                line.donnes_compared,
            )
            for line in event.lines
        ]
    return [(line.player, line.total, 1) for line in event.lines]


def _ordered(events: Iterable[Event]) -> list[Event]:
    """The events in date order, then by key; an event counted twice or a player twice in
    one event is refused (InvalidChampionshipEvents)."""
    ordered = sorted(events, key=lambda event: (event.date, event.key))
    if len({event.key for event in ordered}) != len(ordered):
        seen: set[str] = set()
        for event in ordered:
            if event.key in seen:
                raise InvalidChampionshipEvents("championship_event_twice", event=event.key)
            seen.add(event.key)
    for event in ordered:
        if len({line.player for line in event.lines}) != len(event.lines):
            players: set[str] = set()
            for line in event.lines:
                if line.player in players:
                    raise InvalidChampionshipEvents(
                        "championship_player_twice", player=line.player, event=event.key
                    )
                players.add(line.player)
    return ordered


def _scores(
    rule: Rule, events: Sequence[Event], wanted: frozenset[str] | None
) -> tuple[dict[str, list[_Entry]], _Scale]:
    """Every player's events, in date order then by key (only the ``wanted`` players when
    given), and the scale of their points and of the rule's handicaps; each event's points
    as `_event` gives them, read here without the (player, points, weight) tuples."""
    ordered = _ordered(events)
    largest = max((len(event.lines) for event in ordered), default=0)
    handicaps = [Fraction(h) for h in rule.handicaps.values()]
    made: dict[object, Fraction] = {}
    shares: list[dict[int, Fraction]] = []
    if rule.kind == "places":
        sums = _place_points(rule)
        shares = [_places_of(rule, sums, e.lines, largest, made) for e in ordered]
        scale = _Scale([*made.values(), *handicaps])
    elif rule.kind == "percentage":
        percentages = (p for e in ordered for *_l, p, _c in e.lines if p is not None)
        scale = _Scale([_ZERO, *percentages, *handicaps])
    else:
        scale = _Scale([*(line.total for e in ordered for line in e.lines), *handicaps])
    units = scale.units
    scores: defaultdict[str, list[_Entry]] = defaultdict(list)
    for n, event in enumerate(ordered):
        day, key = event.date.toordinal(), event.key
        lines = event.lines
        if wanted is not None:
            lines = tuple(line for line in lines if line.player in wanted)
        if rule.kind == "places":
            share = shares[n]
            for player, rank, _total, _percentage, _compared in lines:
                points = share[rank]
                scores[player].append((units[id(points)], 1, day, key, points))
        elif rule.kind == "percentage":
            for player, _rank, _total, percentage, compared in lines:
                points = _ZERO if percentage is None else percentage
                scores[player].append((units[id(points)], compared, day, key, points))
        else:
            for player, _rank, total, _percentage, _compared in lines:
                scores[player].append((units[id(total)], 1, day, key, total))
    return scores, scale


# --- a player's line ---------------------------------------------------------------------


def _counted(rule: Rule, scores: list[_Entry]) -> list[bool]:
    """Which of a player's events count: all, or his best_of best (points, then the more
    recent, then the smaller key: his events come in date then key order, and the sort is
    stable)."""
    if rule.best_of is None or len(scores) <= rule.best_of:
        return [True] * len(scores)
    order = sorted(
        range(len(scores)), key=lambda i: (scores[i][_UNITS], scores[i][_DAY]), reverse=True
    )
    counted = [False] * len(scores)
    for i in order[: rule.best_of]:
        counted[i] = True
    return counted


def _tie_key(rule: Rule, kept: list[_Entry]) -> tuple[object, ...]:
    """The tie-breaks' values for a player, higher better, compared in order (each event's
    points as its units on the season's scale)."""
    values: list[object] = []
    for name in rule.tie_breaks:
        if name == "events":
            values.append(len(kept))
        elif name == "best":
            values.append(tuple(sorted([e[_UNITS] for e in kept], reverse=True)))
        elif name == "recent":
            values.append(_recent(kept))
    return tuple(values)


def _recent(kept: list[_Entry]) -> tuple[int, ...]:
    """The points of the counted events, most recent first (one day's by points, highest
    first): ``kept`` is in date order, so backwards unless two share a day."""
    days = [e[_DAY] for e in kept]
    if len(set(days)) == len(days):
        return tuple([e[_UNITS] for e in reversed(kept)])
    latest = sorted(kept, key=lambda e: (e[_DAY], e[_UNITS]), reverse=True)
    return tuple([e[_UNITS] for e in latest])


class _Draft(NamedTuple):
    player: str
    order: int | Fraction  # equal exactly when the points are: units, or the exact mean
    points: Fraction
    handicap: Fraction
    events: tuple[EventScore, ...]
    kept: list[_Entry]
    classified: bool


class _Drafting:
    """What a season's drafts share: the rule, the scale, one Fraction per handicap added."""

    def __init__(self, rule: Rule, scale: _Scale) -> None:
        self.rule, self.scale = rule, scale
        self._added: dict[tuple[int, int], Fraction] = {}

    def added(self, handicap: Fraction, units: int, times: int) -> Fraction:
        """The handicap (``units`` on the scale) added ``times`` times, one object per value."""
        made = self._added.get((units, times))
        if made is None:
            made = self._added[(units, times)] = handicap * times
        return made

    def draft(self, player: str, scores: list[_Entry], handicap: Fraction) -> _Draft:
        """A player's line before ranking."""
        rule = self.rule
        if rule.best_of is None or len(scores) <= rule.best_of:
            kept = scores
            events = tuple([EventScore(e[_KEY], e[_POINTS], True) for e in scores])
        else:
            counted = _counted(rule, scores)
            kept = [e for e, keep in zip(scores, counted, strict=True) if keep]
            events = tuple(
                [EventScore(e[_KEY], e[_POINTS], c) for e, c in zip(scores, counted, strict=True)]
            )
        order: int | Fraction
        if not kept:
            order = points = added = _ZERO
        elif rule.kind == "percentage":
            weight = sum([e[_WEIGHT] for e in kept])
            summed = sum([e[_UNITS] * e[_WEIGHT] for e in kept])
            mean = Fraction(summed, self.scale.denominator * weight) if weight else _ZERO
            order = points = mean + handicap
            added = handicap
        else:
            units = self.scale.unit(handicap)
            added = self.added(handicap, units, len(kept))
            order = sum([e[_UNITS] for e in kept]) + units * len(kept)
            points = self.scale.value(order)
        classified = len(scores) >= rule.minimum_events
        return _Draft(player, order, points, added, events, kept, classified)


def _ranked(rule: Rule, drafts: Sequence[_Draft], classified: bool) -> list[tuple[Line, int]]:
    """Sorted lines, each with its rank before the classification is applied (None in the
    line when not classified; the number still tells who is equal to whom)."""
    drafts = sorted(drafts, key=lambda d: d.player)
    drafts.sort(key=lambda d: d.order, reverse=True)
    keys: list[tuple[object, ...]] = [()] * len(drafts)
    if rule.tie_breaks:
        start = 0
        while start < len(drafts):
            end = start + 1
            order = drafts[start].order
            while end < len(drafts) and drafts[end].order == order:
                end += 1
            if end - start > 1:
                run = [(_tie_key(rule, d.kept), d) for d in drafts[start:end]]
                run.sort(key=lambda pair: pair[0], reverse=True)
                keys[start:end] = [key for key, _d in run]
                drafts[start:end] = [d for _key, d in run]
            start = end
    lines: list[tuple[Line, int]] = []
    rank = 0
    for index, draft in enumerate(drafts):
        if not (
            index and drafts[index - 1].order == draft.order and keys[index - 1] == keys[index]
        ):
            rank = index + 1
        line = Line(
            draft.player,
            rank if classified else None,
            classified,
            draft.points,
            draft.handicap,
            draft.events,
            len(draft.kept),
        )
        lines.append((line, rank))
    return lines


def _drafts(
    rule: Rule, events: Sequence[Event], series: Mapping[str, str], wanted: frozenset[str] | None
) -> list[_Draft]:
    """Every (wanted) player's line before ranking."""
    scores, scale = _scores(rule, events, wanted)
    drafting = _Drafting(rule, scale)
    handicaps = {serie: Fraction(value) for serie, value in rule.handicaps.items()}
    scale.keep(handicaps.values())  # looked up by identity then
    return [
        drafting.draft(player, entries, handicaps.get(series.get(player, ""), _ZERO))
        for player, entries in scores.items()
    ]


def _lines(rule: Rule, drafts: Sequence[_Draft]) -> list[tuple[Line, int]]:
    """The classified players ranked, then those listed apart (their ranks after the
    classified players': a number tells who is equal to whom across both)."""
    classified = [draft for draft in drafts if draft.classified]
    apart = [draft for draft in drafts if not draft.classified]
    shift = len(classified)
    return _ranked(rule, classified, True) + [
        (line, rank + shift) for line, rank in _ranked(rule, apart, False)
    ]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a season's lines are made (hundreds of
    thousands of small tuples, none in a cycle: each collection would walk them all again),
    as the tournament ranking's recomputation does."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


SerieLine = tuple[int, int | None]  # (index of the player's line among everyone's, his rank)


@dataclass(frozen=True)
class Standings:
    """Everyone's lines and each série's ranked apart, made once (`championship_standings`).

    ``lines``: everyone's, as `championship_ranking` gives them; ``series``: série -> its
    players in the série's order, each as (index of his line in ``lines``, his rank in the
    série, None when not classified). A série's line is his line among everyone's with the
    série's rank (`scope`): points, handicap and events are the same.
    """

    lines: Sequence[Line]
    series: Mapping[str, Sequence[SerieLine]]

    def scope(self, serie: str | None = None) -> list[Line]:
        """Everyone's lines (``serie`` None or "") or the série's, ranked apart (none for a
        série it does not have)."""
        if not serie:
            return list(self.lines)
        lines = self.lines
        return [_ranked_as(lines[index], rank) for index, rank in self.series.get(serie, ())]


def _ranked_as(line: Line, rank: int | None) -> Line:
    """The line with another rank."""
    if line.rank == rank:
        return line
    return Line(
        line.player, rank, line.classified, line.points, line.handicap, line.events, line.counted
    )


def _serie_lines(
    ranked: list[tuple[Line, int]], series: Mapping[str, str]
) -> dict[str, list[SerieLine]]:
    """Each série's players in everyone's order, ranked among themselves. Everyone's order is
    by points, tie-breaks then player key, each player's own, so a série's order is its
    players' order there; two of its players are equal when their ranks among everyone are."""
    found: dict[str, list[SerieLine]] = {serie: [] for serie in sorted(set(series.values()))}
    previous: dict[
        str, tuple[int, int]
    ] = {}  # série -> (everyone's rank, série's rank) of the last
    for index, (line, among_all) in enumerate(ranked):
        serie = series.get(line.player)
        if serie is None:
            continue
        members = found[serie]
        rank = None
        if line.classified:  # they come first: the série's classified so far are its members
            last = previous.get(serie)
            rank = last[1] if last is not None and last[0] == among_all else len(members) + 1
            previous[serie] = (among_all, rank)
        members.append((index, rank))
    return found


def championship_standings(
    rule: Rule, events: Sequence[Event], series: Mapping[str, str] = _NO_SERIES
) -> Standings:
    """Everyone's ranking and each série's apart (every série ``series`` names), made once:
    ``championship_standings(...).scope(s) == championship_ranking(rule, events, series,
    serie=s)`` for every série ``s`` and ``.scope(None)`` is everyone's. The rule is assumed
    valid; InvalidChampionshipEvents as `championship_ranking`."""
    with _collector_paused():
        ranked = _lines(rule, _drafts(rule, events, series, None))
        return Standings([line for line, _rank in ranked], _serie_lines(ranked, series))


def championship_ranking(
    rule: Rule,
    events: Sequence[Event],
    series: Mapping[str, str] = _NO_SERIES,
    serie: str | None = None,
) -> list[Line]:
    """The championship's lines: the classified players ranked (highest points first, the
    tie-breaks, then shared ranks listed by player key), then the non classés in the same
    order without a rank. ``series`` gives a player's série (for its handicap); with ``serie``
    only that série's players are listed, ranked among themselves (their event points are
    still those of the whole field). The rule is assumed valid (`validate_rule`); an event
    counted twice or a player twice in one event raises InvalidChampionshipEvents."""
    wanted = None
    if serie is not None:
        wanted = frozenset(player for player, label in series.items() if label == serie)
    with _collector_paused():
        return [line for line, _rank in _lines(rule, _drafts(rule, events, series, wanted))]


def championship_scopes(
    rule: Rule, events: Sequence[Event], series: Mapping[str, str] = _NO_SERIES
) -> dict[str, list[Line]]:
    """Everyone's ranking (under "") and each série's apart (under its name), computed once:
    ``championship_scopes(...)[s] == championship_ranking(rule, events, series, serie=s)``
    for every série ``s`` that ``series`` names, and ``[""]`` is everyone's."""
    standings = championship_standings(rule, events, series)
    return {"": standings.scope(None)} | {
        serie: standings.scope(serie) for serie in standings.series
    }


def player_events(
    rule: Rule, events: Sequence[Event], player: str, series: Mapping[str, str] = _NO_SERIES
) -> tuple[EventScore, ...]:
    """One player's events in date order with his points in each and whether it counts (the
    page's expandable line); the same as his line's ``events`` in `championship_ranking`."""
    scores, scale = _scores(rule, events, frozenset((player,)))
    handicap = Fraction(rule.handicaps.get(series.get(player, ""), 0))
    return _Drafting(rule, scale).draft(player, scores.get(player, []), handicap).events


def qualifiers(lines: Sequence[Line], top: int) -> list[str]:
    """The classified players whose rank is ``top`` or better, in line order: players tied at
    the cut all qualify (ranks 1, 2, 3, 3 with top 3 are four players)."""
    return [line.player for line in lines if line.rank is not None and line.rank <= top]


# --- the rule's checks -------------------------------------------------------------------


class _RuleError(ScoringError):
    """A rule field that cannot be."""


class InvalidChampionshipKind(_RuleError):
    field = "kind"
    templates = {
        "championship_kind_unknown": _(
            "Unknown championship kind %(value)s. Choose total, percentage or places."
        ),
    }


class InvalidPlacesTable(_RuleError):
    field = "places"
    templates = {
        "championship_places_empty": _(
            "A championship by places needs its table of points: enter the points for the "
            "first place, the second, and so on."
        ),
        "championship_places_negative": _(
            "The points of place %(place)s are %(value)s; points by place are zero or more."
        ),
        "championship_places_increasing": _(
            "Place %(place)s gets %(value)s points, more than place %(previous)s "
            "(%(previous_value)s). A better place never gets fewer points: enter the table "
            "from the first place down."
        ),
    }


class InvalidPlacesBeyond(_RuleError):
    field = "places_beyond"
    templates = {
        "championship_places_beyond_negative": _(
            "The points for a place past the table are %(value)s; enter zero or more."
        ),
        "championship_places_beyond_above_table": _(
            "A place past the table would get %(value)s points, more than the table's last "
            "place (%(last)s). Enter at most %(last)s."
        ),
    }


class InvalidBestOf(_RuleError):
    field = "best_of"
    templates = {
        "championship_best_of_invalid": _(
            "The number of best events that count must be 1 or more; %(value)s is not. "
            "Leave it empty to count every event."
        ),
        "championship_best_of_above_events": _(
            "The best %(value)s events cannot count: the championship has %(events)s. "
            "Enter at most %(events)s, or leave it empty."
        ),
    }


class InvalidMinimumEvents(_RuleError):
    field = "minimum_events"
    templates = {
        "championship_minimum_negative": _(
            "The minimum number of events must be zero or more; %(value)s is not."
        ),
    }


class InvalidTieBreaks(_RuleError):
    field = "tie_breaks"
    templates = {
        "championship_tie_break_unknown": _(
            "Unknown tie-break %(value)s. Choose among events, best and recent."
        ),
        "championship_tie_break_repeated": _(
            "The tie-break %(value)s is given twice; give each tie-break once."
        ),
    }


class InvalidHandicaps(_RuleError):
    field = "handicaps"
    templates = {
        "championship_handicap_invalid": _(
            "The handicap of série %(serie)s must be a number of points; %(value)s is not."
        ),
        "championship_handicap_serie_empty": _("A handicap must name its série."),
    }


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _places_errors(rule: Rule) -> list[ScoringError]:
    """The places table's and the points past it's errors (the first of each kind)."""
    errors: list[ScoringError] = []
    places = rule.places
    if not places:
        errors.append(InvalidPlacesTable("championship_places_empty"))
    bad = [place for place, value in enumerate(places, 1) if not _is_whole(value) or value < 0]
    if bad:
        errors.append(
            InvalidPlacesTable(
                "championship_places_negative",
                place=bad[0],
                value=display_value(places[bad[0] - 1]),
            )
        )
    rising = [
        place
        for place in range(2, len(places) + 1)
        if place not in bad and place - 1 not in bad and places[place - 1] > places[place - 2]
    ]
    if rising:
        place = rising[0]
        errors.append(
            InvalidPlacesTable(
                "championship_places_increasing",
                place=place,
                value=places[place - 1],
                previous=place - 1,
                previous_value=places[place - 2],
            )
        )
    beyond = rule.places_beyond
    if not _is_whole(beyond) or beyond < 0:
        errors.append(
            InvalidPlacesBeyond("championship_places_beyond_negative", value=display_value(beyond))
        )
    elif rule.places and _is_whole(rule.places[-1]) and 0 <= rule.places[-1] < beyond:
        errors.append(
            InvalidPlacesBeyond(
                "championship_places_beyond_above_table",
                value=display_value(beyond),
                last=rule.places[-1],
            )
        )
    return errors


def _count_errors(rule: Rule, events_count: int | None) -> list[ScoringError]:
    errors: list[ScoringError] = []
    best_of = rule.best_of
    if best_of is not None:
        if not _is_whole(best_of) or best_of < 1:
            errors.append(
                InvalidBestOf("championship_best_of_invalid", value=display_value(best_of))
            )
        elif events_count is not None and best_of > events_count:
            errors.append(
                InvalidBestOf(
                    "championship_best_of_above_events",
                    value=display_value(best_of),
                    events=events_count,
                )
            )
    if not _is_whole(rule.minimum_events) or rule.minimum_events < 0:
        errors.append(
            InvalidMinimumEvents(
                "championship_minimum_negative", value=display_value(rule.minimum_events)
            )
        )
    return errors


def _tie_and_handicap_errors(rule: Rule) -> list[ScoringError]:
    errors: list[ScoringError] = []
    seen: set[str] = set()
    for name in rule.tie_breaks:
        if name not in TIE_BREAKS:
            errors.append(
                InvalidTieBreaks("championship_tie_break_unknown", value=display_value(name))
            )
        elif name in seen:
            errors.append(
                InvalidTieBreaks("championship_tie_break_repeated", value=display_value(name))
            )
        seen.add(name)
    for serie, value in rule.handicaps.items():
        if not isinstance(serie, str) or not serie.strip():
            errors.append(InvalidHandicaps("championship_handicap_serie_empty"))
        elif not (_is_whole(value) or isinstance(value, Fraction)):
            errors.append(
                InvalidHandicaps(
                    "championship_handicap_invalid", serie=serie, value=display_value(value)
                )
            )
    return errors


def rule_errors(rule: Rule, events_count: int | None = None) -> list[ScoringError]:
    """Every reason the rule cannot be, as errors naming their field (``err.field``) with a
    translatable message: an unknown kind, a places table empty, negative or increasing (equal
    neighbours are fine), points past the table negative or above its last place, best_of
    below 1 or above ``events_count`` (when given), a negative minimum, an unknown or repeated
    tie-break, a handicap that is not a number or names no série. Empty when the rule is valid."""
    if rule.kind not in KINDS:
        return [
            InvalidChampionshipKind("championship_kind_unknown", value=display_value(rule.kind))
        ]
    errors = _places_errors(rule) if rule.kind == "places" else []
    return errors + _count_errors(rule, events_count) + _tie_and_handicap_errors(rule)


def validate_rule(rule: Rule, events_count: int | None = None) -> list[tuple[str, str]]:
    """[(field, code)] for every reason the rule cannot be (see `rule_errors`); empty when
    valid."""
    return [(error.field, error.code) for error in rule_errors(rule, events_count)]
