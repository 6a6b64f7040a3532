"""Fitting text into a box: what keeps a 90-character name from overprinting its neighbour.

Every piece of text a club types (names, titles, venues, reasons) goes through `fit_text`:

1. it is written on one line at the nominal size if it fits;
2. otherwise it wraps at spaces and after hyphens ("Marie-" / "Bénédicte"), up to
   `prefer_lines` lines, shrinking step by step down to the floor size;
3. at the floor size it wraps again on as many lines as it needs (up to `max_lines`, when the
   box has a fixed height);
4. a single word wider than the box at the floor size makes the text shrink further, down to
   `MIN_SIZE` (4 pt, still legible with a loupe), rather than be split in the middle;
5. only as a last resort (a word wider than the box even at `MIN_SIZE`, or more lines than a
   fixed box holds) is the text cut, and the cut is shown by an ellipsis "…": never a silent
   truncation, never a word split over two lines.

A word is never broken elsewhere than after a hyphen that follows a letter ("-5" stays whole).

Characters no font has are drawn by a fallback font or replaced by U+FFFD "�" (see
`scoring.documents.fonts.font_runs`): the measuring here and the drawing use the same runs,
so a replaced emoji takes the width it is drawn with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from reportlab.lib import colors
from reportlab.pdfbase import pdfmetrics
from reportlab.platypus import Flowable

from .fonts import font_runs, on_registered

FLOOR = 6.5  # pt: the smallest size text shrinks to before wrapping on more lines
MIN_SIZE = 4.0  # pt: the smallest size a word too long for its box shrinks to
STEP = 0.5  # pt: shrinking step
LEADING = 1.18  # line spacing as a multiple of the size
ELLIPSIS = "…"

# Break after a hyphen (ASCII or U+2010) that follows a letter or digit and precedes one.
_HYPHEN_BREAK = re.compile(r"(?<=\w[-\u2010])(?=\w)")


@dataclass(frozen=True)
class Fitted:
    """Text laid out in a box: its lines, the size they are set at, and whether anything had
    to be cut (shown by an ellipsis)."""

    lines: tuple[str, ...]
    size: float
    leading: float
    width: float  # the widest line
    cut: bool = False

    @property
    def height(self) -> float:
        return len(self.lines) * self.leading


@lru_cache(maxsize=65536)
def _unit_width(text: str, font: str) -> float:
    """Width of `text` at 1 pt in `font`, fallback runs included (widths scale with size)."""
    return sum(pdfmetrics.stringWidth(part, name, 1.0) for name, part in font_runs(text, font))


def text_width(text: str, font: str, size: float) -> float:
    """Width of `text` as drawn (fallback fonts and replacements included)."""
    return _unit_width(text, font) * size


@lru_cache(maxsize=16384)
def words(text: str) -> tuple[tuple[str, ...], ...]:
    """The words of a text (split at white space), each as its pieces between hyphens:
    "Marie-Bénédicte de" -> (("Marie-", "Bénédicte"), ("de",))."""
    return tuple(tuple(_HYPHEN_BREAK.split(token)) for token in text.split())


def clear_caches() -> None:
    """Forget measured widths and layouts (the fonts were registered again)."""
    _unit_width.cache_clear()
    fit_text.cache_clear()
    one_line.cache_clear()


on_registered(clear_caches)


@lru_cache(maxsize=65536)
def one_line(text: str, font: str, size: float, leading: float = LEADING) -> Fitted:
    """`text` on one line at `size`, however wide (the caller compares `width` with its box):
    the quick path of tables where nearly every cell fits as it is."""
    return Fitted((text,) if text else (), size, size * leading, _unit_width(text, font) * size)


def wrap_lines(text: str, font: str, size: float, width: float) -> list[str] | None:
    """Greedy wrap at spaces and after hyphens; None when one piece alone is wider than
    `width` (the caller shrinks rather than split a word)."""
    lines: list[str] = []
    current = ""
    for pieces in words(text):
        for index, piece in enumerate(pieces):
            if text_width(piece, font, size) > width:
                return None
            joiner = "" if index else " "
            candidate = f"{current}{joiner}{piece}" if current else piece
            if text_width(candidate, font, size) <= width:
                current = candidate
            else:
                lines.append(current)
                current = piece
    if current:
        lines.append(current)
    return lines


def _allowed(max_lines: int | None, max_height: float | None, leading: float) -> int | None:
    limits = []
    if max_lines is not None:
        limits.append(max_lines)
    if max_height is not None:
        limits.append(max(1, int((max_height + 0.01) // leading)))
    return min(limits) if limits else None


def _sizes(start: float, stop: float) -> list[float]:
    sizes = []
    size = start
    while size > stop + 1e-9:
        sizes.append(round(size, 2))
        size -= STEP
    sizes.append(stop)
    return sizes


def _fitted(lines: Sequence[str], font: str, size: float, ratio: float, cut: bool) -> Fitted:
    widest = max((text_width(line, font, size) for line in lines), default=0.0)
    return Fitted(tuple(lines), size, size * ratio, widest, cut)


@lru_cache(maxsize=65536)
def fit_text(
    text: str,
    font: str,
    size: float,
    width: float,
    *,
    floor: float = FLOOR,
    prefer_lines: int = 2,
    max_lines: int | None = None,
    max_height: float | None = None,
    leading: float = LEADING,
    min_size: float = MIN_SIZE,
) -> Fitted:
    """Lay `text` out in a box `width` wide (see the module docstring for the order of the
    steps). `max_lines` / `max_height` bound a box of fixed height; without them the box grows
    (a table row gets taller)."""
    text = " ".join(str(text).split())
    if not text:
        return Fitted((), size, size * leading, 0.0)
    width = max(width, 1.0)
    floor = min(floor, size)
    min_size = min(min_size, floor)
    if text_width(text, font, size) <= width and _limit_ok(1, max_lines, max_height, size, leading):
        return Fitted((text,), size, size * leading, text_width(text, font, size))
    # 1-2: wrap on up to `prefer_lines` lines, shrinking to the floor.
    for s in _sizes(size, floor):
        allowed = _allowed(max_lines, max_height, s * leading)
        prefer = prefer_lines if allowed is None else min(prefer_lines, allowed)
        lines = wrap_lines(text, font, s, width)
        if lines is not None and len(lines) <= prefer:
            return _fitted(lines, font, s, leading, False)
    # 3: at the floor, as many lines as needed (as the box allows).
    # 4: a word too long, or a box too small: smaller than the floor, down to min_size.
    for s in _sizes(floor, min_size):
        allowed = _allowed(max_lines, max_height, s * leading)
        lines = wrap_lines(text, font, s, width)
        if lines is not None and (allowed is None or len(lines) <= allowed):
            return _fitted(lines, font, s, leading, False)
    # 5: the last resort, visibly cut.
    allowed = _allowed(max_lines, max_height, min_size * leading)
    return _cut(text, font, min_size, width, allowed, leading)


def _limit_ok(
    lines: int, max_lines: int | None, max_height: float | None, size: float, leading: float
) -> bool:
    allowed = _allowed(max_lines, max_height, size * leading)
    return allowed is None or lines <= allowed


def clip(text: str, font: str, size: float, width: float) -> str:
    """`text` shortened to fit `width`, ending with an ellipsis when anything was removed."""
    if text_width(text, font, size) <= width:
        return text
    keep = text
    while keep and text_width(keep + ELLIPSIS, font, size) > width:
        keep = keep[:-1]
    return keep.rstrip() + ELLIPSIS


def _cut(
    text: str, font: str, size: float, width: float, allowed: int | None, leading: float
) -> Fitted:
    """Wrap at `size`, each piece too wide clipped with an ellipsis; lines beyond `allowed`
    dropped, the last kept one ending with an ellipsis."""
    lines: list[str] = []
    current = ""
    for pieces in words(text):
        for index, piece in enumerate(pieces):
            piece = clip(piece, font, size, width)
            joiner = "" if index else " "
            candidate = f"{current}{joiner}{piece}" if current else piece
            if text_width(candidate, font, size) <= width:
                current = candidate
            else:
                lines.append(current)
                current = piece
    if current:
        lines.append(current)
    if allowed is not None and len(lines) > allowed:
        kept = lines[:allowed]
        kept[-1] = clip(kept[-1] + ELLIPSIS, font, size, width)
        if not kept[-1].endswith(ELLIPSIS):
            kept[-1] = clip(kept[-1], font, size, width - text_width(ELLIPSIS, font, size))
            kept[-1] += ELLIPSIS
        lines = kept
    return _fitted(lines, font, size, leading, True)


# --- drawing -------------------------------------------------------------------------------


def draw_runs(canvas: Any, x: float, y: float, text: str, font: str, size: float) -> None:
    """Draw one line at (x, y), switching to the fallback font where the font lacks a glyph."""
    for name, part in font_runs(text, font):
        canvas.setFont(name, size)
        canvas.drawString(x, y, part)
        x += pdfmetrics.stringWidth(part, name, size)


def draw_fitted(
    canvas: Any,
    fitted: Fitted,
    *,
    font: str,
    x: float,
    top: float,
    width: float,
    align: str = "l",
) -> float:
    """Draw fitted lines in a box whose top-left corner is (x, top); returns the bottom.
    `align`: "l", "c" or "r" within `width`."""
    y = top
    for line in fitted.lines:
        y -= fitted.leading
        baseline = y + (fitted.leading - fitted.size) / 2 + fitted.size * 0.22
        line_w = text_width(line, font, fitted.size)
        if align == "r":
            left = x + width - line_w
        elif align == "c":
            left = x + (width - line_w) / 2
        else:
            left = x
        draw_runs(canvas, left, baseline, line, font, fitted.size)
    return y


class FitText(Flowable):
    """A piece of text that fits the width it is given (a table cell, a frame): wraps at
    spaces and hyphens, shrinks to the floor, wraps again (`fit_text`). Use it for every text
    a club types, in place of a Paragraph or a plain table string."""

    def __init__(
        self,
        text: Any,
        *,
        font: str,
        size: float,
        floor: float = FLOOR,
        prefer_lines: int = 2,
        max_lines: int | None = None,
        align: str = "l",
        colour: Any = None,
        leading: float = LEADING,
        space_after: float = 0.0,
    ) -> None:
        super().__init__()
        self.text = " ".join(str(text).split())
        self.font = font
        self.size = size
        self.floor = floor
        self.prefer_lines = prefer_lines
        self.max_lines = max_lines
        self.align = align
        self.colour = colour or colors.HexColor("#1d2330")
        self.leading = leading
        self.spaceAfter = space_after
        self.fitted: Fitted | None = None
        self._box_width = 0.0

    def fit(self, width: float) -> Fitted:
        return fit_text(
            self.text,
            self.font,
            self.size,
            width,
            floor=self.floor,
            prefer_lines=self.prefer_lines,
            max_lines=self.max_lines,
            leading=self.leading,
        )

    def wrap(self, avail_width: float, avail_height: float) -> tuple[float, float]:
        self.fitted = self.fit(avail_width)
        self._box_width = avail_width
        # The width of the widest line, so that a table's ALIGN places the block; lines of a
        # several-line block are aligned within it by `align`.
        self.width = min(avail_width, self.fitted.width) if self.fitted.lines else 0.0
        self.height = self.fitted.height
        return self.width, self.height

    def draw(self) -> None:
        if self.fitted is None or not self.fitted.lines:
            return
        canvas = self.canv
        canvas.saveState()
        canvas.setFillColor(self.colour)
        draw_fitted(
            canvas,
            self.fitted,
            font=self.font,
            x=0,
            top=self.height,
            width=self.width,
            align=self.align,
        )
        canvas.restoreState()

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"FitText({self.text!r}, {self.font}, {self.size})"
