"""Score cards: for each player (or one: part = the player's id) the content of his score-card
page — rank, totals, penalties, every donne with the scores at his table, his differential
(or match points) and the running total — with the chart of that running total.

The chart is drawn with ReportLab graphics primitives (lines and dots), not a chart widget:
a thousand cards must render in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from django.utils.translation import gettext as _
from reportlab.graphics.shapes import Circle, Drawing, Line, PolyLine, String
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, PageBreak, Paragraph, Spacer, Table

from scoring.selectors import ScoreCard, score_card
from tournaments.models import Player

from .base import GOOD, INK, LIGHT, LINE, MUTED, RED, Renderer, esc, fmt_number, fmt_signed
from .data import ranking_up_to_date, tournament_players

POSITIONS = ("N", "E", "S", "W")


def _nice_step(span: float) -> float:
    """A round step (1, 2 or 5 × 10^k) giving about four grid lines over the span."""
    if span <= 0:
        return 1.0
    raw = span / 4
    base = 10.0 ** math.floor(math.log10(raw))
    return next(base * factor for factor in (1, 2, 5, 10) if base * factor >= raw)


def running_total_drawing(
    points: Sequence[tuple[str, Fraction]],
    *,
    width: float,
    height: float,
    font: str,
    percent: bool = False,
) -> Drawing:
    """Line chart of a running total: one point per donne, grid lines with their values, a
    zero line (50 % under match points), positive points green and negative red."""
    left, right, top, bottom = 14 * mm, 3 * mm, 3 * mm, 7 * mm
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [float(v) for _, v in points]
    base = 50.0 if percent else 0.0
    low, high = min([base, *values]), max([base, *values])
    if high == low:
        high, low = high + 1, low - 1
    step = _nice_step(high - low)
    low, high = step * math.floor(low / step), step * math.ceil(high / step)
    drawing = Drawing(width, height)

    def x(i: int) -> float:
        return left + plot_w * (i + 0.5) / max(len(values), 1)

    def y(v: float) -> float:
        return bottom + plot_h * (v - low) / (high - low)

    grid = low
    while grid <= high + step / 1000:
        is_base = abs(grid - base) < step / 1000
        drawing.add(
            Line(
                left,
                y(grid),
                width - right,
                y(grid),
                strokeColor=INK if is_base else LIGHT,
                strokeWidth=0.8 if is_base else 0.5,
            )
        )
        label = fmt_number(Fraction(grid).limit_denominator(100))
        drawing.add(
            String(
                left - 2,
                y(grid) - 2.5,
                label,
                fontName=font,
                fontSize=7,
                textAnchor="end",
                fillColor=MUTED,
            )
        )
        grid += step
    if values:
        coords: list[float] = []
        for i, v in enumerate(values):
            coords += [x(i), y(v)]
        drawing.add(PolyLine(coords, strokeColor=LINE, strokeWidth=1.2))
        every = max(1, math.ceil(len(values) / 24))
        for i, ((label, _value), v) in enumerate(zip(points, values, strict=True)):
            colour = GOOD if v > base else RED if v < base else INK
            drawing.add(Circle(x(i), y(v), 1.6, fillColor=colour, strokeColor=colour))
            if i % every == 0:
                drawing.add(
                    String(
                        x(i),
                        1.5,
                        label,
                        fontName=font,
                        fontSize=6.5,
                        textAnchor="middle",
                        fillColor=MUTED,
                    )
                )
    return drawing


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
            values = [
                _("%(rank)s of %(size)s") % {"rank": row.rank, "size": card.field_size},
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

    def lines_table(self, card: ScoreCard) -> Table:
        styles = self.styles
        mp = card.is_matchpoints
        head = [
            _("Donne"),
            _("Round / table"),
            _("Position"),
            _("Contract"),
            *POSITIONS,
            "%" if mp else _("Differential"),
            _("Average") if mp else _("Running total"),
        ]
        rows: list[list[object]] = [[Paragraph(esc(h), styles.head_cell) for h in head]]
        commands: list[tuple[object, ...]] = [
            ("ALIGN", (0, 0), (1, -1), "CENTER"),
            ("ALIGN", (4, 0), (-1, -1), "RIGHT"),
        ]
        for line in card.lines:
            r = len(rows)
            if line.status == "pending":
                contract = _("Not played yet")
            elif line.status == "annulled":
                contract = _("Annulled")
            elif line.all_passed:
                contract = _("All passed")
            else:
                contract = _("%(contract)s, taker %(taker)s") % {
                    "contract": line.contract_label,
                    "taker": line.taker_label,
                }
            scores = {s.position: s for s in line.scores}
            cells = []
            for k, position in enumerate(POSITIONS):
                s = scores.get(position)
                cells.append(fmt_signed(s.score) if s is not None and s.score is not None else "")
                if s is not None and s.mine:
                    commands.append(("FONTNAME", (4 + k, r), (4 + k, r), self.fonts.condensed_bold))
                    commands.append(("BACKGROUND", (4 + k, r), (4 + k, r), LIGHT))
            if line.status == "played":
                if mp:
                    value = fmt_number(line.percentage) if line.percentage is not None else "—"
                else:
                    value = fmt_signed(line.differential)
            elif line.status != "pending":
                value = "0"
            else:
                value = ""
            running = ""
            if line.running_total is not None:
                running = fmt_number(line.running_total) if mp else fmt_signed(line.running_total)
            if line.status == "played" and not mp and line.differential:
                colour = GOOD if line.differential > 0 else RED
                commands.append(("TEXTCOLOR", (8, r), (8, r), colour))
            rows.append(
                [
                    str(line.donne_number),
                    f"{line.round_number} / {line.table_number or '—'}",
                    _("Sat out") if line.status == "sat_out" else line.position_label,
                    contract,
                    *cells,
                    value,
                    running,
                ]
            )
        widths = [12.5 * mm, 16 * mm, 17 * mm, 56.5 * mm]
        scores_w = 10.5 * mm
        rest = (self.frame_w - sum(widths) - 4 * scores_w) / 2
        table = Table(rows, colWidths=[*widths, *[scores_w] * 4, rest, rest], repeatRows=1)
        table.setStyle(styles.grid(*commands))
        return table

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
                Paragraph(esc(caption), styles.muted),
                running_total_drawing(
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
            Paragraph(esc(f"{_('Comparison method:')} {card.method_label}."), styles.muted),
        ]
        return story

    def story(self) -> list[Flowable]:
        view = ranking_up_to_date(self.tournament)
        self.results_version = view.version or 0
        players = self.players()
        story: list[Flowable] = []
        for player in self.steps(players):
            card = score_card(self.tournament, player, can_manage=True)
            if card is None:
                continue
            if story:
                story.append(PageBreak())
            story += self.card(card)
        if not story:
            story.append(Paragraph(esc(_("Nobody is ranked yet.")), self.styles.body))
        return story
