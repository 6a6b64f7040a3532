"""What every document shares: A4 page with the club and the tournament in the header, "page x
of y" in the footer, the fonts and styles, card and number formatting, progress reporting.

A renderer (one module per document) subclasses `Renderer`, builds a platypus story from the
database and returns `(filename, mimetype, bytes)` like pretix's invoice renderers. It runs
inside `translation.override(document.language)` (see scoring.documents.services). A document
of a thousand pages alike (the score cards) overrides `render` and draws on the canvas
instead, with the same header and footer (scoring.documents.pages).
"""

from __future__ import annotations

import io
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, ClassVar

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import slugify
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _
from reportlab import rl_config
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_RIGHT
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.rl_accel import fp_str
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageTemplate, Paragraph
from reportlab.platypus.tables import TableStyle

from scoring.rules.cards import Card, parse_hand
from scoring.templatetags.rankings import number, signed
from tournaments.models import Position, Tournament

from . import rl_internals as rl
from .fonts import Fonts, font_runs, register_fonts
from .textfit import (
    FLOOR,
    MIN_SIZE,
    Fitted,
    FitText,
    clip,
    draw_fitted,
    draw_runs,
    fit_text,
    one_line,
    text_width,
)

__all__ = [
    "FLOOR",
    "MIN_SIZE",
    "FitText",
    "Fitted",
    "clip",
    "draw_fitted",
    "draw_runs",
    "fit_text",
    "font_runs",
    "text_width",
]

# Compressed streams without the ASCII85 wrapping: smaller files, and ReportLab's pure-Python
# ASCII85 encoder took a tenth of the time of a thousand score cards.
rl_config.useA85 = 0

PDF = "application/pdf"
RED = colors.HexColor("#c0161d")
INK = colors.HexColor("#1d2330")
MUTED = colors.HexColor("#5b6475")
LINE = colors.HexColor("#9aa6b6")
LIGHT = colors.HexColor("#eef1f6")
GOOD = colors.HexColor("#1e7a3c")

MARGIN = 14 * mm
HEADER_H = 15 * mm
FOOTER_H = 9 * mm
PAGE_W, PAGE_H = A4
FRAME_W = PAGE_W - 2 * MARGIN

ProgressCallback = Callable[[float], None]


def esc(text: Any) -> str:
    """Text made safe for a platypus Paragraph (its markup is XML-like)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def markup(text: Any, font: str) -> str:
    """`text` escaped for a Paragraph set in `font`: characters the font lacks in a fallback
    font, or replaced visibly (U+FFFD), never printed blank."""
    out = []
    for name, part in font_runs(str(text), font):
        out.append(esc(part) if name == font else f'<font name="{name}">{esc(part)}</font>')
    return "".join(out)


def fmt_number(value: Fraction | int | float | None) -> str:
    """An exact number rounded for display, localised like the pages (12,5 in French)."""
    return "" if value is None else _formatted(value, get_language(), False)


def fmt_signed(value: Fraction | int | float | None) -> str:
    """Like fmt_number, with a + before positive values (as the pages show differentials)."""
    return "" if value is None else _formatted(value, get_language(), True)


@lru_cache(maxsize=8192)
def _formatted(value: Fraction | int | float, language: str | None, sign: bool) -> str:
    # Cached: a thousand score cards format the same few hundred numbers again and again.
    return signed(value) if sign else number(value)


def position_label(position: str) -> str:
    return str(dict(Position.choices).get(position, position))


@dataclass(frozen=True)
class HeaderLayout:
    """The page header as fitted: the club and tournament, the date and venue (left), the
    document's label and subtitle (right), and the height they take."""

    name: Fitted
    place: Fitted
    title: Fitted
    subtitle: Fitted
    left_w: float
    right_w: float
    height: float
    notice: Fitted | None = None


