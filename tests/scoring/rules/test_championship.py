"""The championship rule, pure (`scoring.rules.championship`): properties over random small
seasons, a brute-force reference, and hand-computed seasons of each kind."""

from __future__ import annotations

import dataclasses
import datetime
import itertools
from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from scoring.rules.championship import (
    KINDS,
    TIE_BREAKS,
    Event,
    EventLine,
    EventScore,
    InvalidChampionshipEvents,
    Rule,
    _Scale,  # the shortcut, tied to Fractions below
    championship_ranking,
    championship_scopes,
    championship_standings,
    event_points,
    player_events,
    qualifiers,
    rule_errors,
    validate_rule,
)
from scoring.rules.season import shared_ranks

F = Fraction
PLAYERS = [f"L{n}" for n in range(1, 7)]
SERIES = ("1re", "2e")
DAY0 = datetime.date(2026, 9, 1)

small = st.fractions(min_value=-40, max_value=40, max_denominator=4)
percent = st.fractions(min_value=0, max_value=100, max_denominator=6)


@st.composite
def event(draw, key: str) -> Event:
    """One event: distinct players, competition ranks from their totals (equal totals share)."""
    players = draw(st.lists(st.sampled_from(PLAYERS), unique=True, min_size=1))
    totals = {p: draw(st.integers(-3, 3).map(lambda n: F(n * 10, 3))) for p in players}
    ordered = sorted(players, key=lambda p: -totals[p])
    ranks = shared_ranks([totals[p] for p in ordered])
    lines = []
    for player, rank in zip(ordered, ranks, strict=True):
        pct = draw(st.none() | percent)
        compared = draw(st.integers(0, 6))
        lines.append(EventLine(player, rank, totals[player], pct, compared))
    day = DAY0 + datetime.timedelta(days=draw(st.integers(0, 4)))
    return Event(key, day, tuple(lines))


@st.composite
def season(draw, max_events: int = 5) -> list[Event]:
    count = draw(st.integers(0, max_events))
    return [draw(event(f"t:{n}")) for n in range(count)]


@st.composite
def places_table(draw) -> tuple[tuple[int, ...], int]:
    values = draw(st.lists(st.integers(0, 30), min_size=1, max_size=5))
    table = tuple(sorted(values, reverse=True))
    return table, draw(st.integers(0, table[-1]))


@st.composite
def rule(draw, kind: str | None = None, handicaps: bool = True, best_of: bool = False) -> Rule:
    kind = kind or draw(st.sampled_from(KINDS))
    table, beyond = draw(places_table())
    chosen = draw(st.permutations(TIE_BREAKS))
    return Rule(
        kind=kind,
        places=table if kind == "places" else (),
        places_beyond=beyond if kind == "places" else 0,
        scale_by_field=kind == "places" and draw(st.booleans()),
        best_of=draw(st.integers(1, 4) if best_of else st.none() | st.integers(1, 4)),
        minimum_events=draw(st.integers(0, 3)),
        tie_breaks=tuple(chosen[: draw(st.integers(0, 3))]),
        handicaps={s: draw(small) for s in SERIES} if handicaps and draw(st.booleans()) else {},
    )


series_of = st.dictionaries(st.sampled_from(PLAYERS), st.sampled_from(SERIES))


def by_player(lines) -> dict:
    return {line.player: line for line in lines}


def table_points(rule: Rule, place: int) -> int:
    return rule.places[place - 1] if place <= len(rule.places) else rule.places_beyond


# --- properties ---------------------------------------------------------------------------


@given(rule(kind="places", handicaps=False), season(), event("t:new"))
def test_places_adding_an_event_never_lowers_points(rule, events, extra):
    """Under places (points >= 0), an extra event never lowers anyone, best_of or not, as long
    as it does not enlarge the largest field the points are scaled by."""
    largest = max((len(e.lines) for e in events), default=0)
    assume(not rule.scale_by_field or len(extra.lines) <= largest)
    before = by_player(championship_ranking(rule, events))
    after = by_player(championship_ranking(rule, [*events, extra]))
    for player, line in before.items():
        assert after[player].points >= line.points


