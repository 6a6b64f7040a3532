"""Table score sheets: one page per table and round, with the players by position, a grid to
fill by hand for each donne of the relais, and a QR code that opens the arbiter's entry page
for that table (its first donne of the round; the page leads on to the others).

The cells offer the choices to circle (N E S W, P G GS GC, 0 1 2 3…) so that what the arbiter
reads back is unambiguous.
"""

from __future__ import annotations

import qrcode
from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, PageBreak, Paragraph, Spacer, Table

from tournaments.models import Tournament

from .base import LIGHT, MUTED, Renderer, esc, position_label
from .data import FIFTH, Sitting, donne_range, load_seating

QR_SIZE = 30 * mm


def site_url() -> str:
    return str(getattr(settings, "SITE_URL", "http://127.0.0.1:8000")).rstrip("/")


def entry_url(tournament: Tournament, table_number: int, donne_number: int) -> str:
    """Absolute URL of the arbiter's entry page for a table and a donne."""
    path = reverse("arbiter_result", args=[tournament.pk, table_number, donne_number])
    return f"{site_url()}{path}"


class QrCode(Flowable):
    """A QR code drawn as one filled path (dark runs of each row as rectangles), with its
    quiet zone. Made by the `qrcode` package; ReportLab's widget draws each module as its own
    shape and cost most of the time of a tournament's score sheets."""

    def __init__(self, value: str, size: float = QR_SIZE) -> None:
        super().__init__()
        # A fixed mask: any of the eight is valid; searching the "best" one took 40 ms a code.
        code = qrcode.QRCode(
            error_correction=qrcode.constants.ERROR_CORRECT_M, border=4, mask_pattern=2
        )
        code.add_data(value)
        code.make(fit=True)
        self.value = value
        self.matrix = code.get_matrix()
        self.size = size

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.size, self.size

    def draw(self) -> None:
        canvas = self.canv
        count = len(self.matrix)
        module = self.size / count
        path = canvas.beginPath()
        for r, row in enumerate(self.matrix):
            y = self.size - (r + 1) * module
            c = 0
            while c < count:
                if not row[c]:
                    c += 1
                    continue
                start = c
                while c < count and row[c]:
                    c += 1
                path.rect(start * module, y, (c - start) * module, module)
        canvas.saveState()
        canvas.setFillColor(colors.black)
        canvas.drawPath(path, stroke=0, fill=1)
        canvas.restoreState()


