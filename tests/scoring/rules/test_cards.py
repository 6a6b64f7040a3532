"""Cards and the text notation (scoring/rules/cards.py, docs/formats.md): values, round trips, errors."""

from __future__ import annotations

import copy
import json
import pickle
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules.cards import (
    DECK,
    EXCUSE,
    PETIT,
    TRUMP_21,
    Card,
    Donne,
    DonneSet,
    InvalidIdentity,
    NotationError,
    bouts_in,
    check_identity,
    format_cards,
    format_donne,
    format_donne_set,
    format_hand,
    holds,
    is_petit_sec,
    parse_card,
    parse_cards,
    parse_donne,
    parse_donne_set,
    parse_hand,
    points_in,
    sort_cards,
    trump_count,
)

COMMITMENT = "ab" * 32


def make_donne(number: int = 1, seed: int = 0, dealer: str = "N") -> Donne:
    pack = list(DECK)
    random.Random(seed).shuffle(pack)
    hands = (pack[0:18], pack[18:36], pack[36:54], pack[54:72])
    return Donne(number, dealer, hands, pack[72:])  # type: ignore[arg-type]


# --- cards -------------------------------------------------------------------------------------


def test_deck_has_78_distinct_cards_worth_91_points():
    assert len(DECK) == 78 == len({c.code for c in DECK})
    assert points_in(DECK) == 91
    assert sum(1 for c in DECK if c.is_trump) == 21
    assert [c for c in DECK if c.is_bout] == [TRUMP_21, PETIT, EXCUSE]


@pytest.mark.parametrize(
    ("code", "points", "symbol", "fr", "en"),
    [
        ("SR", Fraction(9, 2), "R♠", "Roi de pique", "King of spades"),
        ("HD", Fraction(7, 2), "D♥", "Dame de cœur", "Queen of hearts"),
        ("DC", Fraction(5, 2), "C♦", "Cavalier de carreau", "Knight of diamonds"),
        ("CV", Fraction(3, 2), "V♣", "Valet de trèfle", "Jack of clubs"),
        ("H10", Fraction(1, 2), "10♥", "10 de cœur", "10 of hearts"),
        ("S1", Fraction(1, 2), "1♠", "As de pique", "Ace of spades"),
        ("T21", Fraction(9, 2), "21", "21 d’atout", "Trump 21"),
        ("T12", Fraction(1, 2), "12", "12 d’atout", "Trump 12"),
        ("T1", Fraction(9, 2), "1", "Petit (1 d’atout)", "Petit (trump 1)"),
        ("EX", Fraction(9, 2), "Exc", "Excuse", "Excuse"),
    ],
)
def test_card_value_and_labels(code, points, symbol, fr, en):
    card = parse_card(code)
    assert (card.points, card.symbol, card.label_fr, card.label_en) == (points, symbol, fr, en)
    assert card.half_points == points * 2
    assert card.code == code == str(card)


def test_card_properties():
    assert parse_card("SR").suit == "S" and parse_card("SR").rank == 14
    assert parse_card("C1").suit == "C" and parse_card("C1").rank == 1
    assert parse_card("T7").suit is None and parse_card("T7").rank == 7
    assert EXCUSE.rank == 0 and EXCUSE.is_excuse and not EXCUSE.is_trump
    assert PETIT.is_trump and PETIT.is_bout


def test_display_order_is_id_order():
    codes = [c.code for c in DECK]
    assert codes[:14] == ["SR", "SD", "SC", "SV", *(f"S{v}" for v in range(10, 0, -1))]
    assert codes[14] == "HR" and codes[28] == "DR" and codes[42] == "CR"
    assert codes[56:] == [*(f"T{v}" for v in range(21, 0, -1)), "EX"]
    assert sort_cards(["EX", "T1", "CR", "SR"]) == (DECK[0], DECK[42], PETIT, EXCUSE)


def test_card_is_a_cached_int():
    assert Card(5) is DECK[5] and Card(DECK[5]) is DECK[5] and Card(5) == 5
    assert copy.deepcopy(DECK[7]) is DECK[7] and pickle.loads(pickle.dumps(DECK[7])) is DECK[7]
    assert json.dumps([DECK[77]]) == "[77]"
    assert repr(DECK[0]) == "Card('SR')"
    with pytest.raises(ValueError):
        Card(78)
    with pytest.raises(TypeError):
        Card(True)