@given(rule(kind="total", handicaps=False, best_of=True), season(), event("t:new"))
def test_best_of_never_lowers_a_full_window_by_adding_an_event(rule, events, extra):
    """Under total, once a player has best_of events, a further one never lowers his points
    (it only counts when it beats one of his counted events)."""
    before = by_player(championship_ranking(rule, events))
    after = by_player(championship_ranking(rule, [*events, extra]))
    for player, line in before.items():
        if len(line.events) >= rule.best_of:
            assert after[player].points >= line.points
            assert after[player].counted == rule.best_of


@given(rule(kind="percentage", best_of=True), season(), event("t:new"))
def test_percentage_best_of_keeps_the_best_percentages_after_an_event(rule, events, extra):
    """Under percentage, with a full window the k-th best counted percentage never drops."""
    before = by_player(championship_ranking(rule, events))
    after = by_player(championship_ranking(rule, [*events, extra]))
    for player, line in before.items():
        if len(line.events) >= rule.best_of:
            old = sorted((s.points for s in line.events if s.counted), reverse=True)
            new = sorted((s.points for s in after[player].events if s.counted), reverse=True)
            assert all(n >= o for n, o in zip(new, old, strict=True))


@given(rule(kind="places"), event("t:1"), st.integers(1, 12))
def test_places_given_in_an_event_sum_to_the_tables_points(rule, one, largest):
    """Equal ranks share: the points of one event are the table's points for its field."""
    largest = max(largest, len(one.lines))
    field = len(one.lines)
    given_out = sum((p for p, _w in event_points(rule, one, largest).values()), F(0))
    expected = sum(table_points(rule, place) for place in range(1, field + 1))
    scale = F(field, largest) if rule.scale_by_field else 1
    assert given_out == expected * scale


@given(rule(kind="places"), season())
def test_places_points_in_the_lines_sum_per_event(rule, events):
    lines = championship_ranking(rule, events)
    largest = max((len(e.lines) for e in events), default=0)
    for one in events:
        field = len(one.lines)
        scale = F(field, largest) if rule.scale_by_field else 1
        total = sum((s.points for line in lines for s in line.events if s.event == one.key), F(0))
        assert total == sum(table_points(rule, p) for p in range(1, field + 1)) * scale


def rename(events: list[Event], a: str, b: str) -> list[Event]:
    swap = {a: b, b: a}
    return [
        Event(
            e.key,
            e.date,
            tuple(line._replace(player=swap.get(line.player, line.player)) for line in e.lines),
        )
        for e in events
    ]


@given(rule(), season(), series_of, st.permutations(PLAYERS))
def test_swapping_two_players_swaps_their_lines(rule, events, series, order):
    """Ties are symmetric: nothing but a player's results decides his line."""
    a, b = order[:2]
    swapped_series = {({a: b, b: a}.get(p, p)): s for p, s in series.items()}
    before = by_player(championship_ranking(rule, events, series))
    after = by_player(championship_ranking(rule, rename(events, a, b), swapped_series))
    assert set(after) == {({a: b, b: a}.get(p, p)) for p in before}
    for player, line in before.items():
        other = after[{a: b, b: a}.get(player, player)]
        assert (other.rank, other.points, other.handicap, other.events, other.counted) == (
            line.rank,
            line.points,
            line.handicap,
            line.events,
            line.counted,
        )


@given(rule(), season(), series_of, st.randoms())
def test_the_order_of_events_and_lines_does_not_matter(rule, events, series, rnd):
    shuffled = [Event(e.key, e.date, tuple(rnd.sample(e.lines, len(e.lines)))) for e in events]
    rnd.shuffle(shuffled)
    assert championship_ranking(rule, shuffled, series) == championship_ranking(
        rule, events, series
    )


