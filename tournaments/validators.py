"""Validators for the text people type that others read (names of players, clubs, tournaments,
venues): printed on rankings, score sheets and PDFs, so invisible characters must not get in.

Why: a control character breaks a printed line or a CSV export, and a bidirectional override
(U+202E…) reverses the text after it on screen, which could make a ranking or a sheet show a
name or a score that is not the one stored.
"""

from __future__ import annotations

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# Marks that change the direction of the text around them (Unicode bidirectional controls).
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def hidden_characters(value: str) -> list[str]:
    """The characters of ``value`` that print nothing or rearrange the text, as U+XXXX."""
    found = []
    for char in value:
        if char in BIDI_CONTROLS or unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp"):
            code = f"U+{ord(char):04X}"
            if code not in found:
                found.append(code)
    return found


def validate_plain_text(value: str) -> None:
    """Refuse control characters and direction overrides, naming them (what to remove)."""
    found = hidden_characters(value or "")
    if found:
        raise ValidationError(
            _(
                "Remove the invisible characters from this text (%(characters)s): control "
                "characters and direction marks would garble the printed rankings and sheets."
            ),
            code="hidden_characters",
            params={"characters": ", ".join(found)},
        )
