"""A championship's ranking as a PDF (everyone, or one série), drawn like the tournaments'
documents (`scoring.documents`): the same page, header, footer, fonts and fast table
(`Renderer`, `FastTable`), long names wrapping in their column rather than running over.

Landscape A4 at 9 pt: rank, player, club, licence, série, events counted of played, handicap
(its own column, when the rule has handicaps), points, qualified, and each event's points,
"E3 25", those best_of does not count in brackets, "(E5 13)" — shown, never hidden. The
events are listed first with their number, date and name; the rule is stated in words; the
players with too few events ("non classés") come apart after the ranking. While a counted
event is not final the title says "provisional" and every page names the events it waits for.

Read from the stored championship ranking (`ranking.championship_caught_up`); built once per
stored ranking, série and language for all the web processes (`built_once`, as the hub's
booklet), on the first request.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

from django.utils import translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, Paragraph, Spacer

from scoring.documents.base import Cell, FastTable, Renderer, esc, fmt_number, fmt_signed
from scoring.rules import display
from scoring.rules.championship import Line
from tournaments.simultaneous.hub.reads import built_once

from .exports import EventColumn, event_columns, qualified_players
from .models import Championship, ChampionshipRanking
from .ranking import Standing, championship_caught_up

STRIPE = "#f7f8fb"
SIZE = 9  # pt: the table's text
MORE_EVENTS = 3  # events named in the "provisional" notice before "and N more"


@dataclass(frozen=True)
class _Organiser:
    name: str


@dataclass(frozen=True)
class Heading:
    """What the page header and the PDF's metadata read of a tournament, for a championship."""

    name: str
    date: date
    venue: str
    club: _Organiser
    results_version: int
    pk: int


TIE_BREAK_WORDS = {
    "events": lambda: _("more events counted"),
    "best": lambda: _("the best event, then the second best…"),
    "recent": lambda: _("the most recent result, then the one before…"),
}


def rule_sentences(championship: Championship) -> list[str]:
    """The championship's rule in words, one sentence per part."""
    kind = championship.kind
    if kind == Championship.Kind.PLACES:
        table = ", ".join(str(points) for points in championship.places or [])
        said = _("Points by place: %(table)s, then %(beyond)s for every place after.") % {
            "table": table,
            "beyond": championship.places_beyond,
        }
        if championship.scale_by_field:
            said += " " + _("Points are scaled by the field’s size (× field ÷ largest field).")
    elif kind == Championship.Kind.PERCENTAGE:
        said = _("Mean match-point percentage, weighted by the donnes compared.")
    else:
        said = _("Sum of the event totals.")
    sentences = [said]
    if championship.best_of == 1:
        sentences.append(_("Only the best event counts; the others are shown in brackets."))
    elif championship.best_of:
        sentences.append(
            _("Only the best %(n)s events count; the others are shown in brackets.")
            % {"n": championship.best_of}
        )
    if championship.minimum_events:
        sentences.append(
            ngettext(
                "At least %(n)s event to be ranked; players with fewer are listed apart.",
                "At least %(n)s events to be ranked; players with fewer are listed apart.",
                championship.minimum_events,
            )
            % {"n": championship.minimum_events}
        )
    breaks = [TIE_BREAK_WORDS[name]() for name in championship.tie_breaks or []]
    if breaks:
        sentences.append(
            _("Equal points are separated by %(order)s; then the rank is shared.")
            % {"order": ", ".join(breaks)}
        )
    if championship.handicaps:
        parts = ", ".join(
            f"{serie} {fmt_signed(display_fraction(value))}"
            for serie, value in sorted(championship.handicaps.items())
        )
        sentences.append(_("Handicap added per event counted: %(parts)s.") % {"parts": parts})
    return sentences


def display_fraction(value: object) -> object:
    """A stored handicap ("n/d", a number) as an exact number for display."""
    try:
        return Fraction(str(value))
    except (TypeError, ValueError, ZeroDivisionError):
        return value


