"""Table score sheets: one page per table and round, with the players by position, a grid to
fill by hand for each donne of the relais, and a QR code that opens the table's page
(`tournaments.services.table_entry.table_page_links_of`: the table's page for that round).

The cells offer the choices to circle (N E S W, P G GS GC, 0 1 2 3…) so that what the arbiter
reads back is unambiguous; the poignée and chelem columns say what to write, a box is ticked
when all passed, an incident box takes what the arbiter must know, and the sheet says where
the étuis go for the next round. Names are fitted (`FitText`): a long one wraps in its cell.
"""

from __future__ import annotations

import qrcode
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, KeepInFrame, PageBreak, Paragraph, Spacer, Table

from tournaments.services.table_entry import TablePageLinks, table_page_links_of

from .base import LIGHT, LINE, MUTED, FitText, Renderer, esc, position_label
from .data import FIFTH, Seating, Sitting, donne_range, load_seating
from .textfit import text_width

QR_SIZE = 30 * mm
ADDRESS_SIZE = 7.5  # pt: the address under the QR code, typed by hand (never under 7)
ADDRESS_FLOOR = 7.0


def address_pieces(address: str, *, dots: bool = False) -> list[str]:
    """The parts of a web address between the places it may go to the next line: after "//"
    and before a single slash ("http://", "127.0.0.1:8000", "/table/"), and with `dots` after
    each dot as well ("club.", "example.org"); the final slash stays with what precedes it.
    Nothing is added: the parts put together are the address as it must be typed."""
    pieces: list[str] = []
    start = 0
    for i in range(1, len(address)):
        before, here = address[i - 1], address[i]
        after_scheme = address[max(0, i - 3) : i] == "://"
        after_dot = dots and before == "." and here not in "./"
        before_slash = (
            here == "/" and before not in ":/" and i + 1 < len(address) and address[i + 1] != "/"
        )
        if after_scheme or after_dot or before_slash:
            pieces.append(address[start:i])
            start = i
    pieces.append(address[start:])
    return [p for p in pieces if p]


def pack_sentence(
    before: str, address: str, after: str, font: str, size: float, width: float
) -> list[str]:
    """The sentence around an address, wrapped at its spaces and at the address's own break
    points (`address_pieces`: at its dots only where a part is wider than the line), never
    inside a word nor inside a part of the address."""
    pieces = [
        fine
        for piece in address_pieces(address)
        for fine in (
            address_pieces(piece, dots=True) if text_width(piece, font, size) > width else [piece]
        )
    ]
    tokens = [(word, True) for word in before.split()]
    tokens += [(piece, index == 0) for index, piece in enumerate(pieces)]
    for word in after.split():
        if tokens and not any(c.isalnum() for c in word):  # French " :" stays on its line
            tokens[-1] = (f"{tokens[-1][0]} {word}", tokens[-1][1])
        else:
            tokens.append((word, True))
    lines: list[str] = []
    current = ""
    for token, spaced in tokens:
        candidate = f"{current}{' ' if spaced else ''}{token}" if current else token
        if current and text_width(candidate, font, size) > width:
            lines.append(current)
            current = token
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


