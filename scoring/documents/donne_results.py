"""Donne results: the traveller of each donne — the hands, then every table's contract, taker,
bouts, points, petit au bout, poignées and chelem, its players' scores side by side with each
position's differential (or match points) under the tournament's method, the average the
differentials are measured from, and the tables still missing.

Landscape, plain-text cells: a donne of a 1,000-player tournament has 250 lines.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Paragraph, Spacer, Table

from scoring.rankings.selectors import Traveller, travellers
from tournaments.models import Donne, Method, Result

from .base import (
    GOOD,
    RED,
    FitText,
    Renderer,
    esc,
    fmt_number,
    fmt_signed,
    hand_markup,
    position_label,
)
from .data import load_donnes
from .details import bonus_words, points_text

POSITIONS = ("N", "E", "S", "W")


def donne_average(view: Traveller) -> dict[str, Fraction]:
    """Each position's mean score over the tables compared on the donne (annulled ones left
    out): the average the differentials are measured from (RULES §6)."""
    scores: dict[str, list[int]] = {}
    for row in view.rows:
        for position in row.values:  # the positions compared at this table
            scores.setdefault(position, []).append(row.scores.get(position, 0))
    return {p: Fraction(sum(v), len(v)) for p, v in scores.items() if v}


class DonneResultsRenderer(Renderer):
    kind = "donne_results"
    landscape = True
    data_share = 0.4
    player_w = 24 * mm

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

    def name_cell(self, name: str) -> FitText:
        """A player's name wrapped at spaces and hyphens, smaller when it must: never over the
        next column, never split in the middle of a word."""
        return FitText(name, font=self.fonts.condensed, size=8, prefer_lines=3)

    def results(self, view: Traveller) -> Table | Paragraph:
        """The donne's traveller: a row per table, the four positions' players, scores and
        differentials (or percentages), and the averages they are measured from."""
        styles = self.styles
        if not view.rows:
            return Paragraph(esc(_("No table has played this donne yet.")), styles.body)
        mp = view.is_matchpoints
        rows, commands = self.results_header(mp)
        for row in view.rows:
            rows.append(self.result_row(row, len(rows), mp, commands))
        averages = donne_average(view)
        if averages:
            rows.append(self.average_row(averages, len(rows), commands))
        player_w, score_w, diff_w = self.player_w, 11 * mm, 12 * mm
        fixed = [11 * mm, 0, 11 * mm, 12 * mm, 25 * mm]
        fixed[1] = self.frame_w - sum(fixed) - 4 * (player_w + score_w + diff_w)
        table = Table(rows, colWidths=[*fixed, *[player_w, score_w, diff_w] * 4], repeatRows=2)
        table.setStyle(styles.grid(*commands, size=8))
        return table

    # The traveller's first columns (table, contract, bouts, points, bonuses); then three per
    # position.
    FIRST = 5

    def results_header(self, mp: bool) -> tuple[list[list[object]], list[tuple[object, ...]]]:
        """The traveller's two header rows and the table's style commands so far."""
        head1: list[object] = [
            _("Table"),
            _("Contract and taker"),
            _("Bouts"),
            _("Points"),
            _("Petit au bout, poignées, chelem"),
        ]
        head2: list[object] = ["", "", "", "", ""]
        first = self.FIRST
        commands: list[tuple[object, ...]] = [
            *[("SPAN", (c, 0), (c, 1)) for c in range(first)],
            ("BACKGROUND", (0, 0), (-1, 1), "#eef1f6"),
            ("FONTNAME", (0, 0), (-1, 1), self.fonts.condensed_bold),
            ("ALIGN", (0, 0), (0, -1), "CENTER"),
            ("ALIGN", (2, 2), (3, -1), "RIGHT"),
            ("ALIGN", (first, 0), (-1, 0), "CENTER"),
            ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ]
        for k, position in enumerate(POSITIONS):
            col = first + 3 * k
            head1 += [position_label(position), "", ""]
            # Fitted: "Marque" is wider than its column at the nominal size and a plain
            # string would run over the rule before it.
            head2 += [
                FitText(h, font=self.fonts.condensed_bold, size=8.5, align=a)
                for h, a in (
                    (_("Player"), "l"),
                    (_("Score"), "r"),
                    ("%" if mp else _("Diff."), "r"),
                )
            ]
            commands.append(("SPAN", (col, 0), (col + 2, 0)))
            commands.append(("ALIGN", (col + 1, 1), (col + 2, -1), "RIGHT"))
            commands.append(("LINEBEFORE", (col, 0), (col, -1), 1, "#5b6475"))
        rows: list[list[object]] = [
            [Paragraph(esc(h), self.styles.head_cell) if h else "" for h in head1],
            head2,
        ]
        return rows, commands

    def result_row(
        self, row: Any, r: int, mp: bool, commands: list[tuple[object, ...]]
    ) -> list[object]:
        """Row `r` of the traveller: one table's result and its four positions; the row's
        style commands are added to `commands`."""
        result = row.result
        bouts = points = ""
        extras: list[str] = []
        if row.status == Result.Status.ANNULLED:
            contract = _("Annulled")
            if result.annul_reason:
                extras.append(result.annul_reason)
        elif row.status == Result.Status.ALL_PASSED:
            contract = _("All passed")
        else:
            contract = _("%(contract)s, taker %(taker)s") % {
                "contract": row.contract_label,
                "taker": row.taker_label,
            }
            bouts = str(result.bouts) if result.bouts is not None else ""
            points = points_text(result)
            extras = bonus_words(result)
        if row.sitter is not None:
            extras.append(_("sat out: %(player)s") % {"player": row.sitter.full_name})
        cells: list[object] = [
            str(row.table_number),
            self.name_cell(contract),
            bouts,
            points,
            [FitText(e, font=self.fonts.condensed, size=7.5, prefer_lines=3) for e in extras],
        ]
        for k, (_position, player, score, diff, pct) in enumerate(row.cells):
            col = self.FIRST + 3 * k
            value = ""
            if diff is not None:
                value = fmt_number(pct) if mp and pct is not None else fmt_signed(diff)
                if not mp and diff:
                    colour = GOOD if diff > 0 else RED
                    commands.append(("TEXTCOLOR", (col + 2, r), (col + 2, r), colour))
            cells += [
                self.name_cell(player.full_name) if player else "",
                fmt_signed(score) if score is not None else "",
                value,
            ]
            commands.append(("FONTNAME", (col + 1, r), (col + 1, r), self.fonts.condensed_bold))
        return cells

    def average_row(
        self, averages: dict[str, Any], r: int, commands: list[tuple[object, ...]]
    ) -> list[object]:
        """Row `r`: each position's average score, what the differentials are measured from."""
        label = _("Average (what the differentials are measured from)")
        cells: list[object] = [
            Paragraph(f"<b>{esc(label)}</b>", self.styles.small_cell),
            "",
            "",
            "",
            "",
        ]
        for position in POSITIONS:
            average = averages.get(position)
            cells += ["", fmt_signed(average) if average is not None else "", ""]
        commands += [
            ("SPAN", (0, r), (self.FIRST - 1, r)),
            ("BACKGROUND", (0, r), (-1, r), "#f7f8fb"),
            ("FONTNAME", (0, r), (-1, r), self.fonts.condensed_bold),
        ]
        return cells

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
            Paragraph(
                esc(
                    _(
                        "The Average line gives each position's mean score over the tables "
                        "compared: a differential is the score minus this average (pairwise: "
                        "the same difference times n/(n−1) for n tables)."
                    )
                ),
                self.styles.muted,
            ),
            Spacer(1, 2 * mm),
        ]
        views = {view.donne.pk: view for view in travellers(self.tournament, donnes)}
        for donne in self.steps(donnes):
            story += self.donne_section(views[donne.pk])
        if not donnes:
            story.append(Paragraph(esc(_("No donnes have been generated yet.")), self.styles.body))
        return story
