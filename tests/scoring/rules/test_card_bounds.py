"""scoring.rules.card_bounds against a brute force: every place the bouts can end and every écart the
taker can make, enumerated from RULES §3, §5.1 and §5.2 on random deals."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules import card_bounds, cards
from scoring.rules.dealing import deal_attempt

POSITIONS = ("N", "E", "S", "W")
CONTRACTS = ("prise", "garde", "garde_sans", "garde_contre")
CHELEMS = ("", "announced_failed", "announced_made", "unannounced_made", "defence")
BOUTS = (cards.TRUMP_21, cards.EXCUSE, cards.PETIT)
A, D = "attack", "defence"


def hands_of(seed: int) -> tuple[dict[str, tuple[cards.Card, ...]], tuple[cards.Card, ...]]:
    hands, chien = deal_attempt(seed.to_bytes(16, "big"), "bounds", 1)
    return dict(zip(POSITIONS, hands, strict=True)), chien


def destinations(card, hands, chien, taker, contract, chelem, petit_au_bout, *, likely=True):
    """Every camp ``card`` can end in, read from the rules one case at a time."""
    holder = next((p for p, h in hands.items() if card in h), None)
    unplayed = holder is None and contract in ("garde_sans", "garde_contre")
    if unplayed:  # the chien of a garde sans is the attack's, of a garde contre the defence's
        return {A} if contract == "garde_sans" else {D}
    # Played: by its holder, or by the taker who took the chien under prise and garde.
    holder_camp = A if holder in (taker, None) else D
    if chelem in ("announced_made", "unannounced_made", "defence"):
        if card == cards.EXCUSE:  # kept by its holder: the other camp has no trick to give
            return {holder_camp}
        return {A if chelem != "defence" else D}  # every other card played goes to the winner
    if card == cards.TRUMP_21:
        return {holder_camp}
    if card == cards.EXCUSE:
        return {holder_camp} if likely else {A, D}  # unless played to the last trick
    if petit_au_bout:
        return {A if petit_au_bout == "attack" else D}
    return {A, D}


def brute_bouts(*args, likely=True) -> tuple[int, int]:
    counts = [
        sum(1 for camp in combo if camp == A)
        for combo in itertools.product(*(destinations(c, *args, likely=likely) for c in BOUTS))
    ]
    return min(counts), max(counts)


def brute_discards(cards_: list[cards.Card], size: int) -> tuple[Fraction, Fraction]:
    """Every écart's value: no king, no bout, trumps only when the suit cards do not suffice;
    enumerated as how many cards of each value it takes."""
    suit = [c for c in cards_ if c.suit is not None and c.rank != 14]
    if len(suit) < size:
        total = sum(c.points for c in suit) + Fraction(size - len(suit), 2)
        return total, total
    by_value: dict[Fraction, int] = {}
    for c in suit:
        by_value[c.points] = by_value.get(c.points, 0) + 1
    values = sorted(by_value)
    totals = [
        sum(k * v for k, v in zip(take, values, strict=True))
        for take in itertools.product(*(range(by_value[v] + 1) for v in values))
        if sum(take) == size
    ]
    return min(totals), max(totals)


def owned(hands, chien, taker, contract, chelem) -> Fraction:
    """What a chelem leaves the attack, card by card (discard left out)."""
    mine: list[cards.Card] = []
    for position, hand in hands.items():
        for card in hand:
            attack_card = position == taker
            if card == cards.EXCUSE:
                if attack_card:
                    mine.append(card)
            elif chelem != "defence":
                mine.append(card)
    if contract == "garde_sans" or (contract in ("prise", "garde") and chelem != "defence"):
        mine.extend(chien)
    elif contract in ("prise", "garde") and cards.EXCUSE in chien:
        mine.append(cards.EXCUSE)  # the taker took it and keeps it
    return cards.points_in(mine)


def brute_points(hands, chien, taker, contract, chelem) -> tuple[Fraction, Fraction, bool]:
    if chelem in ("announced_made", "unannounced_made") or (
        chelem == "defence" and contract in ("garde_sans", "garde_contre")
    ):
        total = owned(hands, chien, taker, contract, chelem)
        return total, total, True
    if contract in ("prise", "garde"):
        low, high = brute_discards([*hands[taker], *chien], 6)
        if chelem == "defence":
            kept = owned(hands, chien, taker, contract, chelem)
            return kept + low, kept + high, False
        return low, Fraction(91), False
    if contract == "garde_sans":
        return cards.points_in(chien), Fraction(91), False
    return Fraction(0), 91 - cards.points_in(chien), False


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**63),
    taker=st.sampled_from(POSITIONS),
    contract=st.sampled_from(CONTRACTS),
    chelem=st.sampled_from(CHELEMS),
    petit_au_bout=st.sampled_from(("", "attack", "defence")),
)
def test_the_bounds_are_the_brute_force(seed, taker, contract, chelem, petit_au_bout):
    hands, chien = hands_of(seed)
    bounds = card_bounds.attack_bounds(
        hands=hands,
        chien=chien,
        contract=contract,
        taker=taker,
        chelem=chelem,
        petit_au_bout=petit_au_bout,
    )
    args = (hands, chien, taker, contract, chelem, petit_au_bout)
    assert (bounds.bouts_low, bounds.bouts_high) == brute_bouts(*args)
    assert (bounds.firm_low, bounds.firm_high) == brute_bouts(*args, likely=False)
    low, high, exact = brute_points(hands, chien, taker, contract, chelem)
    assert (bounds.points_low, bounds.points_high, bounds.exact_points) == (low, high, exact)
    chelem_made = chelem in ("announced_made", "unannounced_made", "defence")
    assert bounds.exact_bouts == chelem_made
    # The half point is exact only on a chelem that leaves the Excuse with the camp that took
    # no trick: the attack then owns an odd number of cards.
    assert bounds.half_point == (chelem_made and low.denominator == 2)


def brute_points_with_bouts(hands, chien, taker, contract, bouts):
    """The attack's least and most points with ``bouts`` bouts, card by card over the deck
    (RULES §5.2): every camp each bout can end in, the unplayed chien with its camp, every
    legal écart of the taker, every other card free. None when no layout gives ``bouts``."""
    in_chien = set(chien)
    unplayed = contract in ("garde_sans", "garde_contre")
    chien_camp = A if contract == "garde_sans" else D
    bout_camps = [{chien_camp} if b in in_chien and unplayed else {A, D} for b in BOUTS]
    layouts = [c for c in itertools.product(*bout_camps) if c.count(A) == bouts]
    if not layouts:
        return None
    sure_attack = sure_defence = Fraction(0)
    free = Fraction(0)
    for card in cards.DECK:
        if card in BOUTS:
            continue
        if card in in_chien and unplayed:
            if chien_camp == A:
                sure_attack += card.points
            else:
                sure_defence += card.points
        else:
            free += card.points
    ecart_low = ecart_high = Fraction(0)
    if contract in ("prise", "garde"):  # the écart is among the free cards, the attack's
        ecart_low, ecart_high = brute_discards([*hands[taker], *chien], 6)
    totals_low = [
        sum(Fraction(9, 2) for camp in layout if camp == A) + sure_attack + ecart_low
        for layout in layouts
    ]
    totals_high = [
        sum(Fraction(9, 2) for camp in layout if camp == A) + sure_attack + free
        for layout in layouts
    ]
    assert ecart_high <= free
    return min(totals_low), max(totals_high)


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**63),
    taker=st.sampled_from(POSITIONS),
    contract=st.sampled_from(CONTRACTS),
    bouts=st.integers(0, 3),
)
def test_the_points_with_the_bouts_are_the_brute_force(seed, taker, contract, bouts):
    hands, chien = hands_of(seed)
    discard = card_bounds.discard_values([*hands[taker], *chien], 6)
    bound = card_bounds.points_with_bouts(
        contract=contract, chien=chien, bouts=bouts, discard=discard
    )
    brute = brute_points_with_bouts(hands, chien, taker, contract, bouts)
    if brute is not None:  # else the bouts themselves are warned
        assert (bound.least, bound.most) == brute
    # Never looser than the plain bounds of the engine (RULES §1).
    assert Fraction(9, 2) * bouts <= bound.least <= bound.most <= 91 - Fraction(9, 2) * (3 - bouts)
    assert all(not c.is_bout and c in chien for c in bound.sure_cards)


def test_the_points_with_the_bouts_of_rules_5_2():
    """The worked examples of RULES §5.2."""
    parse = cards.parse_cards
    chien = parse("SR HV S1 S2 S3 S4")  # 8 points, no bout
    contre = card_bounds.points_with_bouts(contract="garde_contre", chien=chien, bouts=1)
    assert (contre.least, contre.most) == (Fraction(9, 2), Fraction(74))
    assert contre.sure_cards == tuple(chien) and contre.defence_sure == 8
    cheapest = card_bounds.Discard(Fraction(3), Fraction(20))
    garde = card_bounds.points_with_bouts(contract="garde", chien=chien, bouts=1, discard=cheapest)
    assert (garde.least, garde.most) == (Fraction(15, 2), Fraction(82))
    # A bout of the chien is among the bouts, never counted again.
    with_petit = parse("T1 SR HV S1 S2 S3")
    sans = card_bounds.points_with_bouts(contract="garde_sans", chien=with_petit, bouts=1)
    assert sans.least == Fraction(9, 2) + Fraction(15, 2)  # the Petit, then SR HV S1 S2 S3
    for wrong in ({"bouts": 4}, {"bouts": -1}, {"contract": "petite"}, {"contract": "prise"}):
        args = {"contract": "garde_sans", "chien": chien, "bouts": 1} | wrong
        with pytest.raises(ValueError, match=r"bounds|écart"):
            card_bounds.points_with_bouts(**args)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**63), taker=st.sampled_from(POSITIONS))
def test_the_chelem_is_ruled_out_exactly_by_the_21_of_the_other_camp(seed, taker):
    hands, chien = hands_of(seed)
    holder = next((p for p, h in hands.items() if cards.TRUMP_21 in h), None)
    for contract, chelem in itertools.product(CONTRACTS, ("unannounced_made", "defence")):
        bounds = card_bounds.attack_bounds(
            hands=hands, chien=chien, contract=contract, taker=taker, chelem=chelem
        )
        if holder is None:  # in the chien: the taker's under prise and garde, else never played
            blocked = chelem == "defence" and contract in ("prise", "garde")
        else:
            blocked = (holder == taker) == (chelem == "defence")
        assert (bounds.chelem_blocker is not None) == blocked


def test_a_petit_au_bout_is_ruled_out_when_the_petit_lies_in_a_chien_nobody_plays():
    hands, chien = next(
        hands_of(seed) for seed in itertools.count() if cards.PETIT in hands_of(seed)[1]
    )
    for contract in CONTRACTS:
        bounds = card_bounds.attack_bounds(
            hands=hands, chien=chien, contract=contract, taker="N", petit_au_bout="attack"
        )
        assert bounds.petit_unplayed == (contract in ("garde_sans", "garde_contre"))


def test_the_discard_has_no_king_no_bout_and_trumps_only_when_forced():
    parse = cards.parse_cards
    # Six low cards beside kings and the Excuse: 3 points at least, the dames at most.
    hand = parse("SR HR DR CR EX T21 T1 T5 S1 S2 S3 S4 S5 S6 SD HD DD CD SC HC")
    assert card_bounds.discard_values(hand, 6) == card_bounds.Discard(Fraction(3), Fraction(19))
    # Three suit cards that are not kings: three trumps complete the écart.
    forced = parse("SR HR DR CR SD HV C2 T2 T3 T4 T5 T6")
    assert card_bounds.discard_values(forced, 6) == card_bounds.Discard(Fraction(7), Fraction(7))


def test_the_taker_counts_the_trumps_of_the_chien_he_takes():
    hands, chien = hands_of(7)
    for contract in CONTRACTS:
        counted = card_bounds.poignee_trumps(hands, chien, "E", taker="E", contract=contract)
        taken = contract in ("prise", "garde")
        expected = cards.trump_count(hands["E"]) + (cards.trump_count(chien) if taken else 0)
        assert counted == expected


def test_unknown_contracts_have_no_bounds():
    hands, chien = hands_of(1)
    with pytest.raises(ValueError, match="no bounds"):
        card_bounds.attack_bounds(hands=hands, chien=chien, contract="petite", taker="N")


def test_the_bounds_import_only_pure_code():
    """scoring.rules.card_bounds imports no Django and no app code: only the pure card module."""
    import ast
    from pathlib import Path

    tree = ast.parse(Path(card_bounds.__file__ or "").read_text(encoding="utf-8"))
    imported = [
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]
    project = {n for n in imported if n.split(".")[0] in ("django", "tournaments", "scoring")}
    assert project == {"scoring.rules.cards"}
