"""Validators for the text people type that others read (names of players, clubs, tournaments,
venues; announcements, notes and reasons): printed on rankings, score sheets and PDFs, so invisible characters must not get in.

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


def _invisible(char: str, allowed: frozenset[str]) -> bool:
    if char in allowed:
        return False
    return char in BIDI_CONTROLS or unicodedata.category(char) in INVISIBLE_CATEGORIES


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
    found = first_invisible(value, multiline=multiline)
    if found is not None:
        position, char = found
        raise ValidationError(
            message,
            code="hidden_characters",
            params={"character": character_label(char), "position": position},
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
