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