class Styles:
    """Paragraph and table styles in the registered fonts."""

    def __init__(self, fonts: Fonts) -> None:
        f = fonts
        self.fonts = f
        self.body = ParagraphStyle("body", fontName=f.regular, fontSize=9, leading=11.5)
        self.small = ParagraphStyle("small", parent=self.body, fontSize=7.5, leading=9.5)
        self.muted = ParagraphStyle("muted", parent=self.small, textColor=MUTED)
        self.title = ParagraphStyle(
            "title", fontName=f.bold, fontSize=15, leading=19, spaceAfter=3 * mm
        )
        self.h2 = ParagraphStyle(
            "h2", fontName=f.bold, fontSize=11.5, leading=14, spaceBefore=2 * mm, spaceAfter=2 * mm
        )
        self.h3 = ParagraphStyle(
            "h3", fontName=f.bold, fontSize=10, leading=12.5, spaceAfter=1 * mm
        )
        self.cell = ParagraphStyle("cell", fontName=f.condensed, fontSize=8.5, leading=10)
        self.cell_bold = ParagraphStyle("cellb", parent=self.cell, fontName=f.condensed_bold)
        self.small_cell = ParagraphStyle("cells", parent=self.cell, fontSize=8, leading=9.5)
        self.head_cell = ParagraphStyle(
            "headc", parent=self.cell_bold, fontSize=8, leading=9.5, alignment=TA_CENTER
        )
        self.cell_right = ParagraphStyle("cellr", parent=self.cell, alignment=TA_RIGHT)
        self.cell_center = ParagraphStyle("cellc", parent=self.cell, alignment=TA_CENTER)
        self.hand = ParagraphStyle("hand", fontName=f.regular, fontSize=9.5, leading=12.5)
        self.hand_title = ParagraphStyle("handt", fontName=f.bold, fontSize=9.5, leading=12.5)
        self.center = ParagraphStyle("center", parent=self.body, alignment=TA_CENTER)
        self.big_center = ParagraphStyle(
            "bigc", fontName=f.bold, fontSize=14, leading=17, alignment=TA_CENTER
        )

    def grid(self, *extra: tuple[Any, ...], header: bool = True, size: float = 8.5) -> TableStyle:
        """A ruled table: thin lines, a shaded bold header row, condensed font."""
        commands: list[tuple[Any, ...]] = [
            ("FONTNAME", (0, 0), (-1, -1), self.fonts.condensed),
            ("FONTSIZE", (0, 0), (-1, -1), size),
            ("LEADING", (0, 0), (-1, -1), size + 1.5),
            ("GRID", (0, 0), (-1, -1), 0.4, LINE),
            ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ("TOPPADDING", (0, 0), (-1, -1), 1.6),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
            ("LEFTPADDING", (0, 0), (-1, -1), 3),
            ("RIGHTPADDING", (0, 0), (-1, -1), 3),
            ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ]
        if header:
            commands += [
                ("FONTNAME", (0, 0), (-1, 0), self.fonts.condensed_bold),
                ("BACKGROUND", (0, 0), (-1, 0), LIGHT),
            ]
        return TableStyle([*commands, *extra])


# --- cards ------------------------------------------------------------------------------------


NBSP = "\u00a0"


def face_labels() -> dict[int, str]:
    """The letters of the court cards in the document's language: R D C V in French,
    K Q C J in English (king, queen, cavalier, jack)."""
    return {
        14: pgettext("card rank letter: king", "K"),
        13: pgettext("card rank letter: queen", "Q"),
        12: pgettext("card rank letter: cavalier (knight)", "C"),
        11: pgettext("card rank letter: jack", "J"),
    }


def hand_groups(text: str) -> tuple[dict[str, list[str]], list[str]]:
    """A stored hand grouped for display: ranks per suit high to low, then the trumps 21…1 and
    the Excuse (the cards are sorted by scoring.rules.cards' display order)."""
    faces = face_labels()
    suits: dict[str, list[str]] = {s: [] for s in ("S", "H", "D", "C")}
    trumps: list[str] = []
    for card in parse_hand(text):
        if card.suit is not None:
            suits[card.suit].append(faces.get(card.rank, str(card.rank)))
        else:
            trumps.append(card_trump_label(card))
    return suits, trumps


