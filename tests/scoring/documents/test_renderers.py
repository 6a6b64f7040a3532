"""What each PDF says, read back with pypdf, and that every page renders (poppler) and is not
blank. Expected contents are computed here from the database rows, independently of the
renderers' own formatting helpers."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from django.utils import translation

from scoring.documents.fonts import register_fonts
from scoring.documents.models import Document
from scoring.documents.services import document_render
from scoring.rules.cards import parse_hand
from tests.fixtures.services import require
from tests.scoring.rankings.helpers import ranking_read
from tournaments.models import Donne, Player, Result, Seat, TableAccess, TableRound, Tournament
from tournaments.services.table_entry import table_page_url

from .pdf import (
    decode_qr_codes,
    ink_ratio,
    page_count,
    page_texts,
    pdf_text,
    red_pixels,
    render_pages,
)

pytestmark = pytest.mark.django_db

SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
LABELS_EN = {"N": "North", "E": "East", "S": "South", "W": "West"}
NUMBERS = ("10", "9", "8", "7", "6", "5", "4", "3", "2", "1")
RANKS = ("K", "Q", "C", "J", *NUMBERS)  # English letters: king, queen, cavalier, jack
RANKS_FR = ("R", "D", "C", "V", *NUMBERS)


def render(tournament: Tournament, kind: str, *, language: str = "en", part: int = 0) -> bytes:
    document = Document(tournament=tournament, kind=kind, language=language, part=part)
    (filename, mimetype, content), _renderer = document_render(document)
    assert filename.endswith(".pdf")
    assert mimetype == "application/pdf"
    assert content.startswith(b"%PDF")
    return content


def expected_hand(text: str, trumps_word: str = "Trumps", ranks: tuple[str, ...] = RANKS) -> str:
    """A hand as the diagram reads: suits ♠ ♥ ♦ ♣ high to low, then the trumps and count."""
    letters = dict(zip(("R", "D", "C", "V"), ranks[:4], strict=True))
    suits: dict[str, list[str]] = {s: [] for s in "SHDC"}
    trumps: list[str] = []
    for card in parse_hand(text):  # sorted in display order
        code = card.code
        if code == "EX":
            trumps.append("Exc")
        elif code.startswith("T"):
            trumps.append(code[1:])
        else:
            suits[code[0]].append(letters.get(code[1:], code[1:]))
    parts = [f"{SYMBOLS[s]} {' '.join(suits[s]) or '—'}" for s in "SHDC"]
    parts.append(f"{trumps_word} ({len(trumps)}) {' '.join(trumps) or '—'}")
    return " ".join(parts)


def assert_pages_numbered(content: bytes) -> None:
    texts = page_texts(content)
    for number, text in enumerate(texts, start=1):
        assert f"Page {number} of {len(texts)}" in text


def test_hand_records_show_every_hand_and_the_chien_with_the_dealer(played_tournament):
    content = render(played_tournament, Document.Kind.HAND_RECORDS)
    text = pdf_text(content)
    assert "Club 0001 — Tournoi du samedi" in text
    donnes = list(Donne.objects.filter(tournament=played_tournament).order_by("number"))
    assert len(donnes) == 8
    for donne in donnes:
        assert re.search(rf"Donne {donne.number} Étui set {donne.etui_set.number} Dealer: ", text)
        assert f"Dealer: {LABELS_EN[donne.dealer]}" in text
        for position in "NESW":
            label = LABELS_EN[position]
            if position == donne.dealer:
                label += " · dealer"
            assert f"{label} {expected_hand(donne.hand(position))}" in text, (donne, position)
        assert f"Chien {expected_hand(donne.chien)}" in text
    assert_pages_numbered(content)
    assert page_count(content) == 2  # four diagrams a page


def test_hand_records_of_one_etui_set_hold_only_its_donnes(played_tournament):
    content = render(played_tournament, Document.Kind.HAND_RECORDS, part=2)
    text = pdf_text(content)
    assert "Étui set 2 (donnes 5 to 8)" in text
    for number in (5, 6, 7, 8):
        assert re.search(rf"\bDonne {number}\b", text)
    for number in (1, 2, 3, 4):
        assert not re.search(rf"\bDonne {number}\b", text)
    donne = Donne.objects.get(tournament=played_tournament, number=6)
    assert expected_hand(donne.hand("S")) in text


def test_etui_sheets_name_the_pocket_of_every_card(played_tournament):
    content = render(played_tournament, Document.Kind.ETUI_SETS)
    text = pdf_text(content)
    letters = {"N": "N", "E": "E", "S": "S", "W": "W", "chien": "Ch"}
    for donne in Donne.objects.filter(tournament=played_tournament).order_by("number"):
        pocket: dict[str, str] = {}
        for position in "NESW":
            for card in parse_hand(donne.hand(position)):
                pocket[card.code] = position
        for card in parse_hand(donne.chien):
            pocket[card.code] = "chien"
        assert len(pocket) == 78
        suits = " ".join(
            f"{SYMBOLS[s]} " + " ".join(letters[pocket[f"{s}{r}"]] for r in RANKS_FR)
            for s in "SHDC"
        )
        high = " ".join(str(n) for n in range(21, 7, -1))
        high_pockets = " ".join(letters[pocket[f"T{n}"]] for n in range(21, 7, -1))
        low_pockets = " ".join(
            letters[pocket[c]] for c in [*(f"T{n}" for n in range(7, 0, -1)), "EX"]
        )
        block = f"{suits} Trumps {high} 7 6 5 4 3 2 1 Exc {high_pockets} {low_pockets}"
        assert block in text, donne.number
        dealer = LABELS_EN[donne.dealer]
        assert f"Donne {donne.number} Étui set {donne.etui_set.number} Dealer: {dealer}" in text
    # Each étui set starts on its own page.
    texts = page_texts(content)
    starts = [i for i, t in enumerate(texts) if re.search(r"Étui set \d+ — donnes", t)]
    assert len(starts) == 2 and starts[0] == 0


def test_score_sheets_list_the_players_and_their_qr_code_opens_the_table_page(
    played_tournament, settings
):
    settings.SITE_URL = "https://tarot.example.org"
    content = render(played_tournament, Document.Kind.SCORE_SHEETS)
    texts = page_texts(content)
    table_rounds = list(
        TableRound.objects.filter(round__tournament=played_tournament)
        .select_related("round", "table", "etui_set")
        .order_by("round__number", "table__number")
    )
    assert len(texts) == len(table_rounds) == 4
    for text, tr in zip(texts, table_rounds, strict=True):
        assert f"Table {tr.table.number} — round {tr.round.number}" in text
        for seat in Seat.objects.filter(table_round=tr).select_related("player"):
            assert seat.player.full_name in text
            assert seat.player.licence in text
        for header in (
            "Taker",
            "Contract",
            "Bouts",
            "Points",
            "Petit au bout",
            "Poignées",
            "Chelem",
        ):
            assert header.replace(" ", "") in text.replace(" ", "")
        for donne in tr.etui_set.donnes.all():
            assert re.search(rf"\b{donne.number} {LABELS_EN[donne.dealer]}\b", text)

    # Each sheet's QR code opens the page where that table enters that round's results, and
    # the sheet prints the short address and code for those who type.
    def table_page(tr) -> str:
        return table_page_url(table_round=tr)

    for page, tr in enumerate(table_rounds, start=1):
        assert decode_qr_codes(content, page=page) == [table_page(tr)]
        code = TableAccess.objects.get(table_round=tr, revoked_at=None).short_code
        assert code in texts[page - 1]
    # A table of five says who sits out each donne.
    five = next(tr for tr in table_rounds if tr.table.size == 5)
    assert "Fifth player" in texts[table_rounds.index(five)]
    assert "Sits out" in texts[table_rounds.index(five)]


def test_route_cards_give_each_player_his_table_and_position_each_round(played_tournament):
    content = render(played_tournament, Document.Kind.ROUTE_CARDS)
    text = pdf_text(content)
    seats = Seat.objects.filter(round__tournament=played_tournament).select_related(
        "player", "table_round__table", "round"
    )
    players = {seat.player for seat in seats}
    assert len(players) == 9
    for player in players:
        assert f"{player.full_name} Licence {player.licence}" in text
    for seat in seats:
        if seat.table_round.table.size == 4:
            label = LABELS_EN[seat.position]
            card = text[text.index(seat.player.full_name) :]
            assert re.search(
                rf"^.{{0,400}}?\b{seat.round.number} {seat.table_round.table.number} {label}\b",
                card,
            ), seat


def test_score_card_of_a_player_has_his_scores_rank_and_chart(played_tournament):
    player = (
        Player.objects.filter(registrations__tournament=played_tournament)
        .order_by("-last_name", "-first_name")
        .first()
    )
    content = render(played_tournament, Document.Kind.SCORE_CARDS, part=player.pk)
    text = pdf_text(content)
    assert f"Score card of {player.full_name}" in text
    view = ranking_read(played_tournament)
    row = next(r for r in view.rows if r.player == player)
    assert f"{row.rank} of 9" in text
    assert row.penalty_points == 100 and "\u2212100" in text
    results = [
        r
        for r in Result.objects.filter(tournament=played_tournament)
        if player.pk in {int(pid) for pid in r.holders.values()}
    ]
    assert results
    for result in results:
        position = next(p for p, pid in result.holders.items() if int(pid) == player.pk)
        score = result.score_of(position)
        assert (f"+{score}" if score > 0 else str(score).replace("-", "\u2212")) in text
    assert "Running total of the differentials, donne by donne" in text
    assert "Comparison method: Difference from the average." in text
    assert page_count(content) == 1


def test_score_cards_of_everyone_one_page_each(played_tournament):
    content = render(played_tournament, Document.Kind.SCORE_CARDS)
    texts = page_texts(content)
    players = Player.objects.filter(registrations__tournament=played_tournament)
    assert len(texts) == players.count()
    for player in players:
        assert sum(f"Score card of {player.full_name}" in t for t in texts) == 1


def test_score_cards_leave_nothing_for_the_collector(played_tournament, monkeypatch):
    """The cards are rendered with the cyclic collector paused; what they were made of (the
    cards and their lines, the canvas and its cached pieces) is freed by reference counting
    before it resumes, or its first pass would walk it all (a thousand cards: 0.13 s of CPU)."""
    import gc
    from contextlib import contextmanager

    from reportlab.pdfgen.canvas import Canvas

    from scoring.documents import score_cards
    from scoring.documents.ops import RawText
    from scoring.rankings.selectors import ScoreCard, ScoreCardLine

    kept = (ScoreCard, ScoreCardLine, Canvas, RawText)
    alive: list[str] = []

    @contextmanager
    def paused():  # the collector's pause, looking at what is left when it would resume
        gc.disable()
        try:
            yield
            alive.extend(type(o).__name__ for o in gc.get_objects() if isinstance(o, kept))
        finally:
            gc.enable()

    monkeypatch.setattr(score_cards, "collector_paused", paused)
    gc.collect()
    document = Document(tournament=played_tournament, kind=Document.Kind.SCORE_CARDS)
    (_name, _mimetype, content), renderer = document_render(document)
    assert content.startswith(b"%PDF") and renderer.pages == 9
    assert alive == []
    assert not hasattr(renderer, "results")  # what `prepare` read is dropped too


def test_ranking_lists_everyone_in_order_with_penalties_and_the_method(played_tournament):
    content = render(played_tournament, Document.Kind.RANKING)
    text = pdf_text(content)
    assert "Comparison method: Difference from the average" in text
    view = ranking_read(played_tournament)
    assert len(view.rows) == 9
    positions = [text.index(line.player.full_name) for line in view.rows]
    assert positions == sorted(positions)
    for line in view.rows:
        assert re.search(rf"\b{line.rank}=? {re.escape(line.player.full_name)}\b", text)
    assert "Cartes relevées avant la fin" in text
    assert "Picking up the cards early" in text
    assert "\u2212100" in text


def test_donne_results_show_every_table_side_by_side(played_tournament):
    content = render(played_tournament, Document.Kind.DONNE_RESULTS)
    text = pdf_text(content)
    assert "Comparison method: Difference from the average" in text
    players = {p.pk: p for p in Player.objects.filter(registrations__tournament=played_tournament)}
    donne = Donne.objects.get(tournament=played_tournament, number=3)
    section = text[text.index("Donne 3 ·") : text.index("Donne 4 ·")]
    results = list(Result.objects.filter(donne=donne).select_related("table"))
    assert len(results) == 2
    for result in results:
        for position, pid in result.holders.items():
            score = result.score_of(position)
            signed = f"+{score}" if score > 0 else str(score).replace("-", "\u2212")
            assert f"{players[int(pid)].full_name} {signed}" in section
    assert expected_hand(donne.hand("N")) in section


@pytest.mark.parametrize(
    ("kind", "landscape"),
    [
        (Document.Kind.HAND_RECORDS, False),
        (Document.Kind.ETUI_SETS, False),
        (Document.Kind.SCORE_SHEETS, True),
        (Document.Kind.ROUTE_CARDS, False),
        (Document.Kind.SCORE_CARDS, False),
        (Document.Kind.RANKING, True),
        (Document.Kind.DONNE_RESULTS, True),
    ],
)
def test_every_document_renders_on_a4_and_no_page_is_blank(played_tournament, kind, landscape):
    content = render(played_tournament, kind, language="fr")
    images = render_pages(content, dpi=30)
    assert images and len(images) == page_count(content)
    for image in images:
        width, height = image.size
        assert (width > height) == landscape
        assert abs(max(width, height) / min(width, height) - 297 / 210) < 0.02  # A4
        assert 0.005 < ink_ratio(image) < 0.6


def test_suit_symbols_render_in_red_and_black_with_dejavu(played_tournament):
    require(
        "DejaVu fonts (fonts-dejavu-core)",
        Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf").exists(),
    )
    fonts = register_fonts()
    assert fonts.has_suit_symbols
    assert fonts.regular == "DejaVuSans"
    content = render(played_tournament, Document.Kind.HAND_RECORDS)
    assert red_pixels(content) > 50  # hearts and diamonds


def test_french_documents_use_the_french_labels_and_accents(played_tournament):
    content = render(played_tournament, Document.Kind.HAND_RECORDS, language="fr")
    text = pdf_text(content)
    assert "5 décembre 2026 · Salle des fêtes" in text
    for label in ("Nord", "Est", "Sud", "Ouest"):
        assert label in text
    assert "Diagrammes des donnes" in text
    assert "Page 1 sur 2" in text
    donne = Donne.objects.get(tournament=played_tournament, number=1)
    label = {"N": "Nord", "E": "Est", "S": "Sud", "W": "Ouest"}[donne.dealer]
    assert f"{label} · donneur" in text
    assert f"Donneur : {label}" in text
    assert expected_hand(donne.chien, trumps_word="Atouts", ranks=RANKS_FR) in text
    with translation.override("en"):
        assert translation.get_language() == "en"  # rendering did not leak its language


def test_pdf_tools_are_installed_where_required():
    require("pdftoppm (poppler-utils)", shutil.which("pdftoppm") is not None)
    require("zbarimg (zbar-tools)", shutil.which("zbarimg") is not None)


def test_without_dejavu_the_documents_fall_back_to_vera_and_suit_letters(
    played_tournament, monkeypatch, tmp_path
):
    from scoring.documents import fonts

    monkeypatch.setattr(fonts, "_fonts", None)  # registered again, then restored
    monkeypatch.setattr(fonts, "_FALLBACKS", list(fonts._FALLBACKS))
    monkeypatch.setattr(fonts, "DEJAVU_DIRS", [tmp_path / "no-fonts-here"])
    fallback = fonts.register_fonts()
    assert fallback.regular == "Vera" and not fallback.has_suit_symbols
    assert fallback.suit("H") == "H"
    content = render(played_tournament, Document.Kind.HAND_RECORDS)
    text = pdf_text(content)
    donne = Donne.objects.get(tournament=played_tournament, number=1)
    assert (
        expected_hand(donne.hand("N"))
        .replace("♠", "S")
        .replace("♥", "H")
        .replace("♦", "D")
        .replace("♣", "C")
        in text
    )
    assert "♠" not in text
