"""Always current: a document records what it was built from; a player renamed, the tournament
or its venue corrected, a seat swapped, SITE_URL changed… marks it out of date on the page and
in the API, and asking for it again builds a new one that shows the change."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from scoring.documents.fingerprint import PARTS, Inputs, document_fingerprint
from scoring.documents.models import Document
from scoring.documents.services import (
    WHOLE_SET,
    document_is_out_of_date,
    document_request,
    document_request_all,
    document_rows,
)
from tests.tournaments.api.conftest import client_for
from tournaments.models import Player, Seat, Tournament

from .pdf import pdf_text

pytestmark = pytest.mark.django_db

Kind = Document.Kind
Status = Document.Status
# The kinds that print players' names (the others print cards, tables and the tournament).
NAMED = {
    Kind.SCORE_SHEETS,
    Kind.ROUTE_CARDS,
    Kind.SCORE_CARDS,
    Kind.RANKING,
    Kind.DONNE_RESULTS,
    Kind.MOVEMENT_CHART,
    Kind.CHECK_IN_LIST,
    Kind.ARBITER_LOG,
    Kind.RESULTS_SUMMARY,
    Kind.PLAYER_REPORT,
}


def build_all(tournament: Tournament, user, capture, **kw) -> dict[str, Document]:
    with capture(execute=True):
        document_request_all(tournament=tournament, language="en", user=user, **kw)
    return {
        d.kind: d
        for d in Document.objects.filter(tournament=tournament, status=Status.DONE, part=0)
    }


def text_of(document: Document) -> str:
    with document.file.open("rb") as handle:
        return pdf_text(handle.read())


def out_of_date(tournament: Tournament, user) -> dict[str, bool]:
    rows = document_rows(
        tournament=tournament,
        user=user,
        language="en",
        wanted=[(kind, 0) for kind in WHOLE_SET],
    )
    return {row.kind: row.out_of_date for row in rows}


def test_every_kind_has_its_inputs_listed():
    assert set(PARTS) == set(Kind.values) == set(WHOLE_SET)


def test_a_player_renamed_after_a_first_build_appears_renamed_in_every_document(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    # The penalised player: he is in the ranking, the donne results, the log…
    player = Player.objects.filter(penalties__tournament=played_tournament).get()
    old = player.last_name
    first = build_all(played_tournament, personas.arbiter, django_capture_on_commit_callbacks)
    assert set(first) == set(WHOLE_SET)
    showing = {kind for kind, doc in first.items() if old in text_of(doc)}
    # The old name is printed where names are (the summary shows the podium only, the
    # players' reports nothing before every donne is complete).
    assert NAMED - {Kind.RESULTS_SUMMARY, Kind.PLAYER_REPORT} <= showing <= NAMED
    assert not any(out_of_date(played_tournament, personas.arbiter).values())

    player.first_name, player.last_name = "Zéphyrine", "Quatremaine-Ébène"
    player.save()

    stale = out_of_date(played_tournament, personas.arbiter)
    assert {kind for kind, is_stale in stale.items() if is_stale} == NAMED
    again = build_all(played_tournament, personas.arbiter, django_capture_on_commit_callbacks)
    for kind in NAMED:
        assert again[kind].pk != first[kind].pk, kind
        text = text_of(again[kind])
        assert old not in text, kind
        if kind in showing:
            assert "Quatremaine-" in text, kind
    # What does not print names was not built again.
    for kind in set(WHOLE_SET) - NAMED:
        assert again[kind].pk == first[kind].pk, kind
    assert not any(out_of_date(played_tournament, personas.arbiter).values())


def test_a_renamed_tournament_or_venue_makes_every_document_out_of_date(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    first = build_all(played_tournament, personas.arbiter, django_capture_on_commit_callbacks)
    Tournament.objects.filter(pk=played_tournament.pk).update(venue="Salle des fêtes d'Yzeure")
    assert all(out_of_date(played_tournament, personas.arbiter).values())
    played_tournament.refresh_from_db()
    again = build_all(played_tournament, personas.arbiter, django_capture_on_commit_callbacks)
    for kind in WHOLE_SET:
        assert again[kind].pk != first[kind].pk
    assert "Yzeure" in text_of(again[Kind.RANKING])
    Tournament.objects.filter(pk=played_tournament.pk).update(name="Open de Moulins")
    assert all(out_of_date(played_tournament, personas.arbiter).values())


def test_a_club_renamed_a_licence_corrected_and_a_check_in_are_seen(played_tournament):
    player = Player.objects.filter(registrations__tournament=played_tournament).first()
    before = {kind: document_fingerprint(played_tournament, kind, "en") for kind in WHOLE_SET}
    player.licence = "0999999"
    player.save()
    after = {kind: document_fingerprint(played_tournament, kind, "en") for kind in WHOLE_SET}
    assert after[Kind.CHECK_IN_LIST] != before[Kind.CHECK_IN_LIST]
    assert after[Kind.ROUTE_CARDS] != before[Kind.ROUTE_CARDS]
    assert after[Kind.HAND_RECORDS] == before[Kind.HAND_RECORDS]
    player.club.name = "Tarot club de Vichy"
    player.club.save()
    assert document_fingerprint(played_tournament, Kind.RANKING, "en") != after[Kind.RANKING]
    registration = player.registrations.get(tournament=played_tournament)
    registration.checked_in_at = None
    registration.save()
    assert (
        document_fingerprint(played_tournament, Kind.CHECK_IN_LIST, "en")
        != (after[Kind.CHECK_IN_LIST])
    )


def test_a_seat_swap_and_the_language_and_site_url_are_inputs(played_tournament, settings):
    inputs = Inputs(played_tournament)
    route, sheets = (
        inputs.fingerprint(Kind.ROUTE_CARDS, "en"),
        inputs.fingerprint(Kind.SCORE_SHEETS, "en"),
    )
    assert inputs.fingerprint(Kind.ROUTE_CARDS, "fr") != route
    a, b = Seat.objects.filter(round__tournament=played_tournament, round__number=1)[:2]
    # Swapped by hand, the rows (and their ids) kept.
    spare = Player.objects.create(
        first_name="Temp", last_name="Spare", licence="0777777", club=played_tournament.club
    )
    Seat.objects.filter(pk=a.pk).update(player=spare)
    Seat.objects.filter(pk=b.pk).update(player=a.player)
    Seat.objects.filter(pk=a.pk).update(player=b.player)
    assert document_fingerprint(played_tournament, Kind.ROUTE_CARDS, "en") != route
    settings.SITE_URL = "https://tarot.example.org"
    assert document_fingerprint(played_tournament, Kind.TABLE_CARDS, "en") != (
        inputs.fingerprint(Kind.TABLE_CARDS, "en")
    )
    assert document_fingerprint(played_tournament, Kind.SCORE_SHEETS, "en") != sheets


def test_the_organiser_can_force_a_rebuild_of_an_up_to_date_document(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    def ask(**kw) -> Document:
        return document_request(
            tournament=played_tournament,
            kind=Kind.RANKING,
            language="en",
            user=personas.organiser,
            **kw,
        )

    with django_capture_on_commit_callbacks(execute=True):
        built = ask()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert ask().pk == built.pk
    assert callbacks == []
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        forced = ask(force=True)
    assert forced.pk != built.pk and len(callbacks) == 1
    forced.refresh_from_db()
    assert forced.status == Status.DONE
    assert not document_is_out_of_date(
        forced, current=document_fingerprint(played_tournament, Kind.RANKING, "en")
    )


def test_the_page_and_the_api_say_out_of_date_and_rebuild(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        built = document_request(
            tournament=played_tournament, kind=Kind.RANKING, language="en", user=personas.arbiter
        )
    client = client_for(personas.arbiter)
    api = f"/api/v1/tournaments/{played_tournament.pk}/documents/{built.pk}/"
    assert client.get(api).json()["out_of_date"] is False
    Player.objects.filter(penalties__tournament=played_tournament).update(last_name="Renommé")
    assert client.get(api).json()["out_of_date"] is True
    browser = Client()
    browser.force_login(personas.arbiter)
    page = browser.get(
        reverse("documents", args=[played_tournament.pk]) + "?lang=en", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert 'data-kind="ranking" data-part="0"\n  data-state="out_of_date"' in page
    # The page's "Build again" of an up-to-date document forces; through the API, `force`.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/api/v1/tournaments/{played_tournament.pk}/documents/",
            {"kind": "ranking", "language": "en"},
            format="json",
        )
    assert response.status_code == 202
    rebuilt = Document.objects.get(pk=response.json()["id"])
    assert "Renommé" in text_of(rebuilt)
    with django_capture_on_commit_callbacks(execute=True):
        same = client.post(
            f"/api/v1/tournaments/{played_tournament.pk}/documents/",
            {"kind": "ranking", "language": "en"},
            format="json",
        )
        forced = client.post(
            f"/api/v1/tournaments/{played_tournament.pk}/documents/",
            {"kind": "ranking", "language": "en", "force": True},
            format="json",
        )
    assert same.status_code == 200 and same.json()["id"] == rebuilt.pk
    assert forced.status_code == 202 and forced.json()["id"] != rebuilt.pk


def test_finishing_the_tournament_changes_what_says_provisional_or_confidential_only(
    played_tournament,
):
    before = {kind: document_fingerprint(played_tournament, kind, "en") for kind in WHOLE_SET}
    Tournament.objects.filter(pk=played_tournament.pk).update(status="finished")
    after = {kind: document_fingerprint(played_tournament, kind, "en") for kind in WHOLE_SET}
    changed = {kind for kind in WHOLE_SET if before[kind] != after[kind]}
    assert {Kind.RANKING, Kind.RESULTS_SUMMARY, Kind.HAND_RECORDS} <= changed
    assert not changed & {Kind.ROUTE_CARDS, Kind.TABLE_CARDS, Kind.CHECK_IN_LIST}
