"""The player's rating, pure (`scoring.rules.rating`): Glickman's worked example, and
properties over random seasons (symmetry, order, a player who beats everyone, sums)."""

from __future__ import annotations

import math
from datetime import date, timedelta
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules.rating import (
    DEVIATION_START,
    RATING_START,
    RatingEvent,
    _update,
    compute_ratings,
    group_games,
)

SCALE = 173.7178
START = date(2026, 9, 1)


def test_glickmans_worked_example():
    """Glickman's example: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300 ->
    1464.06 / 151.52 / 0.05999."""
    before = {
        "a": ((1400 - 1500) / SCALE, 30 / SCALE),
        "b": ((1550 - 1500) / SCALE, 100 / SCALE),
        "c": ((1700 - 1500) / SCALE, 300 / SCALE),
    }
    tally = {"a": [1.0, 1.0], "b": [1.0, 0.0], "c": [1.0, 0.0]}
    mu, phi, sigma = _update((0.0, 200 / SCALE, 0.06), tally, before)
    assert 1500 + SCALE * mu == pytest.approx(1464.06, abs=0.01)
    assert SCALE * phi == pytest.approx(151.52, abs=0.01)
    assert sigma == pytest.approx(0.05999, abs=0.00001)


def test_group_games_by_score():
    games = list(group_games([(1, 40), (2, Fraction(40)), (3, -10)]))
    assert games == [(1, 2, 0.5), (1, 3, 1.0), (2, 3, 1.0)]


def test_a_player_twice_in_one_group_is_refused():
    with pytest.raises(ValueError):
        compute_ratings([RatingEvent(1, START, [[(1, 10), (1, 20)]])])


def test_a_new_player_starts_at_1500_350_and_a_lone_player_is_not_rated():
    table = compute_ratings(
        [RatingEvent(1, START, [[(1, 10), (2, -10)], [(3, 50)]])]  # 3 alone: no game
    )
    assert set(table.players) == {1, 2}
    first = {line.player: line for line in table.events}
    assert first[1].rating_before == RATING_START
    assert first[1].deviation_before == DEVIATION_START
    assert first[1].expected == pytest.approx(50.0)
    assert first[1].achieved == 100.0 and first[2].achieved == 0.0
    assert table.players[1].rating > RATING_START > table.players[2].rating
    assert table.players[1].deviation < DEVIATION_START


def test_idle_weeks_widen_the_deviation_and_events_of_one_day_share_a_period():
    groups = [[(1, 10), (2, -10)]]
    soon = compute_ratings([RatingEvent(1, START, groups), RatingEvent(2, START, groups)])
    same_day = {(line.event, line.player): line for line in soon.events}
    assert same_day[(1, 1)].rating_before == same_day[(2, 1)].rating_before
    assert same_day[(1, 1)].rating_after == same_day[(2, 1)].rating_after
    assert soon.players[1].events == 2 and soon.players[1].games == 2
    week = compute_ratings(
        [RatingEvent(1, START, groups), RatingEvent(2, START + timedelta(days=6), groups)]
    )
    month = compute_ratings(
        [RatingEvent(1, START, groups), RatingEvent(2, START + timedelta(days=60), groups)]
    )
    before_week = next(li for li in week.events if li.event == 2 and li.player == 1)
    before_month = next(li for li in month.events if li.event == 2 and li.player == 1)
    assert before_month.deviation_before > before_week.deviation_before
    assert before_month.deviation_before <= DEVIATION_START


# Random seasons: up to 6 events over a few dates, up to 8 players, each event's groups
# drawn as (donne, position) groups of distinct players with scores.
PLAYERS = st.integers(1, 8)
SCORES = st.integers(-3, 3).map(lambda s: s * 10)


@st.composite
def group(draw) -> list[tuple[int, int]]:
    players = draw(st.lists(PLAYERS, unique=True, min_size=1, max_size=5))
    return [(player, draw(SCORES)) for player in players]


@st.composite
def event(draw, key: int) -> RatingEvent:
    day = START + timedelta(days=draw(st.sampled_from([0, 0, 3, 10, 40])))
    return RatingEvent(key, day, draw(st.lists(group(), min_size=1, max_size=6)))


@st.composite
def season(draw) -> list[RatingEvent]:
    count = draw(st.integers(1, 6))
    return [draw(event(key)) for key in range(count)]


def lines(table) -> dict:
    return {(line.event, line.player): line for line in table.events}


@given(season(), st.permutations(list(range(1, 9))), st.randoms(use_true_random=False))
def test_relabelling_players_and_reordering_groups_relabels_the_result(events, perm, rnd):
    relabel = dict(zip(range(1, 9), perm, strict=True))
    moved = []
    for ev in events:
        groups = [[(relabel[p], s) for p, s in g] for g in ev.groups]
        for g in groups:
            rnd.shuffle(g)
        rnd.shuffle(groups)
        moved.append(RatingEvent(ev.key, ev.day, groups))
    rnd.shuffle(moved)
    plain, other = compute_ratings(events), compute_ratings(moved)
    assert {relabel[p]: r._replace(player=relabel[p]) for p, r in plain.players.items()} == (
        other.players
    )
    assert {
        (e, relabel[p]): line._replace(player=relabel[p]) for (e, p), line in lines(plain).items()
    } == lines(other)


@given(season())
def test_deterministic_and_order_of_events_of_a_date_irrelevant(events):
    table = compute_ratings(events)
    again = compute_ratings(list(reversed(events)))
    assert table.players == again.players
    assert lines(table) == lines(again)


@given(season(), st.integers(1, 8))
def test_a_player_who_beats_everyone_rises(events, star):
    """Put `star` on top of every group of one more event, on a date of its own: he wins
    every game of that period, so his rating rises."""
    last = max(ev.day for ev in events) + timedelta(days=1)
    groups = [[(star, 1000), *((p, s) for p, s in g if p != star)] for g in events[0].groups]
    if all(len(g) < 2 for g in groups):
        groups.append([(star, 1000), (star % 8 + 1, 0)])
    table = compute_ratings([*events, RatingEvent("win", last, groups)])
    line = lines(table)[("win", star)]
    assert line.achieved == 100.0
    assert line.rating_after > line.rating_before
    assert line.expected < 100.0


@given(season())
def test_sums_points_are_the_games_and_new_players_expect_half(events):
    """Each game gives one point between its two players, so the points scored in an event
    add up to its games; in a first period where everyone is new (equal ratings and
    deviations), everyone expects 50 %, and the expected points add up to the games too."""
    table = compute_ratings(events)
    by_event: dict = {}
    for line in table.events:
        by_event.setdefault(line.event, []).append(line)
    first_day = min(ev.day for ev in events)
    for ev in events:
        own = by_event.get(ev.key, [])
        games = sum(len(g) * (len(g) - 1) // 2 for g in ev.groups)
        assert sum(li.games for li in own) == 2 * games
        points = math.fsum(li.achieved * li.games / 100 for li in own)
        assert points == pytest.approx(games)
        if ev.day == first_day:
            assert all(li.expected == pytest.approx(50.0) for li in own)
            assert all(li.rating_before == RATING_START for li in own)


@given(season())
def test_ratings_are_finite_and_deviations_bounded(events):
    table = compute_ratings(events)
    for rating in table.players.values():
        assert math.isfinite(rating.rating)
        assert 0 < rating.deviation <= DEVIATION_START
        assert 0 < rating.volatility < 1
    for line in table.events:
        assert 0 <= line.expected <= 100 and 0 <= line.achieved <= 100