@pytest.mark.parametrize("token", ["sr", " Sr ", "h10", "t21", "ex", "Ex"])
def test_card_codes_are_case_insensitive(token):
    assert parse_card(token).code == token.strip().upper()


@pytest.mark.parametrize("token", ["S11", "SA", "T0", "T22", "E", "", "XR", "EXC", "S 1"])
def test_unknown_card_codes_are_refused(token):
    with pytest.raises(NotationError, match="Unknown card"):
        parse_card(token)


def test_helpers():
    hand = parse_hand("S:R H:- D:- C:- T:21 5 1 EX")
    assert trump_count(hand) == 4 and trump_count(hand, include_excuse=False) == 3
    assert holds(hand, "T1") and holds(hand, PETIT) and not holds(hand, "T2")
    assert bouts_in(hand) == 3
    assert points_in(hand) == Fraction(9 * 4 + 1, 2)
    assert is_petit_sec(parse_hand("S:R H:- D:- C:- T:1"))
    assert not is_petit_sec(parse_hand("S:R T:1 EX"))
    assert not is_petit_sec(parse_hand("S:R T:2 1"))
    assert not is_petit_sec(parse_hand("S:R T:-"))


# --- flat and grouped notation -----------------------------------------------------------------


def test_flat_notation_round_trip():
    cards = parse_cards("ex t1 SR h10 CV")
    assert format_cards(cards) == "SR H10 CV T1 EX"
    assert parse_cards(format_cards(cards)) == cards
    with pytest.raises(NotationError, match="written twice"):
        parse_cards("SR sr")


def test_hand_notation_canonical_form():
    hand = parse_cards("SR SD S7 S1 DV D5 CC C8 C3 T21 T15 T12 T1 EX")
    assert format_hand(hand) == "S:R D 7 1 H:- D:V 5 C:C 8 3 T:21 15 12 1 EX"
    assert format_hand([EXCUSE]) == "S:- H:- D:- C:- T:EX"


def test_hand_notation_is_lenient_on_input():
    canonical = "S:R D 7 1 H:- D:V 5 C:C 8 3 T:21 15 12 1 EX"
    expected = parse_hand(canonical)
    assert parse_hand("t:1 12 15 21 c:3 8 c s:1 7 d r d:5 v ex") == expected
    assert parse_hand("S: R D 7 1  D:V 5\n C:C 8 3 T:21 15 12 1 EX") == expected  # no H: = void
    assert parse_hand("EX S:R D 7 1 D:V 5 C:C 8 3 T:21 15 12 1") == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("S:R X:1", "Unknown group"),
        ("S:R S:D", "written twice in this hand"),
        ("R D", "not inside a group"),
        ("S:R 11", "not a rank of group S"),
        ("T:22", "not a rank of group T"),
        ("S:- R", r"has '-' \(void\) and cards"),
        ("S:R -", r"has '-' \(void\) and cards"),
        ("S:R R", "written twice"),
        ("T:EX EX", "written twice"),
    ],
)
def test_hand_notation_errors(text, message):
    with pytest.raises(NotationError, match=message):
        parse_hand(text)


@given(st.lists(st.sampled_from(DECK), unique=True, max_size=78))
def test_hand_round_trip(cards):
    text = format_hand(cards)
    assert parse_hand(text) == tuple(sorted(cards))
    assert format_hand(parse_hand(text)) == text
    assert text.isascii()


# --- donnes ------------------------------------------------------------------------------------


def test_donne_text_block():
    donne = make_donne(7, dealer="S")
    text = format_donne(donne)
    lines = text.splitlines()
    assert lines[0] == "donne 7 dealer S"
    assert [line.split()[0] for line in lines[1:]] == ["N", "E", "S", "W", "chien"]
    assert text.endswith("\n") and text.isascii()
    assert parse_donne(text) == donne and format_donne(parse_donne(text)) == text


def test_donne_redraws_written_only_when_nonzero():
    donne = make_donne()
    redrawn = Donne(donne.number, donne.dealer, donne.hands, donne.chien, redraws=2)
    assert format_donne(redrawn).splitlines()[0] == "donne 1 dealer N redraws 2"
    assert parse_donne(format_donne(redrawn)) == redrawn
    text = format_donne(donne).replace("dealer N", "dealer N redraws 0")
    assert parse_donne(text) == donne


