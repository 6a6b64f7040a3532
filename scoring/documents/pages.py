"""Pages drawn straight on a canvas, without platypus, for a renderer whose pages are all
alike (the score cards): the renderer's header and footer note are drawn once each into a
form (a PDF Form XObject) that every page shows, "page x of y" is written when the pages are
saved (`numbered_canvas`), and the body is the area between them, top to bottom.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from . import rl_internals as rl
from .base import FOOTER_H, INK, MARGIN, MUTED, numbered_canvas
from .ops import RawText, colour_op
from .textfit import draw_fitted, fit_text, text_width

if TYPE_CHECKING:
    from .base import Renderer

HEADER_FORM = "page-header"
FOOTER_FORM = "page-footer"


class CanvasPages:
    """A document's canvas with its page furniture: `top` and `bottom` bound the body,
    `y` is where the next thing goes; `new_page()` starts a page with the header on it and
    `finish()` numbers the pages and returns the PDF (the canvas is let go: nothing is drawn
    after it)."""

    def __init__(self, renderer: Renderer) -> None:
        from django.utils.translation import gettext as _

        self.renderer = renderer
        self.buffer = io.BytesIO()
        layout = renderer._header = renderer.header_layout()
        self.left = MARGIN
        self.width = renderer.frame_w
        self.top = renderer.page_h - MARGIN - layout.height
        self.bottom = MARGIN + FOOTER_H
        page_text = _("Page %(page)s of %(pages)s")
        fonts = renderer.fonts
        right = renderer.page_w - MARGIN
        self.total = 0

        def draw_footer(canvas: Canvas, page: int, total: int) -> None:
            self.total = total
            numbered = page_text % {"page": page, "pages": total}
            x = right - text_width(numbered, fonts.regular, 8.5)
            rl.page_ops(canvas).append(rl.form_ops(canvas, FOOTER_FORM))
            line = self.raw.line(numbered, fonts.regular, 8.5, x, MARGIN)
            rl.page_ops(canvas).append(f"q {self.ink}\n{line}\nQ")

        title = renderer.title()
        canvas = numbered_canvas(draw_footer)(
            self.buffer, pagesize=(renderer.page_w, renderer.page_h), lang=renderer._language()
        )
        canvas.setTitle(f"{title} — {renderer.tournament.name}")
        canvas.setAuthor(renderer.tournament.club.name)
        canvas.setCreator("tarot_club")
        self.canvas = canvas
        self.raw = RawText(canvas)
        self.ink = colour_op(INK)
        canvas.beginForm(HEADER_FORM)
        renderer.draw_page(canvas, None)
        canvas.endForm()
        # The footer's note (the widest "page x of y" kept clear of it: the number's own
        # width is only known at the end, so the note leaves room for a long one).
        canvas.beginForm(FOOTER_FORM)
        canvas.setFillColor(MUTED)
        widest = page_text % {"page": 9999, "pages": 9999}
        room = renderer.frame_w - text_width(widest, fonts.regular, 8.5) - 6 * mm
        fitted = fit_text(renderer.footer_note(), fonts.regular, 7.5, room, max_lines=1)
        draw_fitted(
            canvas,
            fitted,
            font=fonts.regular,
            x=MARGIN,
            top=MARGIN + fitted.leading * 0.8,
            width=renderer.frame_w,
        )
        canvas.endForm()
        self.pages = 0
        self.y = self.top
        self._start()

    def _start(self) -> None:
        self.canvas.doForm(HEADER_FORM)
        self.pages += 1
        self.y = self.top

    def new_page(self) -> None:
        self.canvas.showPage()
        self._start()

    def room(self) -> float:
        """Height left on the page below `y`."""
        return self.y - self.bottom

    def at_top(self) -> bool:
        return self.y >= self.top

    def finish(self) -> bytes:
        self.canvas.showPage()
        self.canvas.save()
        self.renderer.pages = self.total
        content = self.buffer.getvalue()
        # Let the canvas go: the footer's closure ties it to these pages, and the cycle would
        # keep its thousands of objects (and the pieces cached by `raw`) for the collector
        # to walk rather than be freed now.
        del self.canvas, self.raw
        return content