def card_trump_label(card: Card) -> str:
    return str(card.rank) if card.is_trump else _("Exc")


def suit_markup(fonts: Fonts, suit: str) -> str:
    """The suit symbol as Paragraph markup, hearts and diamonds in red."""
    symbol = fonts.suit(suit)
    if suit in ("H", "D"):
        return f'<font color="#c0161d">{symbol}</font>'
    return symbol


def _no_orphan(tokens: list[str]) -> str:
    """Tokens joined by spaces, the last two by a no-break space: a wrapped line never leaves
    one card alone (the Excuse or the Petit on a line of its own)."""
    if len(tokens) < 2:
        return " ".join(tokens)
    return " ".join([*tokens[:-2], f"{tokens[-2]}{NBSP}{tokens[-1]}"])


def hand_markup(fonts: Fonts, text: str, *, trumps_label: str | None = None) -> str:
    """A hand as Paragraph markup: one line per suit (symbol and ranks), then the trumps with
    their count (what a poignée needs, the Excuse counted), the bouts (21, Petit, Excuse) in
    bold; no card is left alone on a wrapped line."""
    suits, trumps = hand_groups(text)
    lines = []
    for suit in ("S", "H", "D", "C"):
        ranks = _no_orphan(suits[suit]) or "—"
        lines.append(f"{suit_markup(fonts, suit)} {ranks}")
    label = esc(trumps_label or _("Trumps"))
    excuse = _("Exc")
    marked = [f"<b>{esc(t)}</b>" if t in ("21", "1", excuse) else esc(t) for t in trumps]
    lines.append(f"<b>{label}{NBSP}({len(trumps)})</b> {_no_orphan(marked) or '—'}")
    return "<br/>".join(lines)


def rank_legend(fonts: Fonts) -> str:
    """Paragraph markup naming the letters and symbols of the hands, in the document's
    language."""
    suits = {s: suit_markup(fonts, s) for s in ("S", "H", "D", "C")}
    return esc(
        _(
            "Ranks: K king, Q queen, C cavalier, J jack, then 10 to 1; suits: %(spades)s "
            "spades, %(hearts)s hearts, %(diamonds)s diamonds, %(clubs)s clubs; trumps 21 "
            "to 1 and the Excuse (Exc); the bouts (21, 1, Excuse) in bold."
        )
    ) % {
        "spades": suits["S"],
        "hearts": suits["H"],
        "diamonds": suits["D"],
        "clubs": suits["C"],
    }


# --- the page --------------------------------------------------------------------------------


def numbered_canvas(draw_footer: Callable[[Canvas, int, int], None]) -> type[Canvas]:
    """A canvas that holds its pages until the end, to write "page x of y" on each."""

    class NumberedCanvas(Canvas):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._held: list[dict[str, Any]] = []

        def showPage(self) -> None:
            self._held.append(dict(self.__dict__))
            self._startPage()

        def save(self) -> None:
            total = len(self._held)
            for index, state in enumerate(self._held, start=1):
                self.__dict__.update(state)
                draw_footer(self, index, total)
                Canvas.showPage(self)
            self.page_total = total
            Canvas.save(self)

    return NumberedCanvas