def test_donne_accessors():
    donne = make_donne()
    assert donne.hand("E") == donne.hands[1]
    for pos, hand in zip("NESW", donne.hands, strict=True):
        assert all(donne.holder(c) == pos for c in hand)
    assert all(donne.holder(c) == "chien" for c in donne.chien)
    with pytest.raises(NotationError):
        donne.hand("X")


def test_donne_constructor_refuses_bad_deals():
    donne = make_donne()
    hands = list(donne.hands)
    with pytest.raises(NotationError, match="Hand N has 17 cards"):
        Donne(1, "N", (hands[0][1:], *hands[1:]), donne.chien)  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="is in hand N and in hand E"):
        Donne(1, "N", (hands[0], (*hands[1][1:], hands[0][0]), *hands[2:]), donne.chien)  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="Unknown position"):
        Donne(1, "X", donne.hands, donne.chien)
    with pytest.raises(NotationError, match="Donne number"):
        Donne(0, "N", donne.hands, donne.chien)


def block_with(donne: Donne, line: int, new: str) -> str:
    lines = format_donne(donne).splitlines()
    lines[line] = new
    return "\n".join(lines) + "\n"


def test_donne_parse_errors_name_the_line():
    donne = make_donne()
    lines = format_donne(donne).splitlines()
    # a card moved from W to E: E has 19 cards (line 3)
    moved = donne.hands[3][0]
    e_line = "E " + format_hand((*donne.hands[1], moved))
    w_line = "W " + format_hand(donne.hands[3][1:])
    text = "\n".join([lines[0], lines[1], e_line, lines[3], w_line, lines[5]])
    with pytest.raises(NotationError, match=r"^Line 3: Hand E has 19 cards") as info:
        parse_donne(text)
    assert info.value.line == 3
    # a card written twice (in N and in S), N keeps 18 by dropping another: reported on S's line
    dup = donne.hands[0][0]
    s_cards = (*donne.hands[2][1:], dup)
    text = block_with(donne, 3, "S " + format_hand(s_cards))
    with pytest.raises(
        NotationError, match=rf"^Line 4: Card {dup.code} is in hand N and in hand S"
    ):
        parse_donne(text)
    # a card missing everywhere: chien of 5
    text = block_with(donne, 5, "chien " + format_hand(donne.chien[1:]))
    with pytest.raises(NotationError, match=r"^Line 6: The chien has 5 cards") as info:
        parse_donne(text)
    assert f"Not in the donne: {donne.chien[0].code}." in str(info.value)
    assert info.value.inner is not None and info.value.inner.code == "count_missing"
    with pytest.raises(NotationError, match=r"^Line 2: .*Unknown card|^Line 2: .*not a rank"):
        parse_donne(block_with(donne, 1, "N S:Z " + lines[1][4:]))
    with pytest.raises(NotationError, match=r"^Line 1: Expected a line 'donne"):
        parse_donne("dunno 1\n" + "\n".join(lines[1:]))
    with pytest.raises(NotationError, match=r"^Line 1: Unknown position 'X'"):
        parse_donne(block_with(donne, 0, "donne 1 dealer X"))
    with pytest.raises(NotationError, match=r"^Line 3: Hand N is written twice"):
        parse_donne(block_with(donne, 2, lines[1]))
    with pytest.raises(NotationError, match=r"^Line 1: Donne 1 lacks the line chien\."):
        parse_donne("\n".join(lines[:5]))
    with pytest.raises(NotationError, match=r"^Line 6: Expected a hand line"):
        parse_donne(block_with(donne, 5, "kitty " + lines[5][6:]))


def test_donne_missing_card_is_named():
    donne = make_donne()
    # swap one card of N for a duplicate of a chien card: chien card duplicated, N card missing
    lines = format_donne(donne).splitlines()
    lost = donne.hands[0][0]
    n_cards = (*donne.hands[0][1:], donne.chien[0])
    lines[1] = "N " + format_hand(n_cards)
    with pytest.raises(NotationError, match=r"^Line 6: Card .* is in hand N and in the chien"):
        parse_donne("\n".join(lines))
    assert lost not in n_cards


@settings(max_examples=50)
@given(st.randoms(use_true_random=False), st.integers(1, 500), st.sampled_from("NESW"))
def test_donne_round_trip(rnd, number, dealer):
    pack = list(DECK)
    rnd.shuffle(pack)
    donne = Donne(number, dealer, (pack[:18], pack[18:36], pack[36:54], pack[54:72]), pack[72:])  # type: ignore[arg-type]
    text = format_donne(donne)
    assert parse_donne(text) == donne
    assert format_donne(parse_donne(text)) == text


