"""A player's event report as a PDF (issue 35): `part` is the player (his own, as his score
card), 0 every player of the event one after the other (for the arbiters). The same contents
as the report page (`scoring.rankings.player_report`): per donne the five hands (his own
shaded), his table's outcome and score, his differential and match points, the field's
outcomes at his position and what its best third did; then the donnes that gained and lost
most. Until every donne is complete (or while a simultaneous embargo holds the event) it
prints that sentence and nothing of the donnes (RULES §6.1, §6.3)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext
from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, PageBreak, Paragraph, Table

from scoring.rankings.player_report import (
    EMBARGO,
    OPEN,
    DonneLine,
    EventReport,
    best_third_text,
    event_report,
    report_state,
)
from tournaments.models import Player

from .base import LIGHT, FitText, Renderer, esc, fmt_number, fmt_signed, hand_markup
from .data import tournament_players


def _signed(value: object) -> str:
    return fmt_signed(value) or "0"  # type: ignore[arg-type]


class PlayerReportRenderer(Renderer):
    kind = "player_report"

    def title(self) -> str:
        return _("Player reports") if not self.part else _("Player report")

    def subtitle(self) -> str:
        player = getattr(self, "player", None)
        return player.full_name if player is not None else ""

    def players(self) -> list[Player]:
        players = tournament_players(self.tournament)
        if self.part:
            players = [p for p in players if p.pk == self.part]
            self.player = players[0] if players else None
        return players

    def story(self) -> list[Flowable]:
        styles = self.styles
        state = report_state(self.tournament)
        if state != OPEN:
            if state == EMBARGO:
                text = _(
                    "This event is part of a simultaneous event: its hands and results stay "
                    "hidden until every club has played."
                )
            else:
                text = _("The report opens once every table has played every donne of the event.")
            return [Paragraph(esc(text), styles.body)]
        story: list[Flowable] = []
        players = self.players()
        for index, player in enumerate(self.steps(players)):
            report = event_report(self.tournament, player)
            if report is None:
                continue
            if index:
                story.append(PageBreak())
            story += self.player_story(report)
        if not story:
            story.append(Paragraph(esc(_("Nobody played a donne of this event.")), styles.body))
        return story

    def player_story(self, report: EventReport) -> list[Flowable]:
        styles = self.styles
        mp = report.is_matchpoints
        total = (
            f"{fmt_number(report.matchpoint_share)} %"
            if mp and report.matchpoint_share is not None
            else _signed(report.differential_total)
        )
        story: list[Flowable] = [
            FitText(report.player.full_name, font=self.fonts.bold, size=14, space_after=2 * mm),
            Paragraph(
                esc(
                    _("Differentials: %(total)s · donnes: %(donnes)s")
                    % {"total": total, "donnes": len(report.lines)}
                ),
                styles.body,
            ),
        ]
        for line in report.lines:
            story.append(CondPageBreak(60 * mm))
            story.append(KeepTogether(self.donne_block(line, mp)))
        story += self.swings_block(report, mp)
        return story

    def donne_block(self, line: DonneLine, mp: bool) -> list[Flowable]:
        """One donne: heading, his result, the hands, the field and its best third."""
        styles = self.styles
        head = _("Donne %(number)s") % {"number": line.number}
        where = _("table %(table)s") % {"table": line.table_number}
        if line.position:
            where += f" · {line.position_label}"
        mine = line.outcome
        if line.score is not None:
            mine += " · " + _("your score %(score)s") % {"score": _signed(line.score)}
        if line.compared and line.comparison is not None:
            value = f"{fmt_number(line.percentage)} %" if mp else _signed(line.differential)
            points = line.comparison.matchpoints
            mine += " · " + ngettext(
                "%(value)s against the field, %(points)s of %(top)s match point",
                "%(value)s against the field, %(points)s of %(top)s match points",
                points,
            ) % {"value": value, "points": points, "top": line.comparison.top}
        block: list[Flowable] = [
            Paragraph(f"{esc(head)} <font size=9>({esc(where)})</font>", styles.h2),
            Paragraph(esc(mine), styles.body),
            self.hands_table(line),
        ]
        if line.outcomes:
            block.append(self.field_table(line))
        if line.best is not None and line.compared:
            block.append(Paragraph(esc(best_third_text(line)), styles.small))
        return block

    def hands_table(self, line: DonneLine) -> Table:
        styles = self.styles
        hands = [*line.hands, *([line.chien] if line.chien else [])]
        cells = []
        for hand in hands:
            title = hand.label
            if line.position and hand.position == line.position:
                title = f"{title} — {_('your hand')}"
            cells.append(
                [
                    Paragraph(esc(title), styles.hand_title),
                    Paragraph(hand_markup(self.fonts, hand.raw), styles.hand),
                ]
            )
        width = self.frame_w / len(cells)
        table = Table([cells], colWidths=[width] * len(cells))
        commands: list[tuple] = [("VALIGN", (0, 0), (-1, -1), "TOP")]
        for i, hand in enumerate(hands):
            if line.position and hand.position == line.position:
                commands.append(("BACKGROUND", (i, 0), (i, 0), LIGHT))
        table.setStyle(commands)
        return table

    def field_table(self, line: DonneLine) -> Table:
        styles = self.styles
        rows: list[list[object]] = [
            [Paragraph(esc(h), styles.head_cell) for h in (_("Result"), _("Score"), _("Tables"))]
        ]
        for o in line.outcomes:
            style = (
                styles.cell_bold if o.key == line.outcome and o.score == line.score else styles.cell
            )
            rows.append([Paragraph(esc(o.key), style), _signed(o.score), str(o.tables)])
        widths = [self.frame_w - 50 * mm, 25 * mm, 25 * mm]
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(self.styles.grid(("ALIGN", (1, 1), (-1, -1), "RIGHT")))
        return table

    def swings_block(self, report: EventReport, mp: bool) -> list[Flowable]:
        styles = self.styles

        def listed(lines: list[DonneLine]) -> str:
            if not lines:
                return _("None.")
            return pgettext("list separator", "; ").join(
                (_("Donne %(number)s") % {"number": line.number})
                + f" ({line.outcome}, "
                + (f"{fmt_number(line.percentage)} %" if mp else _signed(line.differential))
                + ")"
                for line in lines
            )

        return [
            CondPageBreak(30 * mm),
            Paragraph(esc(_("The donnes that gained and lost most")), styles.h2),
            Paragraph(
                esc(_("Gained most: %(donnes)s") % {"donnes": listed(report.gained)}), styles.body
            ),
            Paragraph(
                esc(_("Lost most: %(donnes)s") % {"donnes": listed(report.lost)}), styles.body
            ),
        ]
