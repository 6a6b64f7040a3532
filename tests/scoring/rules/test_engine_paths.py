"""The fast path of score_deal (tables built at import) and the thorough validation give one
answer: the same DealScore for every valid input, the same ScoringError for every invalid one;
and the engine keeps nothing from one deal to the next, so a deal seen for the first time is
scored like any other."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.rules import engine
from scoring.rules.engine import (
    CARD_TOTAL,
    COEFFICIENTS,
    THRESHOLDS,
    Chelem,
    Contract,
    PetitAuBout,
    PoigneeSize,
    score_deal,
)
from scoring.rules.errors import ScoringError


class Seats(enum.IntEnum):
    FOUR = 4


def _spellings(half: int) -> list[Any]:
    """Every form the engine accepts for these points, and a few it must refuse or check."""
    whole, odd = divmod(half, 2)
    number = half / 2 if odd else whole
    texts = [f"{whole}.5", f"{whole},5"] if odd else [f"{whole}", f"{whole}.0", f"{whole},0"]
    return [number, float(number), Fraction(half, 2), Decimal(half) / 2, *texts, f" {texts[0]} "]


POINTS = st.one_of(
    st.integers(0, 2 * CARD_TOTAL).flatmap(lambda h: st.sampled_from(_spellings(h))),
    st.integers(-2, 93),
    st.sampled_from(
        [True, False, None, float("nan"), complex(40), "forty", "40.25", 40.3, Decimal("sNaN")]
    ),
)
POIGNEE_SIZES = st.sampled_from(["simple", "double", "triple", *PoigneeSize, "quadruple"])
DEAL = st.fixed_dictionaries(
    {
        "players": st.sampled_from([3, 4, 5, 5, 2, 6, 4.0, True, "4", Seats.FOUR]),
        "contract": st.sampled_from(
            [*COEFFICIENTS, *(c.value for c in Contract), "gard", "GARDE", None, ("garde",)]
        ),
        "bouts": st.one_of(st.integers(-1, 4), st.sampled_from([True, 2.0, "2", None])),
        "points": POINTS,
        "petit_au_bout": st.sampled_from(
            [None, None, None, "attack", "defence", *PetitAuBout, True, 1, "taker"]
        ),
        "poignees": st.one_of(
            st.just(()),
            st.lists(POIGNEE_SIZES, max_size=6),
            st.lists(POIGNEE_SIZES, max_size=6).map(tuple),
            st.sampled_from([None, "simple", "generator", 3, [None], [["simple"]]]),
        ),
        "chelem": st.sampled_from(
            [None, None, None, *(c.value for c in Chelem), *Chelem, "made", 1]
        ),
        "called_self": st.sampled_from([False, False, True, 0, 1, None, "yes"]),
    }
)


def _fresh(deal: dict[str, Any]) -> dict[str, Any]:
    """The deal's arguments; "generator" stands for a one-shot iterable of poignées."""
    if deal["poignees"] == "generator":
        sizes: Iterator[str] = (size for size in ["simple", "double"])
        return {**deal, "poignees": sizes}
    return dict(deal)


def outcome(deal: dict[str, Any], scorer: Any) -> Any:
    """What a scorer answers, in a form that tells apart 40 and 40.0, a str and its enum."""
    try:
        score = scorer(**_fresh(deal))
    except ScoringError as err:
        return ("error", type(err), err.code, err.template, err.params)
    return ("score", type(score), tuple((type(value), value) for value in score))


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


