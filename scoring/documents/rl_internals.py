"""The one place that touches ReportLab's private attributes.

The fast document paths write PDF operators straight into a page's or a text object's stream
instead of going through the public drawing calls, which would format the same things again
for every cell. Every such access is a function here; `tests/scoring/documents/test_rl_internals.py`
checks each against ReportLab's public API (same operators in the PDF), so a ReportLab
upgrade that changes one fails there, by name, rather than in a document.
"""

from __future__ import annotations

from typing import Any

from reportlab.lib.colors import Color
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.textobject import PDFTextObject


def page_ops(canvas: Canvas) -> list[str]:
    """The current page's operator list: a string appended is written to the page as is."""
    return canvas._code


def pdf_document(canvas: Canvas) -> Any:
    """The canvas's PDF document (fonts' subsets and forms are registered with it)."""
    return canvas._doc


def escape(canvas: Canvas, value: str) -> str:
    """`value` escaped as a PDF string literal, as the canvas's text calls write it."""
    return canvas._escape(value)


def form_ops(canvas: Canvas, name: str) -> str:
    """The operator that shows form `name` (the page's `doForm` without appending it), marking
    the form as used by the page."""
    canvas._formsinuse.append(name)
    return f"/{canvas._doc.getXObjectName(name)} Do"


def is_subset_font(font: Any) -> bool:
    """Whether a registered font is a TrueType font written in subsets (its strings split by
    `splitString`), the only kind whose operators the fast paths compute themselves."""
    return bool(getattr(font, "_dynamicFont", False))


def text_ops(text: PDFTextObject) -> list[str]:
    """A text object's operator list."""
    return text._code


def text_fill_colour_set(text: PDFTextObject, op: str, colour: Color) -> None:
    """Append `op`, which is what `setFillColor(colour)` writes, and record the colour as the
    text object's fill colour, as `setFillColor` does."""
    text._code.append(op)
    text._fillColorObj = colour


def text_font_subset_set(text: PDFTextObject, font: Any, subset: int, size_op: str) -> bool:
    """Switch the text object to `subset` of TrueType `font` unless it is the current one, with
    the text's size and leading (`size_op` is the size, written); True when it switched."""
    if subset == text._curSubset:
        return False
    name = font.getSubsetInternalName(subset, text._canvas._doc)
    text._code.append(f"{name} {size_op} Tf {text_leading_op(text)} TL")
    text._curSubset = subset
    return True


def text_leading_op(text: PDFTextObject) -> str:
    """The text object's leading, written as ReportLab writes numbers."""
    return fp_str(text._leading)


def text_canvas(text: PDFTextObject) -> Canvas:
    """The canvas a text object belongs to."""
    return text._canvas


def text_out(text: PDFTextObject, value: str) -> None:
    """`textOut` without measuring the string (nothing reads the cursor's x afterwards)."""
    text._textOut(value)