class ChampionshipRenderer(Renderer):
    """The ranking of a championship (or one série of it), landscape A4."""

    kind = "championship_ranking"
    landscape = True

    def __init__(
        self, championship: Championship, standing: Standing, serie: str | None = None
    ) -> None:
        self.championship = championship
        self.standing = standing
        self.serie = serie or None
        self.columns = event_columns(standing.entries)
        organiser = championship.club.name if championship.club_id else _("Simultaneous events")
        heading = Heading(
            name=championship.name,
            date=championship.season_start,
            venue="",
            club=_Organiser(organiser),
            results_version=0,
            pk=championship.pk,
        )
        super().__init__(heading)  # type: ignore[arg-type]

    # the header ---------------------------------------------------------------------------

    def header_lines(self) -> tuple[str, str]:
        c = self.championship
        season = _("Season from %(start)s to %(end)s") % {
            "start": date_format(c.season_start, "DATE_FORMAT"),
            "end": date_format(c.season_end, "DATE_FORMAT"),
        }
        return f"{self.tournament.club.name} — {c.name}", season

    def waiting(self) -> list[EventColumn]:
        """The counted events not final yet."""
        return [column for column in self.columns if not column.final]

    def title(self) -> str:
        if self.waiting():
            return _("Championship ranking, provisional")
        return _("Championship ranking")

    def subtitle(self) -> str:
        return _("Série %(serie)s") % {"serie": self.serie} if self.serie else ""

    def page_notice(self) -> str:
        waiting = self.waiting()
        if not waiting:
            return ""
        names = [f"{c.label} {c.name}" for c in waiting[:MORE_EVENTS]]
        if len(waiting) > MORE_EVENTS:
            more = len(waiting) - MORE_EVENTS
            names.append(ngettext("%(n)s more", "%(n)s more", more) % {"n": more})
        return _("Provisional: waiting for %(events)s to be final") % {"events": ", ".join(names)}

    # the story ----------------------------------------------------------------------------

    def story(self) -> list[Flowable]:
        styles = self.styles
        story: list[Flowable] = [Paragraph(esc(self.championship.name), styles.title)]
        if self.serie:
            story.append(Paragraph(esc(self.subtitle()), styles.h2))
        for sentence in rule_sentences(self.championship):
            story.append(Paragraph(esc(sentence), styles.body))
        if self.championship.final_name and (
            self.championship.qualify_top or self.championship.qualify_top_per_serie
        ):
            story.append(
                Paragraph(
                    esc(
                        _("Qualified players go to the final: %(final)s.")
                        % {"final": self.championship.final_name}
                    ),
                    styles.body,
                )
            )
        story += [Spacer(1, 3 * mm), *self.events_table()]
        lines = self.standing.scope(self.serie)
        ranked = [line for line in lines if line.classified]
        apart = [line for line in lines if not line.classified]
        story += [Spacer(1, 4 * mm), *self.ranking_table(ranked, _("Ranking"))]
        if apart:
            story += [
                CondPageBreak(30 * mm),
                Spacer(1, 4 * mm),
                *self.ranking_table(apart, _("Not ranked (too few events)")),
            ]
        return story

    def events_table(self) -> list[Flowable]:
        """The counted events, numbered, with their date, name and whether final."""
        story: list[Flowable] = [Paragraph(esc(_("Events counted")), self.styles.h2)]
        if not self.columns:
            return [*story, Paragraph(esc(_("No event is counted yet.")), self.styles.body)]
        rows = [
            [
                column.label,
                date_format(column.date, "SHORT_DATE_FORMAT"),
                column.name,
                _("results final") if column.final else _("not final yet"),
            ]
            for column in self.columns
        ]
        widths = [14 * mm, 26 * mm, 0, 36 * mm]
        widths[2] = self.frame_w - sum(widths)
        head = [_("Event"), _("Date"), _("Name"), _("Status")]
        return [
            *story,
            FastTable(head, rows, widths=widths, align="llll", fonts=self.fonts, size=SIZE),
        ]

    def points_text(self, value: object) -> str:
        if self.championship.kind == Championship.Kind.PERCENTAGE:
            return f"{fmt_number(value)}\N{NO-BREAK SPACE}%"  # type: ignore[arg-type]
        if self.championship.kind == Championship.Kind.TOTAL:
            return fmt_signed(value)  # type: ignore[arg-type]
        return fmt_number(value)  # type: ignore[arg-type]

    def results_text(self, line: Line) -> str:
        """ "E1 25 · (E2 13) · E3 20": his points per event, those not counted in brackets."""
        labels = {column.key: column.label for column in self.columns}
        parts = []
        for score in line.events:
            text = f"{labels.get(score.event, score.event)}\N{NO-BREAK SPACE}"
            text += self.points_text(score.points)
            parts.append(text if score.counted else f"({text})")
        return " · ".join(parts)

    def ranking_table(self, lines: Sequence[Line], heading: str) -> list[Flowable]:
        story: list[Flowable] = [Paragraph(esc(heading), self.styles.h2)]
        if not lines:
            return [*story, Paragraph(esc(_("Nobody is ranked yet.")), self.styles.body)]
        handicaps = bool(self.championship.handicaps)
        qualified = qualified_players(self.championship, self.standing)
        qualifying = bool(self.championship.qualify_top or self.championship.qualify_top_per_serie)
        series = self.standing.serie_of()
        rows: list[list[str | Cell]] = []
        for index, line in enumerate(self.steps(lines)):
            shade = STRIPE if index % 2 else None
            first, last, licence, club = (
                self.standing.players.get(line.player) or ["", "", "", ""]
            )[:4]
            shared = any(
                0 <= k < len(lines) and lines[k].rank == line.rank for k in (index - 1, index + 1)
            )
            rank = "" if line.rank is None else f"{line.rank}{'=' if shared else ''}"
            values = [
                rank,
                f"{first} {last}".strip() or line.player,
                club,
                licence,
                series.get(line.player, ""),
                f"{line.counted}/{len(line.events)}",
            ]
            if handicaps:
                values.append(fmt_signed(line.handicap) if line.handicap else "")
            cells = [Cell(value, background=shade) for value in values]
            cells.append(Cell(self.points_text(line.points), bold=True, background=shade))
            if qualifying:
                scopes = qualified.get(line.player, [])
                mark = ", ".join(_("overall") if s == "" else s for s in scopes)
                cells.append(Cell(mark, background=shade))
            cells.append(Cell(self.results_text(line), background=shade))
            rows.append(cells)
        head = [_("Rank"), _("Player"), _("Club"), _("Licence"), _("Série"), _("Events")]
        widths = [13 * mm, 52 * mm, 40 * mm, 17 * mm, 18 * mm, 15 * mm]
        align = "cllllc"
        if handicaps:
            head.append(_("Handicap"))
            widths.append(17 * mm)
            align += "r"
        head.append(_("Points"))
        widths.append(21 * mm)
        align += "r"
        if qualifying:
            head.append(_("Qualified"))
            widths.append(18 * mm)
            align += "l"
        head.append(_("Results by event"))
        widths.append(0)
        align += "l"
        widths[-1] = self.frame_w - sum(widths)
        story.append(FastTable(head, rows, widths=widths, align=align, fonts=self.fonts, size=SIZE))
        return story


