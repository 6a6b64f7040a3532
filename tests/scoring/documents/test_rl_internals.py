"""Each access to ReportLab's private attributes (scoring/documents/rl_internals.py) writes what
ReportLab's public API writes: a ReportLab upgrade that changes one fails here, by name."""

from __future__ import annotations

import io

from reportlab.lib.colors import Color
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import Canvas

from scoring.documents import rl_internals as rl
from scoring.documents.fonts import register_fonts


def canvas() -> Canvas:
    return Canvas(io.BytesIO(), pageCompression=0)


def page_stream(c: Canvas) -> str:
    return "\n".join(rl.page_ops(c))


def test_page_ops_is_what_the_page_writes():
    c = canvas()
    c.rect(10, 20, 30, 40)
    assert "10 20 30 40 re" in page_stream(c)  # the public call's operators are in the list
    rl.page_ops(c).append("0 0 m 5 5 l S")
    c.showPage()
    assert b"0 0 m 5 5 l S" in c.getpdfdata()  # and what is appended reaches the page


def test_form_ops_shows_a_form_as_do_form_does():
    public, fast = canvas(), canvas()
    for c in (public, fast):
        c.beginForm("note")
        c.drawString(0, 0, "note")
        c.endForm()
    public.doForm("note")
    rl.page_ops(fast).append(rl.form_ops(fast, "note"))
    assert page_stream(fast) == page_stream(public)
    assert public._formsinuse == fast._formsinuse == ["note"]


def test_escape_is_what_draw_string_writes():
    c = canvas()
    value = "a (b) \\ c"
    c.drawString(0, 0, value)
    assert f"({rl.escape(c, value)}) Tj" in page_stream(c)


def test_pdf_document_registers_subsets_and_forms():
    fonts = register_fonts()
    c = canvas()
    doc = rl.pdf_document(c)
    font = pdfmetrics.getFont(fonts.regular)
    assert rl.is_subset_font(font)
    assert not rl.is_subset_font(pdfmetrics.getFont("Helvetica"))
    [(subset, _part)] = font.splitString("abc", doc)
    assert font.getSubsetInternalName(subset, doc).startswith("/F")


def test_text_object_operators_match_the_public_calls():
    fonts = register_fonts()
    colour = Color(0.2, 0.4, 0.6)
    public, fast = canvas(), canvas()
    texts = []
    for c in (public, fast):
        text = c.beginText()
        text.setFont(fonts.regular, 9)
        texts.append(text)
    pt, ft = texts
    pt.setFillColor(colour)
    pt.setFont(fonts.bold, 9)
    pt.textOut("Nord")
    setter = canvas().beginText()
    setter.setFillColor(colour)
    rl.text_fill_colour_set(ft, rl.text_ops(setter)[-1], colour)
    ft.setFont(fonts.regular, 9)  # the size and leading the subset switch keeps
    font = pdfmetrics.getFont(fonts.bold)
    [(subset, part)] = font.splitString("Nord", rl.pdf_document(fast))
    assert rl.text_font_subset_set(ft, font, subset, fp_str(9))
    assert not rl.text_font_subset_set(ft, font, subset, fp_str(9))  # already current
    rl.text_out(ft, part)
    assert ft._fillColorObj == pt._fillColorObj == colour
    assert rl.text_canvas(ft) is fast
    assert rl.text_leading_op(ft) == fp_str(pt._leading)
    public_ops = rl.text_ops(pt)
    fast_ops = rl.text_ops(ft)
    # textOut's subset switch (font, size, leading) and string, written the same way
    assert " ".join(fast_ops[-2:]) == public_ops[-1]
