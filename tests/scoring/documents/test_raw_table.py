"""The score cards' table (scoring/documents/ops.py `RawTable`) writes most cells by a quick
path (plain characters, no fitting, no splitting into subsets): each quick cell must be the
very cell the general path writes — same place, same font, same bytes — minus signs, dashes,
shrunk numbers and bold cells included."""

from __future__ import annotations

import io
import re

import pytest
from reportlab.lib.colors import Color
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from scoring.documents.fonts import register_fonts
from scoring.documents.ops import RawTable, RawText

# A cell's operators: the move to its start, the font when not the table's, its string.
_CELL = re.compile(r"(-?[\d.]+) (-?[\d.]+) Td\s+(?:(/\S+ [\d.]+ Tf)\s+)?\((.*?)\) Tj", re.S)

VALUES = [
    "0",
    "12",
    "+33",
    "\N{MINUS SIGN}99",
    "\N{MINUS SIGN}125,17",
    "+26,17",
    "\N{MINUS SIGN}107,33",
    "\N{MINUS SIGN}123456,75",  # wider than its column: shrunk as one word
    "\N{EM DASH}",
    "Nord",
    "1 / 12",
]


def table() -> RawTable:
    """A table shaped as the score cards' lines table (the widths that make cells shrink)."""
    fonts = register_fonts()
    raw = RawText(Canvas(io.BytesIO(), pageCompression=0))
    grey = Color(0.5, 0.5, 0.5)
    widths = [10 * mm, 11 * mm, 13 * mm, 33 * mm, 8 * mm, 10 * mm, 17 * mm, *[10 * mm] * 4]
    widths += [12 * mm] * 3
    header = [f"H{c}" for c in range(len(widths))]
    return RawTable(
        raw,
        header,
        widths=widths,
        align="ccllrrlrrrrrrr",
        fonts=fonts,
        ink=grey,
        rule=grey,
        shade=grey,
    )


def parsed(ops: str, home: str) -> tuple[float, float, str, str]:
    """A one-line cell's start, font and written string."""
    match = _CELL.search(ops)
    assert match is not None, ops
    x, dy, font, written = match.groups()
    return float(x), float(dy), font or home, written


@pytest.mark.parametrize("bold", [False, True])
@pytest.mark.parametrize("value", VALUES)
def test_a_quick_cell_is_the_cell_the_general_path_writes(value: str, bold: bool) -> None:
    raw_table = table()
    font = raw_table.bold if bold else raw_table.regular
    for column in (7, 11, 12, 13, 4):
        quick = raw_table._quick(column, value, font, None)
        if quick is None:  # left to the general path (spaces, too wide even shrunk)
            continue
        general = raw_table._cell(column, value, font, None, raw_table.base_height)
        qx, qdy, qfont, qtext = parsed(quick, raw_table.home)
        gx, gdy, gfont, gtext = parsed(general, raw_table.home)
        assert (qfont, qtext) == (gfont, gtext), (value, column)
        assert qx == pytest.approx(gx, abs=0.011) and qdy == pytest.approx(gdy, abs=0.011)


def test_numbers_and_dashes_take_the_quick_path() -> None:
    raw_table = table()
    for font in (raw_table.regular, raw_table.bold):
        for value in VALUES[:-1]:  # all but the one with spaces
            columns = [c for c in (7, 11, 12, 13) if raw_table._quick(c, value, font, None)]
            assert columns, value
        assert raw_table._quick(13, "\N{MINUS SIGN}107,33", font, None) is not None
        assert raw_table._quick(9, "\N{EM DASH}", font, None) is not None
