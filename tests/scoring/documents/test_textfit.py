"""The text-fitting primitives every document uses (scoring.documents.textfit, fonts): what
they promise is checked on the measures ReportLab draws with, for arbitrary texts."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import SimpleDocTemplate, Table

from scoring.documents.fonts import REPLACEMENT, font_runs, register_fonts
from scoring.documents.textfit import (
    ELLIPSIS,
    MIN_SIZE,
    FitText,
    draw_fitted,
    fit_text,
    text_width,
    words,
)

LONG = "Marie-Bénédicte-Éléonore de La Tour d'Auvergne-Lauraguais-Châteaubriand"

letters = st.text(alphabet="abcdeéèàçôûÉLMNOPQRSTxyz'", min_size=1, max_size=14)
word = st.lists(letters, min_size=1, max_size=3).map("-".join)
phrase = st.lists(word, min_size=1, max_size=12).map(" ".join)


def breaks_are_clean(text: str, lines: tuple[str, ...]) -> bool:
    """The lines are the text, broken only at a space or just after a hyphen."""
    rest = " ".join(text.split())
    for index, line in enumerate(lines):
        if not rest.startswith(line):
            return False
        rest = rest[len(line) :]
        if index == len(lines) - 1:
            return rest == ""
        if rest.startswith(" "):
            rest = rest[1:]
        elif not line.endswith("-"):
            return False  # broken in the middle of a word
    return rest == ""


@settings(max_examples=150, deadline=None)
@given(text=phrase, width=st.floats(min_value=25, max_value=300), size=st.sampled_from([8, 10]))
def test_fitted_lines_fit_the_width_and_never_split_a_word(text, width, size):
    font = register_fonts().condensed
    fitted = fit_text(text, font, size, width)
    for line in fitted.lines:
        assert text_width(line, font, fitted.size) <= width + 1e-6
    assert MIN_SIZE <= fitted.size <= size
    if fitted.cut:
        assert any(ELLIPSIS in line for line in fitted.lines)
        # Only a piece wider than the box even at the smallest size is ever cut.
        assert any(text_width(piece, font, MIN_SIZE) > width for w in words(text) for piece in w)
    else:
        assert breaks_are_clean(text, fitted.lines)


@settings(max_examples=80, deadline=None)
@given(text=phrase, width=st.floats(min_value=40, max_value=200), lines=st.integers(1, 3))
def test_a_box_of_fixed_height_is_never_overfilled(text, width, lines):
    font = register_fonts().bold
    fitted = fit_text(text, font, 10, width, max_lines=lines)
    assert len(fitted.lines) <= lines
    for line in fitted.lines:
        assert text_width(line, font, fitted.size) <= width + 1e-6


def test_order_of_the_steps_one_line_then_wrap_then_shrink_then_wrap_again():
    font = register_fonts().condensed
    full = text_width(LONG, font, 8.5)
    # Room enough: one line at the nominal size.
    assert fit_text(LONG, font, 8.5, full + 1).lines == (LONG,)
    # Two lines at the nominal size, broken after a hyphen or at a space.
    two = fit_text(LONG, font, 8.5, full * 0.6)
    assert two.size == 8.5 and len(two.lines) == 2
    assert breaks_are_clean(LONG, two.lines)
    # Narrower: smaller, still two lines, not below the floor.
    shrunk = fit_text(LONG, font, 8.5, full * 0.47, floor=6.5)
    assert 6.5 <= shrunk.size < 8.5 and len(shrunk.lines) == 2
    # Narrower still: the floor size, on more lines.
    many = fit_text(LONG, font, 8.5, full * 0.2, floor=6.5)
    assert many.size == 6.5 and len(many.lines) > 2 and not many.cut
    assert breaks_are_clean(LONG, many.lines)


def test_a_word_too_long_shrinks_below_the_floor_then_is_cut_visibly():
    font = register_fonts().condensed
    word_ = "Anticonstitutionnellement"
    at_floor = text_width(word_, font, 6.5)
    smaller = fit_text(word_, font, 8.5, at_floor * 0.8, floor=6.5)
    assert smaller.lines == (word_,) and MIN_SIZE <= smaller.size < 6.5 and not smaller.cut
    tiny = fit_text(word_, font, 8.5, text_width(word_, font, MIN_SIZE) * 0.6)
    assert tiny.cut and tiny.size == MIN_SIZE
    assert len(tiny.lines) == 1 and tiny.lines[0].endswith(ELLIPSIS)
    assert word_.startswith(tiny.lines[0][:-1])


def test_a_hyphen_before_a_digit_is_not_a_break():
    assert words("score -5 et Saint-Denis") == (("score",), ("-5",), ("et",), ("Saint-", "Denis"))


def test_characters_no_font_has_are_replaced_visibly_never_blank():
    fonts = register_fonts()
    runs = font_runs("Léa 🎉 Dupont 🇫🇷👍️", fonts.condensed_bold)
    drawn = "".join(part for _font, part in runs)
    assert drawn == f"Léa {REPLACEMENT} Dupont {REPLACEMENT}"  # one mark per missing cluster
    # A character the font has stays in that font, in one run.
    assert font_runs("Éléonore ♠", fonts.condensed) == ((fonts.condensed, "Éléonore ♠"),)
    # The replacement has a width: it is measured as it is drawn.
    assert text_width("🎉", fonts.regular, 10) == text_width(REPLACEMENT, fonts.regular, 10) > 0


def test_a_fallback_font_draws_what_the_main_font_lacks(monkeypatch):
    """With a font that has the character (here: bold falls back to the regular face for the
    glyphs only it has), the character is drawn by it rather than replaced."""
    from reportlab.pdfbase import pdfmetrics

    fonts = register_fonts()
    regular = set(pdfmetrics.getFont(fonts.regular).face.charToGlyph)
    bold = set(pdfmetrics.getFont(fonts.bold).face.charToGlyph)
    only_regular = sorted(regular - bold)
    if not only_regular:  # Vera: the same coverage in both faces
        return
    char = chr(only_regular[0])
    runs = font_runs(f"a{char}b", fonts.bold)
    assert runs == ((fonts.bold, "a"), (fonts.regular, char), (fonts.bold, "b"))


def test_replaced_characters_reach_the_pdf_as_a_visible_mark():
    fonts = register_fonts()
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    fitted = fit_text("Zoé 🎉 Martin", fonts.regular, 12, 300)
    draw_fitted(canvas, fitted, font=fonts.regular, x=50, top=700, width=300)
    canvas.save()
    text = PdfReader(io.BytesIO(buffer.getvalue())).pages[0].extract_text()
    assert "Zoé" in text and REPLACEMENT in text and "Martin" in text


def test_fit_text_in_a_table_cell_makes_the_row_taller_instead_of_overflowing():
    fonts = register_fonts()
    width = 30 * 2.835  # 30 mm
    cell = FitText(LONG, font=fonts.condensed, size=8.5)
    table = Table([[cell, "Club"]], colWidths=[width, 50])
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer, pagesize=A4).build([table])
    assert cell.fitted is not None
    assert len(cell.fitted.lines) > 1
    for line in cell.fitted.lines:
        assert text_width(line, fonts.condensed, cell.fitted.size) <= width - 12 + 1e-6
    assert cell.height == cell.fitted.height


def test_paragraph_markup_draws_missing_characters_in_a_fallback_or_visibly():
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    from scoring.documents.base import markup

    fonts = register_fonts()
    text = markup("Zoé <b> & 🎉", fonts.regular)
    assert "&lt;b&gt; &amp;" in text and "🎉" not in text and REPLACEMENT in text
    buffer = io.BytesIO()
    style = ParagraphStyle("p", fontName=fonts.regular, fontSize=10)
    SimpleDocTemplate(buffer, pagesize=A4).build([Paragraph(text, style)])
    extracted = PdfReader(io.BytesIO(buffer.getvalue())).pages[0].extract_text()
    assert "Zoé <b> &" in extracted and REPLACEMENT in extracted
