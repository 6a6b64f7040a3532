"""Étui labels: one slip per étui, to cut out along the marks and slide into the étui — its
donne number and étui set in large figures, the dealer, and which hand goes in which pocket
(with the number of cards, so that a pocket filled short is seen at once).

Eight slips to an A4 page, two columns of four, with cut marks at every corner.
"""

from __future__ import annotations

from django.utils.formats import date_format
from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Paragraph

from scoring.rules.cards import parse_hand
from tournaments.models import Donne

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
    position_label,
    text_width,
)
from .data import load_donnes

COLUMNS, ROWS = 2, 4
GAP = 6 * mm
MARK = 3 * mm


def _fitted(text: str, font: str, size: float, width: float) -> float:
    while size > 6 and text_width(text, font, size) > width:
        size -= 0.25
    return size


class LabelSheet(Flowable):
    """A page of étui slips drawn on the canvas, with cut marks at the corners."""

    def __init__(self, slips: list[dict[str, object]], *, fonts, width: float, height: float):
        super().__init__()
        self.slips = slips
        self.fonts = fonts
        self.width, self.height = width, height
        self.slip_w = (width - GAP * (COLUMNS - 1)) / COLUMNS
        self.slip_h = (height - GAP * (ROWS - 1)) / ROWS

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        return self.width, self.height

    def draw(self) -> None:
        canvas = self.canv
        for index, slip in enumerate(self.slips):
            column, row = index % COLUMNS, index // COLUMNS
            x = column * (self.slip_w + GAP)
            y = self.height - (row + 1) * self.slip_h - row * GAP
            canvas.saveState()
            canvas.translate(x, y)
            self.cut_marks(canvas)
            self.slip(canvas, slip)
            canvas.restoreState()

    def cut_marks(self, canvas: Canvas) -> None:
        w, h = self.slip_w, self.slip_h
        canvas.setStrokeColor(LINE)
        canvas.setLineWidth(0.4)
        for cx, cy, dx, dy in ((0, 0, -1, -1), (w, 0, 1, -1), (0, h, -1, 1), (w, h, 1, 1)):
            canvas.line(cx, cy, cx + dx * MARK, cy)
            canvas.line(cx, cy, cx, cy + dy * MARK)

    def slip(self, canvas: Canvas, slip: dict[str, object]) -> None:
        fonts = self.fonts
        pad = 3 * mm
        w, h = self.slip_w - 2 * pad, self.slip_h
        top = h - pad
        canvas.setFillColor(INK)
        title = str(slip["title"])
        size = _fitted(title, fonts.bold, 20, w)
        canvas.setFont(fonts.bold, size)
        canvas.drawString(pad, top - size, title)
        top -= size + 2
        for text, font, size in (
            (str(slip["set"]), fonts.bold, 11),
            (str(slip["dealer"]), fonts.bold, 11),
        ):
            size = _fitted(text, font, size, w)
            canvas.setFont(font, size)
            canvas.drawString(pad, top - size - 2, text)
            top -= size + 4
        canvas.setFont(fonts.regular, 8.5)
        for pocket, text in slip["pockets"]:  # type: ignore[attr-defined]
            line = f"{pocket} — {text}"
            size = _fitted(line, fonts.regular, 9, w)
            canvas.setFont(fonts.regular, size)
            canvas.drawString(pad, top - size - 2, line)
            top -= size + 3
        canvas.setFillColor(MUTED)
        footer = fit_text(str(slip["footer"]), fonts.regular, 7, w, floor=5, max_lines=2)
        draw_fitted(canvas, footer, font=fonts.regular, x=pad, top=pad + footer.height, width=w)


class EtuiLabelsRenderer(Renderer):
    kind = "etui_labels"

    def title(self) -> str:
        return _("Étui labels")

    def slip(self, donne: Donne, footer: str) -> dict[str, object]:
        pockets = []
        for position in ("N", "E", "S", "W"):
            count = len(parse_hand(donne.hand(position)))
            label = position_label(position)
            text = _("the hand of %(position)s, %(count)s cards") % {
                "position": label,
                "count": count,
            }
            if position == donne.dealer:
                text += " · " + _("dealer")
            pockets.append((label.upper(), text))
        pockets.append(
            (
                _("Chien").upper(),
                _("%(count)s cards") % {"count": len(parse_hand(donne.chien))},
            )
        )
        return {
            "title": _("Donne %(number)s") % {"number": donne.number},
            "set": _("Étui set %(number)s") % {"number": donne.etui_set.number},
            "dealer": _("Dealer: %(position)s") % {"position": position_label(donne.dealer)},
            "pockets": pockets,
            "footer": footer,
        }

    def story(self) -> list[Flowable]:
        t = self.tournament
        donnes = load_donnes(t)
        footer = f"{t.name} · {date_format(t.date, 'SHORT_DATE_FORMAT')}"
        slips = [self.slip(donne, footer) for donne in self.steps(donnes)]
        height = self.page_h - 2 * MARGIN - self.header_layout().height - FOOTER_H - 1
        per_page = COLUMNS * ROWS
        story: list[Flowable] = [
            LabelSheet(slips[k : k + per_page], fonts=self.fonts, width=self.frame_w, height=height)
            for k in range(0, len(slips), per_page)
        ]
        if not slips:
            story.append(Paragraph(esc(_("No donnes have been generated yet.")), self.styles.body))
        return story