@settings(
    max_examples=1500,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(DEAL)
def test_fast_and_thorough_paths_answer_alike(deal: dict[str, Any]) -> None:
    assert outcome(deal, score_deal) == outcome(deal, thorough)


# Values equal to a valid entry (True == 1, 4.0 == 4, complex(40) == 40) that only some fields
# accept, and other odd forms: each one put in a deal that is otherwise valid.
LOOK_ALIKES: dict[str, list[Any]] = {
    "players": [4.0, Fraction(4), Decimal(4), complex(4), Seats.FOUR, "4", True],
    "contract": [Contract.GARDE, "GARDE", None, ("garde",)],
    "bouts": [True, False, 2.0, Fraction(2), Decimal(2), complex(2), Seats.FOUR, "2", -1],
    "points": [True, False, complex(40), complex(0), Decimal("40.50"), "40.50", " 40,5 "],
    "petit_au_bout": [True, 1, "", PetitAuBout.DEFENCE, ["attack"]],
    "poignees": [None, [], "simple", "generator", [PoigneeSize.SIMPLE], ["simple"] * 6, [1]],
    "chelem": [True, 1, "", Chelem.ANNOUNCED_FAILED, ["defence"]],
    "called_self": [0, 1, None, "yes", 1.0],
}
VALID_DEALS = [
    {"players": 4, "contract": "garde", "bouts": 0, "points": 1},
    {"players": 4, "contract": "garde", "bouts": 2, "points": 40.5},
    {"players": 5, "contract": "prise", "bouts": 1, "points": 60, "petit_au_bout": "attack"},
    {"players": 3, "contract": "garde_sans", "bouts": 3, "points": 91, "chelem": "announced_made"},
]


@pytest.mark.parametrize("field", LOOK_ALIKES)
def test_look_alike_values_are_judged_like_the_thorough_path(field: str) -> None:
    defaults = {"petit_au_bout": None, "poignees": (), "chelem": None, "called_self": False}
    for valid in VALID_DEALS:
        for value in LOOK_ALIKES[field]:
            deal = {**defaults, **valid, field: value}
            assert outcome(deal, score_deal) == outcome(deal, thorough), deal


def test_every_plain_deal_in_the_table_is_the_thorough_score() -> None:
    """All 9,984 plain deals, and every half point in between that is impossible."""
    checked = 0
    for players, called_self in [(3, False), (4, False), (5, False), (5, True)]:
        for contract in COEFFICIENTS:
            for bouts in THRESHOLDS:
                for half in range(2 * CARD_TOTAL + 1):
                    deal = {
                        "players": players,
                        "contract": contract.value,
                        "bouts": bouts,
                        "points": half / 2 if half % 2 else half // 2,
                        "petit_au_bout": None,
                        "poignees": (),
                        "chelem": None,
                        "called_self": called_self,
                    }
                    fast = outcome(deal, score_deal)
                    assert fast == outcome(deal, thorough), deal
                    checked += fast[0] == "score"
    assert checked == 9984


def test_every_petit_au_bout_and_chelem_at_every_point_as_the_thorough_path() -> None:
    """The table of possible announcements, entry by entry, at every half point."""
    petits = [None, "attack", "defence"]
    chelems = [None, *(c.value for c in Chelem)]
    accepted = refused = 0
    for contract in COEFFICIENTS:
        for bouts in THRESHOLDS:
            for half in range(9 * bouts, 2 * CARD_TOTAL - 9 * (3 - bouts) + 1):
                for petit in petits:
                    for chelem in chelems:
                        deal = {
                            "players": 3 + half % 3,
                            "contract": contract.value,
                            "bouts": bouts,
                            "points": half / 2 if half % 2 else half // 2,
                            "petit_au_bout": petit,
                            "poignees": ["simple"] if half % 4 == 0 else (),
                            "chelem": chelem,
                            "called_self": False,
                        }
                        fast = outcome(deal, score_deal)
                        assert fast == outcome(deal, thorough), deal
                        accepted += fast[0] == "score"
                        refused += fast[0] == "error"
    assert accepted and refused


def test_every_deal_with_one_announcement_in_the_tables_is_the_thorough_score() -> None:
    """The deals scored at import with a petit au bout, one poignée or both (no chelem), at
    every half point, as the thorough path scores or refuses them, the poignée given as a list,
    a tuple and an enum."""
    checked = refused = 0
    for players, called_self in [(3, False), (4, False), (5, False), (5, True)]:
        for contract in COEFFICIENTS:
            for bouts in THRESHOLDS:
                for half in range(2 * CARD_TOTAL + 1):
                    for petit in (None, "attack", "defence"):
                        for size in (None, *PoigneeSize):
                            if petit is None and size is None:
                                continue
                            poignees: Any = [] if size is None else [size.value]
                            if half % 3 == 1:
                                poignees = tuple(poignees)
                            elif half % 3 == 2 and size is not None:
                                poignees = [size]
                            deal = {
                                "players": players,
                                "contract": contract.value,
                                "bouts": bouts,
                                "points": half / 2 if half % 2 else half // 2,
                                "petit_au_bout": petit,
                                "poignees": poignees,
                                "chelem": None,
                                "called_self": called_self,
                            }
                            fast = outcome(deal, score_deal)
                            assert fast == outcome(deal, thorough), deal
                            checked += fast[0] == "score"
                            refused += fast[0] == "error"
    assert checked == 9984 * 11 - 2 * 2496 * 4  # a petit au bout needs a bout for the attack,
    assert refused  # at most two for the defence


def test_a_plain_deal_is_one_shared_score_whatever_form_its_points_take() -> None:
    deal = {"players": 5, "contract": "garde", "bouts": 2, "points": 50, "called_self": True}
    first = score_deal(**deal)
    assert score_deal(**deal) is first
    for points in (50.0, Fraction(50), Decimal("50.0"), "50", "50,0"):
        assert score_deal(**{**deal, "points": points}) is first
    assert score_deal(**{**deal, "contract": Contract.GARDE}) is first
    # 1 == True and 4.0 == 4, but neither is a valid entry: checked, not looked up
    with pytest.raises(ScoringError):
        score_deal(**{**deal, "called_self": 1})
    with pytest.raises(ScoringError):
        score_deal(**{**deal, "players": 5.0})
    with pytest.raises(ScoringError):
        score_deal(**{**deal, "players": 3})


def _state() -> dict[str, Any]:
    """The size of every table the engine module holds."""
    sizes = {}
    for name, value in vars(engine).items():
        if isinstance(value, dict | list | set):
            sizes[name] = len(value)
    return sizes


def test_scoring_keeps_nothing_from_one_deal_to_the_next() -> None:
    """No memory of deals scored: the first sight of a deal costs what any other does."""
    before = _state()
    for half in range(2 * CARD_TOTAL + 1):
        for petit in (None, "attack"):
            with contextlib.suppress(ScoringError):  # a petit au bout a deal rules out
                score_deal(4, "garde", 2, half / 2, petit, ["simple"], "announced_failed")
    assert _state() == before
