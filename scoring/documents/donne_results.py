"""Donne results: the traveller of each donne — the hands, then every table's contract and
scores side by side with each position's differential (or match points) under the
tournament's method, and the tables still missing.

Landscape, plain-text cells: a donne of a 1,000-player tournament has 250 lines.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Paragraph, Spacer, Table

from scoring.selectors import Traveller, travellers
from tournaments.models import Donne, Method, Result

from .base import GOOD, RED, Renderer, esc, fmt_number, fmt_signed, hand_markup, position_label
from .data import load_donnes

POSITIONS = ("N", "E", "S", "W")


class DonneResultsRenderer(Renderer):
    kind = "donne_results"
    landscape = True
    data_share = 0.4

    def title(self) -> str:
        return _("Donne results")

    def hands(self, donne: Donne) -> Table:
        styles, fonts = self.styles, self.fonts
        cells = []
        for position in POSITIONS:
            title = esc(position_label(position))
            if donne.dealer == position:
                title += f" · {esc(_('dealer'))}"
            cells.append(
                Paragraph(
                    f"<b>{title}</b><br/>{hand_markup(fonts, donne.hand(position))}",
                    styles.small,
                )
            )
        cells.append(
            Paragraph(
                f"<b>{esc(_('Chien'))}</b><br/>{hand_markup(fonts, donne.chien)}",
                styles.small,
            )
        )
        table = Table([cells], colWidths=[self.frame_w / 5] * 5)
        table.setStyle(styles.grid(("VALIGN", (0, 0), (-1, -1), "TOP"), header=False))
        return table

    def results(self, view: Traveller) -> Table | Paragraph:
        styles = self.styles
        if not view.rows:
            return Paragraph(esc(_("No table has played this donne yet.")), styles.body)
        mp = view.is_matchpoints
        head1: list[object] = [_("Table"), _("Contract")]
        head2: list[object] = ["", ""]
        commands: list[tuple[object, ...]] = [
            ("SPAN", (0, 0), (0, 1)),
            ("SPAN", (1, 0), (1, 1)),
            ("BACKGROUND", (0, 0), (-1, 1), "#eef1f6"),
            ("FONTNAME", (0, 0), (-1, 1), self.fonts.condensed_bold),
            ("ALIGN", (0, 0), (0, -1), "CENTER"),
            ("ALIGN", (2, 0), (-1, 0), "CENTER"),
            ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ]
        for k, position in enumerate(POSITIONS):
            col = 2 + 3 * k
            head1 += [position_label(position), "", ""]
            head2 += [_("Player"), _("Score"), "%" if mp else _("Diff.")]
            commands.append(("SPAN", (col, 0), (col + 2, 0)))
            commands.append(("ALIGN", (col + 1, 1), (col + 2, -1), "RIGHT"))
            commands.append(("LINEBEFORE", (col, 0), (col, -1), 1, "#5b6475"))
        rows: list[list[object]] = [head1, head2]
        for row in view.rows:
            r = len(rows)
            if row.status == Result.Status.ANNULLED:
                contract = _("Annulled")
                if row.result.annul_reason:
                    contract += f"\n{row.result.annul_reason[:60]}"
            elif row.status == Result.Status.ALL_PASSED:
                contract = _("All passed")
            else:
                contract = _("%(contract)s, taker %(taker)s") % {
                    "contract": row.contract_label,
                    "taker": row.taker_label,
                }
                contract += "\n" + _("bouts: %(bouts)s · points: %(points)s") % {
                    "bouts": row.result.bouts,
                    "points": fmt_number(row.result.points),
                }
            cells: list[object] = [str(row.table_number), contract]
            for k, (_position, player, score, diff, pct) in enumerate(row.cells):
                col = 2 + 3 * k
                value = ""
                if diff is not None:
                    value = fmt_number(pct) if mp and pct is not None else fmt_signed(diff)
                    if not mp and diff:
                        colour = GOOD if diff > 0 else RED
                        commands.append(("TEXTCOLOR", (col + 2, r), (col + 2, r), colour))
                cells += [
                    player.full_name if player else "",
                    fmt_signed(score) if score is not None else "",
                    value,
                ]
                commands.append(("FONTNAME", (col + 1, r), (col + 1, r), self.fonts.condensed_bold))
            if row.sitter is not None:
                contract += "\n" + _("sat out: %(player)s") % {"player": row.sitter.full_name}
            # The one wrapped cell of the row (a long contract name, a sitter, a reason).
            cells[1] = Paragraph(esc(contract).replace("\n", "<br/>"), styles.small_cell)
            rows.append(cells)
        player_w, score_w, diff_w = 28 * mm, 12 * mm, 13 * mm
        first = [11 * mm, self.frame_w - 11 * mm - 4 * (player_w + score_w + diff_w)]
        table = Table(rows, colWidths=[*first, *[player_w, score_w, diff_w] * 4], repeatRows=2)
        table.setStyle(styles.grid(*commands, size=8))
        return table

    def donne_section(self, view: Traveller) -> list[Flowable]:
        styles = self.styles
        donne = view.donne
        heading = _("Donne %(number)s") % {"number": donne.number}
        info = " · ".join(
            [
                _("Étui set %(number)s") % {"number": donne.etui_set.number},
                _("Dealer: %(position)s") % {"position": position_label(donne.dealer)},
            ]
        )
        story: list[Flowable] = [
            CondPageBreak(60 * mm),
            KeepTogether(
                [
                    Paragraph(f"{esc(heading)} <font size='9'>· {esc(info)}</font>", styles.h2),
                    self.hands(donne),
                    Spacer(1, 2 * mm),
                ]
            ),
            self.results(view),
        ]
        if view.missing_tables:
            story.append(
                Paragraph(
                    esc(
                        _("Not finished everywhere: tables still to enter: %(tables)s.")
                        % {"tables": ", ".join(str(t) for t in view.missing_tables)}
                    ),
                    styles.muted,
                )
            )
        story.append(Spacer(1, 6 * mm))
        return story

    def story(self) -> list[Flowable]:
        # The version read before the results: a change saved meanwhile marks it out of date.
        self.tournament.refresh_from_db(fields=["results_version"])
        self.results_version = self.tournament.results_version
        donnes = load_donnes(self.tournament)
        method = dict(Method.choices).get(self.tournament.method, self.tournament.method)
        explain = (
            _(
                "Beside each score: the match points in percent against the other tables that held the same cards."
            )
            if self.tournament.method == Method.MATCHPOINTS
            else _(
                "Beside each score: the differential against the other tables that held the same cards."
            )
        )
        story: list[Flowable] = [
            Paragraph(esc(self.title()), self.styles.title),
            Paragraph(f"<b>{esc(_('Comparison method:'))} {esc(method)}</b>", self.styles.body),
            Paragraph(esc(explain), self.styles.muted),
            Spacer(1, 2 * mm),
        ]
        views = {view.donne.pk: view for view in travellers(self.tournament, donnes)}
        for donne in self.steps(donnes):
            story += self.donne_section(views[donne.pk])
        if not donnes:
            story.append(Paragraph(esc(_("No donnes have been generated yet.")), self.styles.body))
        return story
