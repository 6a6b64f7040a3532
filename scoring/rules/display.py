"""How numbers, cards and positions read on screen and paper, in French and in English.

Pure (no Django), so that screens, CSV exports and the PDF renderers share one way of
writing: a decimal comma in French ("40,5"), the ranks R D C V in French and K Q C J in English,
the suit symbols ♠ ♥ ♦ ♣ with their names for screen readers, the positions N E S O in
French. The data notation of docs/formats.md (``S:R D 7``) does not change: this is display.
Callers pass the language code ("fr", "fr-fr", "en", …); anything not English reads French.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {
    "fr": {"S": "pique", "H": "cœur", "D": "carreau", "C": "trèfle"},
    "en": {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"},
}
TRUMPS_NAME = {"fr": "atout", "en": "trumps"}
# Face cards by rank (14 Roi/King … 11 Valet/Jack); the Cavalier is C in both languages.
FACE_LETTERS = {
    "fr": {14: "R", 13: "D", 12: "C", 11: "V"},
    "en": {14: "K", 13: "Q", 12: "C", 11: "J"},
}
POSITION_LETTERS = {
    "fr": {"N": "N", "E": "E", "S": "S", "W": "O"},
    "en": {"N": "N", "E": "E", "S": "S", "W": "W"},
}
DECIMAL_SEPARATOR = {"fr": ",", "en": "."}
# A negative number reads with the minus sign (U+2212), in both languages; data for other
# software (CSV) asks for the hyphen-minus it parses.
MINUS = "\u2212"
_HUNDREDTH = Decimal("0.01")


def language_of(code: str | None) -> str:
    """ "en" for English ("en", "en-gb"), "fr" for anything else (the site's default)."""
    return "en" if (code or "").lower().startswith("en") else "fr"


def to_decimal(value: Any, places: int = 2) -> Decimal | None:
    """An exact number (int, Decimal, Fraction, "n/d" is not accepted) rounded half up to
    `places` decimals, without trailing zeros; None for None, "" or what is not a number."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, Fraction):
            number = Decimal(value.numerator) / Decimal(value.denominator)
        else:
            number = Decimal(str(value))
    except (ArithmeticError, InvalidOperation, ValueError):
        return None
    if not number.is_finite():
        return None
    number = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    if number == number.to_integral():
        return number.quantize(Decimal(1))
    return number.normalize()


def decimal_text(
    value: Any, language: str | None = "fr", *, places: int = 2, minus: str = MINUS
) -> str:
    """12.5 -> "12,5" in French, "12.5" in English, -3 -> "−3" (``minus``: "-" for data
    read by other software); "" when there is no number."""
    number = to_decimal(value, places)
    if number is None:
        return ""
    text = format(number, "f")
    if text.startswith("-"):
        text = text[1:] if number == 0 else minus + text[1:]
    return text.replace(".", DECIMAL_SEPARATOR[language_of(language)])


def signed_text(
    value: Any, language: str | None = "fr", *, places: int = 2, minus: str = MINUS
) -> str:
    """Like decimal_text with a + before a positive number (a differential reads so)."""
    text = decimal_text(value, language, places=places, minus=minus)
    number = to_decimal(value, places)
    return f"+{text}" if number is not None and number > 0 else text


def exact_text(
    value: int | Fraction, language: str | None = "fr", *, sign: bool = False, minus: str = MINUS
) -> str:
    """`decimal_text` (or `signed_text` with `sign`) of an int or a Fraction, two places, in
    integer arithmetic: the same text, for documents that write hundreds of thousands of
    numbers (rounded half away from zero, as ROUND_HALF_UP does)."""
    if value.__class__ is int:
        number, whole, cents = value, abs(value), 0
    else:
        numerator, denominator = value.numerator, value.denominator
        hundredths = (2 * 100 * abs(numerator) + denominator) // (2 * denominator)
        number = hundredths if numerator >= 0 else -hundredths
        whole, cents = divmod(hundredths, 100)
    if cents:
        digits = f"{cents:02d}".rstrip("0")
        text = f"{whole}{DECIMAL_SEPARATOR[language_of(language)]}{digits}"
    else:
        text = str(whole)
    if number < 0:
        return f"{minus}{text}"
    return f"+{text}" if sign and number > 0 else text


def exact_formatter(
    language: str | None = "fr", *, sign: bool = False, minus: str = MINUS
) -> Callable[[int | Fraction], str]:
    """`exact_text` with its language and sign told once: the same text for an int or a
    Fraction, at about half the cost, for documents that write tens of thousands of numbers
    of one language (a thousand score cards: 50,000 differentials and running totals)."""
    separator = DECIMAL_SEPARATOR[language_of(language)]
    plus = "+" if sign else ""

    def text(value: int | Fraction) -> str:
        if value.__class__ is int:
            if value < 0:
                return f"{minus}{-value}"
            return f"{plus}{value}" if value else "0"
        numerator, denominator = value.numerator, value.denominator
        if numerator < 0:
            hundredths = (-200 * numerator + denominator) // (2 * denominator)
            head = minus if hundredths else ""
        else:
            hundredths = (200 * numerator + denominator) // (2 * denominator)
            head = plus if hundredths else ""
        whole, cents = divmod(hundredths, 100)
        if not cents:
            return f"{head}{whole}"
        if cents % 10:
            return f"{head}{whole}{separator}{cents:02d}"
        return f"{head}{whole}{separator}{cents // 10}"

    return text


def localise_number_text(text: str, language: str | None = "fr") -> str:
    """A number already written with a decimal point ("+12.5", "40.5 %") in the language."""
    return text.replace(".", DECIMAL_SEPARATOR[language_of(language)])


def rank_text(rank: int, language: str | None = "fr") -> str:
    """A suit card's rank as printed: R D C V (French) or K Q C J (English), else its number."""
    return FACE_LETTERS[language_of(language)].get(rank, str(rank))


def suit_name(suit: str, language: str | None = "fr") -> str:
    """The suit's name for screen readers: "pique", "spades"."""
    return SUIT_NAMES[language_of(language)][suit]


def position_letter(position: str, language: str | None = "fr") -> str:
    """N E S O in French, N E S W in English (the code keeps W)."""
    return POSITION_LETTERS[language_of(language)].get(position, position)


def camp_amount(value: int) -> tuple[int, str]:
    """A signed part of a deal's score as (amount, "taker" | "defence" | "none"): the taker's
    camp gains a positive part, the defence a negative one."""
    if value > 0:
        return value, "taker"
    if value < 0:
        return -value, "defence"
    return 0, "none"


# --- hands ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HandSuit:
    symbol: str
    css: str
    cards: list[str]
    name: str = ""  # the suit's name, for screen readers ("pique")


@dataclass(frozen=True)
class HandView:
    position: str
    label: str
    suits: list[HandSuit]
    trumps: list[str]
    raw: str


def hand_view(position: str, label: str, text: str, language: str | None = "fr") -> HandView:
    """A hand grouped by suit for the diagram (suit symbols, ranks in the language: R D C V
    or K Q C J; trumps high to low); a hand the notation cannot read is shown as stored."""
    from scoring.rules.cards import parse_hand

    try:
        cards = parse_hand(text)
    except Exception:  # a hand the notation cannot read is shown as stored
        return HandView(position, label, [], [], text)
    suits: dict[str, list[str]] = {s: [] for s in SUITS}
    trumps: list[str] = []
    for card in cards:  # display order: ♠ ♥ ♦ ♣ high to low, then trumps 21..1, Excuse
        if card.suit is not None:
            suits[card.suit].append(rank_text(card.rank, language))
        else:
            trumps.append(card.symbol)
    return HandView(
        position,
        label,
        [HandSuit(SUIT_SYMBOLS[s], f"suit-{s}", suits[s], suit_name(s, language)) for s in SUITS],
        trumps,
        text,
    )
