"""A small SVG line chart of a running total, rendered on the server (no JS library, no CDN:
club rooms often have no internet, and a phone draws SVG natively)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from html import escape

from django.utils.safestring import SafeString, mark_safe


def nice_step(span: float) -> float:
    """A round step (1, 2 or 5 × 10^k) giving about four grid lines over the span."""
    if span <= 0:
        return 1.0
    raw = span / 4
    base = 10.0 ** math.floor(math.log10(raw))
    return next(base * factor for factor in (1, 2, 5, 10) if base * factor >= raw)


@dataclass(frozen=True)
class Trend:
    """What a reader of the chart takes from it, for those who cannot see it: where the line
    starts and ends, its highest and lowest points, and how its last stretch goes."""

    first: tuple[str, float]
    last: tuple[str, float]
    highest: tuple[str, float]
    lowest: tuple[str, float]
    recent_change: float  # last value minus the value `recent_span` points earlier
    recent_span: int


def chart_trend(points: Sequence[tuple[str, Fraction | int | float]], recent: int = 4) -> Trend:
    """The facts of a running total: first and last points, extremes (the earliest one when a
    value repeats), and the change over the last ``recent`` points."""
    if not points:
        raise ValueError("a trend needs at least one point")
    values = [(label, float(value)) for label, value in points]
    highest = max(values, key=lambda lv: lv[1])
    lowest = min(values, key=lambda lv: lv[1])
    span = min(recent, len(values) - 1)
    change = values[-1][1] - values[-1 - span][1]
    return Trend(values[0], values[-1], highest, lowest, change, span)


def _default_format(value: float) -> str:
    """A signed value with one decimal, as the active language writes it (+2,5 in French)."""
    from django.utils.translation import get_language

    from scoring.rules.display import signed_text

    return signed_text(value, get_language(), places=1)


AXIS_CHAR_WIDTH = 7.0  # an 11 px label's characters, generously (rankings.css, .chart-axis)


def _axis_labels(labels: Sequence[str], slot: float) -> set[int]:
    """Indexes of the labels written under the axis: evenly spaced so that no two overlap
    ("Donne 9Donne 10" on a phone), always the first and the last."""
    if not labels:
        return set()
    need = max(len(label) for label in labels) * AXIS_CHAR_WIDTH + 6
    every = max(1, math.ceil(need / slot))
    shown = list(range(0, len(labels), every))
    last = len(labels) - 1
    if shown[-1] != last:
        if len(shown) > 1 and (last - shown[-1]) * slot < need:
            shown.pop()  # the last label takes the place of the one too close to it
        shown.append(last)
    return set(shown)


def running_total_chart(
    points: Sequence[tuple[str, Fraction | int | float]],
    *,
    title: str,
    description: str = "",
    width: int = 360,
    height: int = 190,
    format_value: Callable[[float], str] = _default_format,
) -> SafeString:
    """An accessible SVG line chart: one point per label, a zero line, grid lines with their
    values. Each point shows its value on hover and on keyboard focus (no mouse needed), and
    the chart's text alternative is its title plus ``description`` (the trend, in words).
    Scales to its container (viewBox, width 100%)."""
    left, right, top, bottom = 44, 12, 12, 28
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [float(v) for _, v in points]
    low = min([0.0, *values])
    high = max([0.0, *values])
    if high == low:
        high, low = high + 1, low - 1
    step = nice_step(high - low)
    low = step * (low // step)
    high = step * -(-high // step)

    def x(i: int) -> float:
        return left + (plot_w * (i + 0.5) / max(len(values), 1))

    def y(v: float) -> float:
        return top + plot_h * (high - v) / (high - low)

    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="100%" role="group" '
        f'aria-labelledby="chart-title" '
        f'xmlns="http://www.w3.org/2000/svg">',
        f'<title id="chart-title">{escape(title)}</title>',
        f"<desc>{escape(description)}</desc>",
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
            f'text-anchor="end" aria-hidden="true">{escape(format_value(grid).lstrip("+"))}</text>'
        )
        grid += step
    if values:
        coords = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(
            f'<polyline class="chart-line" fill="none" points="{coords}" aria-hidden="true"/>'
        )
        shown_labels = _axis_labels([label for label, _ in points], plot_w / len(values))
        for i, ((label, _value), v) in enumerate(zip(points, values, strict=True)):
            css = "chart-dot pos" if v > 0 else "chart-dot neg" if v < 0 else "chart-dot"
            shown = escape(format_value(v))
            tip_x = min(max(x(i), left + 20), width - right - 20)
            tip_y = y(v) - 9 if y(v) > top + 18 else y(v) + 19
            parts.append(
                f'<g class="chart-point" tabindex="0" role="img" '
                f'aria-label="{escape(label)} — {shown}">'
                f'<circle class="{css}" cx="{x(i):.1f}" cy="{y(v):.1f}" r="4.5"/>'
                f'<text class="chart-tip" x="{tip_x:.1f}" y="{tip_y:.1f}" '
                f'text-anchor="middle">{shown}</text></g>'
            )
            if i in shown_labels:
                parts.append(
                    f'<text class="chart-axis" x="{x(i):.1f}" y="{height - 8}" '
                    f'text-anchor="middle" aria-hidden="true">{escape(label)}</text>'
                )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text part above is escaped


def spread_chart(
    counts: Sequence[tuple[Fraction | int, int]],
    *,
    mine: Fraction | int | None,
    label: str,
    format_value: Callable[[float], str] = _default_format,
    width: int = 240,
    height: int = 64,
) -> SafeString:
    """A small bar chart of a donne's spread at one position: one bar per distinct score
    (lowest left), its height the number of tables, the reader's own score marked. The chart
    is an image whose text alternative is ``label`` (the values are in the table beside it)."""
    top, bottom, gap = 6, 16, 2
    most = max((n for _s, n in counts), default=1)
    slot = width / max(len(counts), 1)
    parts = [
        f'<svg class="spread" viewBox="0 0 {width} {height}" width="100%" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
    ]
    plot_h = height - top - bottom
    for i, (score, tables) in enumerate(counts):
        bar_h = max(2.0, plot_h * tables / most)
        x = i * slot + gap / 2
        css = "spread-bar mine" if mine is not None and score == mine else "spread-bar"
        parts.append(
            f'<rect class="{css}" x="{x:.1f}" y="{top + plot_h - bar_h:.1f}" '
            f'width="{max(slot - gap, 1):.1f}" height="{bar_h:.1f}"/>'
        )
        if len(counts) <= 8 or css.endswith("mine"):
            parts.append(
                f'<text class="chart-axis" x="{x + (slot - gap) / 2:.1f}" y="{height - 4}" '
                f'text-anchor="middle" aria-hidden="true">'
                f"{escape(format_value(float(score)))}</text>"
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text part above is escaped
