"""The sheets clubs still make by hand: movement wall chart, table cards, check-in list, étui
labels, arbiter's log and results summary. What each says is computed here from the database
rows, then looked for in the PDF read back; the table cards' QR codes are decoded."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.documents.data import load_seating, next_tables, table_page_url
from scoring.documents.models import Document
from scoring.documents.services import PUBLIC_KINDS, can_download_document, document_render
from tournaments.models import Donne, LedgerEntry, Registration, Table, TableRound, Tournament

from .pdf import decode_qr_codes, page_count, page_texts, pdf_text

pytestmark = pytest.mark.django_db

Kind = Document.Kind
LABELS_EN = {"N": "North", "E": "East", "S": "South", "W": "West"}


def render(tournament: Tournament, kind: str, *, language: str = "en") -> bytes:
    document = Document(tournament=tournament, kind=kind, language=language)
    (_name, _type, content), _renderer = document_render(document)
    return content


def test_the_movement_chart_shows_every_round_and_table_and_where_the_etuis_go(
    played_tournament,
):
    pages = page_texts(render(played_tournament, Kind.MOVEMENT_CHART))
    text = " ".join(pages)
    rounds = TableRound.objects.filter(round__tournament=played_tournament).select_related(
        "round", "table", "etui_set"
    )
    for tr in rounds:
        assert f"Round {tr.round.number}" in text
        for seat in tr.seats.select_related("player"):
            assert seat.player.full_name in text
    # Each table's line: number, étui set, donnes, players by position, next table(s).
    seating = load_seating(played_tournament)
    nexts = next_tables(seating)
    for sitting in seating.sittings:
        names = " ".join(
            sitting.seats[p].full_name for p in ("N", "E", "S", "W", "F") if p in sitting.seats
        )
        first, last = sitting.donnes[0].number, sitting.donnes[-1].number
        line = f"{sitting.table_number} {sitting.etui_set} {first}–{last} {names}"
        assert line in text, line
        targets = nexts[(sitting.round_number, sitting.table_number)]
        if sitting.round_number == 1:
            assert targets, "every set is played again in round 2"
            assert f"{names} table {targets[0]}" in text
        else:
            assert f"{names} back to the arbiter" in text
    french = pdf_text(render(played_tournament, Kind.MOVEMENT_CHART, language="fr"))
    assert "Tour 1" in french and "Ouest" in french


def test_table_cards_carry_the_number_and_the_qr_code_of_the_table_page(
    played_tournament, settings
):
    settings.SITE_URL = "https://tarot.example.org"
    content = render(played_tournament, Kind.TABLE_CARDS)
    numbers = list(
        Table.objects.filter(tournament=played_tournament)
        .order_by("number")
        .values_list("number", flat=True)
    )
    assert page_count(content) == len(numbers)
    for page, number in enumerate(numbers, start=1):
        url = table_page_url(played_tournament, number)
        assert url.startswith("https://tarot.example.org/")
        # Both faces of the folded card carry the code.
        assert decode_qr_codes(content, page=page) == [url, url]
        assert str(number) in page_texts(content)[page - 1].split()


def test_the_table_card_opens_the_table_page_of_the_round_open_there(
    played_tournament, settings, client
):
    """A table card stands on its table all day: its link follows the open round, and a
    forged or moved link opens nothing."""
    from tournaments.models import Round, TableAccess

    settings.SITE_URL = "https://tarot.example.org"
    t = played_tournament
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.RUNNING)
    url = table_page_url(t, 2)
    assert url.startswith("https://tarot.example.org/table/card/")
    path = url.removeprefix("https://tarot.example.org")
    Round.objects.filter(tournament=t).update(state=Round.State.CLOSED)
    closed = client.get(path)
    assert closed.status_code == 403 and "Aucun tour n’est ouvert" in closed.content.decode()
    for number in (1, 2):
        Round.objects.filter(tournament=t, number=number).update(state=Round.State.OPEN)
        response = client.get(path)
        access = TableAccess.objects.get(
            table_round__table__number=2, table_round__round__number=number, revoked_at=None
        )
        assert response.status_code == 302
        assert response["Location"] == reverse("table_page", args=[access.secret])
        Round.objects.filter(tournament=t, number=number).update(state=Round.State.CLOSED)
    table_id, signature = path.rstrip("/").rsplit("/", 1)[1].split("-")
    other = Table.objects.get(tournament=t, number=1).pk
    forged = path.replace(f"{table_id}-{signature}", f"{other}-{signature}")
    assert client.get(forged).status_code == 403


def test_the_check_in_list_has_every_registered_player_and_a_signature_column(
    played_tournament,
):
    text = pdf_text(render(played_tournament, Kind.CHECK_IN_LIST))
    registrations = Registration.objects.filter(tournament=played_tournament).select_related(
        "player__club"
    )
    assert f"{registrations.count()} players registered" in text
    assert "Licence Name Club Here Signature" in text
    ordered = sorted(registrations, key=lambda r: (r.player.last_name, r.player.first_name))
    positions = []
    for index, registration in enumerate(ordered, start=1):
        player = registration.player
        line = f"{index} {player.licence} {player.last_name} {player.first_name} {player.club.name}"
        assert line in text, line
        positions.append(text.index(line))
    assert positions == sorted(positions)  # by name


def test_etui_labels_have_one_slip_per_donne_with_its_pockets(played_tournament):
    content = render(played_tournament, Kind.ETUI_LABELS)
    text = pdf_text(content)
    donnes = list(Donne.objects.filter(tournament=played_tournament).select_related("etui_set"))
    assert page_count(content) == -(-len(donnes) // 8)
    assert text.count("Dealer:") == len(donnes)
    for donne in donnes:
        slip = text.split(f"Donne {donne.number} ")[1]
        assert slip.startswith(f"Étui set {donne.etui_set.number} ")
        assert f"Dealer: {LABELS_EN[donne.dealer]}" in slip[:60]
        for position, label in LABELS_EN.items():
            pocket = f"{label.upper()} — the hand of {label}, 18 cards"
            if position == donne.dealer:
                pocket += " · dealer"
            assert pocket in slip, pocket
        assert "CHIEN — 6 cards" in slip
    french = pdf_text(render(played_tournament, Kind.ETUI_LABELS, language="fr"))
    assert "OUEST — la main Ouest, 18 cartes" in french


def test_the_arbiters_log_prints_every_ledger_entry(played_tournament):
    text = pdf_text(render(played_tournament, Kind.ARBITER_LOG))
    entries = LedgerEntry.objects.filter(tournament=played_tournament)
    assert entries.count() > 10
    last = entries.order_by("-at", "-pk").first()
    assert f"{entries.count()} " in text
    assert "Result entered" in text and "Penalty given" in text
    assert "Cartes relevées avant la fin" in text  # the penalty's reason
    assert last.get_action_display() in text
    for entry in entries.filter(result__isnull=False)[:5]:
        about = f"table {entry.result.table.number}, donne {entry.result.donne.number}"
        assert about in text


def test_the_results_summary_shows_the_podium(played_tournament):
    from tests.scoring.rankings.helpers import ranking_read

    text = pdf_text(render(played_tournament, Kind.RESULTS_SUMMARY))
    rows = ranking_read(played_tournament).rows
    assert "Provisional ranking" in text  # the tournament is running
    podium = [row for row in rows if row.rank <= 3]
    for row in podium:
        assert row.player.full_name in text
        assert f" {row.donnes_played} " in text
    outside = [row for row in rows if row.rank > 3]
    assert outside and all(row.player.full_name not in text for row in outside)
    donnes = Donne.objects.filter(tournament=played_tournament).count()
    assert f"{len(rows)} players · {donnes} of {donnes} donnes played" in text
    Tournament.objects.filter(pk=played_tournament.pk).update(status="finished")
    played_tournament.refresh_from_db()
    assert "Final ranking" in pdf_text(render(played_tournament, Kind.RESULTS_SUMMARY))


def test_who_may_read_the_new_kinds(played_tournament, personas):
    """The summary is public once published; the log, the check-in list and the cards are
    the organisers' and arbiters'."""
    assert Kind.RESULTS_SUMMARY in PUBLIC_KINDS
    Tournament.objects.filter(pk=played_tournament.pk).update(status="published")
    played_tournament.refresh_from_db()
    for kind, public in (
        (Kind.RESULTS_SUMMARY, True),
        (Kind.ARBITER_LOG, False),
        (Kind.CHECK_IN_LIST, False),
        (Kind.TABLE_CARDS, False),
    ):
        document = Document(tournament=played_tournament, kind=kind)
        assert can_download_document(personas.stranger, document, played_tournament) is public
        assert can_download_document(personas.arbiter, document, played_tournament)