class Renderer:
    """Base of the document renderers. Subclasses set `kind` and implement `title()` and
    `story()`; `render()` returns (filename, mimetype, bytes) and sets `pages` and
    `results_version` (the results the document shows)."""

    kind: ClassVar[str]
    landscape: ClassVar[bool] = False
    # Share of the progress bar taken by reading the data (the rest: laying out pages).
    data_share: ClassVar[float] = 0.3
    # Seconds between two progress reports (each is a database write, which on SQLite is
    # this process's own work): the progress bar is polled every second or two.
    report_interval: ClassVar[float] = 1.0

    def __init__(
        self, tournament: Tournament, *, part: int = 0, progress: ProgressCallback | None = None
    ) -> None:
        self.tournament = tournament
        self.part = part
        self._progress = progress
        self.fonts = register_fonts()
        self.styles = Styles(self.fonts)
        self.pages = 0
        self.results_version = tournament.results_version
        self._last_report = 0.0
        self.page_w, self.page_h = landscape(A4) if self.landscape else A4
        self.frame_w = self.page_w - 2 * MARGIN
        self._header: HeaderLayout | None = None

    # subclasses ---------------------------------------------------------------------------

    def title(self) -> str:
        raise NotImplementedError

    def subtitle(self) -> str:
        """A second header line (e.g. the étui set); empty by default."""
        return ""

    def page_notice(self) -> str:
        """A warning printed in red under the header of every page (e.g. "confidential"),
        so that it stays on each sheet once the pages are separated; empty by default."""
        return ""

    def story(self) -> list[Flowable]:
        raise NotImplementedError

    def filename_stem(self) -> str:
        stem = slugify(f"{self.title()} {self.subtitle()}") or self.kind
        return f"{slugify(self.tournament.name) or 'tournament'}-{stem}"

    # progress ------------------------------------------------------------------------------

    def report(self, fraction: float) -> None:
        """Tell the caller how far we are (0…1), at most a few times a second."""
        if self._progress is None:
            return
        now = time.monotonic()
        if fraction < 1 and now - self._last_report < self.report_interval:
            return
        self._last_report = now
        self._progress(max(0.0, min(1.0, fraction)))

    def data_step(self, done: int, total: int) -> None:
        """Progress while reading the data: `done` of `total` items."""
        if total:
            self.report(self.data_share * done / total)

    def steps(self, items: Sequence[Any]) -> Iterable[Any]:
        """Iterate over items, reporting data progress."""
        total = len(items)
        for index, item in enumerate(items):
            self.data_step(index, total)
            yield item

    # building ------------------------------------------------------------------------------

    def header_lines(self) -> tuple[str, str]:
        t = self.tournament
        left = f"{t.club.name} — {t.name}"
        where = date_format(t.date, "DATE_FORMAT")
        if t.venue:
            where = f"{where} · {t.venue}"
        return left, where

    def header_layout(self) -> HeaderLayout:
        """The page header fitted once per document (it is the same on every page): the
        document's label on the right takes what it needs (at most 45 % of the width), the
        club, tournament, date and venue wrap and shrink in the rest; the header grows to as
        many lines as they need instead of running over the label or off the page."""
        f = self.fonts
        left, where = self.header_lines()
        label_w = self.frame_w * 0.45
        title = fit_text(self.title(), f.bold, 10, label_w, floor=7, prefer_lines=1)
        subtitle = fit_text(self.subtitle(), f.regular, 8.5, label_w, floor=6.5, prefer_lines=1)
        right_w = max(title.width, subtitle.width)
        left_w = self.frame_w - right_w - (6 * mm if right_w else 0)
        name = fit_text(left, f.bold, 10, left_w, floor=7, prefer_lines=2)
        place = fit_text(where, f.regular, 8.5, left_w, floor=6.5, prefer_lines=2)
        body = max(name.height + place.height, title.height + subtitle.height)
        height = max(HEADER_H, body + 6 * mm)
        notice = fit_text(self.page_notice(), f.bold, 9.5, self.frame_w, floor=7)
        if notice.lines:
            height += notice.height + 2 * mm
        return HeaderLayout(name, place, title, subtitle, left_w, right_w, height, notice)

    def body_height(self) -> float:
        """Height of the page's body frame (between the header, as fitted, and the footer)."""
        header = self._header or self.header_layout()
        return self.page_h - 2 * MARGIN - header.height - FOOTER_H

    def draw_page(self, canvas: Canvas, doc: BaseDocTemplate) -> None:
        f = self.fonts
        layout = self._header or self.header_layout()
        top = self.page_h - MARGIN + 1.5 * mm
        right = self.page_w - MARGIN
        canvas.saveState()
        canvas.setFillColor(INK)
        bottom = draw_fitted(
            canvas, layout.name, font=f.bold, x=MARGIN, top=top, width=layout.left_w
        )
        canvas.setFillColor(MUTED)
        draw_fitted(canvas, layout.place, font=f.regular, x=MARGIN, top=bottom, width=layout.left_w)
        canvas.setFillColor(INK)
        x = right - layout.right_w
        bottom = draw_fitted(
            canvas, layout.title, font=f.bold, x=x, top=top, width=layout.right_w, align="r"
        )
        canvas.setFillColor(MUTED)
        draw_fitted(
            canvas,
            layout.subtitle,
            font=f.regular,
            x=x,
            top=bottom,
            width=layout.right_w,
            align="r",
        )
        rule = self.page_h - MARGIN - layout.height + 4 * mm
        notice = layout.notice
        if notice is not None and notice.lines:
            rule += notice.height + 2 * mm
            canvas.setFillColor(RED)
            draw_fitted(
                canvas,
                notice,
                font=f.bold,
                x=MARGIN,
                top=rule - 1 * mm,
                width=self.frame_w,
                align="c",
            )
        canvas.setStrokeColor(LINE)
        canvas.setLineWidth(0.6)
        canvas.line(MARGIN, rule, right, rule)
        canvas.restoreState()

    def footer_note(self) -> str:
        printed = date_format(timezone.localtime(), "SHORT_DATETIME_FORMAT")
        return _("tarot_club · printed %(when)s") % {"when": printed}

    def render(self) -> tuple[str, str, bytes]:
        story = self.story()
        self.report(self.data_share)
        buffer = io.BytesIO()
        self._header = self.header_layout()
        header_h = self._header.height
        frame = Frame(
            MARGIN,
            MARGIN + FOOTER_H,
            self.frame_w,
            self.page_h - 2 * MARGIN - header_h - FOOTER_H,
            leftPadding=0,
            rightPadding=0,
            topPadding=0,
            bottomPadding=0,
            id="body",
        )
        title = self.title()
        doc = BaseDocTemplate(
            buffer,
            pagesize=(self.page_w, self.page_h),
            title=f"{title} — {self.tournament.name}",
            author=self.tournament.club.name,
            creator="tarot_club",
            lang=self._language(),
            leftMargin=MARGIN,
            rightMargin=MARGIN,
            topMargin=MARGIN + header_h,
            bottomMargin=MARGIN + FOOTER_H,
        )
        doc.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=self.draw_page)])
        size = {"n": 1}

        def on_progress(kind: str, value: int) -> None:
            if kind == "SIZE_EST":
                size["n"] = max(1, value)
            elif kind == "PROGRESS":
                self.report(self.data_share + (0.98 - self.data_share) * value / size["n"])

        doc.setProgressCallBack(on_progress)
        page_text = _("Page %(page)s of %(pages)s")
        note = self.footer_note()
        fonts = self.fonts
        right = self.page_w - MARGIN
        pages = {"total": 0}

        def draw_footer(canvas: Canvas, page: int, total: int) -> None:
            pages["total"] = total
            numbered = page_text % {"page": page, "pages": total}
            number_w = text_width(numbered, fonts.regular, 8.5)
            canvas.saveState()
            canvas.setFillColor(MUTED)
            fitted = fit_text(
                note, fonts.regular, 7.5, self.frame_w - number_w - 6 * mm, max_lines=1
            )
            draw_fitted(
                canvas,
                fitted,
                font=fonts.regular,
                x=MARGIN,
                top=MARGIN + fitted.leading * 0.8,
                width=self.frame_w,
            )
            canvas.setFillColor(INK)
            draw_runs(canvas, right - number_w, MARGIN, numbered, fonts.regular, 8.5)
            canvas.restoreState()

        doc.build(story, canvasmaker=numbered_canvas(draw_footer))
        self.pages = pages["total"]
        return f"{self.filename_stem()}.pdf", PDF, buffer.getvalue()

    def _language(self) -> str:
        return get_language() or "fr"

    # helpers for subclasses ---------------------------------------------------------------

    def para(self, text: str, style: ParagraphStyle | None = None) -> Paragraph:
        return Paragraph(text, style or self.styles.body)