@given(rule(), season(), series_of)
def test_minimum_events_lists_the_non_classes_apart(rule, events, series):
    lines = championship_ranking(rule, events, series)
    played = {}
    for one in events:
        for line in one.lines:
            played[line.player] = played.get(line.player, 0) + 1
    assert {line.player for line in lines} == set(played)
    for line in lines:
        assert line.classified == (played[line.player] >= rule.minimum_events)
        assert (line.rank is None) == (not line.classified)
        assert len(line.events) == played[line.player]
    flags = [line.classified for line in lines]
    assert flags == sorted(flags, reverse=True)
    ranks = [line.rank for line in lines if line.classified]
    assert ranks == sorted(ranks)
    assert not ranks or ranks[0] == 1


@given(rule(), season(), series_of, st.sampled_from(SERIES))
def test_a_serie_is_ranked_apart_with_the_same_event_points(rule, events, series, serie):
    everyone = by_player(championship_ranking(rule, events, series))
    apart = championship_ranking(rule, events, series, serie=serie)
    assert {line.player for line in apart} == {p for p in everyone if series.get(p) == serie}
    for line in apart:
        whole = everyone[line.player]
        assert (line.points, line.handicap, line.events) == (
            whole.points,
            whole.handicap,
            whole.events,
        )
    classified = [line for line in apart if line.classified]
    for line in classified:
        assert line.rank == 1 + sum(
            1 for o in classified if reference_better(rule, events, o, line)
        )


@given(rule(), season(), series_of)
def test_scopes_are_everyone_and_each_serie_ranked_apart(rule, events, series):
    scopes = championship_scopes(rule, events, series)
    assert set(scopes) == {"", *series.values()}
    assert scopes[""] == championship_ranking(rule, events, series)
    for serie in set(series.values()):
        assert scopes[serie] == championship_ranking(rule, events, series, serie=serie)


@given(rule(), season(), series_of)
def test_standings_rank_each_serie_as_the_plain_ranking_of_its_players(rule, events, series):
    """The shortcut (a série's order and ranks read from everyone's) against ranking the
    série's players alone."""
    standings = championship_standings(rule, events, series)
    assert standings.scope(None) == championship_ranking(rule, events, series)
    assert set(standings.series) == set(series.values())
    for serie in standings.series:
        assert standings.scope(serie) == championship_ranking(rule, events, series, serie=serie)
        for index, rank in standings.series[serie]:
            assert series[standings.lines[index].player] == serie
            assert (rank is None) == (not standings.lines[index].classified)
    assert standings.scope("no such série") == []


any_value = st.fractions(min_value=-1000, max_value=1000, max_denominator=60) | st.integers(-9, 9)


@given(st.lists(any_value, min_size=1, max_size=30))
def test_the_scale_adds_and_compares_as_fractions(values):
    """The shortcut (values as whole multiples of one common denominator) against Fraction
    arithmetic."""
    scale = _Scale(values)
    units = [scale.unit(v) for v in values]
    assert all(u == v * scale.denominator for u, v in zip(units, values, strict=True))
    assert all(scale.value(u) == v for u, v in zip(units, values, strict=True))
    assert scale.value(sum(units)) == sum(values, F(0))
    for (a, ua), (b, ub) in itertools.product(zip(values, units, strict=True), repeat=2):
        assert (a < b) == (ua < ub) and (a == b) == (ua == ub)
    assert scale.unit(F(values[0]) * 3) == 3 * units[0]  # an equal value, another object


@st.composite
def season_of_any_denominators(draw) -> list[Event]:
    """Totals and percentages of unrelated denominators (the scale's lcm grows)."""
    events = []
    for n in range(draw(st.integers(1, 4))):
        players = draw(st.lists(st.sampled_from(PLAYERS), unique=True, min_size=1))
        totals = {p: draw(any_value) for p in players}
        ordered = sorted(players, key=lambda p: -totals[p])
        ranks = shared_ranks([totals[p] for p in ordered])
        lines = tuple(
            EventLine(
                p, r, totals[p], draw(st.none() | any_value.map(abs)), draw(st.integers(0, 5))
            )
            for p, r in zip(ordered, ranks, strict=True)
        )
        events.append(Event(f"s:{n}", DAY0 + datetime.timedelta(days=n % 2), lines))
    return events


