"""PDF operators written straight into a canvas' page stream, cached per document: for
documents of a thousand pages that repeat the same few thousand strings in the same places
(the score cards), where ReportLab's text objects and paths cost microseconds per call.

`RawText` turns a string in a font into its text operators once (its fallback-font runs, its
TrueType subsets, its escaping); `RawTable` draws a ruled table of fixed columns whose cells'
operators are cached too, relative to their row, so that a row is a handful of string joins.
Everything is drawn between `q` and `Q`, so the canvas' own idea of its state stays true.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reportlab.lib.colors import Color
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from . import rl_internals as rl
from .fonts import Fonts, font_runs
from .textfit import FLOOR, MIN_SIZE, Fitted, _sizes, fit_text, one_line, text_width

# A text piece: the font-selection operator it needs ("/F1+0 8.5 Tf") and its "(...) Tj".
Piece = tuple[str, str]
# Characters a cell may be written with as they are (no "(", ")" or "\\" to escape).
_PLAIN = "0123456789+-.,%/ =ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# Characters a cell may hold that the first subset writes as another byte, escaped once: the
# minus sign of every negative number (half the numbers of a thousand score cards) and the
# dash of an empty value.
_SPELLED = "\N{MINUS SIGN}\N{EM DASH}"
# A measured table row: its height, its cells' operators, the columns of its shaded cells.
Row = tuple[float, list[str], list[int]]


def colour_op(colour: Color, stroke: bool = False) -> str:
    """The operator setting an RGB fill (or stroke) colour, as the canvas writes it."""
    r, g, b = colour.red, colour.green, colour.blue
    return f"{fp_str(r, g, b)} {'RG' if stroke else 'rg'}"


class RawText:
    """A document's strings as text operators, each worked out once."""

    def __init__(self, canvas: Canvas) -> None:
        self.canvas = canvas
        self.doc = rl.pdf_document(canvas)
        self._pieces: dict[tuple[str, str, float], tuple[Piece, ...]] = {}

    def pieces(self, value: str, font: str, size: float) -> tuple[Piece, ...]:
        """`value` in `font` at `size`: its pieces by font run and subset (a character the
        font lacks in a fallback font, or replaced visibly, as `font_runs` decides)."""
        key = (value, font, size)
        known = self._pieces.get(key)
        if known is None:
            out = []
            size_s = fp_str(size)
            for name, part in font_runs(value, font):
                face = pdfmetrics.getFont(name)
                for subset, chunk in face.splitString(part, self.doc):
                    tf = f"{face.getSubsetInternalName(subset, self.doc)} {size_s} Tf"
                    out.append((tf, f"({rl.escape(self.canvas, chunk)}) Tj"))
            known = self._pieces[key] = tuple(out)
        return known

    def plain_chars(self, font: str) -> tuple[dict[str, float], str, dict[int, str]]:
        """The characters of `font` a string can be written with as it is in its first subset,
        registered with the document: their widths at size 1, the characters, and how the
        few that are not ASCII (`_SPELLED`, when the first subset has them) are written, as
        a `str.translate` table. A string of them needs no splitting, fallback font or
        escaping beyond that table: "(" + value.translate(table) + ") Tj" is what `pieces`
        writes."""
        face = pdfmetrics.getFont(font)
        candidates = [c for c in _PLAIN + _SPELLED if font_runs(c, font) == ((font, c),)]
        face.splitString("".join(candidates), self.doc)
        assignments = face.state[self.doc].assignments
        chars = "".join(c for c in candidates if assignments.get(ord(c)) == ord(c))
        spelled: dict[int, str] = {}
        for c in candidates:
            code = assignments.get(ord(c), -1)
            if c in _SPELLED and 0 < code < 256:  # in the first subset, as another byte
                spelled[ord(c)] = rl.escape(self.canvas, bytes([code]))
                chars += c
        return {c: face.stringWidth(c, 1) for c in chars}, chars, spelled

    def placed(self, value: str, font: str, size: float, x: float, y: float) -> str:
        """One line of text at (x, y), inside a text block (BT … ET), its fonts selected."""
        parts = [f"1 0 0 1 {fp_str(x)} {fp_str(y)} Tm"]
        for tf, tj in self.pieces(value, font, size):
            parts.append(tf)
            parts.append(tj)
        return "\n".join(parts)

    def line(self, value: str, font: str, size: float, x: float, y: float) -> str:
        """One line of text at (x, y) as a whole text block (fill colour: the caller's)."""
        return f"BT\n{self.placed(value, font, size, x, y)}\nET"

    def moved(self, value: str, font: str, size: float, dx: float, dy: float, home: str) -> str:
        """`value` drawn `dx`, `dy` from the current line's start, which is left where it was:
        inside a text block whose font is `home` between pieces (the font is switched and
        switched back when it differs)."""
        pieces = self.pieces(value, font, size)
        if not pieces:
            return ""
        dx, dy = round(dx, 2), round(dy, 2)  # a hundredth of a point: invisible, shorter
        move = f"{fp_str(dx)} {fp_str(dy)} Td"
        parts = [move]
        current = home
        for tf, tj in pieces:
            if tf != current:
                parts.append(tf)
                current = tf
            parts.append(tj)
        if current != home:
            parts.append(home)
        parts.append(f"{fp_str(-dx)} {fp_str(-dy)} Td")
        return "\n".join(parts)


