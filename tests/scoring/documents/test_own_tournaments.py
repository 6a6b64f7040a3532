"""Documents of tournaments a test stages for itself: a match-points ranking, route cards
before the seating, a score card over two pages, the new kinds at five tables, the score
sheets of a one-round tournament, the table pages of every sheet read at once, documents
marked out of date by a new seating, refused before the donnes, asked twice at once. They
live apart from the modules of the played tournament (test_renderers.py, test_new_kinds.py,
test_preparation_documents.py, test_services.py), which make it once for the module with the personas
(tests/scoring/documents/conftest.py): a tournament staged with those personas beside it
would give the player user a second player, and one staged without them would meet the
module's rows (the table pages are counted across the database)."""

from __future__ import annotations

import datetime
import re
import threading

import pytest
from django.db import close_old_connections, connection

from scoring.documents.fingerprint import document_fingerprint
from scoring.documents.models import Document
from scoring.documents.services import DocumentError, document_is_out_of_date
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Club, Donne, Player, Seat, TableAccess, TableRound, Tournament
from tournaments.services.preparation import tournament_generate

from . import test_new_kinds as new_kinds
from .pdf import page_texts, pdf_text
from .test_renderers import render
from .test_services import ask

pytestmark = pytest.mark.django_db

Kind = Document.Kind
Status = Document.Status


def test_ranking_under_match_points_names_the_method_and_the_rate(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas, method="matchpoints")
    from .play import play_results

    play_results(tournament, personas.arbiter)
    text = pdf_text(render(tournament, Document.Kind.RANKING))
    assert "Comparison method: Match points" in text
    assert "a penalty point costs 0.1 percentage points" in text
    assert "Match points %" in text


def test_documents_before_the_seating_say_so(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    Seat.objects.filter(round__tournament=tournament).delete()
    TableRound.objects.filter(round__tournament=tournament).delete()
    Donne.objects.filter(tournament=tournament).delete()
    text = pdf_text(render(tournament, Document.Kind.ROUTE_CARDS))
    assert "The seating has not been generated yet." in text


def test_a_long_score_card_continues_on_the_next_page_with_its_header(personas):
    tournament = stage_tournament(players=8, rounds=12, personas=personas)
    player = Player.objects.filter(registrations__tournament=tournament).first()
    content = render(tournament, Document.Kind.SCORE_CARDS, part=player.pk)
    texts = page_texts(content)
    assert len(texts) == 2
    for text in texts:
        assert "Donne Round / table Position Contract" in text  # the header, repeated
        assert player.full_name in text  # the page header names the card's player
    # Not played yet: the position the seating gives, no scores.
    numbers = re.findall(
        r"\b(\d+) \d+ / \d+ (?:North|East|South|West) Not played yet", " ".join(texts)
    )
    expected = {
        d.number
        for d in Donne.objects.filter(
            tournament=tournament, etui_set__table_rounds__seats__player=player
        )
    }
    assert len(expected) == 48
    assert sorted(int(n) for n in numbers) == sorted(expected)


def test_every_new_kind_builds_for_a_tournament_of_five_tables(personas):
    tournament = stage_tournament(players=20, rounds=3, personas=personas)
    for kind in (
        Kind.MOVEMENT_CHART,
        Kind.TABLE_CARDS,
        Kind.CHECK_IN_LIST,
        Kind.ETUI_LABELS,
        Kind.ARBITER_LOG,
        Kind.RESULTS_SUMMARY,
    ):
        for language in ("fr", "en"):
            assert new_kinds.render(tournament, kind, language=language).startswith(b"%PDF")


def test_a_tournament_of_one_round_sends_every_etui_set_back_to_the_arbiter(personas):
    tournament = stage_tournament(players=8, rounds=1)
    text = pdf_text(render(tournament, Document.Kind.SCORE_SHEETS))
    assert text.count("to the arbiter.") == 2


@pytest.mark.django_db
def test_score_sheets_read_every_table_page_at_once():
    """The QR codes' table pages are read in one query for the whole tournament, not two a
    sheet: a second build of 16 tables × 2 rounds costs what one of 2 tables × 2 rounds does."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries_of_a_second_build(tournament: Tournament) -> int:
        render(tournament, "score_sheets")  # the first build creates the table pages
        with CaptureQueriesContext(connection) as ctx:
            render(tournament, "score_sheets")
        return len(ctx.captured_queries)

    small = queries_of_a_second_build(stage_tournament(players=8, rounds=2))
    large = queries_of_a_second_build(stage_tournament(players=64, rounds=2, name="Grand"))
    assert large == small
    assert TableAccess.objects.filter(revoked_at=None).count() == (2 + 16) * 2


def test_a_new_seating_marks_every_document_out_of_date(
    personas, django_capture_on_commit_callbacks
):
    tournament = stage_tournament(players=8, rounds=2, personas=personas)
    with django_capture_on_commit_callbacks(execute=True):
        route = ask(tournament, personas.arbiter, kind=Kind.ROUTE_CARDS)
    route.refresh_from_db()
    assert not document_is_out_of_date(
        route, current=document_fingerprint(tournament, Kind.ROUTE_CARDS, "en")
    )
    tournament_generate(tournament=tournament)  # a late arrival: seated again
    assert document_is_out_of_date(
        route, current=document_fingerprint(tournament, Kind.ROUTE_CARDS, "en")
    )
    with django_capture_on_commit_callbacks(execute=True):
        again = ask(tournament, personas.arbiter, kind=Kind.ROUTE_CARDS)
    assert again.pk != route.pk


def test_no_documents_before_the_donnes_are_generated(personas):
    club = Club.objects.create(name="Club du lundi", federation_number="4242")
    tournament = Tournament.objects.create(
        club=club, name="Tournoi à venir", date=datetime.date(2026, 12, 12), status="registration"
    )
    tournament.arbiters.add(personas.arbiter)
    with pytest.raises(DocumentError, match="generate them on the preparation page"):
        ask(tournament, personas.arbiter, kind=Kind.HAND_RECORDS)
    assert not Document.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_requests_make_one_document(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    barrier = threading.Barrier(2)
    found: list[int] = []
    errors: list[BaseException] = []

    def request() -> None:
        try:
            barrier.wait(timeout=10)
            found.append(ask(tournament, personas.arbiter, kind=Kind.ROUTE_CARDS).pk)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=request) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    assert len(found) == 2 and found[0] == found[1]
    assert Document.objects.filter(tournament=tournament).count() == 1
    assert Document.objects.get().status == Status.DONE