@given(rule(), season_of_any_denominators(), series_of)
def test_points_are_the_plain_sums_whatever_the_denominators(rule, events, series):
    """Each line's points, computed on the scale, against Fraction sums of its events."""
    largest = max(len(e.lines) for e in events)
    earned = {e.key: event_points(rule, e, largest) for e in events}
    for line in championship_ranking(rule, events, series):
        handicap = F(rule.handicaps.get(series.get(line.player, ""), 0))
        kept = [s for s in line.events if s.counted]
        assert all(s.points == earned[s.event][line.player][0] for s in line.events)
        if rule.kind == "percentage":
            weights = [earned[s.event][line.player][1] for s in kept]
            summed = sum((s.points * w for s, w in zip(kept, weights, strict=True)), F(0))
            mean = summed / sum(weights) if sum(weights) else F(0)
            assert line.points == mean + handicap
        else:
            assert line.points == sum((s.points for s in kept), F(0)) + handicap * len(kept)
    lines = championship_ranking(rule, events, series)
    classified = [line.points for line in lines if line.classified]
    assert classified == sorted(classified, reverse=True)


@given(rule(), season(), series_of)
def test_player_events_is_the_lines_events(rule, events, series):
    for line in championship_ranking(rule, events, series):
        assert player_events(rule, events, line.player, series) == line.events
    assert player_events(rule, events, "L999") == ()


@given(rule(), season(), series_of, st.integers(1, 6))
def test_qualifiers_take_every_player_tied_at_the_cut(rule, events, series, top):
    lines = championship_ranking(rule, events, series)
    chosen = qualifiers(lines, top)
    classified = [line for line in lines if line.classified]
    assert chosen == [line.player for line in classified if line.rank <= top]
    if len(classified) >= top:
        assert len(chosen) >= top
    for line in classified:
        if line.player not in chosen:
            assert all(not reference_equal(rule, events, line, by_player(lines)[p]) for p in chosen)


# --- the brute-force reference -----------------------------------------------------------


def reference_points(rule: Rule, one: Event, player: str, largest: int) -> F:
    """A player's event points computed from scratch: places by counting who ranks ahead."""
    line = next(line for line in one.lines if line.player == player)
    if rule.kind == "total":
        return line.total
    if rule.kind == "percentage":
        return line.percentage if line.percentage is not None else F(0)
    ahead = sum(1 for other in one.lines if other.rank < line.rank)
    tied = sum(1 for other in one.lines if other.rank == line.rank)
    held = [table_points(rule, place) for place in range(ahead + 1, ahead + tied + 1)]
    scale = F(len(one.lines), largest) if rule.scale_by_field else 1
    return F(sum(held), tied) * scale


def tie_values(rule: Rule, events: list[Event], line) -> list:
    dates = {e.key: e.date for e in events}
    counted = [s for s in line.events if s.counted]
    values = []
    for name in rule.tie_breaks:
        if name == "events":
            values.append(len(counted))
        elif name == "best":
            values.append(sorted((s.points for s in counted), reverse=True))
        else:
            recent = sorted(counted, key=lambda s: (dates[s.event], s.points), reverse=True)
            values.append([s.points for s in recent])
    return values


def reference_better(rule: Rule, events: list[Event], a, b) -> bool:
    """a before b: more points, else the first tie-break that differs (lists compare like the
    rule says: position by position, a further event beats none)."""
    if a.points != b.points:
        return a.points > b.points
    for x, y in zip(tie_values(rule, events, a), tie_values(rule, events, b), strict=True):
        if x != y:
            return x > y
    return False


def reference_equal(rule: Rule, events: list[Event], a, b) -> bool:
    return not reference_better(rule, events, a, b) and not reference_better(rule, events, b, a)


