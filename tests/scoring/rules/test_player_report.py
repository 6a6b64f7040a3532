"""A player's donne against the field (`scoring.rules.player_report`): properties against the
duplicate comparison and a brute-force reference."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules.duplicate import differentials, matchpoints
from scoring.rules.player_report import best_third, compare, field_outcomes, spread, swings

scores = st.integers(-600, 600).map(lambda s: s - s % 2)
groups = st.lists(scores, min_size=1, max_size=20)
outcome_keys = st.sampled_from(["garde N", "prise E", "garde_sans S", "all passed"])
entries = st.lists(st.tuples(outcome_keys, scores), min_size=1, max_size=20)


@given(groups, st.data())
def test_compare_agrees_with_the_rankings_comparison(group, data):
    index = data.draw(st.integers(0, len(group) - 1))
    result = compare(group[index], group)
    assert result.matchpoints == matchpoints(group)[index]
    assert result.top == 2 * (len(group) - 1)
    assert result.from_mean == differentials(group, "average")[index]
    assert result.tables == len(group)
    if len(group) == 1:
        assert result.percentage is None
    else:
        assert 0 <= result.percentage <= 1


@given(groups)
def test_match_points_of_a_group_share_out_every_comparison(group):
    total = sum(compare(score, group).matchpoints for score in group)
    assert total == len(group) * (len(group) - 1)


@given(groups)
def test_the_top_score_has_the_most_match_points(group):
    best = compare(max(group), group)
    assert all(compare(s, group).matchpoints <= best.matchpoints for s in group)


def test_compare_needs_the_players_own_score():
    with pytest.raises(ValueError):
        compare(10, [20, 30])


@given(entries)
def test_field_outcomes_count_every_table_once(field):
    outcomes = field_outcomes(field)
    assert sum(o.tables for o in outcomes) == len(field)
    assert len({(o.key, o.score) for o in outcomes}) == len(outcomes)
    tables = [o.tables for o in outcomes]
    assert tables == sorted(tables, reverse=True)


@given(groups)
def test_spread_is_the_group_counted(group):
    pairs = spread(group)
    assert sum(n for _s, n in pairs) == len(group)
    assert [s for s, _n in pairs] == sorted(set(group))


@given(entries)
def test_best_third_is_a_third_of_the_field_at_least_and_scores_best(field):
    third = best_third(field)
    assert third is not None
    assert third.tables >= math.ceil(len(field) / 3)
    chosen = sorted((s for _k, s in field), reverse=True)[: third.tables]
    assert all(s >= third.cut for s in chosen)
    rest = sorted((s for _k, s in field), reverse=True)[third.tables :]
    assert all(s < third.cut for s in rest)  # a tie at the cut is never split
    assert third.mean == Fraction(sum(chosen), len(chosen))
    assert third.mean >= Fraction(sum(s for _k, s in field), len(field))


def test_best_third_of_nothing_is_none():
    assert best_third([]) is None


def test_best_third_by_hand():
    field = [("garde N", 204), ("prise N", 81), ("garde N", 204), ("garde_sans N", -300)]
    third = best_third(field)
    assert third.tables == 2  # ⌈4 / 3⌉ = 2, the two 204
    assert [(o.key, o.score, o.tables) for o in third.outcomes] == [("garde N", 204, 2)]
    assert third.mean == 204


values = st.lists(st.fractions(min_value=-50, max_value=50, max_denominator=4), max_size=15)


@given(values, st.integers(0, 5))
def test_swings_are_the_extremes(diffs, count):
    lines = list(enumerate(diffs))
    gained, lost = swings(lines, count)
    assert len(gained) <= count and len(lost) <= count
    assert all(v > 0 for _i, v in gained) and all(v < 0 for _i, v in lost)
    positives = sorted((v for v in diffs if v > 0), reverse=True)
    negatives = sorted(v for v in diffs if v < 0)
    assert [v for _i, v in gained] == positives[:count]
    assert [v for _i, v in lost] == negatives[:count]