# --- sets of donnes ----------------------------------------------------------------------------


def make_set(count: int = 3, seed: str | None = None) -> DonneSet:
    donnes = tuple(make_donne(k, seed=k) for k in range(1, count + 1))
    return DonneSet("Club de Lyon — séance du 14 mars", COMMITMENT, donnes, seed)


def test_set_text_layout_and_round_trip():
    donne_set = make_set(2, seed="00ff" * 8)
    text = format_donne_set(donne_set)
    lines = text.splitlines()
    assert lines[:6] == [
        "tarot_club donnes format 1",
        "identity Club de Lyon — séance du 14 mars",
        f"commitment {COMMITMENT}",
        f"seed {'00ff' * 8}",
        "donnes 2",
        "",
    ]
    assert lines[6] == "donne 1 dealer N" and lines[12] == "" and lines[13] == "donne 2 dealer N"
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert parse_donne_set(text) == donne_set
    assert format_donne_set(parse_donne_set(text)) == text


def test_set_without_seed_and_lenient_input():
    donne_set = make_set(2)
    text = format_donne_set(donne_set)
    assert "\nseed " not in text
    noisy = "# exported by hand\n\n" + text.replace("donne 2 dealer N", "\n\nDONNE 2 Dealer n")
    noisy = noisy.replace("commitment " + COMMITMENT, "Commitment " + COMMITMENT.upper())
    assert parse_donne_set(noisy) == donne_set


def test_set_identity_is_nfc_normalised():
    decomposed = "se\u0301ance"
    donne_set = DonneSet(decomposed, COMMITMENT, ())
    assert donne_set.identity == "séance"
    assert check_identity(decomposed) == "séance"


@pytest.mark.parametrize("identity", ["", " padded", "two\nlines", "tab\there"])
def test_bad_identities(identity):
    with pytest.raises(InvalidIdentity):
        check_identity(identity)


def set_text_with(line_no: int, new: str | None, donne_set: DonneSet | None = None) -> str:
    lines = format_donne_set(donne_set or make_set(2)).splitlines()
    if new is None:
        del lines[line_no - 1]
    else:
        lines[line_no - 1] = new
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("line_no", "new", "message"),
    [
        (1, "tarot donnes", r"^Line 1: Not a tarot_club donnes file"),
        (1, "tarot_club donnes format 2", r"^Line 1: Format version '2' is not supported"),
        (2, "identity  spaced", r"^Line 2: .*must not start or end with spaces"),
        (3, "commitment abc", r"^Line 3: commitment must be hexadecimal"),
        (4, "donnes three", r"^Line 4: 'donnes' must be a whole number"),
        (4, "donnes 3", r"^Line 4: The header announces 3 donnes but the file has 2"),
        (4, "colour blue", r"^Line 4: Unknown header line"),
        (3, "identity again", r"^Line 3: Header line identity is written twice"),
        (4, None, r"^Line 5: The header lacks the line donnes"),
        (13, "donne 1 dealer N", r"^Line 13: Donne 1 comes after donne 1"),
        (9, "S S:R R", r"^Line 9: Card SR is written twice"),
    ],
)
def test_set_parse_errors(line_no, new, message):
    with pytest.raises(NotationError, match=message) as info:
        parse_donne_set(set_text_with(line_no, new))
    assert info.value.line is not None


def test_set_parse_error_in_second_block_gives_its_line():
    text = format_donne_set(make_set(2))
    lines = text.splitlines()
    lines[14] = "E " + format_hand(parse_hand(lines[14][2:])[1:])
    with pytest.raises(NotationError, match=r"^Line 15: Hand E has 17 cards"):
        parse_donne_set("\n".join(lines))


def test_empty_text_is_refused():
    with pytest.raises(NotationError, match="empty"):
        parse_donne_set("  \n# only a comment\n")
    with pytest.raises(NotationError, match="empty"):
        parse_donne("")


def test_set_refuses_unordered_donnes():
    d1, d2 = make_donne(1), make_donne(2)
    with pytest.raises(NotationError, match="comes after"):
        DonneSet("x", COMMITMENT, (d2, d1))


def test_notation_error_is_a_value_error():
    assert issubclass(NotationError, ValueError)