@given(rule(), season(max_events=6), series_of)
def test_against_a_brute_force_reference(rule, events, series):
    lines = championship_ranking(rule, events, series)
    largest = max((len(e.lines) for e in events), default=0)
    dates = {e.key: e.date for e in events}
    for line in lines:
        played = [e for e in events if any(x.player == line.player for x in e.lines)]
        points = {e.key: reference_points(rule, e, line.player, largest) for e in played}
        assert {s.event: s.points for s in line.events} == points
        assert [s.event for s in line.events] == [
            e.key for e in sorted(played, key=lambda e: (e.date, e.key))
        ]
        size = len(played) if rule.best_of is None else min(rule.best_of, len(played))
        counted = [s for s in line.events if s.counted]
        assert line.counted == len(counted) == size
        # every dropped event is worse than every counted one: points, then older, then key
        for kept, dropped in itertools.product(counted, [s for s in line.events if not s.counted]):
            assert (kept.points, dates[kept.event], dropped.event) > (
                dropped.points,
                dates[dropped.event],
                kept.event,
            )
        handicap = F(rule.handicaps.get(series.get(line.player, ""), 0))
        if rule.kind == "percentage":
            weights = {e.key: next(x for x in e.lines if x.player == line.player) for e in played}
            weight = sum(weights[s.event].donnes_compared for s in counted)
            mean = (
                sum(s.points * weights[s.event].donnes_compared for s in counted) / weight
                if weight
                else 0
            )
            expected_handicap = handicap if counted else 0
            assert line.points == mean + expected_handicap
        else:
            best = max(
                (sum(c, F(0)) for c in itertools.combinations(points.values(), size)),
                default=F(0),
            )
            expected_handicap = handicap * size
            assert line.points == best + expected_handicap
        assert line.handicap == expected_handicap
    for group in (True, False):
        members = [line for line in lines if line.classified == group]
        for line in members:
            better = sum(1 for other in members if reference_better(rule, events, other, line))
            assert line.rank == (better + 1 if group else None)
        for first, second in itertools.pairwise(members):
            assert not reference_better(rule, events, second, first)
            if reference_equal(rule, events, first, second):
                assert first.player < second.player


# --- worked examples ---------------------------------------------------------------------


def day(n: int) -> datetime.date:
    return DAY0 + datetime.timedelta(days=n)


def ev(key: str, n: int, rows) -> Event:
    return Event(key, day(n), tuple(EventLine(*row) for row in rows))


AUTUMN = [
    ev(
        "t:1",
        0,
        [
            ("A", 1, F(30), F(60), 12),
            ("B", 2, F(10), F(55), 12),
            ("C", 2, F(10), F(55), 12),
            ("D", 4, F(-50), F(30), 12),
        ],
    ),
    ev("t:2", 7, [("A", 2, F(5), F(52), 8), ("B", 1, F(20), F(70), 8), ("D", 3, F(-25), F(28), 8)]),
    ev("t:3", 14, [("C", 1, F(45, 2), F(62), 4), ("A", 2, F(0), F(38), 4)]),
]


def summary(lines) -> list:
    return [(x.player, x.rank, x.points, [s.counted for s in x.events]) for x in lines]


def test_total_season_by_hand():
    """A 30+5+0 = 35, B 10+20 = 30, C 10+22.5 = 32.5, D -75; best of 2 drops A's 0."""
    assert summary(championship_ranking(Rule("total"), AUTUMN)) == [
        ("A", 1, F(35), [True, True, True]),
        ("C", 2, F(65, 2), [True, True]),
        ("B", 3, F(30), [True, True]),
        ("D", 4, F(-75), [True, True]),
    ]
    best = championship_ranking(Rule("total", best_of=2), AUTUMN)
    assert summary(best)[0] == ("A", 1, F(35), [True, True, False])


def test_percentage_season_by_hand_weighs_donnes_compared():
    """A (60·12 + 52·8 + 38·4) / 24 = 161/3; B (55·12 + 70·8) / 20 = 61; C (55·12 + 62·4) / 16
    = 56.75; D (30·12 + 28·8) / 20 = 29.2. Best of 1 keeps each one's best percentage."""
    lines = championship_ranking(Rule("percentage"), AUTUMN)
    assert summary(lines) == [
        ("B", 1, F(61), [True, True]),
        ("C", 2, F(227, 4), [True, True]),
        ("A", 3, F(161, 3), [True, True, True]),
        ("D", 4, F(146, 5), [True, True]),
    ]
    best = by_player(championship_ranking(Rule("percentage", best_of=1), AUTUMN))
    assert best["A"].points == 60 and best["C"].points == 62 and best["B"].points == 70


