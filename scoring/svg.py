"""A small SVG line chart of a running total, rendered on the server (no JS library, no CDN:
club rooms often have no internet, and a phone draws SVG natively)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from html import escape

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from scoring.display import localise_number_text


def _nice_step(span: float) -> float:
    """A round step (1, 2 or 5 × 10^k) giving about four grid lines over the span."""
    if span <= 0:
        return 1.0
    raw = span / 4
    base = 10.0 ** math.floor(math.log10(raw))
    return next(base * factor for factor in (1, 2, 5, 10) if base * factor >= raw)


def _fmt(value: float) -> str:
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return localise_number_text(text, get_language())


def running_total_chart(
    points: Sequence[tuple[str, Fraction | int | float]],
    *,
    title: str,
    width: int = 360,
    height: int = 190,
    value_format: str = "{:+.1f}",
) -> SafeString:
    """An accessible SVG line chart: one point per label, a zero line, grid lines with their
    values, each point with a tooltip. Scales to its container (viewBox, width 100%)."""
    left, right, top, bottom = 44, 12, 12, 28
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [float(v) for _, v in points]
    low = min([0.0, *values])
    high = max([0.0, *values])
    if high == low:
        high, low = high + 1, low - 1
    step = _nice_step(high - low)
    low = step * (low // step)
    high = step * -(-high // step)

    def x(i: int) -> float:
        return left + (plot_w * (i + 0.5) / max(len(values), 1))

    def y(v: float) -> float:
        return top + plot_h * (high - v) / (high - low)

    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{escape(title)}</title>",
    ]
    grid = low
    while grid <= high + step / 1000:
        gy = y(grid)
        css = "chart-zero" if abs(grid) < step / 1000 else "chart-grid"
        parts.append(
            f'<line class="{css}" x1="{left}" x2="{width - right}" y1="{gy:.1f}" y2="{gy:.1f}"/>'
        )
        parts.append(
            f'<text class="chart-axis" x="{left - 6}" y="{gy + 4:.1f}" '
            f'text-anchor="end">{escape(_fmt(grid))}</text>'
        )
        grid += step
    if values:
        coords = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline class="chart-line" fill="none" points="{coords}"/>')
        every = max(1, len(values) // 12)
        for i, ((label, _value), v) in enumerate(zip(points, values, strict=True)):
            css = "chart-dot pos" if v > 0 else "chart-dot neg" if v < 0 else "chart-dot"
            tip = localise_number_text(value_format.format(v), get_language())
            parts.append(
                f'<circle class="{css}" cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.5">'
                f"<title>{escape(label)}: {escape(tip)}</title></circle>"
            )
            if i % every == 0 or i == len(values) - 1:
                parts.append(
                    f'<text class="chart-axis" x="{x(i):.1f}" y="{height - 8}" '
                    f'text-anchor="middle">{escape(label)}</text>'
                )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text part above is escaped
