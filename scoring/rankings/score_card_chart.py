"""The score card's chart with a text alternative that says what the chart shows.

Why: a screen reader, or anyone who cannot read the line, must learn the same thing a glance
gives: where the player started and ended, his best and worst moments, and how the last
donnes went. Numbers are written as the page writes them (12,5 in French)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.rankings.svg import chart_trend, running_total_chart
from scoring.templatetags.rankings import number, signed


def _percent(value: float) -> str:
    return f"{number(value)} %"


def _signed(value: float) -> str:
    return signed(value) or "0"


def score_card_chart(
    points: Sequence[tuple[str, Fraction | int | float]], *, player: str, matchpoints: bool
) -> tuple[SafeString, str]:
    """The running-total chart of one player's score card, and its description in words
    (shown under the chart for everyone, and read as the chart's text alternative)."""
    fmt = _percent if matchpoints else _signed
    labelled = [(_("Donne %(number)s") % {"number": label}, value) for label, value in points]
    trend = chart_trend(labelled)
    if trend.recent_span == 0:
        recent = ""
    elif abs(trend.recent_change) < 0.005:
        recent = ngettext(
            "Unchanged over the last donne.",
            "Unchanged over the last %(count)s donnes.",
            trend.recent_span,
        ) % {"count": trend.recent_span}
    elif trend.recent_change > 0:
        recent = ngettext(
            "Up %(change)s over the last donne.",
            "Up %(change)s over the last %(count)s donnes.",
            trend.recent_span,
        ) % {
            "change": number(trend.recent_change),
            "count": trend.recent_span,
        }
    else:
        recent = ngettext(
            "Down %(change)s over the last donne.",
            "Down %(change)s over the last %(count)s donnes.",
            trend.recent_span,
        ) % {
            "change": number(-trend.recent_change),
            "count": trend.recent_span,
        }
    description = " ".join(
        part
        for part in (
            _("From %(first)s after %(first_label)s to %(last)s after %(last_label)s.")
            % {
                "first_label": trend.first[0].lower(),
                "first": fmt(trend.first[1]),
                "last_label": trend.last[0].lower(),
                "last": fmt(trend.last[1]),
            },
            _("Highest %(high)s after %(high_label)s, lowest %(low)s after %(low_label)s.")
            % {
                "high": fmt(trend.highest[1]),
                "high_label": trend.highest[0].lower(),
                "low": fmt(trend.lowest[1]),
                "low_label": trend.lowest[0].lower(),
            },
            recent,
        )
        if part
    )
    if matchpoints:
        title = _("Running average of %(player)s (match points %%), donne by donne")
    else:
        title = _("Running total of %(player)s, donne by donne")
    chart = running_total_chart(
        labelled, title=title % {"player": player}, description=description, format_value=fmt
    )
    return chart, description