def test_places_season_by_hand_shares_equal_ranks():
    """Table 25, 20, 16, 13, then 1. Event 1: A 25, B and C share places 2-3 (18 each), D 13.
    Event 2: B 25, A 20, D 16. Event 3: C 25, A 20. A 65, B 43, C 43, D 29; B and C tie on
    the best event (25 both) and the second (18 both): they share the 2nd place."""
    rule = Rule("places", places=(25, 20, 16, 13), places_beyond=1, tie_breaks=("best",))
    assert summary(championship_ranking(rule, AUTUMN)) == [
        ("A", 1, F(65), [True, True, True]),
        ("B", 2, F(43), [True, True]),
        ("C", 2, F(43), [True, True]),
        ("D", 4, F(29), [True, True]),
    ]
    scaled = by_player(championship_ranking(dataclasses.replace(rule, scale_by_field=True), AUTUMN))
    # fields 4, 3, 2 against the largest 4: A 25 + 20·3/4 + 20·2/4 = 50
    assert scaled["A"].points == 50
    assert [s.points for s in scaled["C"].events] == [18, F(25, 2)]


def test_tie_breaks_in_order():
    """Equal 40 points: X counted 3 events (20, 10, 10), Y two (25, 15), Z two (15, 25)."""
    events = [
        ev(
            "t:1", 0, [("X", 1, F(20), None, 0), ("Y", 2, F(15), None, 0), ("Z", 2, F(15), None, 0)]
        ),
        ev("t:2", 1, [("X", 1, F(10), None, 0)]),
        ev(
            "t:3", 2, [("X", 1, F(10), None, 0), ("Y", 1, F(25), None, 0), ("Z", 1, F(25), None, 0)]
        ),
    ]

    def order(tie_breaks):
        lines = championship_ranking(Rule("total", tie_breaks=tie_breaks), events)
        return [(x.player, x.rank) for x in lines]

    assert order(()) == [("X", 1), ("Y", 1), ("Z", 1)]
    assert order(("events",)) == [("X", 1), ("Y", 2), ("Z", 2)]
    assert order(("best",)) == [("Y", 1), ("Z", 1), ("X", 3)]
    assert order(("recent",)) == [("Y", 1), ("Z", 1), ("X", 3)]
    swapped = [
        events[0],
        events[1],
        ev(
            "t:3", 2, [("X", 1, F(10), None, 0), ("Y", 1, F(15), None, 0), ("Z", 1, F(25), None, 0)]
        ),
    ]
    swapped[0] = ev(
        "t:1", 0, [("X", 1, F(20), None, 0), ("Y", 2, F(25), None, 0), ("Z", 2, F(15), None, 0)]
    )
    rule = Rule("total", tie_breaks=("best", "recent"))
    assert [(x.player, x.rank) for x in championship_ranking(rule, swapped)] == [
        ("Z", 1),
        ("Y", 2),
        ("X", 3),
    ]


def test_handicaps_and_series_apart():
    """Série 2e gets 5 points per counted event: B 30 + 10 = 40 passes A's 35; the 2e ranks
    B, D apart; qualifiers take the top of each list."""
    series = {"A": "1re", "C": "1re", "B": "2e", "D": "2e"}
    rule = Rule("total", handicaps={"2e": F(5)})
    lines = championship_ranking(rule, AUTUMN, series)
    assert [(x.player, x.rank, x.points, x.handicap) for x in lines] == [
        ("B", 1, F(40), F(10)),
        ("A", 2, F(35), F(0)),
        ("C", 3, F(65, 2), F(0)),
        ("D", 4, F(-65), F(10)),
    ]
    second = championship_ranking(rule, AUTUMN, series, serie="2e")
    assert [(x.player, x.rank) for x in second] == [("B", 1), ("D", 2)]
    assert qualifiers(lines, 1) == ["B"] and qualifiers(second, 5) == ["B", "D"]
    pct = by_player(
        championship_ranking(Rule("percentage", handicaps={"2e": F(3)}), AUTUMN, series)
    )
    assert (pct["B"].points, pct["B"].handicap) == (F(64), F(3))