# --- a fast table for long documents ---------------------------------------------------------


class Cell:
    """A cell of a FastTable: text, and optionally bold, a colour, a background."""

    __slots__ = ("background", "bold", "colour", "text")

    def __init__(
        self, text: str, *, bold: bool = False, colour: Any = None, background: Any = None
    ) -> None:
        self.text = text
        self.bold = bold
        self.colour = colour
        self.background = background


class FastTable(Flowable):
    """A ruled table drawn straight on the canvas: a shaded header (wrapped to the column
    width, repeated after a page break), rows at least `row_height` high, each column aligned
    left, centre or right.

    Every cell is fitted (`fit_text`): a text too wide for its column shrinks to the floor
    size, then wraps at spaces and hyphens and the row grows; nothing runs into the next
    column. Why not platypus' Table: it costs a fraction of a millisecond per cell in style
    handling and text objects; a thousand score cards have a quarter of a million cells. This
    draws a page of rows with one text object and one path for the rules.
    """

    padding = 3.0

    def __init__(
        self,
        header: Sequence[str],
        rows: Sequence[Sequence[str | Cell]],
        *,
        widths: Sequence[float],
        align: str,
        fonts: Fonts,
        size: float = 8.5,
        row_height: float = 13,
        floor: float = FLOOR,
        header_size: float | None = None,
        _fitted: tuple[list[list[Fitted]], list[list[Fitted]], list[float]] | None = None,
    ) -> None:
        super().__init__()
        assert len(header) == len(widths) == len(align)
        self.header = list(header)
        self.rows = list(rows)
        self.widths = list(widths)
        self.align = align  # one letter per column: l, c or r
        self.fonts = fonts
        self.size = size
        self.row_height = row_height
        self.floor = floor
        self.header_size = header_size
        inner = [max(1.0, w - 2 * self.padding) for w in self.widths]
        if _fitted is not None:
            self._header_fit, self._row_fit, self._row_heights = _fitted
        else:
            head = header_size or size - 0.5
            self._header_fit = [
                [
                    fit_text(
                        text, fonts.condensed_bold, head, w, floor=min(5.5, head), prefer_lines=3
                    )
                    for text, w in zip(self.header, inner, strict=True)
                ]
            ]
            self._row_fit = []
            self._row_heights = []
            regular, bold_font = fonts.condensed, fonts.condensed_bold
            for row in self.rows:
                fitted = []
                tallest = 0.0
                for cell, w in zip(row, inner, strict=False):
                    if cell.__class__ is Cell:
                        value, font = cell.text, bold_font if cell.bold else regular
                    else:
                        value, font = cell, regular
                    quick = one_line(value, font, size)
                    if quick.width > w or "\n" in value or "  " in value:
                        quick = fit_text(value, font, size, w, floor=floor, prefer_lines=1)
                        height = quick.height
                    else:  # one line, or none for an empty cell
                        height = quick.leading if value else 0.0
                    if height > tallest:
                        tallest = height
                    fitted.append(quick)
                self._row_fit.append(fitted)
                self._row_heights.append(max(row_height, tallest + 4))
        self.header_height = max(f.height for f in self._header_fit[0]) + 5
        self.width = sum(self.widths)

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self.height = self.header_height + sum(self._row_heights)
        return self.width, self.height

    def split(self, avail_width: float, avail_height: float) -> list[Flowable]:
        room = avail_height - self.header_height
        fits = 0
        for height in self._row_heights:
            if room < height:
                break
            room -= height
            fits += 1
        if fits < 1 or fits >= len(self.rows):
            return []
        head = dict(
            widths=self.widths,
            align=self.align,
            fonts=self.fonts,
            size=self.size,
            floor=self.floor,
            header_size=self.header_size,
        )
        first = (self._header_fit, self._row_fit[:fits], self._row_heights[:fits])
        second = (self._header_fit, self._row_fit[fits:], self._row_heights[fits:])
        return [
            FastTable(
                self.header, self.rows[:fits], row_height=self.row_height, _fitted=first, **head
            ),
            FastTable(
                self.header, self.rows[fits:], row_height=self.row_height, _fitted=second, **head
            ),
        ]

    def draw(self) -> None:
        canvas = self.canv
        fonts = self.fonts
        top = self.height
        edges = [0.0]
        for w in self.widths:
            edges.append(edges[-1] + w)
        tops = [top - self.header_height]
        for height in self._row_heights:
            tops.append(tops[-1] - height)
        canvas.saveState()
        # Backgrounds: the header, then any shaded cell.
        canvas.setFillColor(LIGHT)
        canvas.rect(0, top - self.header_height, self.width, self.header_height, stroke=0, fill=1)
        self._backgrounds(canvas, edges, tops)
        # Rules: one path.
        canvas.setStrokeColor(LINE)
        canvas.setLineWidth(0.4)
        path = canvas.beginPath()
        bottom = tops[-1]
        for x in edges:
            path.moveTo(x, top)
            path.lineTo(x, bottom)
        for y in [top, *tops]:
            path.moveTo(0, y)
            path.lineTo(self.width, y)
        canvas.drawPath(path, stroke=1, fill=0)
        # Text: one text object for the whole table.
        text = canvas.beginText()
        regular, bold = fonts.condensed, fonts.condensed_bold
        text.setFillColor(INK)
        self._font: tuple[str, float] | None = None
        self._ops = _document_ops(canvas, (regular, bold))
        self._ys: dict[float, str] = {}
        header_fit = self._header_fit[0]
        for c, fitted in enumerate(header_fit):
            block = fitted.height
            y = top - (self.header_height - block) / 2
            self._lines(text, fitted, bold, c, edges, y, "c")
        current_colour = INK
        colour_ops: dict[Any, str] = {}
        align = self.align
        for r, row in enumerate(self.rows):
            bottom, height, fits = tops[r + 1], self._row_heights[r], self._row_fit[r]
            for c, cell in enumerate(row):
                fitted = fits[c]
                lines = fitted.lines
                if not lines:
                    continue
                if cell.__class__ is Cell:
                    font, colour = bold if cell.bold else regular, cell.colour or INK
                else:
                    font, colour = regular, INK
                if colour is not current_colour:
                    op = colour_ops.get(colour)
                    if op is None:
                        text.setFillColor(colour)
                        colour_ops[colour] = rl.text_ops(text)[-1]
                    else:  # what setFillColor writes for an RGB colour
                        rl.text_fill_colour_set(text, op, colour)
                    current_colour = colour
                if len(lines) == 1:  # nearly every cell: centred in its row
                    size = fitted.size
                    baseline = bottom + (height - size) / 2 + size * 0.22
                    self._place(text, lines[0], font, size, c, edges, baseline, align[c])
                else:
                    y = bottom + (height + fitted.height) / 2
                    self._lines(text, fitted, font, c, edges, y, align[c])
        canvas.drawText(text)
        canvas.restoreState()

    def _backgrounds(self, canvas: Canvas, edges: list[float], tops: list[float]) -> None:
        """The shaded cells: neighbours of a row with the same background in one rectangle
        (a striped ranking shades whole rows), the fill colour set when it changes."""
        current: Any = LIGHT
        for r, row in enumerate(self.rows):
            start, shade = 0, None
            for c in range(len(row) + 1):
                cell = row[c] if c < len(row) else None
                background = cell.background if cell.__class__ is Cell else None  # type: ignore[union-attr]
                if background is shade:
                    continue
                if shade is not None:
                    if shade is not current:
                        canvas.setFillColor(shade)
                        current = shade
                    height = self._row_heights[r]
                    x, width = edges[start], edges[c] - edges[start]
                    canvas.rect(x, tops[r + 1], width, height, stroke=0, fill=1)
                start, shade = c, background

    def _lines(
        self,
        text: Any,
        fitted: Fitted,
        font: str,
        column: int,
        edges: list[float],
        top: float,
        align: str,
    ) -> None:
        """The fitted lines of a cell, the first below `top`."""
        size = fitted.size
        for k, line in enumerate(fitted.lines):
            baseline = top - (k + 1) * fitted.leading + (fitted.leading - size) / 2 + size * 0.22
            self._place(text, line, font, size, column, edges, baseline, align)

    def _place(
        self,
        text: Any,
        value: str,
        font: str,
        size: float,
        column: int,
        edges: list[float],
        y: float,
        align: str,
    ) -> None:
        ops = self._ops
        if ops is not None:
            # What setTextOrigin and _textOut write, with the cell's position in its column,
            # the string's subsets and its escaping worked out once per document (a thousand
            # cards repeat the same few thousand strings in the same columns).
            key = (edges[column], edges[column + 1], align, font, size, value)
            known = ops.get(key)
            if known is None:
                runs = font_runs(value, font)
                if len(runs) == 1:
                    x = self._x(value, font, size, column, edges, align)
                    # The run's text: a character no font has is already replaced in it.
                    known = ops[key] = (fp_str(x), _text_ops(text, font, runs[0][1]))
                else:
                    known = ops[key] = ("", [])
            place, parts = known
            if parts:
                if self._font != (font, size):
                    text.setFont(font, size)
                    self._font = (font, size)
                code = rl.text_ops(text)
                ys = self._ys
                at = ys.get(y)
                if at is None:
                    at = ys[y] = fp_str(y)
                code.append(f"1 0 0 1 {place} {at} Tm")
                for subset, op in parts:
                    rl.text_font_subset_set(text, pdfmetrics.getFont(font), subset, fp_str(size))
                    code.append(op)
                return
        x = self._x(value, font, size, column, edges, align)
        runs = font_runs(value, font)
        if len(runs) == 1:
            if self._font != (font, size):
                text.setFont(font, size)
                self._font = (font, size)
            text.setTextOrigin(x, y)
            # The run's text: a character no font has is already replaced in it.
            rl.text_out(text, runs[0][1])
            return
        for name, part in runs:
            if self._font != (name, size):
                text.setFont(name, size)
                self._font = (name, size)
            text.setTextOrigin(x, y)
            rl.text_out(text, part)
            x += pdfmetrics.stringWidth(part, name, size)

    def _x(
        self, value: str, font: str, size: float, column: int, edges: list[float], align: str
    ) -> float:
        """Where a line of a cell starts: after the padding, centred, or before the padding."""
        pad = self.padding
        if align == "l":
            return edges[column] + pad
        width = text_width(value, font, size)
        if align == "r":
            return edges[column + 1] - pad - width
        return (edges[column] + edges[column + 1] - width) / 2


# Text operators of table cells per document: (column's edges, alignment, font, size, string)
# -> (the x where it starts, written, and [(subset, "(...) Tj")]).
_OPS: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], Any]] = weakref.WeakKeyDictionary()


def _document_ops(canvas: Canvas, fonts: Sequence[str]) -> dict[tuple[Any, ...], Any] | None:
    """The document's cache of cell text operators, or None where FastTable must write through
    the text object (a top-down canvas, a font that is not a plain TrueType font)."""
    if not canvas.bottomup:
        return None
    for name in fonts:
        font = pdfmetrics.getFont(name)
        if not rl.is_subset_font(font):
            return None
    return _OPS.setdefault(rl.pdf_document(canvas), {})


def _text_ops(text: Any, font: str, value: str) -> list[tuple[int, str]]:
    """What the text object's _formatText writes for `value` in a TrueType font, run by
    subset: the subset switch is written by the caller, the string once escaped."""
    canvas = rl.text_canvas(text)
    return [
        (subset, f"({rl.escape(canvas, part)}) Tj")
        for subset, part in pdfmetrics.getFont(font).splitString(value, rl.pdf_document(canvas))
    ]
