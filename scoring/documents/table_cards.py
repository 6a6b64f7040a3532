"""Table cards: one A4 sheet per table, folded in two to stand on it — the table's number in
large figures and the QR code of the table's page on both faces (the upper half printed upside
down, so that each side reads the right way up once folded), with the tournament's name.
"""

from __future__ import annotations

from django.utils.formats import date_format
from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, PageBreak, Paragraph

from tournaments.models import Table

from .base import (
    FOOTER_H,
    INK,
    LINE,
    MARGIN,
    MUTED,
    Renderer,
    draw_fitted,
    esc,
    fit_text,
    text_width,
)
from .data import table_page_url
from .score_sheets import QrCode

QR = 52 * mm


def fit_size(text: str, font: str, size: float, width: float, floor: float = 7) -> float:
    """The largest size up to `size` at which `text` fits `width` on one line (not below
    `floor`)."""
    while size > floor and text_width(text, font, size) > width:
        size -= 0.5
    return size


class TableCard(Flowable):
    """Both faces of one table card, filling the frame (the fold in the middle)."""

    def __init__(
        self, *, number: int, url: str, heading: str, line: str, caption: str, fonts, size
    ) -> None:
        super().__init__()
        self.number, self.url = number, url
        self.heading, self.line, self.caption = heading, line, caption
        self.fonts = fonts
        self.width, self.height = size

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.width, self.height

    def face(self, canvas: Canvas, height: float) -> None:
        """One face, drawn from (0, 0) up to `height`."""
        fonts = self.fonts
        text_w = self.width - QR - 10 * mm
        canvas.setFillColor(INK)
        canvas.setFont(fonts.bold, 30)
        canvas.drawString(0, height - 22 * mm, self.caption)
        number = str(self.number)
        # Between the caption above and the two-line heading below (24 mm from the bottom),
        # the glyphs' ascent and descent included: nothing overprints.
        room = height - 22 * mm - 10 - (28 * mm)
        size = fit_size(number, fonts.bold, min(170.0, room / 1.2), text_w)
        canvas.setFont(fonts.bold, size)
        canvas.drawString(0, 28 * mm + size * 0.25, number)
        canvas.setFillColor(MUTED)
        # The club, tournament, date and venue under the number: wrapped and shrunk to fit.
        top = 24 * mm
        for text, font, size in ((self.heading, fonts.bold, 12), (self.line, fonts.regular, 10)):
            fitted = fit_text(text, font, size, self.width, floor=6, max_lines=2)
            top = draw_fitted(canvas, fitted, font=font, x=0, top=top, width=self.width)
        qr = QrCode(self.url, size=QR)
        qr.canv = canvas
        canvas.saveState()
        canvas.translate(self.width - QR, (height - QR) / 2 + 4 * mm)
        qr.draw()
        canvas.restoreState()

    def draw(self) -> None:
        canvas = self.canv
        half = self.height / 2
        self.face(canvas, half - 6 * mm)
        canvas.saveState()
        canvas.translate(self.width, self.height)
        canvas.rotate(180)
        self.face(canvas, half - 6 * mm)
        canvas.restoreState()
        canvas.saveState()
        canvas.setStrokeColor(LINE)
        canvas.setDash(4, 3)
        canvas.line(-5 * mm, half, self.width + 5 * mm, half)
        canvas.restoreState()


class TableCardsRenderer(Renderer):
    kind = "table_cards"

    def title(self) -> str:
        return _("Table cards")

    def draw_page(self, canvas: Canvas, doc: BaseDocTemplate) -> None:
        """No running header: the upper half is read upside down once folded."""

    def story(self) -> list[Flowable]:
        t = self.tournament
        numbers = list(
            Table.objects.filter(tournament=t).order_by("number").values_list("number", flat=True)
        )
        heading = f"{t.club.name} — {t.name}"
        line = date_format(t.date, "DATE_FORMAT") + (f" · {t.venue}" if t.venue else "")
        height = self.page_h - 2 * MARGIN - self.header_layout().height - FOOTER_H - 1
        size = (self.frame_w, height)
        story: list[Flowable] = []
        for index, number in enumerate(self.steps(numbers)):
            if index:
                story.append(PageBreak())
            story.append(
                TableCard(
                    number=number,
                    url=table_page_url(t, number),
                    heading=heading,
                    line=line,
                    caption=_("Table"),
                    fonts=self.fonts,
                    size=size,
                )
            )
        if not numbers:
            story.append(
                Paragraph(esc(_("The seating has not been generated yet.")), self.styles.body)
            )
        return story