class RawTable:
    """A ruled table of fixed columns drawn with cached operators: a shaded header (fitted
    once, repeated on each part), rows at least `row_height` high, each column aligned left,
    centre or right, a cell bold with a shaded background or in a colour when asked.

    Cells are fitted like FastTable's (`fit_text`: shrink to the floor, then wrap; nothing
    runs into the next column); the table is drawn in its own coordinates (its top-left
    corner at 0, 0), so that a cell's operators, relative to its row, and a whole set of
    rules are the same wherever the table stands and are written once per document.
    """

    padding = 3.0

    def __init__(
        self,
        raw: RawText,
        header: Sequence[str],
        *,
        widths: Sequence[float],
        align: str,
        fonts: Fonts,
        ink: Color,
        rule: Color,
        shade: Color,
        size: float = 8.5,
        row_height: float = 13,
        floor: float = FLOOR,
    ) -> None:
        assert len(header) == len(widths) == len(align)
        self.raw = raw
        self.header = list(header)
        self.widths = list(widths)
        self.align = align
        self.size = size
        self.row_height = row_height
        self.floor = floor
        self.regular, self.bold = fonts.condensed, fonts.condensed_bold
        self.edges = [0.0]
        for w in self.widths:
            self.edges.append(self.edges[-1] + w)
        self.width = self.edges[-1]
        self.inner = [max(1.0, w - 2 * self.padding) for w in self.widths]
        self.ink_op = colour_op(ink)
        self.rule_op = f"{colour_op(rule, stroke=True)} .4 w"
        self.shade_op = colour_op(shade)
        # The font between cells: the regular face, first subset, at the table's size.
        self.home = raw.pieces("0", self.regular, size)[0][0]
        head = size - 0.5
        self._head_fit = [
            fit_text(text, self.bold, head, w, floor=min(5.5, head), prefer_lines=3)
            for text, w in zip(self.header, self.inner, strict=True)
        ]
        self.header_height = max(f.height for f in self._head_fit) + 5
        self._header_ops = self._head_text()
        self._fits: dict[tuple[int, str, str], tuple[Fitted, float]] = {}
        # The height of a row of one-line cells, and per column each plain string's height
        # and operators in such a row; the same for styled cells by (column, cell).
        self.base_height = max(row_height, one_line("0", self.regular, size).leading + 4)
        self._ops_of: list[dict[Any, str]] = [{} for _ in self.widths]
        # Cells that make their row taller (their height), cells shaded ((their column,)).
        self._tall_of: list[dict[Any, float]] = [{} for _ in self.widths]
        self._shade_of: list[dict[Any, tuple[int]]] = [{} for _ in self.widths]
        self._plain_chars: dict[str, tuple[dict[str, float], str, dict[int, str]]] = {}
        # A row's text starts on the baseline of a one-line cell at the table's size.
        self._baseline = (self.base_height - size) / 2 + size * 0.22
        self._shrink = [*_sizes(size, min(floor, size)), *_sizes(min(floor, size), MIN_SIZE)[1:]]
        self._cells: dict[tuple[Any, ...], str] = {}
        self._rules: dict[tuple[float, ...], str] = {}
        self._row_at: dict[float, str] = {}
        self._shade_at: dict[tuple[int, float, float], str] = {}
        self._colours: dict[Any, str] = {}
        self._x = [fp_str(x) for x in self.edges]

    # fitting ---------------------------------------------------------------------------

    def fit(self, column: int, value: str, font: str) -> tuple[Fitted, float]:
        """A cell's fitted text and the height its row needs for it (cached)."""
        key = (column, value, font)
        known = self._fits.get(key)
        if known is None:
            w = self.inner[column]
            quick = one_line(value, font, self.size)
            if quick.width > w or "\n" in value or "  " in value:
                quick = fit_text(value, font, self.size, w, floor=self.floor, prefer_lines=1)
                height = quick.height
            else:
                height = quick.leading if value else 0.0
            known = self._fits[key] = (quick, max(self.row_height, height + 4))
        return known

    def measure(self, rows: Sequence[Sequence[Any]]) -> list[Row]:
        """Each row's height and its cells' operators (relative to the row's bottom-left
        corner), and the columns of its shaded cells. A cell is a str, or (text, bold,
        colour) where a bold cell is shaded and colour is a fill operator (`colour_op`) or
        None. Each column's cells are looked up in C (`map`) in dicts filled at first sight:
        a thousand cards have a third of a million cells."""
        ops_of, tall_of, shade_of = self._ops_of, self._tall_of, self._shade_of
        base = self.base_height
        get = dict.get
        out: list[Row] = []
        for row in rows:
            ops = list(map(get, ops_of, row))
            if None in ops:
                for c, cell in enumerate(row):
                    if ops[c] is None:
                        ops[c] = self._learn(c, cell)
            shaded = [column for (column,) in filter(None, map(get, shade_of, row))]
            heights = list(filter(None, map(get, tall_of, row)))
            if not heights:
                out.append((base, ops, shaded))
                continue
            # A cell on several lines: the row is taller, every cell centred again.
            tallest = max(heights)
            ops = []
            for c, cell in enumerate(row):
                if cell.__class__ is str:
                    op = self._cell(c, cell, self.regular, None, tallest)
                else:
                    font = self.bold if cell[1] else self.regular
                    op = self._cell(c, cell[0], font, cell[2], tallest)
                ops.append(op)
            out.append((tallest, ops, shaded))
        return out

    def _learn(self, column: int, cell: Any) -> str:
        """A cell seen for the first time: its operators remembered, and whether it makes its
        row taller (its height) or is shaded (its column, in a tuple: never falsy)."""
        height, op, shade = self._known(column, cell)
        self._ops_of[column][cell] = op
        if height != self.base_height:
            self._tall_of[column][cell] = height
        if shade:
            self._shade_of[column][cell] = (column,)
        return op

    def _known(self, column: int, cell: Any) -> tuple[float, str, bool]:
        """A cell's height, its operators in a row of the usual height, whether shaded."""
        if cell.__class__ is str:
            value, font, colour, shade = cell, self.regular, None, False
        else:
            value, shade, colour = cell
            font = self.bold if shade else self.regular
        quick = self._quick(column, value, font, colour)
        if quick is not None:
            return self.base_height, quick, shade
        height = max(self.fit(column, value, font)[1], self.base_height)
        op = self._cell(column, value, font, colour, self.base_height) if value else ""
        return height, op, shade

    # drawing ---------------------------------------------------------------------------

    def _head_text(self) -> str:
        """The header's backgrounds and text, in table coordinates (top at 0)."""
        h = self.header_height
        parts = [self.shade_op, f"0 {fp_str(-h)} {fp_str(self.width)} {fp_str(h)} re f"]
        parts += [self.ink_op, "BT"]
        for c, fitted in enumerate(self._head_fit):
            top = -(h - fitted.height) / 2
            for k, line in enumerate(fitted.lines):
                size = fitted.size
                base = top - (k + 1) * fitted.leading + (fitted.leading - size) / 2 + size * 0.22
                x = self._left(c, line, self.bold, size, "c")
                parts.append(self.raw.placed(line, self.bold, size, x, base))
        parts.append("ET")
        return "\n".join(parts)

    def _left(self, column: int, value: str, font: str, size: float, align: str) -> float:
        pad = self.padding
        if align == "l":
            return self.edges[column] + pad
        width = text_width(value, font, size)
        if align == "r":
            return self.edges[column + 1] - pad - width
        return (self.edges[column] + self.edges[column + 1] - width) / 2

    def _cell(self, column: int, value: str, font: str, colour: Any, height: float) -> str:
        """A cell's operators relative to its row's bottom-left corner (cached)."""
        key = (column, value, font, colour, height)
        known = self._cells.get(key)
        if known is None:
            fitted, _h = self.fit(column, value, font)
            parts = []
            size, lead, lines = fitted.size, fitted.leading, fitted.lines
            top = (height + fitted.height) / 2
            for k, line in enumerate(lines):
                if len(lines) == 1:  # nearly every cell: centred in its row
                    base = (height - size) / 2 + size * 0.22
                else:
                    base = top - (k + 1) * lead + (lead - size) / 2 + size * 0.22
                x = self._left(column, line, font, size, self.align[column])
                dy = base - self._baseline
                parts.append(self.raw.moved(line, font, size, x, dy, self.home))
            text = "\n".join(p for p in parts if p)
            if text and colour is not None:
                text = f"{self._colour(colour)}\n{text}\n{self.ink_op}"
            known = self._cells[key] = text
        return known

    def _quick(self, column: int, value: str, font: str, colour: Any) -> str | None:
        """The operators of a cell of plain characters (digits, signs, ASCII letters the font
        has) that fits its column on one line, without fitting or splitting it: most of a
        thousand cards' cells are numbers seen once. None for any other cell."""
        plain = self._plain_chars.get(font)
        if plain is None:
            plain = self._plain_chars[font] = self.raw.plain_chars(font)
        widths, chars, spelled = plain
        if not value or value.strip(chars) or "  " in value:
            return None
        size = self.size
        unit = sum(map(widths.__getitem__, value))
        width = unit * size
        if width > self.inner[column]:
            # One word (no space, no hyphen to break after) shrinks as fit_text shrinks it:
            # to the first size of its steps at which it fits.
            if " " in value or "-" in value[1:]:
                return None
            size = next((s for s in self._shrink if unit * s <= self.inner[column]), 0.0)
            if not size:
                return None
            width = unit * size
        align = self.align[column]
        if align == "l":
            x = self.edges[column] + self.padding
        elif align == "r":
            x = self.edges[column + 1] - self.padding - width
        else:
            x = (self.edges[column] + self.edges[column + 1] - width) / 2
        # From the row's baseline (where a cell at the table's size sits), in hundredths.
        at = f"{x:.2f}"  # x > 0: inside the table
        written = value.translate(spelled) if spelled else value
        if size == self.size and font == self.regular:
            text = f"{at} 0 Td ({written}) Tj -{at} 0 Td"
        else:
            dy = round((self.base_height - size) / 2 + size * 0.22 - self._baseline, 2)
            tf = self.raw.pieces(value[0], font, size)[0][0]
            rise, fall = fp_str(dy), fp_str(-dy)
            text = f"{at} {rise} Td {tf} ({written}) Tj {self.home} -{at} {fall} Td"
        if colour is not None:
            text = f"{self._colour(colour)}\n{text}\n{self.ink_op}"
        return text

    def _colour(self, colour: Any) -> str:
        """A fill operator, given as such or as a colour."""
        if colour.__class__ is str:
            return colour
        op = self._colours.get(colour)
        if op is None:
            op = self._colours[colour] = colour_op(colour)
        return op

    def draw(self, canvas: Canvas, x: float, top: float, rows: Sequence[Row]) -> float:
        """Draw the header and the measured `rows` with the table's top-left corner at
        (x, top); returns the bottom."""
        code = rl.page_ops(canvas)
        code.append(f"q 1 0 0 1 {fp_str(x)} {fp_str(top)} cm")
        code.append(self._header_ops)
        y = -self.header_height
        shaded = []
        text = [self.ink_op, "BT", self.home]
        row_at, shade_at = self._row_at, self._shade_at
        for height, ops, shades in rows:
            y -= height
            at = row_at.get(y)
            if at is None:
                at = row_at[y] = f"1 0 0 1 0 {fp_str(y + self._baseline)} Tm"
            text.append(at)
            text += ops
            for c in shades:
                shade = shade_at.get((c, y, height))
                if shade is None:  # the same few cells in the same rows of every page
                    shade = shade_at[(c, y, height)] = (
                        f"{self._x[c]} {fp_str(y)} {fp_str(self.widths[c])} {fp_str(height)} re"
                    )
                shaded.append(shade)
        text.append("ET")
        if shaded:
            code.append(self.shade_op)
            code.append("\n".join(shaded))
            code.append("f")
        code.append(self._rules_of(tuple(height for height, _ops, _shades in rows)))
        code.append("\n".join(text))
        code.append("Q")
        return top + y

    def _rules_of(self, heights: tuple[float, ...]) -> str:
        """The table's rules for rows of these heights: one path, written once per set."""
        known = self._rules.get(heights)
        if known is None:
            ys = [0.0, -self.header_height]
            for h in heights:
                ys.append(ys[-1] - h)
            bottom = fp_str(ys[-1])
            width = fp_str(self.width)
            parts = [self.rule_op]
            parts += [f"{x} 0 m {x} {bottom} l" for x in self._x]
            parts += [f"0 {fp_str(y)} m {width} {fp_str(y)} l" for y in ys]
            parts.append("S")
            known = self._rules[heights] = "\n".join(parts)
        return known
