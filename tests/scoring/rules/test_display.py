"""scoring/rules/display.py: numbers, cards and positions as French and English players read them."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import display


def test_decimal_comma_in_french_point_in_english():
    assert display.decimal_text(Decimal("40.5")) == "40,5"
    assert display.decimal_text("40.5", "en") == "40.5"
    assert display.decimal_text(Fraction(-25, 3), "fr-fr") == "\u22128,33"
    assert display.decimal_text(Fraction(-25, 3), "en", minus="-") == "-8.33"  # CSV
    assert display.decimal_text(Fraction(1, 200)) == "0,01"  # half up
    assert display.decimal_text(12.0) == "12"
    assert display.decimal_text(Fraction(-1, 1000)) == "0"  # never "-0"
    assert display.decimal_text(None) == "" and display.decimal_text("abc") == ""
    assert display.signed_text(Fraction(25, 2)) == "+12,5"
    assert display.signed_text(-3, "en") == "\u22123"
    assert display.signed_text(0) == "0"
    assert display.localise_number_text("+12.5 %", "fr") == "+12,5 %"


@given(st.fractions(max_denominator=1000).filter(lambda f: abs(f) < 10**6))
def test_french_and_english_differ_only_by_the_separator(value):
    fr, en = display.decimal_text(value, "fr"), display.decimal_text(value, "en")
    assert "." not in fr
    assert fr.replace(",", ".") == en
    en = en.replace(display.MINUS, "-")
    assert Decimal(en) == display.to_decimal(value)
    assert abs(Decimal(en) - Decimal(value.numerator) / Decimal(value.denominator)) <= Decimal(
        "0.005"
    )


def test_ranks_suits_and_positions():
    assert [display.rank_text(r) for r in (14, 13, 12, 11, 10, 1)] == [
        "R",
        "D",
        "C",
        "V",
        "10",
        "1",
    ]
    assert [display.rank_text(r, "en") for r in (14, 13, 12, 11)] == ["K", "Q", "C", "J"]
    assert display.suit_name("D") == "carreau" and display.suit_name("C", "en") == "clubs"
    assert display.position_letter("W") == "O" and display.position_letter("W", "en") == "W"
    assert display.camp_amount(-58) == (58, "defence")
    assert display.camp_amount(26) == (26, "taker")


def test_exact_text_writes_what_decimal_and_signed_text_write():
    """The integer-arithmetic path of the documents gives the Decimal path's text for ints
    and Fractions: ties at the third decimal away from zero, -0 as 0, trailing zeros dropped,
    in French and English (random values, and the edge cases by name); `exact_formatter`
    writes what `exact_text` writes."""
    import random

    from scoring.rules.display import decimal_text, exact_formatter, exact_text, signed_text

    rnd = random.Random(16)
    values: list[int | Fraction] = [0, 1, -1, 1230, -1152, Fraction(-1, 1000), Fraction(1, 1000)]
    values += [Fraction(-1, 200), Fraction(1, 200), Fraction(2461, 2), Fraction(-3, 8)]
    values += [Fraction(1, 3), Fraction(-2, 3), Fraction(10005, 1000), Fraction(-10005, 1000)]
    for _ in range(5000):
        values.append(
            Fraction(
                rnd.randint(-200_000, 200_000),
                rnd.choice((1, 2, 3, 4, 6, 7, 8, 200, 1000, 2000, 999)),
            )
        )
        values.append(rnd.randint(-3000, 3000))
    for language in ("fr", "en"):
        plain, signed = exact_formatter(language), exact_formatter(language, sign=True)
        for value in values:
            assert exact_text(value, language) == decimal_text(value, language), value
            assert exact_text(value, language, sign=True) == signed_text(value, language), value
            assert plain(value) == exact_text(value, language), value
            assert signed(value) == exact_text(value, language, sign=True), value
