"""Hand records, étui sheets, route cards and score sheets as a club prints them: four donnes
a page, bouts in bold, no card alone on a wrapped line, the letters explained in each language,
"confidential" before the end; the event and crop marks on each route card; the score sheet's
all-passed box, guidance, incident box and where the étuis go next."""

from __future__ import annotations

import io
import re

import pytest
from django.utils import translation
from PIL import Image
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph, Table
from reportlab.platypus.flowables import Spacer

from scoring.documents.base import NBSP, hand_markup
from scoring.documents.fonts import register_fonts
from scoring.documents.models import Document
from scoring.documents.route_cards import CutMarks, RouteCardsRenderer
from tournaments.models import Donne, Player, TableAccess, TableRound, Tournament

from .layout import pdf_words
from .pdf import page_texts, pdf_text, render_pages
from .test_renderers import render

pytestmark = pytest.mark.django_db

CONFIDENTIAL_EN = "confidential — do not circulate before the end of the tournament"
CONFIDENTIAL_FR = "confidentiel — ne pas diffuser avant la fin du tournoi"


def donnes_on(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\bDonne (\d+)\b", text)]


# --- hand records -------------------------------------------------------------------------


def test_hand_records_put_four_donnes_on_a_page(played_tournament):
    texts = page_texts(render(played_tournament, Document.Kind.HAND_RECORDS))
    assert len(texts) == 2
    assert sorted(donnes_on(texts[0])) == [1, 2, 3, 4]
    assert sorted(donnes_on(texts[1])) == [5, 6, 7, 8]


def test_hand_records_are_confidential_on_every_page_until_the_tournament_ends(
    played_tournament,
):
    for text in page_texts(render(played_tournament, Document.Kind.HAND_RECORDS)):
        assert CONFIDENTIAL_EN in text
    french = page_texts(render(played_tournament, Document.Kind.HAND_RECORDS, language="fr"))
    assert all(CONFIDENTIAL_FR in text for text in french)
    Tournament.objects.filter(pk=played_tournament.pk).update(status=Tournament.Status.FINISHED)
    played_tournament.refresh_from_db()
    text = pdf_text(render(played_tournament, Document.Kind.HAND_RECORDS, language="fr"))
    assert "confidentiel" not in text
    assert "Donne 1" in text


def test_the_letters_are_explained_in_each_language(played_tournament):
    english = pdf_text(render(played_tournament, Document.Kind.HAND_RECORDS))
    assert "Ranks: K king, Q queen, C cavalier, J jack" in english
    assert "♠ spades, ♥ hearts, ♦ diamonds, ♣ clubs" in english
    french = pdf_text(render(played_tournament, Document.Kind.HAND_RECORDS, language="fr"))
    assert "Rangs : R roi, D dame, C cavalier, V valet" in french
    assert "♠ pique, ♥ cœur, ♦ carreau, ♣ trèfle" in french
    # The hands use the letters of their language.
    donne = Donne.objects.get(tournament=played_tournament, number=1)
    hand = " ".join(donne.hand(p) for p in "NESW")
    if "R" in hand.replace("T", ""):
        assert re.search(r"♠ [^♥]*\bK\b|♥ [^♦]*\bK\b|♦ [^♣]*\bK\b|♣ [^T]*\bK\b", english)
    etui = pdf_text(render(played_tournament, Document.Kind.ETUI_SETS))
    assert "K Q C J 10 9 8 7 6 5 4 3 2 1" in etui
    etui_fr = pdf_text(render(played_tournament, Document.Kind.ETUI_SETS, language="fr"))
    assert "R D C V 10 9 8 7 6 5 4 3 2 1" in etui_fr


def bold_texts(content: bytes) -> list[str]:
    """Every piece of text drawn in a bold face."""
    found: list[str] = []

    def visit(text, cm, tm, font_dict, font_size):
        name = str((font_dict or {}).get("/BaseFont", ""))
        if "Bold" in name and text.strip():
            found.append(text.strip())

    for page in PdfReader(io.BytesIO(content)).pages:
        page.extract_text(visitor_text=visit)
    return found


def test_the_bouts_are_in_bold_and_no_other_trump(played_tournament):
    content = render(played_tournament, Document.Kind.HAND_RECORDS)
    bold = set(" ".join(bold_texts(content)).replace(NBSP, " ").split())
    assert {"21", "1", "Exc"} <= bold
    # Other trumps are never bold (a donne number is drawn with its "Donne" word).
    plain_trumps = {str(n) for n in range(2, 21)}
    donne_numbers = {
        str(n)
        for n in Donne.objects.filter(tournament=played_tournament).values_list("number", flat=True)
    }
    assert not (plain_trumps & bold) - donne_numbers - {"(1)", "(2)"}


@pytest.mark.parametrize("width", range(36, 160, 3))
def test_a_wrapped_hand_never_leaves_one_card_alone_on_a_line(width):
    """Laid out by ReportLab at every width from a narrow cell to a wide one: the last line
    of a suit or of the trumps always holds at least two cards."""
    fonts = register_fonts()
    hand = "S:R D 5 H:V 9 7 4 1 D:C 2 C:10 T:21 19 17 15 13 11 9 7 5 3 1 EX"
    markup = hand_markup(fonts, hand)
    style = register_style(fonts)
    for line_markup in markup.split("<br/>"):
        paragraph = Paragraph(line_markup, style)
        paragraph.wrap(width, 1000)
        lines = paragraph.blPara.lines
        if len(lines) < 2:
            continue
        last = "".join(frag.text for frag in lines[-1].words).replace(NBSP, " ").split()
        assert len(last) >= 2, (width, line_markup, last)


def register_style(fonts):
    from reportlab.lib.styles import ParagraphStyle

    return ParagraphStyle("t", fontName=fonts.condensed, fontSize=8.5, leading=10.5)


def test_no_line_of_a_hand_record_is_a_lone_excuse_or_petit(played_tournament):
    for language in ("en", "fr"):
        content = render(played_tournament, Document.Kind.HAND_RECORDS, language=language)
        for page in pdf_words(content):
            lines: dict[int, list[str]] = {}
            for word in page.words:
                lines.setdefault(word.line, []).append(word.text)
            for words in lines.values():
                assert words not in (["Exc"], ["1"]), (language, page.number, words)


# --- étui sheets ----------------------------------------------------------------------------


def test_etui_sheets_put_four_donnes_on_a_page_and_are_confidential(played_tournament):
    texts = page_texts(render(played_tournament, Document.Kind.ETUI_SETS))
    assert len(texts) == 2  # two étui sets of four donnes, each from a new page
    assert sorted(donnes_on(texts[0])) == [1, 2, 3, 4]
    assert sorted(donnes_on(texts[1])) == [5, 6, 7, 8]
    assert all(CONFIDENTIAL_EN in text for text in texts)


# --- route cards ----------------------------------------------------------------------------


def test_every_route_card_carries_the_tournament_its_date_and_the_club(played_tournament):
    text = pdf_text(render(played_tournament, Document.Kind.ROUTE_CARDS, language="fr"))
    event = "Tournoi du samedi · 5 décembre 2026 · Club 0001"
    players = Player.objects.filter(registrations__tournament=played_tournament).count()
    assert players == 9
    assert text.count(event) == players


def test_every_route_card_has_crop_marks(played_tournament):
    with translation.override("en"):
        renderer = RouteCardsRenderer(played_tournament)
        story = renderer.story()
    cards = [cell for row in story if isinstance(row, Table) for cell in row._cellvalues[0]]
    marked = [c for c in cards if isinstance(c, CutMarks)]
    assert len(marked) == 9


def test_crop_marks_are_drawn_outside_the_card_at_its_four_corners():
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    card = Table([[Spacer(60 * mm, 30 * mm)]], colWidths=[60 * mm])  # an empty, unframed card
    marks = CutMarks(card)
    marks.wrap(60 * mm, 30 * mm)
    x, y = 70 * mm, 150 * mm
    marks.drawOn(canvas, x, y)
    canvas.save()
    image = render_pages(buffer.getvalue(), dpi=150)[0]
    scale = 150 / 72
    height = image.height

    def ink(x0: float, y0: float, x1: float, y1: float) -> int:
        """Dark pixels in a rectangle given in PDF points (origin bottom left)."""
        box = (int(x0 * scale), int(height - y1 * scale), int(x1 * scale), int(height - y0 * scale))
        region = image.crop(box)
        return sum(region.histogram()[:200])

    w, h = 60 * mm, 30 * mm
    pad = 5 * mm
    for cx, cy in ((x, y), (x + w, y), (x, y + h), (x + w, y + h)):
        assert ink(cx - pad, cy - pad, cx + pad, cy + pad) > 0, (cx, cy)
    # Nothing inside the card, away from its edges.
    assert ink(x + pad, y + pad, x + w - pad, y + h - pad) == 0
    assert isinstance(image, Image.Image)


# --- score sheets ---------------------------------------------------------------------------


def test_score_sheets_have_the_all_passed_box_guidance_and_incident_box(played_tournament):
    texts = page_texts(render(played_tournament, Document.Kind.SCORE_SHEETS))
    table_rounds = list(
        TableRound.objects.filter(round__tournament=played_tournament)
        .select_related("round", "table", "etui_set")
        .order_by("round__number", "table__number")
    )
    assert len(texts) == len(table_rounds)  # one page each, a table of five included
    for text, tr in zip(texts, table_rounds, strict=True):
        donnes = tr.etui_set.donnes.count()
        assert "All passed" in text
        assert text.count("☐") == donnes
        assert text.count("who and which") == donnes  # the poignée column says what to write
        assert text.count("Ann. ✓ Ann. ✗") == donnes  # the chelem column offers the choices
        assert "Incidents, arbiter called (donne, what happened, decision):" in text
        assert "Arbiter's initials" in text


def test_score_sheets_say_where_the_etuis_go_next_round(played_tournament):
    texts = page_texts(render(played_tournament, Document.Kind.SCORE_SHEETS))
    table_rounds = list(
        TableRound.objects.filter(round__tournament=played_tournament)
        .select_related("round", "table", "etui_set")
        .order_by("round__number", "table__number")
    )
    last_round = max(tr.round.number for tr in table_rounds)
    for text, tr in zip(texts, table_rounds, strict=True):
        number = tr.etui_set.number
        if tr.round.number == last_round:
            assert f"After this round, hand étui set {number} to the arbiter." in text
            continue
        following = [
            other.table.number
            for other in table_rounds
            if other.round.number == tr.round.number + 1 and other.etui_set_id == tr.etui_set_id
        ]
        assert len(following) == 1
        assert f"After this round, take étui set {number} to table {following[0]}." in text


def test_the_french_score_sheet_speaks_french(played_tournament):
    text = pdf_text(render(played_tournament, Document.Kind.SCORE_SHEETS, language="fr"))
    for words in (
        "Tous passent",
        "qui et laquelle",
        "Non ann. ✓ Déf.",
        "Visa de l’arbitre",
        "Après ce tour",
    ):
        assert words in text


# The height of a word's box in poppler over the size it is set at, for the condensed face
# of the caption (measured: a line set at 7.5 pt gives boxes 7.5 pt high).
BOX_EM = 1.0


@pytest.mark.parametrize(
    ("site", "language", "lead"),
    [
        ("http://127.0.0.1:8000", "fr", "tapez"),
        ("https://tarot.club-de-saint-germain-en-laye.example.org", "en", "type"),
    ],
)
def test_the_address_to_type_under_the_qr_code_is_readable(
    played_tournament, settings, site, language, lead
):
    """ "or type http://…/table/ and the code:" is typed by hand: at least 7 pt, wrapped at
    the address's slashes and dots if need be, and the short code stays large."""
    settings.SITE_URL = site
    pages = pdf_words(render(played_tournament, Document.Kind.SCORE_SHEETS, language=language))
    codes = {
        a.table_round_id: a.short_code
        for a in TableAccess.objects.filter(tournament=played_tournament, revoked_at=None)
    }
    for page in pages:
        words = page.words
        start = next(i for i, w in enumerate(words) if w.text == lead)
        code = next(i for i, w in enumerate(words) if i > start and w.text in codes.values())
        caption = words[start - 1 : code]  # "or" / "ou" … "code:" / ":"
        assert site + "/table/" in "".join(w.text for w in caption)  # whole, in order
        for word in caption:
            assert (word.y1 - word.y0) / BOX_EM >= 7 - 0.05, word
        assert (words[code].y1 - words[code].y0) / BOX_EM >= 10, words[code]
