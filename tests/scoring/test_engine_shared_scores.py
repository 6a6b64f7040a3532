"""Deals scored again share their DealScore: the same answer as the thorough path, and never
an answer for an input the fast path would not accept."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import engine
from scoring.engine import score_deal
from scoring.errors import ScoringError

DEAL = st.fixed_dictionaries(
    {
        "players": st.sampled_from([3, 4, 5]),
        "contract": st.sampled_from(["prise", "garde", "garde_sans", "garde_contre", "gard"]),
        "bouts": st.integers(-1, 4),
        "points": st.one_of(
            st.integers(-2, 93),
            st.integers(0, 182).map(lambda h: h / 2),
            st.integers(0, 182).map(lambda h: str(h / 2)),
        ),
        "petit_au_bout": st.sampled_from([None, "attack", "defence", True, 1]),
        "poignees": st.one_of(
            st.lists(st.sampled_from(["simple", "double", "triple"]), max_size=3),
            st.lists(st.sampled_from(["simple", "double"]), max_size=2).map(tuple),
        ),
        "chelem": st.sampled_from(
            [None, "announced_made", "unannounced_made", "announced_failed", "defence"]
        ),
        "called_self": st.sampled_from([False, True, 1, 0]),
    }
)


def outcome(deal: dict[str, Any], scorer: Any) -> Any:
    try:
        return scorer(**deal)
    except ScoringError as err:
        return (type(err), err.template, err.params)


def thorough(**deal: Any) -> Any:
    return engine._score_slow(
        deal["players"],
        deal["contract"],
        deal["bouts"],
        deal["points"],
        deal["petit_au_bout"],
        deal["poignees"],
        deal["chelem"],
        deal["called_self"],
    )


@settings(max_examples=600, deadline=None)
@given(first=DEAL, second=DEAL)
def test_scoring_again_answers_as_the_thorough_validation(first, second) -> None:
    for deal in (first, second, first, second):
        assert outcome(deal, score_deal) == outcome(deal, thorough)


def test_a_known_deal_is_shared_and_look_alike_inputs_are_still_checked() -> None:
    engine._SCORED.clear()
    deal = {"players": 5, "contract": "garde", "bouts": 2, "points": 50, "called_self": True}
    first = score_deal(**deal)
    assert score_deal(**deal) is first  # kept: no second construction
    assert score_deal(**{**deal, "points": 50.0}) is first  # the same deal, as a float
    # 1 == True, but only a real bool is a valid called_self: checked, not taken from memory
    with pytest.raises(ScoringError):
        score_deal(**{**deal, "called_self": 1})
    with pytest.raises(ScoringError):
        score_deal(**{**deal, "players": 3})