class QrCode(Flowable):
    """A QR code drawn as one filled path (dark runs of each row as rectangles), with its
    quiet zone. Made by the `qrcode` package (ReportLab's widget draws each module as its own
    shape)."""

    def __init__(self, value: str, size: float = QR_SIZE) -> None:
        super().__init__()
        # A fixed mask: any of the eight is valid, and none is searched for.
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

    def table_links(self, sitting: Sitting) -> TablePageLinks:
        """The page where the players of this table enter this round's results (its QR code),
        and the short address and code for those who type (one table round per sheet); every
        table round's links read at once, on the first sheet."""
        links = getattr(self, "_table_links", None)
        if links is None:
            links = self._table_links = table_page_links_of(tournament=self.tournament)
        return links[(sitting.round_number, sitting.table_number)]

    def players_table(self, sitting: Sitting) -> Table:
        styles = self.styles
        rows: list[list[object]] = [[_("Position"), _("Player"), _("Licence"), _("Signature")]]
        order = ["N", "E", "S", "W"] + ([FIFTH] if FIFTH in sitting.seats else [])
        for position in order:
            player = sitting.seats.get(position)
            label = _("Fifth player") if position == FIFTH else position_label(position)
            name = FitText(player.full_name, font=self.fonts.condensed_bold, size=9.5, floor=7)
            rows.append([label, name if player else "", player.licence if player else "", ""])
        table = Table(
            rows,
            colWidths=[31 * mm, 57 * mm, 20 * mm, 38 * mm],
            hAlign="LEFT",
        )
        # Rows at least 7 mm (room to sign), taller when a long name wraps.
        table.setStyle(
            styles.grid(
                ("TOPPADDING", (0, 1), (-1, -1), 4),
                ("BOTTOMPADDING", (0, 1), (-1, -1), 4),
                size=9.5,
            )
        )
        return table

    def grid(self, sitting: Sitting) -> Table:
        """One row per donne of the relais; cells hold the choices to circle and say what to
        write."""
        styles, f = self.styles, self.fonts
        five = sitting.table_size == 5
        positions = [position_label(p)[:1] for p in ("N", "E", "S", "W")]
        head = [
            _("Donne"),
            _("Dealer"),
            *([_("Sits out")] if five else []),
            _("All passed"),
            _("Taker"),
            _("Contract"),
            _("Bouts"),
            _("Points"),
            _("Petit au bout"),
            _("Poignées"),
            _("Chelem"),
            *positions,
        ]
        header = [
            FitText(h, font=f.condensed_bold, size=8, floor=6, prefer_lines=2, align="c")
            for h in head
        ]
        rows: list[list[object]] = [header]
        contracts = pgettext("contract initials on the score sheet", "P  G  GS  GC")
        pab = pgettext("petit au bout choices: attack or defence", "Att.  Def.")

        def hint(*lines: str) -> list[Flowable]:
            return [
                FitText(line, font=f.condensed, size=7.5, floor=5.5, colour=MUTED, align="c")
                for line in lines
            ]

        poignees = hint(
            "  ".join(positions),
            pgettext("poignée sizes on the score sheet: simple, double, triple", "S  D  T"),
            _("who and which"),
        )
        chelem = hint(
            pgettext(
                "chelem choices on the score sheet: announced, made or failed", "Ann. ✓  Ann. ✗"
            ),
            pgettext(
                "chelem choices on the score sheet: unannounced, by the defence", "Unann. ✓  Def."
            ),
            _("circle one"),
        )
        choices = [
            FitText("☐", font=f.regular, size=16, align="c"),
            hint("  ".join(positions)),
            hint(contracts),
            hint("0  1  2  3"),
            "",
            hint(pab),
            poignees,
            chelem,
        ]
        for index, donne in enumerate(sitting.donnes):
            cells: list[object] = [str(donne.number), position_label(donne.dealer)]
            if five:
                role = sitting.sitter(index)
                sitter = sitting.seats.get(role) if role else None
                cells.append(
                    FitText(sitter.full_name, font=f.condensed, size=8, floor=6) if sitter else ""
                )
            rows.append([*cells, *choices, *[""] * 4])
        rows.append([_("Total"), *[""] * (len(head) - 1)])
        fixed = [12 * mm, 15 * mm, *([28 * mm] if five else []), 13 * mm, 19 * mm, 22 * mm]
        fixed += [15 * mm, 15 * mm, 15 * mm, 26 * mm, 26 * mm]
        score_w = (self.frame_w - sum(fixed)) / 4
        last = len(rows) - 1
        table = Table(
            rows,
            colWidths=[*fixed, *[score_w] * 4],
            rowHeights=[None, *[14 * mm] * (last - 1), 7 * mm],
            repeatRows=1,
        )
        table.setStyle(
            styles.grid(
                ("VALIGN", (0, 1), (-1, -1), "TOP"),
                ("VALIGN", (0, 1), (1, -1), "MIDDLE"),
                ("ALIGN", (0, 0), (-1, -1), "CENTER"),
                ("FONTNAME", (0, 1), (0, last - 1), self.fonts.bold),
                ("FONTSIZE", (0, 1), (0, last - 1), 14),
                ("FONTNAME", (0, last), (0, last), self.fonts.condensed_bold),
                ("ALIGN", (0, last), (0, last), "LEFT"),
                ("SPAN", (0, last), (len(head) - 5, last)),
                ("BACKGROUND", (len(head) - 4, 1), (-1, last - 1), LIGHT),
                ("LINEBEFORE", (len(head) - 4, 0), (len(head) - 4, -1), 1.2, MUTED),
            )
        )
        return table

    def next_tables(self, seating: Seating, sitting: Sitting) -> str:
        """Where this table's étuis go after the round (the movement, read from the seating)."""
        later = [
            s.table_number
            for s in seating.sittings
            if s.round_number == sitting.round_number + 1 and s.etui_set == sitting.etui_set
        ]
        if not later:
            return _("After this round, hand étui set %(set)s to the arbiter.") % {
                "set": sitting.etui_set
            }
        return _("After this round, take étui set %(set)s to table %(tables)s.") % {
            "set": sitting.etui_set,
            "tables": ", ".join(str(n) for n in sorted(set(later))),
        }

    def incident_box(self) -> Table:
        """A box for the incidents and the arbiter's decisions, with room for initials."""
        f = self.fonts
        box = Table(
            [
                [
                    FitText(
                        _("Incidents, arbiter called (donne, what happened, decision):"),
                        font=f.condensed_bold,
                        size=8.5,
                    ),
                    FitText(_("Arbiter's initials"), font=f.condensed_bold, size=8.5),
                ]
            ],
            colWidths=[self.frame_w - 45 * mm, 45 * mm],
            rowHeights=[14 * mm],
        )
        box.setStyle(
            [
                ("BOX", (0, 0), (-1, -1), 0.8, LINE),
                ("LINEBEFORE", (1, 0), (1, 0), 0.4, LINE),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), 3),
                ("LEFTPADDING", (0, 0), (-1, -1), 4),
            ]
        )
        return box

    def sheet(self, seating: Seating, sitting: Sitting) -> list[Flowable]:
        styles, f = self.styles, self.fonts
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
        links = self.table_links(sitting)
        url = links.url
        note = _("Players keep their position for the whole round.")
        if sitting.table_size == 5:
            note += " " + _(
                "Table of five: on each donne one player sits out (column 'Sits out'); the "
                "fifth player then plays that player's hand."
            )
        intro = [
            FitText(heading, font=f.bold, size=18, floor=12, space_after=2 * mm),
            FitText(relais, font=f.regular, size=11, floor=8, space_after=1.5 * mm),
            FitText(
                self.next_tables(seating, sitting),
                font=f.bold,
                size=10,
                floor=8,
                space_after=1.5 * mm,
            ),
            Paragraph(esc(note), styles.small),
        ]
        # The address is typed by hand: it wraps at its slashes and dots rather than shrink.
        mark = "\x00"
        before, _mark, after = (
            _("or type %(address)s and the code:") % {"address": mark}
        ).partition(mark)
        typed = [
            FitText(line, font=f.condensed, size=ADDRESS_SIZE, floor=ADDRESS_FLOOR, prefer_lines=1)
            for line in pack_sentence(
                before, links.short_url, after, f.condensed, ADDRESS_SIZE, QR_SIZE
            )
        ]
        caption = [
            Paragraph(esc(_("Scan to enter this table's results")), styles.muted),
            *typed,
            FitText(links.code, font=f.bold, size=14, floor=10),
        ]
        players = self.players_table(sitting)
        qr_w = QR_SIZE + 6 * mm
        top = Table(
            [[intro, players, [QrCode(url), *caption]]],
            colWidths=[self.frame_w - 146 * mm - qr_w, 146 * mm, qr_w],
        )
        top.setStyle(
            [
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (-1, -1), 0),
                ("RIGHTPADDING", (0, 0), (0, 0), 4 * mm),
                ("LEFTPADDING", (2, 0), (2, 0), 6 * mm),
                ("RIGHTPADDING", (2, 0), (2, 0), 0),  # the caption is packed to QR_SIZE
            ]
        )
        story: list[Flowable] = [
            top,
            Spacer(1, 3 * mm),
            self.grid(sitting),
            Spacer(1, 2 * mm),
            Paragraph(
                esc(
                    _(
                        "Circle the taker, the contract and the bouts; write the attack's points, "
                        "who won the petit au bout, the poignées shown (position and simple, "
                        "double or triple), any chelem, then each position's score. The four "
                        "scores of a donne add up to 0. Tick the box when all passed."
                    )
                ),
                styles.small,
            ),
            Spacer(1, 2 * mm),
            self.incident_box(),
        ]
        # One sheet, one page: an unusually tall one (long names at a table of five, a long
        # relais) is scaled down a little rather than split.
        return [KeepInFrame(self.frame_w, self.body_height(), story, mode="shrink")]

    def story(self) -> list[Flowable]:
        seating = load_seating(self.tournament)
        story: list[Flowable] = []
        for index, sitting in enumerate(self.steps(seating.sittings)):
            if index:
                story.append(PageBreak())
            story += self.sheet(seating, sitting)
        if not seating.sittings:
            story.append(
                Paragraph(esc(_("The seating has not been generated yet.")), self.styles.body)
            )
        return story
