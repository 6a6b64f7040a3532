"""Display of exact numbers (RULES §6: differentials are exact; round only when displaying).

The writing itself (decimal comma in French) is scoring/rules/display.py, shared with the PDFs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template
from django.utils.translation import get_language

from scoring.rules import display

register = template.Library()


def _decimal(value: Any) -> Decimal | None:
    return display.to_decimal(value)


@register.filter
def number(value: Any) -> str:
    """An exact number rounded to two decimals, in the page's language (12,5 in French)."""
    return display.decimal_text(value, get_language())


@register.filter
def signed(value: Any) -> str:
    """Like `number`, with a + before positive values (a differential reads better so)."""
    return display.signed_text(value, get_language())


@register.filter
def position_letter(value: str) -> str:
    """N E S O in French, N E S W in English."""
    return display.position_letter(value, get_language())


@register.filter
def sign_class(value: Any) -> str:
    """CSS class for a number: pos, neg or nothing."""
    d = _decimal(value)
    if d is None or d == 0:
        return ""
    return "pos" if d > 0 else "neg"


@register.filter
def rating_line(summary: Any, tournament_pk: int) -> Any:
    """The player's rating line for one event (`scoring.rankings.rating.RatingSummary`), or
    None: not counted, or the rating not shown."""
    if summary is None or not summary.shown:
        return None
    return summary.by_tournament.get(tournament_pk)


@register.filter
def whole(value: Any) -> str:
    """A rating rounded to the unit (1563)."""
    return "" if value is None else display.decimal_text(round(value), get_language())


@register.filter
def signed_whole(value: Any) -> str:
    """A rating change rounded to the unit, signed (+42, −7, 0)."""
    return "" if value is None else display.signed_text(round(value), get_language()) or "0"
