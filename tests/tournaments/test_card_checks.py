"""Checks of an entry against the known hands (RULES.md §4, "Checks against the cards").

Deals are built card by card here, so each test states exactly who held what.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils import translation

from scoring.rules import cards
from tournaments.services.checks import bout_facts, card_checks

SUIT_CARDS = [c for c in cards.DECK if not c.is_trump and not c.is_excuse]
TRUMPS = [c for c in cards.DECK if c.is_trump]  # 21 down to 1


def trumps(*numbers: int) -> list[str]:
    return [f"T{n}" for n in numbers]


def deal(**fixed: list[str]) -> tuple[dict[str, str], str]:
    """Hands N, E, S, W (18 cards) and the chien (6) in the notation of scoring.rules.cards.

    ``fixed`` gives some cards of a part ("N", ..., "chien"). The other cards go first to the
    parts in the order N, E, S, W, chien, suit cards before trumps, and last to one "dump"
    position (the last position without fixed cards), which takes the remaining trumps. So a
    position gets no trump it was not given, except the dump.
    """
    sizes = {"N": 18, "E": 18, "S": 18, "W": 18, "chien": 6}
    dump = next(p for p in ("W", "S", "E", "N") if p not in fixed)
    parts: dict[str, list[cards.Card]] = {}
    used: set[cards.Card] = set()
    for key, codes in fixed.items():
        parts[key] = [cards.parse_card(code) for code in codes]
        assert not used & set(parts[key]), f"a card is given twice: {codes}"
        used.update(parts[key])
    pool = [c for c in SUIT_CARDS if c not in used] + [
        c for c in (*TRUMPS, cards.EXCUSE) if c not in used
    ]
    for key in [k for k in sizes if k != dump] + [dump]:
        part = parts.setdefault(key, [])
        while len(part) < sizes[key]:
            part.append(pool.pop(0))
    assert not pool
    hands = {p: cards.format_hand(parts[p]) for p in ("N", "E", "S", "W")}
    return hands, cards.format_hand(parts["chien"])


def check(hands_chien, **entry):
    hands, chien = hands_chien
    defaults = {
        "taker": "N",
        "contract": "garde",
        "bouts": None,
        "points": None,
        "poignees": {},
    }
    defaults.update(entry)
    with translation.override("en"):
        return card_checks(hands=hands, chien=chien, **defaults)


# --- poignées ---------------------------------------------------------------------------------


def test_the_deal_helper_gives_exactly_the_trumps_asked():
    hands, chien = deal(E=trumps(*range(1, 10)))
    assert cards.trump_count(cards.parse_hand(hands["E"])) == 9
    assert cards.trump_count(cards.parse_hand(hands["N"])) == 0
    assert cards.trump_count(cards.parse_hand(chien)) == 0


@pytest.mark.parametrize(
    ("held", "size", "ok"),
    [
        (10, "simple", True),
        (9, "simple", False),
        (13, "double", True),
        (12, "double", False),
        (15, "triple", True),
        (14, "triple", False),
    ],
)
def test_poignee_needs_the_trumps_of_its_size(held, size, ok):
    the_deal = deal(E=trumps(*range(1, held + 1)))
    errors, _warnings = check(the_deal, poignees={"E": size})
    if ok:
        assert errors == {}
    else:
        message = errors["poignees.E"]
        assert f"held {held} trumps" in message
        assert "East" in message


def test_the_excuse_counts_as_a_trump_for_a_poignee():
    with_excuse = deal(W=[*trumps(*range(1, 10)), "EX"])
    assert check(with_excuse, poignees={"W": "simple"})[0] == {}
    without = deal(W=trumps(*range(1, 10)), N=["EX"])
    assert "poignees.W" in check(without, poignees={"W": "simple"})[0]


@pytest.mark.parametrize(
    ("contract", "ok"),
    [("prise", True), ("garde", True), ("garde_sans", False), ("garde_contre", False)],
)
def test_the_taker_of_a_prise_or_garde_counts_the_chien(contract, ok):
    # N holds 8 trumps, the chien 2 more: 10 only for a taker who takes the chien.
    the_deal = deal(N=trumps(*range(1, 9)), chien=trumps(20, 21))
    errors, _ = check(the_deal, taker="N", contract=contract, poignees={"N": "simple"})
    assert (errors == {}) is ok
    if not ok:
        assert "held 8 trumps" in errors["poignees.N"]


def test_a_defender_never_counts_the_chien():
    the_deal = deal(N=trumps(*range(1, 9)), chien=trumps(20, 21))
    errors, _ = check(the_deal, taker="E", contract="prise", poignees={"N": "simple"})
    assert "poignees.N" in errors


def test_the_message_says_with_the_chien_for_the_taker():
    the_deal = deal(N=trumps(*range(1, 8)), chien=trumps(20, 21))
    errors, _ = check(the_deal, taker="N", contract="garde", poignees={"N": "simple"})
    assert "with the chien, that hand held 9 trumps" in errors["poignees.N"]
    assert "needs 10" in errors["poignees.N"]


def test_several_poignees_are_checked_each():
    the_deal = deal(N=trumps(*range(1, 11)), S=trumps(*range(11, 16)))
    errors, _ = check(the_deal, poignees={"N": "simple", "S": "simple"})
    assert list(errors) == ["poignees.S"]


def test_player_names_appear_when_the_seats_are_known():
    the_deal = deal()
    hands, chien = the_deal
    with translation.override("en"):
        errors, _ = card_checks(
            hands=hands,
            chien=chien,
            taker="N",
            contract="garde",
            bouts=None,
            points=None,
            poignees={"S": "double"},
            seats={"S": "Camille Arnaud"},
        )
    assert "South (Camille Arnaud)" in errors["poignees.S"]


# --- bouts ------------------------------------------------------------------------------------


def test_the_21_held_by_a_defender_cannot_be_counted_by_the_attack():
    the_deal = deal(E=["T21"], N=["T1", "EX"])
    _, warnings = check(the_deal, taker="N", bouts=3)
    assert "bouts_held_by_defence" in warnings
    assert "the 21 held by East" in warnings["bouts_held_by_defence"]
    assert "at most 2" in warnings["bouts_held_by_defence"]
    assert check(the_deal, taker="N", bouts=2)[1] == {}


def test_the_excuse_of_the_defence_is_only_a_warning_unless_played_last():
    the_deal = deal(N=["T21", "T1"], W=["EX"])
    _, warnings = check(the_deal, taker="N", bouts=3)
    assert list(warnings) == ["excuse_held_by_defence"]
    assert "last trick" in warnings["excuse_held_by_defence"]
    assert check(the_deal, taker="N", bouts=2)[1] == {}


def test_the_21_of_the_taker_cannot_be_lost():
    the_deal = deal(N=["T21"], E=["EX", "T1"])
    _, warnings = check(the_deal, taker="N", bouts=0)
    assert list(warnings) == ["bouts_held_by_attack"]
    assert "at least 1" in warnings["bouts_held_by_attack"]
    assert check(the_deal, taker="N", bouts=1)[1] == {}


def test_the_excuse_of_the_taker_stays_unless_played_last():
    the_deal = deal(N=["EX"], E=["T21"], S=["T1"])
    _, warnings = check(the_deal, taker="N", bouts=0)
    assert list(warnings) == ["excuse_held_by_attack"]
    assert check(the_deal, taker="N", bouts=1)[1] == {}


def test_the_petit_can_change_camps():
    the_deal = deal(N=["T1"], E=["T21"], W=["EX"])
    # The taker's Petit may be captured, a defender's Petit may be won: 0 and 1 are both fine.
    assert check(the_deal, taker="N", bouts=0)[1] == {}
    assert check(the_deal, taker="W", bouts=1)[1] == {}


@pytest.mark.parametrize(
    ("contract", "bouts", "expected"),
    [
        ("garde_sans", 0, "bouts_held_by_attack"),  # the chien counts for the attack
        ("garde_contre", 3, "bouts_held_by_defence"),  # the chien counts for the defence
        ("prise", 0, "bouts_held_by_attack"),  # the taker takes the 21 into his hand
        ("garde", 0, "bouts_held_by_attack"),
    ],
)
def test_bouts_in_the_chien_follow_the_contract(contract, bouts, expected):
    the_deal = deal(chien=["T21"], E=["T1", "EX"])
    _, warnings = check(the_deal, taker="N", contract=contract, bouts=bouts)
    assert expected in warnings
    assert "chien" in warnings[expected] or "North" in warnings[expected]


def test_the_petit_in_the_chien_of_a_garde_sans_is_the_attacks():
    the_deal = deal(chien=["T1"], E=["T21", "EX"])
    facts = bout_facts(
        {p: cards.parse_hand(h) for p, h in the_deal[0].items()},
        cards.parse_hand(the_deal[1]),
        taker="N",
        contract="garde_sans",
    )
    assert len(facts.sure_attack) == 1
    assert len(facts.sure_defence) == 1  # the 21 of East
    assert len(facts.likely_defence) == 1  # the Excuse of East


def test_nothing_is_said_about_bouts_before_taker_and_contract_are_known():
    the_deal = deal(E=["T21"])
    assert check(the_deal, taker="", bouts=3)[1] == {}
    assert check(the_deal, contract="", bouts=3)[1] == {}


# --- half points and unreadable hands ---------------------------------------------------------


def test_a_half_point_at_four_players_is_questioned():
    _, warnings = check(deal(), points=Decimal("40.5"))
    assert "half_point" in warnings
    assert "40.5" in warnings["half_point"]
    assert "half_point" not in check(deal(), points=Decimal("41"))[1]


def test_unreadable_hands_ask_for_a_confirmation_instead_of_blocking():
    hands, chien = deal()
    hands["N"] = "S:Z"
    errors, warnings = check((hands, chien), poignees={"N": "triple"})
    assert errors == {}
    assert "hands_unreadable" in warnings
