"""Movement wall chart: for every round, every table with its players by position, the étui
set it plays and where its étuis go next — what clubs pin on the wall so that players and
the étui runner find their way without asking."""

from __future__ import annotations

from collections import Counter

from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Paragraph, Spacer, Table

from scoring.rules.movement import InvalidSeating, least_sit_out_spread

from .base import FitText, Renderer, esc, position_label
from .data import FIFTH, Seating, Sitting, donne_range, load_seating, next_tables

ORDER = ("N", "E", "S", "W", FIFTH)


class MovementChartRenderer(Renderer):
    kind = "movement_chart"
    landscape = True

    def title(self) -> str:
        return _("Movement wall chart")

    def fit(self, text: str) -> FitText:
        return FitText(text, font=self.fonts.condensed, size=8.5)

    def round_table(
        self, sittings: list[Sitting], nexts: dict[tuple[int, int], list[int]]
    ) -> Table:
        styles = self.styles
        fifth = any(FIFTH in s.seats for s in sittings)
        positions = ORDER if fifth else ORDER[:4]
        head = [_("Table"), _("Étui set"), _("Donnes")]
        head += [_("Fifth player") if p == FIFTH else position_label(p) for p in positions]
        head.append(_("Étuis go next to"))
        rows: list[list[object]] = [[Paragraph(esc(h), styles.head_cell) for h in head]]
        for sitting in sittings:
            first, last = donne_range(sitting.donnes)
            targets = nexts.get((sitting.round_number, sitting.table_number), [])
            if targets:
                where = ", ".join(_("table %(number)s") % {"number": t} for t in targets)
            elif sitting.round_number == self.rounds:
                where = _("back to the arbiter")
            else:
                where = _("not played next round")
            cells: list[object] = [
                Paragraph(f"<b>{sitting.table_number}</b>", styles.big_center),
                Paragraph(f"<b>{sitting.etui_set}</b>", styles.cell_center),
                Paragraph(esc(f"{first}–{last}" if first else ""), styles.cell_center),
            ]
            for position in positions:
                player = sitting.seats.get(position)
                cells.append(self.fit(player.full_name) if player else "")
            cells.append(self.fit(where))
            rows.append(cells)
        fixed = [16 * mm, 16 * mm, 18 * mm]
        rest = self.frame_w - sum(fixed) - 30 * mm
        widths = [*fixed, *[rest / len(positions)] * len(positions), 30 * mm]
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(self.styles.grid(("VALIGN", (0, 0), (-1, -1), "MIDDLE")))
        return table

    def story(self) -> list[Flowable]:
        seating = load_seating(self.tournament)
        nexts = next_tables(seating)
        by_round: dict[int, list[Sitting]] = {}
        for sitting in seating.sittings:
            by_round.setdefault(sitting.round_number, []).append(sitting)
        self.rounds = max(by_round, default=0)
        story: list[Flowable] = [
            Paragraph(esc(self.title()), self.styles.title),
            Paragraph(
                esc(
                    _(
                        "Players keep their position for the whole round. At the end of a "
                        "round, the étuis of each table go to the table named in the last column."
                    )
                ),
                self.styles.muted,
            ),
        ]
        why = sit_out_why(seating, len(by_round))
        if why:
            story.append(Paragraph(esc(why), self.styles.body))
        story.append(Spacer(1, 3 * mm))
        for number in self.steps(sorted(by_round)):
            heading = Paragraph(esc(_("Round %(number)s") % {"number": number}), self.styles.h2)
            story += [
                CondPageBreak(40 * mm),
                KeepTogether([heading]),
                self.round_table(by_round[number], nexts),
                Spacer(1, 5 * mm),
            ]
        if not by_round:
            story.append(
                Paragraph(esc(_("The seating has not been generated yet.")), self.styles.body)
            )
        return story


def sit_out_why(seating: Seating, rounds: int) -> str | None:
    """Why sitting out is not shared within one donne (RULES §7), when no movement at all does
    better for this number of players and rounds (an exhaustive search proves it); else None,
    the chart then says nothing of sitting out (the seating plan does)."""
    counts: Counter[int] = Counter()
    for sitting in seating.sittings:
        for position, player in sitting.seats.items():
            counts[player.pk] += 0
            if sitting.table_size == 5:
                counts[player.pk] += sitting.sit_outs.count(position)
    if not counts:
        return None
    fewest, most = min(counts.values()), max(counts.values())
    try:
        least = least_sit_out_spread(len(counts), rounds)
    except InvalidSeating:
        return None
    if most - fewest <= 1 or least != most - fewest:
        return None
    return _(
        "Sitting out cannot be shared more evenly: players sit out from %(fewest)s to %(most)s "
        "donnes, a spread of %(spread)s where the rules ask for one at most. With two tables, "
        "each playing its own étui set every round, a player who changed table would replay a "
        "donne: the players of the table of four stay there all session and never sit out, "
        "while the five others share every sit-out. No movement does better with this number "
        "of players and rounds."
    ) % {"fewest": fewest, "most": most, "spread": most - fewest}
