"""Validators for the text people type that others read (names of players, clubs, tournaments,
venues, simultaneous events and their clubs; announcements, notes and reasons): printed on
rankings, score sheets, CSV files and PDFs, so invisible characters must not get in, nor
blank-looking letters, piles of accents, or a value with nothing visible at all.

Why: a control character breaks a printed line or a CSV export, and a bidirectional override
(U+202E…) reverses the text after it on screen, which could make a ranking or a sheet show a
name or a score that is not the one stored.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# Marks that change the direction of the text around them (Unicode bidirectional controls).
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Characters that print nothing or rearrange the text: format characters (Cf: zero-width
# spaces and joiners, bidirectional controls, the byte-order mark, the soft hyphen), line and
# paragraph separators (Zl, Zp), control characters (Cc) and lone surrogates (Cs).
INVISIBLE_CATEGORIES = frozenset({"Cf", "Zl", "Zp", "Cc", "Cs"})
# Free text (notes, reasons, announcements) may hold line breaks and tabs.
LINE_BREAKS = frozenset("\n\r\t")
# Letters and symbols that print as a blank although they are not spaces (Hangul fillers,
# the blank Braille pattern), and Unicode's other default-ignorable code points that are not
# format characters: the combining grapheme joiner, variation selectors, Mongolian free
# variation selectors, Khmer inherent vowels, musical formatting marks, tags.
BLANK_LOOKING = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0\u034f")
IGNORABLE_RANGES = (
    (0x180B, 0x180F),
    (0xFE00, 0xFE0F),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
    (0xE0100, 0xE01EF),
)
# Accents a letter may carry (Vietnamese stacks two; 20 stacked make the text spill over the
# lines around it).
MAX_MARKS = 3
MARK_CATEGORIES = frozenset({"Mn", "Me"})


def _invisible(char: str, allowed: frozenset[str]) -> bool:
    if char in allowed:
        return False
    if char in BIDI_CONTROLS or char in BLANK_LOOKING:
        return True
    code = ord(char)
    if any(low <= code <= high for low, high in IGNORABLE_RANGES):
        return True
    return unicodedata.category(char) in INVISIBLE_CATEGORIES


def prints_nothing(char: str) -> bool:
    """Whether ``char`` prints nothing or rearranges the text (what `first_invisible` finds
    outside multiline text)."""
    return _invisible(char, frozenset())


def stacked_marks(value: str) -> int | None:
    """The position (from 1) of the first combining mark beyond `MAX_MARKS` in a row on one
    letter, or None."""
    run = 0
    for position, char in enumerate(value or "", start=1):
        if unicodedata.category(char) in MARK_CATEGORIES:
            run += 1
            if run > MAX_MARKS:
                return position
        else:
            run = 0
    return None


def nothing_visible(value: str) -> bool:
    """Whether a value that is not empty prints nothing at all: only spaces (no-break ones
    included) and characters that print nothing."""
    if not value:
        return False
    return all(char.isspace() or prints_nothing(char) for char in value)


def hidden_characters(value: str) -> list[str]:
    """The characters of ``value`` that print nothing or rearrange the text, as U+XXXX."""
    found = []
    for char in value:
        if _invisible(char, frozenset()):
            code = f"U+{ord(char):04X}"
            if code not in found:
                found.append(code)
    return found


def first_invisible(value: str, *, multiline: bool = False) -> tuple[int, str] | None:
    """The position (from 1) and the character of the first invisible character of
    ``value``, or None. ``multiline`` lets line breaks and tabs through."""
    allowed = LINE_BREAKS if multiline else frozenset()
    for position, char in enumerate(value or "", start=1):
        if _invisible(char, allowed):
            return position, char
    return None


def character_label(char: str) -> str:
    """U+202E RIGHT-TO-LEFT OVERRIDE: the code point and its Unicode name, when it has one."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}".strip()


def _refuse(value: str, *, multiline: bool, message: Any) -> None:
    """The one check of visible text (`validate_plain_text`, `validate_free_text`): nothing
    that prints nothing or rearranges the text, no pile of accents, and something to read."""
    if nothing_visible(value):
        raise ValidationError(
            _("The text has nothing visible (only spaces or invisible characters): type it."),
            code="nothing_visible",
        )
    found = first_invisible(value, multiline=multiline)
    if found is not None:
        position, char = found
        raise ValidationError(
            message,
            code="hidden_characters",
            params={"character": character_label(char), "position": position},
        )
    position = stacked_marks(value)
    if position is not None:
        raise ValidationError(
            _(
                "Too many accents on one letter (at position %(position)s): at most "
                "%(count)s. Type the letter with its accents only."
            ),
            code="stacked_marks",
            params={"position": position, "count": MAX_MARKS},
        )


def validate_plain_text(value: str) -> None:
    """Refuse a name (of a person, club, town, tournament or venue) holding an invisible
    character, saying which one and where."""
    _refuse(
        value,
        multiline=False,
        message=_(
            "The name contains an invisible character (%(character)s) at position "
            "%(position)s: remove it."
        ),
    )


def validate_free_text(value: str) -> None:
    """Refuse free text (an announcement, a note, a reason) holding an invisible character
    other than line breaks and tabs, saying which one and where."""
    _refuse(
        value,
        multiline=True,
        message=_(
            "The text contains an invisible character (%(character)s) at position "
            "%(position)s: remove it."
        ),
    )