def test_minimum_events_and_qualifiers_at_a_tie():
    lines = championship_ranking(Rule("total", minimum_events=3), AUTUMN)
    assert [(x.player, x.rank, x.classified) for x in lines] == [
        ("A", 1, True),
        ("C", None, False),
        ("B", None, False),
        ("D", None, False),
    ]
    rule = Rule("places", places=(25, 20, 16, 13), places_beyond=1)
    assert qualifiers(championship_ranking(rule, AUTUMN), 2) == ["A", "B", "C"]
    assert qualifiers(lines, 3) == ["A"]


def test_an_event_twice_or_a_player_twice_is_refused():
    with pytest.raises(InvalidChampionshipEvents) as err:
        championship_ranking(Rule("total"), [AUTUMN[0], AUTUMN[1], AUTUMN[0]])
    assert (err.value.field, err.value.code) == ("events", "championship_event_twice")
    doubled = ev("t:9", 1, [("A", 1, F(1), None, 0), ("A", 2, F(0), None, 0)])
    with pytest.raises(InvalidChampionshipEvents) as err:
        championship_ranking(Rule("total"), [doubled])
    assert err.value.code == "championship_player_twice" and "A" in str(err.value)


def test_an_empty_season_and_event_scores_are_plain():
    assert championship_ranking(Rule("places", places=(3,)), []) == []
    line = championship_ranking(Rule("total"), AUTUMN[2:])[0]
    assert line.events == (EventScore("t:3", F(45, 2), True),)


@pytest.mark.parametrize(
    ("rule", "count", "expected"),
    [
        (Rule("total"), None, []),
        (Rule("points"), None, [("kind", "championship_kind_unknown")]),
        (Rule("places"), None, [("places", "championship_places_empty")]),
        (Rule("places", places=(25, 20, 20, 1), places_beyond=1), 4, []),
        (Rule("places", places=(25, -1)), None, [("places", "championship_places_negative")]),
        (Rule("places", places=(20, 25)), None, [("places", "championship_places_increasing")]),
        (
            Rule("places", places=(10, 12, -1), places_beyond=-2),
            None,
            [
                ("places", "championship_places_negative"),
                ("places", "championship_places_increasing"),
                ("places_beyond", "championship_places_beyond_negative"),
            ],
        ),
        (
            Rule("places", places=(5, 3), places_beyond=4),
            None,
            [("places_beyond", "championship_places_beyond_above_table")],
        ),
        (Rule("total", best_of=0), None, [("best_of", "championship_best_of_invalid")]),
        (Rule("total", best_of=5), 4, [("best_of", "championship_best_of_above_events")]),
        (Rule("total", best_of=4), 4, []),
        (
            Rule("total", minimum_events=-1),
            None,
            [("minimum_events", "championship_minimum_negative")],
        ),
        (
            Rule("total", tie_breaks=("best", "luck", "best")),
            None,
            [
                ("tie_breaks", "championship_tie_break_unknown"),
                ("tie_breaks", "championship_tie_break_repeated"),
            ],
        ),
        (
            Rule("total", handicaps={"": F(1)}),
            None,
            [("handicaps", "championship_handicap_serie_empty")],
        ),
        (
            Rule("total", handicaps={"2e": 1.5}),
            None,
            [("handicaps", "championship_handicap_invalid")],
        ),
    ],
)
def test_validate_rule_names_the_field(rule, count, expected):
    assert validate_rule(rule, count) == expected


def test_rule_errors_carry_a_message_with_the_values():
    (error,) = rule_errors(Rule("places", places=(20, 25)))
    assert error.field == "places"
    assert "Place 2 gets 25 points, more than place 1 (20)" in str(error)
    (error,) = rule_errors(Rule("total", best_of=7), 5)
    assert "The best 7 events cannot count: the championship has 5" in str(error)
