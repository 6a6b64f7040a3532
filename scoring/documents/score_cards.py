"""Score cards: for each player (or one: part = the player's id) the content of his score-card
page — rank (1= when tied, as on the ranking), totals, every donne with the contract, bouts,
points, petit au bout, poignées and chelem at his table, the four scores, the average his
differential is measured from, his differential (or match points; "to compare" while only his
table has played it) and the running total — with the chart of that running total, then his
penalties with their reason and donne. Positions read N E S O in French.

The chart is drawn straight on the canvas (lines and dots), not with a chart widget, and the
cards' data is read once for all players: a thousand cards must render in seconds.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import partial
from typing import Any

from django.utils.text import capfirst
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Flowable, PageBreak, Paragraph, Spacer, Table

from scoring.selectors import ScoreCard, ScoreCardLine
from tournaments.models import Player

from .base import (
    GOOD,
    INK,
    LIGHT,
    LINE,
    MUTED,
    RED,
    Cell,
    FastTable,
    Renderer,
    _formatted,
    esc,
    fmt_number,
    fmt_signed,
)
from .data import (
    donne_averages,
    penalties_of,
    ranking_up_to_date,
    result_details,
    score_cards_bulk,
    tournament_players,
)
from .details import bonus_short, legend, points_text, position_letter, short_codes

POSITIONS = ("N", "E", "S", "W")


def _numbers(value: Fraction | int | None, *, language: str | None, sign: bool) -> str:
    """Like fmt_number / fmt_signed in a known language (a thousand cards format 300,000)."""
    return "" if value is None else _formatted(value, language, sign)


class _Numbers(dict):
    """Number -> its text, formatted on first sight: a thousand cards look up 170,000 numbers
    (a dict lookup, where the shared formatting cache also builds a key and a call)."""

    def __init__(self, formatted: Callable[[Any], str]) -> None:
        super().__init__()
        self.formatted = formatted

    def __missing__(self, value: Any) -> str:
        text = self[value] = self.formatted(value)
        return text


CONTRACT_W = 33 * mm


# Operators of the charts' grids and axes per document (their subsets are the document's).
_CHART_OPS: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()


def _recorded(
    cache: dict[tuple[Any, ...], Any],
    key: tuple[Any, ...],
    text: Any,
    path: Any,
    draw: Callable[[], None],
) -> None:
    """Run `draw`, which writes to the text object `text` (and the path `path`), the first
    time `key` is seen; later, append what it wrote then."""
    known = cache.get(key)
    if known is None:
        text_from = len(text._code)
        path_from = len(path._code) if path is not None else 0
        draw()
        known = cache[key] = (
            text._code[text_from:],
            path._code[path_from:] if path is not None else [],
            text._curSubset,
        )
        return
    text_ops, path_ops, subset = known
    text._code.extend(text_ops)
    if path is not None:
        path._code.extend(path_ops)
    text._curSubset = subset


def _nice_step(span: float) -> float:
    """A round step (1, 2 or 5 × 10^k) giving about four grid lines over the span."""
    if span <= 0:
        return 1.0
    raw = span / 4
    base = 10.0 ** math.floor(math.log10(raw))
    return next(base * factor for factor in (1, 2, 5, 10) if base * factor >= raw)


class RunningTotalChart(Flowable):
    """Line chart of a running total, drawn straight on the canvas: one point per donne, grid
    lines with their values, the zero line (50 % under match points), points above it green
    and below it red. (ReportLab's graphics tree costs several times more per chart, and a
    thousand score cards each have one.)"""

    def __init__(
        self,
        points: Sequence[tuple[str, Fraction]],
        *,
        width: float,
        height: float,
        font: str,
        percent: bool = False,
    ) -> None:
        super().__init__()
        self.points = list(points)
        self.width, self.height = width, height
        self.font = font
        self.base = 50.0 if percent else 0.0

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.width, self.height

    def draw(self) -> None:
        canvas = self.canv
        left, right, top, bottom = 14 * mm, 3 * mm, 3 * mm, 7 * mm
        plot_w, plot_h = self.width - left - right, self.height - top - bottom
        values = [float(v) for _, v in self.points]
        base = self.base
        low, high = min([base, *values]), max([base, *values])
        if high == low:
            high, low = high + 1, low - 1
        step = _nice_step(high - low)
        low, high = step * math.floor(low / step), step * math.ceil(high / step)
        count = max(len(values), 1)

        def x(i: int) -> float:
            return left + plot_w * (i + 0.5) / count

        def y(v: float) -> float:
            return bottom + plot_h * (v - low) / (high - low)

        canvas.saveState()
        labels = canvas.beginText()
        labels.setFont(self.font, 7)
        labels.setFillColor(MUTED)
        grid_lines = canvas.beginPath()
        cache = _CHART_OPS.setdefault(canvas._doc, {})

        def grid_and_values() -> None:
            grid = low
            while grid <= high + step / 1000:
                if abs(grid - base) >= step / 1000:
                    grid_lines.moveTo(left, y(grid))
                    grid_lines.lineTo(self.width - right, y(grid))
                label = fmt_number(Fraction(grid).limit_denominator(100))
                width = stringWidth(label, self.font, 7)
                labels.setTextOrigin(left - 2 - width, y(grid) - 2.5)
                labels._textOut(label)
                grid += step

        # Cards whose totals span the same range share their grid (and so on for the donnes
        # along the bottom): its operators are written once per document, then repeated.
        key = ("grid", self.font, self.width, self.height, low, high, step, base, get_language())
        _recorded(cache, key, labels, grid_lines, grid_and_values)
        canvas.setStrokeColor(LIGHT)
        canvas.setLineWidth(0.5)
        canvas.drawPath(grid_lines, stroke=1, fill=0)
        canvas.setStrokeColor(INK)
        canvas.setLineWidth(0.8)
        canvas.line(left, y(base), self.width - right, y(base))
        if values:
            canvas.setStrokeColor(LINE)
            canvas.setLineWidth(1.2)
            path = canvas.beginPath()
            path.moveTo(x(0), y(values[0]))
            for i, v in enumerate(values[1:], start=1):
                path.lineTo(x(i), y(v))
            canvas.drawPath(path, stroke=1, fill=0)
            # Dots: zero-length strokes with round caps, one path per colour.
            dots = {GOOD: canvas.beginPath(), RED: canvas.beginPath(), INK: canvas.beginPath()}
            for i, v in enumerate(values):
                dot = dots[GOOD if v > base else RED if v < base else INK]
                dot.moveTo(x(i), y(v))
                dot.lineTo(x(i), y(v))
            canvas.setLineCap(1)
            canvas.setLineWidth(3.2)
            for colour, dot in dots.items():
                canvas.setStrokeColor(colour)
                canvas.drawPath(dot, stroke=1, fill=0)
            every = max(1, math.ceil(len(values) / 24))
            labels.setFont(self.font, 6.5)
            names = tuple(label for label, _value in self.points)

            def donnes() -> None:
                for i, label in enumerate(names):
                    if i % every == 0:
                        labels.setTextOrigin(x(i) - stringWidth(label, self.font, 6.5) / 2, 1.5)
                        labels._textOut(label)

            key = ("donnes", self.font, self.width, names)
            _recorded(cache, key, labels, None, donnes)
        canvas.drawText(labels)
        canvas.restoreState()


class _SameParagraph(Paragraph):
    """A Paragraph printed the same on every card (the caption, the method, the legend): one
    object, parsed once and laid out once per width, instead of a thousand."""

    _laid_out: tuple[float, tuple[float, float]] | None = None

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        laid_out = self._laid_out
        if laid_out is None or laid_out[0] != avail_width:
            laid_out = self._laid_out = (avail_width, super().wrap(avail_width, avail_height))
        return laid_out[1]


class ScoreCardsRenderer(Renderer):
    kind = "score_cards"
    data_share = 0.5

    def title(self) -> str:
        return _("Score cards")

    def subtitle(self) -> str:
        player = getattr(self, "player", None)
        return player.full_name if player is not None else ""

    def players(self) -> list[Player]:
        players = tournament_players(self.tournament)
        if self.part:
            players = [p for p in players if p.pk == self.part]
            self.player = players[0] if players else None
        return players

    def summary(self, card: ScoreCard) -> Table:
        styles = self.styles
        row = card.row
        mp = card.is_matchpoints
        head = [
            _("Rank"),
            _("Match points %") if mp else _("Differentials"),
            _("Penalties"),
            _("Total"),
            _("Donnes played"),
        ]
        if row is None:
            values = ["—"] * 5
        else:
            tied = "=" if self.tied.get(card.player.pk) else ""
            values = [
                _("%(rank)s of %(size)s") % {"rank": f"{row.rank}{tied}", "size": card.field_size},
                f"{fmt_number(row.differential_total)} %"
                if mp
                else fmt_signed(row.differential_total),
                f"-{row.penalty_points}" if row.penalty_points else "0",
                f"{fmt_number(row.total)} %" if mp else fmt_signed(row.total),
                str(row.donnes_played),
            ]
        table = Table([head, values], colWidths=[self.frame_w / 5] * 5)
        table.setStyle(
            styles.grid(
                ("ALIGN", (0, 0), (-1, -1), "CENTER"),
                ("FONTNAME", (0, 1), (-1, 1), self.fonts.bold),
                ("FONTSIZE", (0, 1), (-1, 1), 12),
                ("LEADING", (0, 1), (-1, 1), 15),
            )
        )
        return table

    def contract_text(self, line: ScoreCardLine) -> str:
        """The contract and taker in words, or in short when the words do not fit."""
        words = self.words
        if line.status == "pending" and not line.entered:
            return words["pending"]
        if line.status == "annulled":
            return words["annulled"]
        if line.all_passed:
            return words["all_passed"]
        if not line.contract:
            return ""
        key = (line.contract, line.taker)
        known = self._contract_texts.get(key)
        if known is not None:  # a thousand cards show the same few dozen contracts
            return known
        text = words["contract_by"] % {"contract": line.contract_label, "taker": line.taker_label}
        if stringWidth(text, self.fonts.condensed, 8.5) > CONTRACT_W - 6:
            text = words["contract_by"] % {
                "contract": self.contract_codes.get(line.contract, line.contract),
                "taker": line.taker_label,
            }
        self._contract_texts[key] = text
        return text

    def differential_cell(self, line: ScoreCardLine, mp: bool) -> str | Cell:
        if line.status == "played" and line.group_size < 2:
            return self.words["not_compared"]  # played at one table only so far
        if line.status == "played":
            if mp:
                return self.number(line.percentage) if line.percentage is not None else "—"
            if line.differential:
                return Cell(
                    self.signed(line.differential),
                    colour=GOOD if line.differential > 0 else RED,
                )
            return self.signed(line.differential)
        if line.status in ("annulled", "sat_out"):
            return "0"
        return ""

    def lines_table(self, card: ScoreCard) -> FastTable:
        mp = card.is_matchpoints
        words = self.words
        head = [
            words["donne"],
            words["round_table"],
            words["position"],
            words["contract"],
            words["bouts"],
            words["points"],
            words["bonuses"],
            *self.letters,
            words["average_score"],
            "%" if mp else words["differential"],
            words["average"] if mp else words["running"],
        ]
        rows: list[list[str | Cell]] = []
        positions = self._position_labels
        for line in card.lines:
            result = None if line.hidden else self.results.get((line.donne_id, line.table_number))
            played = result is not None and result.status == "played"
            if played:
                # Each result is on the cards of the four players of its table: told once.
                told = self._result_texts.get(id(result))
                if told is None:
                    told = self._result_texts[id(result)] = (
                        str(result.bouts) if result.bouts is not None else "",
                        points_text(result),
                        bonus_short(result, self.codes),
                    )
            else:
                told = ("", "", "")
            seat = positions.get(line.position)
            if seat is None:
                seat = positions[line.position] = line.position_label
            scores = {s.position: s for s in line.scores}
            cells: list[str | Cell] = []
            for position in POSITIONS:
                s = scores.get(position)
                value = self.signed(s.score) if s is not None and s.score is not None else ""
                mine = s is not None and s.mine
                cells.append(Cell(value, bold=True, background=LIGHT) if mine else value)
            average = ""
            if line.position and line.status == "played" and not line.hidden:
                mean = self.averages.get((line.donne_id, line.position))
                average = self.signed(mean) if mean is not None else ""
            running = ""
            if line.running_total is not None:
                running = self.number(line.running_total) if mp else self.signed(line.running_total)
            rows.append(
                [
                    str(line.donne_number),
                    f"{line.round_number} / {line.table_number or '—'}",
                    words["sat_out"]
                    if line.status == "sat_out"
                    else words["sits_out"]
                    if line.sits_out
                    else seat,
                    self.contract_text(line),
                    *told,
                    *cells,
                    average,
                    self.differential_cell(line, mp),
                    running,
                ]
            )
        widths = [10 * mm, 11 * mm, 13 * mm, CONTRACT_W, 8 * mm, 10 * mm, 17 * mm]
        scores_w = 10 * mm
        rest = (self.frame_w - sum(widths) - 4 * scores_w) / 3
        return FastTable(
            head,
            rows,
            widths=[*widths, *[scores_w] * 4, rest, rest, rest],
            align="ccllrrlrrrrrrr",
            fonts=self.fonts,
        )

    def penalties(self, player: Player) -> list[Flowable]:
        """The player's penalties in force: kind, points, donne and reason."""
        penalties = self.penalties_by_player.get(player.pk, [])
        if not penalties:
            return []
        styles = self.styles
        rows: list[list[object]] = [[_("Penalty"), _("Points"), _("Donne"), _("Reason")]]
        for penalty in penalties:
            rows.append(
                [
                    Paragraph(esc(penalty.get_kind_display()), styles.cell),
                    f"-{penalty.points}",
                    str(penalty.donne.number) if penalty.donne else "—",
                    Paragraph(esc(penalty.reason or "—"), styles.cell),
                ]
            )
        widths = [45 * mm, 16 * mm, 14 * mm]
        widths.append(self.frame_w - sum(widths))
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(styles.grid(("ALIGN", (1, 1), (2, -1), "RIGHT")))
        return [Spacer(1, 3 * mm), Paragraph(esc(_("Penalties")), styles.h3), table]

    def same(self, text: str) -> Paragraph:
        """A muted Paragraph of `text`, one object for every card that prints it."""
        paragraph = self._same.get(text)
        if paragraph is None:
            paragraph = self._same[text] = _SameParagraph(esc(text), self.styles.muted)
        return paragraph

    def card(self, card: ScoreCard) -> list[Flowable]:
        styles = self.styles
        player = card.player
        story: list[Flowable] = [
            Paragraph(
                esc(_("Score card of %(player)s") % {"player": player.full_name}), styles.title
            ),
            Paragraph(esc(f"{player.club.name} · {_('Licence')} {player.licence}"), styles.muted),
            Spacer(1, 3 * mm),
            self.summary(card),
            Spacer(1, 4 * mm),
        ]
        if card.chart:
            caption = (
                _("Running average of the match points (%), donne by donne")
                if card.is_matchpoints
                else _("Running total of the differentials, donne by donne")
            )
            story += [
                self.same(caption),
                RunningTotalChart(
                    card.chart,
                    width=self.frame_w,
                    height=48 * mm,
                    font=self.fonts.condensed,
                    percent=card.is_matchpoints,
                ),
                Spacer(1, 3 * mm),
            ]
        story += [
            self.lines_table(card),
            Spacer(1, 2 * mm),
            self.same(f"{_('Comparison method:')} {card.method_label}."),
            self.same(self.legend),
            *self.penalties(player),
        ]
        return story

    def story(self) -> list[Flowable]:
        # Translated once: a thousand cards would look each of them up thousands of times.
        self.words = {
            "donne": _("Donne"),
            "round_table": _("Round / table"),
            "position": _("Position"),
            "contract": _("Contract"),
            "differential": _("Differential"),
            "average": _("Average"),
            "running": _("Running total"),
            "pending": _("Not played yet"),
            "annulled": _("Annulled"),
            "all_passed": _("All passed"),
            "contract_by": _("%(contract)s, taker %(taker)s"),
            "sat_out": _("Sat out"),
            "sits_out": _("Sits out"),
            "bouts": _("Bouts"),
            "points": _("Points"),
            "bonuses": _("Bonuses"),
            "average_score": pgettext("mean score of the position on the donne", "Avg."),
            "not_compared": pgettext("differential of a donne not yet compared", "to compare"),
        }
        self.letters = [position_letter(p) for p in POSITIONS]
        # Numbers formatted in the document's language, looked up once (not per number).
        language = get_language()
        self.signed = _Numbers(partial(_numbers, language=language, sign=True)).__getitem__
        self.number = _Numbers(partial(_numbers, language=language, sign=False)).__getitem__
        self.codes = short_codes()
        # Texts told once per document (per contract and taker, per result, per position).
        self._contract_texts: dict[tuple[str, str], str] = {}
        self._result_texts: dict[int, tuple[str, str, str]] = {}
        self._position_labels: dict[str | None, str] = {}
        self._same: dict[str, Paragraph] = {}
        self.contract_codes = {
            "prise": pgettext("contract, short", "P"),
            "garde": pgettext("contract, short", "G"),
            "garde_sans": pgettext("contract, short", "GS"),
            "garde_contre": pgettext("contract, short", "GC"),
        }
        self.legend = (
            legend(self.codes)
            + " "
            + _("P, G, GS, GC: prise, garde, garde sans, garde contre.")
            + " "
            + _(
                "Avg.: the mean score of the position over the tables that played the donne, "
                "what the differential is measured from. %(word)s: played at one table only so "
                "far, not yet compared."
            )
            % {"word": capfirst(self.words["not_compared"])}  # it starts a sentence
        )
        view = ranking_up_to_date(self.tournament)
        self.results_version = view.version or 0
        self.tied = {line.player.pk: line.tied for line in view.rows}
        players = self.players()
        cards = score_cards_bulk(self.tournament, players, snapshot_id=view.snapshot_id)
        self.results = result_details(self.tournament)
        self.averages = donne_averages(self.tournament)
        self.penalties_by_player = penalties_of(self.tournament)
        story: list[Flowable] = []
        for player in self.steps(players):
            card = cards.get(player.pk)
            if card is None:
                continue
            if story:
                story.append(PageBreak())
            story += self.card(card)
        if not story:
            story.append(Paragraph(esc(_("Nobody is ranked yet.")), self.styles.body))
        return story
