"""Differentials of one group (RULES §6), checked against hand-computed values."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules.duplicate import (
    Method,
    differentials,
    differentials_by_score,
    matchpoint_percentage,
)
from scoring.rules.errors import InvalidMethod, InvalidScore

F = Fraction


def test_average() -> None:
    # mean = 236/3
    assert differentials([204, -68, 100], method="average") == [F(376, 3), F(-440, 3), F(64, 3)]


def test_average_is_the_default() -> None:
    assert differentials([204, -68, 100]) == differentials([204, -68, 100], method="average")


def test_pairwise() -> None:
    # 204: ((204 + 68) + (204 - 100)) / 2 = 188
    assert differentials([204, -68, 100], method="pairwise") == [F(188), F(-220), F(32)]


def test_pairwise_two_tables_is_the_difference() -> None:
    assert differentials([204, -126], method=Method.PAIRWISE) == [F(330), F(-330)]
    assert differentials([204, -126], method=Method.AVERAGE) == [F(165), F(-165)]


def test_matchpoints_with_ties() -> None:
    assert differentials([204, -68, 100], method="matchpoints") == [F(4), F(0), F(2)]
    assert differentials([10, 10, 0, 20], method="matchpoints") == [F(3), F(3), F(0), F(6)]
    assert differentials([5, 5], method="matchpoints") == [F(1), F(1)]


def test_group_of_one_and_empty_group() -> None:
    for method in Method:
        assert differentials([204], method=method) == [F(0)]
        assert differentials([], method=method) == []


def test_exact_inputs_of_any_kind() -> None:
    result = differentials([F(1, 2), Decimal("0.25"), "0.75", 1.5], method="average")
    # mean = 3/4
    assert result == [F(-1, 4), F(-1, 2), F(0), F(3, 4)]
    assert all(isinstance(d, Fraction) for d in result)


def test_matchpoint_percentage() -> None:
    assert matchpoint_percentage(4, 3) == F(1)
    assert matchpoint_percentage(3, 3) == F(3, 4)
    assert matchpoint_percentage(F(1), 2) == F(1, 2)
    assert matchpoint_percentage(0, 1) is None


def test_unknown_method() -> None:
    with pytest.raises(InvalidMethod) as info:
        differentials([1, 2], method="median")
    assert info.value.code == "method_unknown"
    assert info.value.field == "method"
    assert "median" in str(info.value)


@pytest.mark.parametrize("bad", [None, "abc", float("inf"), True, object()])
def test_scores_must_be_numbers(bad: object) -> None:
    with pytest.raises(InvalidScore) as info:
        differentials([1, bad], method="average")  # type: ignore[list-item]
    assert info.value.code == "score_not_a_number"
    assert str(info.value)


@settings(max_examples=300, deadline=None)
@given(
    scores=st.lists(st.integers(min_value=-1000, max_value=1000), max_size=40)
    | st.lists(st.sampled_from([-220, -40, 0, 25, 25, 96, 204]), max_size=60),
    method=st.sampled_from(list(Method)),
)
def test_differentials_by_score_are_each_occurrences_differential(scores, method) -> None:
    """The counted form gives every distinct score what the plain form gives each of its
    occurrences in the group spelled out."""
    by_score = differentials_by_score(Counter(scores), method)
    plain = differentials(scores, method)
    assert [by_score[s] for s in scores] == plain
    assert set(by_score) == set(scores)
