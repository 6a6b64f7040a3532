"""The lines of "Mon tarot" (`templates/scoring/mine.html`) written as HTML in Python.

A player with 300 events makes the page write 300 event lines and 300 rows of the chart's
values; through the template language each line costs a dozen `{% translate %}` lookups, two
`{% url %}` reversals, a date format and a score of variable resolutions, and that was most of
the page (194 ms at 300 events, 14.7 times the history's SELECT, against 31 ms for the read).
Here the words are translated once per page, each date formatted once, each link reversed once
per page and completed per event, and every value escaped (`escape`, as the template's
autoescape): the same markup as the template wrote (`tests/scoring/rankings/test_history_rows.py`
renders both and compares them).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from scoring.rankings.player_history import HistoryLine
from scoring.templatetags.rankings import number, sign_class, signed, signed_whole, whole

# A tournament id no tournament has: reversed once per page, then replaced by each event's.
_SLOT = 987654321


@dataclass(frozen=True)
class HistoryWords:
    """The page's words, translated once per page (in the request's language)."""

    live: str
    updating: str
    rank: str
    total: str
    matchpoints: str
    not_matchpoints: str
    indice: str
    expected: str
    expected_title: str
    report: str
    score_card: str

    @classmethod
    def now(cls) -> HistoryWords:
        return cls(
            live=_("in progress: complete donnes only"),
            updating=_("being updated"),
            rank=_("Rank"),
            total=_("Total"),
            matchpoints=_("Match points"),
            not_matchpoints=_("Not played under match points"),
            indice=_("Indice"),
            expected=_("Expected / scored"),
            expected_title=_(
                "The percentage of games expected from the ratings of the field, and the "
                "percentage scored"
            ),
            report=_("My report"),
            score_card=_("Score card"),
        )


class _Links:
    """The report's and the score card's address of each event, reversed once per page."""

    def __init__(self, player_pk: int, token: str | None) -> None:
        if token:
            self.report = reverse("mine_link_report", args=[token, _SLOT])
            self.score_card = ""  # a link's holder reads his report, not the room's pages
        else:
            self.report = reverse("player_event_report", args=[player_pk, _SLOT])
            self.score_card = reverse("score_card", args=[_SLOT, player_pk])

    @staticmethod
    def of(template: str, tournament_pk: int) -> str:
        return template.replace(str(_SLOT), str(tournament_pk), 1)


class _Dates:
    """Each event's date in the page's SHORT_DATE_FORMAT, formatted once per date."""

    def __init__(self) -> None:
        self._seen: dict[Any, str] = {}

    def __call__(self, day: Any) -> str:
        text = self._seen.get(day)
        if text is None:
            text = self._seen[day] = date_format(day, "SHORT_DATE_FORMAT")
        return text


def _figure(term: str, value: str, css: str = "") -> str:
    """One `<div><dt>…</dt><dd>…</dd></div>`; `value` is HTML already escaped."""
    cls = f' class="{css}"' if css else ""
    return f"<div><dt>{escape(term)}</dt><dd{cls}>{value}</dd></div>"


def _total(line: HistoryLine) -> str:
    if line.total is None:
        return "—"
    if line.is_matchpoints:
        return f"{escape(number(line.total))} %"
    return escape(signed(line.total))


def _figures(line: HistoryLine, rating: Any, words: HistoryWords) -> str:
    """The event's figures, escaped: rank, total, match points, and the indice's change
    and expected / scored percentages when `rating` (his line for the event) is given."""
    rank = (
        escape(_("%(rank)s of %(size)s") % {"rank": line.rank, "size": line.field_size})
        if line.rank
        else "—"
    )
    percentage = (
        f"{escape(number(line.percentage))} %"
        if line.percentage is not None
        else f'<span class="muted" title="{escape(words.not_matchpoints)}">—</span>'
    )
    total_css = "" if line.is_matchpoints else sign_class(line.total)
    html = (
        _figure(words.rank, rank)
        + _figure(words.total, _total(line), total_css)
        + _figure(words.matchpoints, percentage)
    )
    if rating is not None:
        change = (
            f'<span class="{sign_class(rating.change)}">{escape(signed_whole(rating.change))}'
            f'</span> <span class="muted">→ {escape(whole(rating.rating_after))}</span>'
        )
        expected = (
            f'<span title="{escape(words.expected_title)}">{escape(number(rating.expected))} %'
            f" / {escape(number(rating.achieved))} %</span>"
        )
        html += _figure(words.indice, change) + _figure(words.expected, expected)
    return html


def _links(line: HistoryLine, links: _Links, words: HistoryWords) -> str:
    if not line.report_open:
        return ""
    pk = line.tournament.pk
    html = f'<a href="{escape(links.of(links.report, pk))}">{escape(words.report)}</a>'
    if links.score_card:
        score_card = escape(links.of(links.score_card, pk))
        html += f' · <a href="{score_card}">{escape(words.score_card)}</a>'
    return f'<p class="history-links">{html}</p>'


def _line_html(
    line: HistoryLine, rating: Any, words: HistoryWords, links: _Links, dates: _Dates
) -> SafeString:
    tournament = line.tournament
    notes = ""
    if line.live:
        notes += f" · {words.live}"
    if not line.is_current and line.rank:
        notes += f" · {words.updating}"
    html = (
        f'<li class="card history-line" data-tournament="{tournament.pk}">'
        f'<p class="history-title"><strong>{escape(tournament.name)}</strong> '
        f'<span class="sub">{escape(dates(tournament.date))} · {escape(tournament.club.name)}'
        f"{escape(notes)}</span></p>"
        f'<dl class="history-figures">{_figures(line, rating, words)}</dl>'
        f"{_links(line, links, words)}</li>"
    )
    return mark_safe(html)  # every value above escaped


def history_rows(
    lines: Iterable[HistoryLine],
    chart_lines: Iterable[HistoryLine],
    *,
    rating: Any,
    player_pk: int,
    token: str | None,
) -> tuple[list[SafeString], list[SafeString]]:
    """The page's event lines (`<li>`, newest first) and the chart's value rows (`<tr>`, as
    `chart_lines` orders them), escaped. `rating` is the page's `RatingSummary` (its lines
    shown when `rating.shown`); `token`, the personal link the page was opened with (its
    report links then go through it, and no score card link is written)."""
    words = HistoryWords.now()
    links = _Links(player_pk, token)
    dates = _Dates()
    by_tournament = rating.by_tournament if rating is not None and rating.shown else {}
    events = [
        _line_html(line, by_tournament.get(line.tournament.pk), words, links, dates)
        for line in lines
    ]
    values = [
        mark_safe(  # every value escaped
            f"<tr><td>{escape(dates(line.tournament.date))}</td>"
            f"<td>{escape(line.tournament.name)}</td>"
            f'<td class="num">{escape(number(line.field_share))} %</td></tr>'
        )
        for line in chart_lines
    ]
    return events, values