def pdf_key(championship: Championship, standing: Standing, serie: str | None) -> str:
    """What the PDF shows: the stored ranking (its time), the championship's printed fields,
    its events' state and the série; any change makes a new key."""
    computed = (
        ChampionshipRanking.objects.filter(pk=championship.pk)
        .values_list("computed_at", flat=True)
        .first()
    )
    printed = [
        championship.name,
        str(championship.season_start),
        str(championship.season_end),
        championship.kind,
        championship.places,
        championship.places_beyond,
        championship.scale_by_field,
        championship.best_of,
        championship.minimum_events,
        championship.tie_breaks,
        championship.handicaps,
        championship.final_name,
        championship.qualify_top,
        championship.qualify_top_per_serie,
        [(e.key, e.agreed) for e in standing.entries],
        sorted(standing.counted.items()),
        str(computed),
        serie or "",
    ]
    digest = hashlib.sha256(json.dumps(printed, default=str).encode()).hexdigest()[:24]
    return f"championship:pdf:{championship.pk}:{digest}"


def championship_pdf(
    championship: Championship, language: str, serie: str | None = None
) -> tuple[str, bytes, bool]:
    """(file name, PDF, provisional) of the ranking of everyone (or of the série) in
    `language`, built once per stored ranking and language."""
    lang = display.language_of(language)
    with translation.override(lang):
        standing = championship_caught_up(championship)
        key = f"{pdf_key(championship, standing, serie)}:{lang}"

        def build() -> tuple[str, bytes]:
            name, _mime, content = ChampionshipRenderer(championship, standing, serie).render()
            return name, content

        name, content = built_once(key, build)
    return name, content, bool(standing.provisional)
