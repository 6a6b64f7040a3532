"""Display of exact numbers (RULES §6: differentials are exact; round only when displaying)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from django import template
from django.utils.formats import number_format

register = template.Library()

_HUNDREDTH = Decimal("0.01")


def _decimal(value: Any) -> Decimal | None:
    if value is None or value == "":
        return None
    if isinstance(value, Fraction):
        number = Decimal(value.numerator) / Decimal(value.denominator)
    else:
        try:
            number = Decimal(str(value))
        except ArithmeticError:
            return None
    number = number.quantize(_HUNDREDTH, rounding=ROUND_HALF_UP)
    # 12.50 -> 12.5, 12.00 -> 12: no trailing zeros, never an exponent.
    if number == number.to_integral():
        return number.quantize(Decimal(1))
    return number.normalize()


@register.filter
def number(value: Any) -> str:
    """An exact number rounded to two decimals, localised (12,5 in French)."""
    d = _decimal(value)
    if d is None:
        return ""
    return number_format(d, use_l10n=True)


@register.filter
def signed(value: Any) -> str:
    """Like `number`, with a + before positive values (a differential reads better so)."""
    d = _decimal(value)
    if d is None:
        return ""
    text = number_format(abs(d), use_l10n=True)
    if d > 0:
        return f"+{text}"
    if d < 0:
        return f"-{text}"
    return text


@register.filter
def sign_class(value: Any) -> str:
    """CSS class for a number: pos, neg or nothing."""
    d = _decimal(value)
    if d is None or d == 0:
        return ""
    return "pos" if d > 0 else "neg"
