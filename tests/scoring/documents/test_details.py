"""Every detail: the donne results and score cards show what a score is made of (contract,
taker, bouts, points, petit au bout, poignées, chelem), the average the differentials are
measured from, penalties with their reason and donne, positions N E S O in French, ties as
"1=", and "to compare" for a donne only one table has played."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from django.urls import reverse

from scoring.documents.models import Document
from scoring.documents.services import document_render
from scoring.rules.cards import DECK, format_hand, parse_hand
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.helpers import score_card_read
from tournaments.models import Donne, Player, Result, Table, TableRound, Tournament
from tournaments.services.penalties import penalty_give
from tournaments.services.preparation import donne_index, seats_for_donne
from tournaments.services.results import ResultInput, ResultNeedsConfirmation, result_save

from .pdf import page_texts, pdf_text
from .play import play_results

pytestmark = pytest.mark.django_db

Kind = Document.Kind


def render(tournament: Tournament, kind: str, *, language: str = "en", part: int = 0) -> str:
    document = Document(tournament=tournament, kind=kind, language=language, part=part)
    (_name, _type, content), _renderer = document_render(document)
    return pdf_text(content)


def give_north_eleven_trumps(donne: Donne) -> None:
    """Deal the donne again so that North holds eleven trumps (room for a simple poignée)."""
    trumps = [c for c in DECK if c.is_trump and not c.is_bout]
    others = [c for c in DECK if c not in trumps[:11]]
    north = trumps[:11] + [c for c in others if c.suit is not None][:7]
    rest = [c for c in DECK if c not in north]
    hands = [north, rest[0:18], rest[18:36], rest[36:54]]
    for position, cards in zip("nesw", hands, strict=True):
        setattr(donne, f"hand_{position}", format_hand(cards))
    donne.chien = format_hand(rest[54:60])
    donne.save()
    assert len(parse_hand(donne.hand_n)) == 18


def save(tournament: Tournament, table: Table, donne: Donne, data: ResultInput, user) -> Result:
    kwargs = {
        "tournament": tournament,
        "table": table,
        "donne": donne,
        "data": data,
        "user": user,
        "expected_version": None,
    }
    try:
        return result_save(**kwargs)
    except ResultNeedsConfirmation as exc:
        return result_save(**kwargs, confirmed=list(exc.warnings))


@pytest.fixture
def detailed(personas) -> Tournament:
    """Two tables of four, one round. Donne 1: table 1 a garde with petit au bout, North's
    simple poignée and a chelem announced and failed; table 2 a prise at 40.5 points.
    Donne 2: table 1 only (not compared yet). A penalty with a reason on donne 1."""
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    donne1 = tournament.donnes.get(number=1)
    give_north_eleven_trumps(donne1)
    table1, table2 = Table.objects.filter(tournament=tournament).order_by("number")
    user = personas.arbiter
    save(
        tournament,
        table1,
        donne1,
        ResultInput(
            status="played",
            taker="N",
            contract="garde",
            bouts=2,
            points=Decimal(52),
            petit_au_bout="attack",
            poignees={"N": "simple"},
            chelem="announced_failed",
        ),
        user,
    )
    save(
        tournament,
        table2,
        donne1,
        ResultInput(status="played", taker="E", contract="prise", bouts=1, points=Decimal("40.5")),
        user,
    )
    save(
        tournament,
        table1,
        tournament.donnes.get(number=2),
        ResultInput(status="played", taker="S", contract="prise", bouts=2, points=Decimal(45)),
        user,
    )
    north = Result.objects.get(donne=donne1, table=table1).holders["N"]
    penalty_give(
        tournament=tournament,
        player=Player.objects.get(pk=north),
        kind="other",
        points=20,
        reason="Commentaire pendant le jeu",
        donne=donne1,
        user=user,
    )
    tournament.refresh_from_db()
    return tournament


def averages(tournament: Tournament, number: int) -> dict[str, Fraction]:
    results = Result.objects.filter(tournament=tournament, donne__number=number)
    return {p: Fraction(sum(r.score_of(p) for r in results), results.count()) for p in "NESW"}


def signed(value: Fraction, comma: bool = False) -> str:
    text = f"{float(abs(value)):g}"
    if comma:
        text = text.replace(".", ",")
    return ("+" if value > 0 else "\u2212" if value < 0 else "") + text


def test_donne_results_show_every_detail_and_the_average(detailed):
    text = render(detailed, Kind.DONNE_RESULTS)
    assert "Garde, taker North" in text and "Prise, taker East" in text
    assert "petit au bout: attack" in text
    assert "Simple poignée by North" in text
    assert "chelem: announced and failed" in text
    assert "40.5" in text and "52" in text
    assert "Average (what the differentials are measured from)" in text
    first = text.split("Donne 2")[0]
    for position, mean in averages(detailed, 1).items():
        assert signed(mean) in first, position
    french = render(detailed, Kind.DONNE_RESULTS, language="fr")
    assert "40,5" in french and "40.5" not in french


def test_score_cards_show_details_penalties_positions_and_not_compared(detailed):
    result = Result.objects.get(donne__number=1, table__number=1, tournament=detailed)
    north = Player.objects.get(pk=result.holders["N"])
    text = render(detailed, Kind.SCORE_CARDS, part=north.pk)
    # Donne 1: bouts, points, the short codes of petit au bout, poignée and chelem.
    line = text.split("Garde, taker North")[1]
    assert line.split()[:2] == ["2", "52"]
    assert "PB att." in line and "P1 N" in line and "Ch A−" in line
    assert signed(averages(detailed, 1)["N"]) in line
    # Donne 2: played at his table only.
    assert "to compare" in text.split("Prise, taker South")[1]
    # The penalty with its reason and donne.
    assert "Penalties" in text and "Commentaire pendant le jeu" in text and "\u221220" in text
    french = render(detailed, Kind.SCORE_CARDS, part=north.pk, language="fr")
    assert " N E S O " in french and " W " not in french
    assert "à comparer" in french
    # The legend's sentence about it starts with a capital, as the others do.
    assert "À comparer : jouée à une seule table" in " ".join(french.split())


def test_a_tie_reads_1_equals_as_on_the_ranking(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    for table in Table.objects.filter(tournament=tournament):
        for donne in tournament.donnes.filter(number__in=(1, 2)):
            save(tournament, table, donne, ResultInput(status="all_passed"), personas.arbiter)
    tournament.refresh_from_db()
    pages = page_texts(
        document_render(Document(tournament=tournament, kind=Kind.SCORE_CARDS, language="en"))[0][2]
    )
    assert len(pages) == 8
    assert all("1= of 8" in page for page in pages)


def test_donne_results_score_headers_stay_inside_their_columns(detailed):
    """The header "Marque" is wider than the 11 mm score column at the nominal size: it is
    set smaller instead of running over the rule before it (a plain string is not fitted)."""
    from reportlab.lib.units import mm

    from .layout import pdf_words

    document = Document(tournament=detailed, kind=Kind.DONNE_RESULTS, language="fr")
    pages = pdf_words(document_render(document)[0][2])
    headers = [w for page in pages for w in page.words if w.text == "Marque"]
    assert len(headers) >= 4
    padding = 3  # pt each side, the grid's
    for word in headers:
        assert word.x1 - word.x0 <= 11 * mm - 2 * padding, word


def test_a_donne_to_come_shows_the_position_the_seating_gives(personas, client):
    """Before a donne is played, its line says which hand the player will hold, on the page
    and in the PDF; at a table of five the one the seating has sit out is said to."""
    tournament = stage_tournament(players=9, rounds=2, personas=personas)
    play_results(tournament, personas.arbiter, rounds={1})
    tournament.refresh_from_db()
    expected: dict[tuple[int, int], str | None] = {}  # (player, donne number): hand
    for tr in TableRound.objects.filter(round__tournament=tournament, round__number=2):
        for donne in tr.etui_set.donnes.all():
            seats = seats_for_donne(tr, donne_index(tr, donne))
            for position, player in seats.hands.items():
                expected[(player.pk, donne.number)] = position
            if seats.sitter is not None:
                expected[(seats.sitter.pk, donne.number)] = None
    assert None in expected.values()  # someone sits out a donne of round 2
    client.force_login(personas.arbiter)
    labels = {"N": "North", "E": "East", "S": "South", "W": "West"}
    for player in Player.objects.filter(registrations__tournament=tournament):
        card = score_card_read(tournament, player, can_manage=True)
        to_come = [line for line in card.lines if line.round_number == 2]
        assert to_come and all(line.status == "pending" for line in to_come)
        for line in to_come:
            assert line.position == expected[(player.pk, line.donne_number)], line
        html = client.get(
            reverse("score_card", args=[tournament.pk, player.pk]), HTTP_ACCEPT_LANGUAGE="en"
        ).content.decode()
        text = render(tournament, Kind.SCORE_CARDS, part=player.pk)
        for line in to_come:
            row = html.split(f'<tr data-donne="{line.donne_number}"')[1].split("</tr>")[0]
            cell = row.split('<td class="hide-phone">')[1].split("</td>")[0].strip()
            label = labels[line.position] if line.position else "Sits out"
            assert line.sits_out == (line.position is None)
            assert cell == label
            assert f"{line.donne_number} 2 / {line.table_number} {label}" in text