class ScoreSheetsRenderer(Renderer):
    kind = "score_sheets"
    landscape = True  # room for every column and scores large enough to write by hand

    def title(self) -> str:
        return _("Table score sheets")

    def players_table(self, sitting: Sitting) -> Table:
        styles = self.styles
        rows: list[list[object]] = [[_("Position"), _("Player"), _("Licence"), _("Signature")]]
        order = ["N", "E", "S", "W"] + ([FIFTH] if FIFTH in sitting.seats else [])
        for position in order:
            player = sitting.seats.get(position)
            label = _("Fifth player") if position == FIFTH else position_label(position)
            rows.append(
                [
                    label,
                    Paragraph(f"<b>{esc(player.full_name)}</b>", styles.cell) if player else "",
                    player.licence if player else "",
                    "",
                ]
            )
        table = Table(
            rows,
            colWidths=[31 * mm, 57 * mm, 20 * mm, 38 * mm],
            rowHeights=[None, *[7 * mm] * (len(rows) - 1)],
            hAlign="LEFT",
        )
        table.setStyle(styles.grid(size=9.5))
        return table

    def grid(self, sitting: Sitting) -> Table:
        """One row per donne of the relais; cells hold the choices to circle."""
        styles = self.styles
        five = sitting.table_size == 5
        positions = [position_label(p)[:1] for p in ("N", "E", "S", "W")]
        head = [
            _("Donne"),
            _("Dealer"),
            *([_("Sits out")] if five else []),
            _("Taker"),
            _("Contract"),
            _("Bouts"),
            _("Points"),
            _("Petit au bout"),
            _("Poignées"),
            _("Chelem"),
            *positions,
        ]
        header = [Paragraph(esc(h), styles.head_cell) for h in head]
        rows: list[list[object]] = [header]
        # Plain strings styled by the table (a Paragraph per cell is slow for 100+ sheets).
        contracts = pgettext("contract initials on the score sheet", "P  G  GS  GC")
        pab = pgettext("petit au bout choices: attack or defence", "Att.  Def.")
        choices = ["  ".join(positions), contracts, "0  1  2  3", "", pab]
        for index, donne in enumerate(sitting.donnes):
            cells: list[object] = [str(donne.number), position_label(donne.dealer)]
            if five:
                role = sitting.sitter(index)
                sitter = sitting.seats.get(role) if role else None
                cells.append(sitter.full_name if sitter else "")
            rows.append([*cells, *choices, *[""] * 6])
        rows.append([_("Total"), *[""] * (len(head) - 1)])
        fixed = [14 * mm, 16 * mm, *([30 * mm] if five else []), 22 * mm, 24 * mm, 17 * mm]
        fixed += [17 * mm, 17 * mm, 26 * mm, 20 * mm]
        score_w = (self.frame_w - sum(fixed)) / 4
        last = len(rows) - 1
        first_choice = 3 if five else 2
        table = Table(
            rows,
            colWidths=[*fixed, *[score_w] * 4],
            rowHeights=[None, *[16 * mm] * (last - 1), 8 * mm],
            repeatRows=1,
        )
        table.setStyle(
            styles.grid(
                ("VALIGN", (0, 1), (-1, -1), "TOP"),
                ("VALIGN", (0, 1), (1, -1), "MIDDLE"),
                ("ALIGN", (0, 0), (1, -1), "CENTER"),
                ("FONTNAME", (0, 1), (0, last - 1), self.fonts.bold),
                ("FONTSIZE", (0, 1), (0, last - 1), 14),
                ("FONTSIZE", (first_choice, 1), (first_choice + 4, last - 1), 7.5),
                ("TEXTCOLOR", (first_choice, 1), (first_choice + 4, last - 1), MUTED),
                ("FONTNAME", (0, last), (0, last), self.fonts.condensed_bold),
                ("ALIGN", (0, last), (0, last), "LEFT"),
                ("SPAN", (0, last), (len(head) - 5, last)),
                ("BACKGROUND", (len(head) - 4, 1), (-1, last - 1), LIGHT),
                ("LINEBEFORE", (len(head) - 4, 0), (len(head) - 4, -1), 1.2, MUTED),
            )
        )
        return table

    def sheet(self, sitting: Sitting) -> list[Flowable]:
        styles = self.styles
        first, last = donne_range(sitting.donnes)
        heading = _("Table %(table)s — round %(round)s") % {
            "table": sitting.table_number,
            "round": sitting.round_number,
        }
        relais = _("Étui set %(number)s: donnes %(first)s to %(last)s") % {
            "number": sitting.etui_set,
            "first": first,
            "last": last,
        }
        url = entry_url(self.tournament, sitting.table_number, first) if first else site_url()
        note = _("Players keep their position for the whole round.")
        if sitting.table_size == 5:
            note += " " + _(
                "Table of five: on each donne one player sits out (column 'Sits out'); the "
                "fifth player then plays that player's hand."
            )
        intro = Paragraph(
            f'<font size="18"><b>{esc(heading)}</b></font><br/><br/>'
            f'<font size="11">{esc(relais)}</font><br/><br/>'
            f'<font size="8">{esc(note)}</font>',
            styles.body,
        )
        caption = Paragraph(esc(_("Arbiter: scan to enter this table's results")), styles.muted)
        players = self.players_table(sitting)
        qr_w = QR_SIZE + 6 * mm
        top = Table(
            [[intro, players, [QrCode(url), caption]]],
            colWidths=[self.frame_w - 146 * mm - qr_w, 146 * mm, qr_w],
        )
        top.setStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (-1, -1), 0),
                ("LEFTPADDING", (2, 0), (2, 0), 6 * mm),
            ]
        )
        story: list[Flowable] = [top]
        story += [
            Spacer(1, 4 * mm),
            self.grid(sitting),
            Spacer(1, 3 * mm),
            Paragraph(
                esc(
                    _(
                        "Circle the taker, the contract and the bouts; write the attack's points, "
                        "who won the petit au bout, the poignées shown (position and simple, "
                        "double or triple), any chelem, then each position's score. The four "
                        "scores of a donne add up to 0."
                    )
                ),
                styles.small,
            ),
            Spacer(1, 2 * mm),
            Paragraph(esc(url), styles.muted),
        ]
        return story

    def story(self) -> list[Flowable]:
        seating = load_seating(self.tournament)
        story: list[Flowable] = []
        for index, sitting in enumerate(self.steps(seating.sittings)):
            if index:
                story.append(PageBreak())
            story += self.sheet(sitting)
        if not seating.sittings:
            story.append(
                Paragraph(esc(_("The seating has not been generated yet.")), self.styles.body)
            )
        return story
