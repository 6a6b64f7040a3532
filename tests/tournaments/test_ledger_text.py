"""The ledger in words, in the reader's language: the arbiter's ledger page, the API (codes
and words side by side) and the arbiter's log (PDF) read the same entries through
`tournaments.ledger_text`; reasons the software gave are stored as codes, never as text
translated when saved."""

from __future__ import annotations

import importlib
import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from scoring.documents.models import Document
from scoring.documents.services import document_render
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.documents.pdf import pdf_text
from tests.tournaments.test_card_checks import deal
from tests.tournaments.test_results_service import set_hands
from tournaments.ledger_text import entry_text
from tournaments.models import Donne, LedgerEntry, Round, Table, TableRound, Tournament
from tournaments.services.penalties import penalty_give, penalty_withdraw
from tournaments.services.preparation import seats_for_donne, tournament_generate
from tournaments.services.results import ResultInput, result_annul, result_save, round_open
from tournaments.services.table_entry import (
    Voucher,
    player_codes_get,
    table_access_issue,
    table_entry_confirm,
    table_entry_save,
)
from tournaments.services.tournaments import tournament_set_status, tournament_update

pytestmark = pytest.mark.django_db

NNBSP = "\u202f"
GARDE = ResultInput(status="played", taker="N", contract="garde", bouts=2, points=Decimal(50))
A = LedgerEntry.Action


def _cell(t: Tournament, table: int) -> tuple[Table, Donne, dict]:
    tr = TableRound.objects.get(round__tournament=t, round__number=1, table__number=table)
    donnes = sorted(Donne.objects.filter(etui_set=tr.etui_set), key=lambda d: d.number)
    return tr.table, donnes[0], seats_for_donne(tr, 0).hands


@pytest.fixture
def story(personas):
    """A tournament taken through every kind of change by the services, as people make them:
    an edit, a regeneration, a status change, a round opened, a table's entry confirmed by an
    opponent, an arbiter's entry corrected, an annulment, a penalty given and withdrawn."""
    t = stage_tournament(players=8, status=Tournament.Status.REGISTRATION, personas=personas)
    tournament_update(tournament=t, method="pairwise", user=personas.organiser)
    tournament_generate(tournament=t, user=personas.organiser)
    for donne in Donne.objects.filter(tournament=t):
        set_hands(donne, deal(N=["T21", "EX"]))
    tournament_set_status(tournament=t, status="running", user=personas.organiser)
    round_open(round_=Round.objects.get(tournament=t, number=1), user=personas.arbiter)
    table, donne, seats = _cell(t, 1)
    access = table_access_issue(table_round=TableRound.objects.get(table=table, round__number=1))
    table_entry_save(
        access=access,
        donne_number=donne.number,
        data=GARDE,
        voucher=Voucher(
            player_id=seats["N"].pk, code=player_codes_get(tournament=t)[seats["N"].pk]
        ),
        expected_version=None,
    )
    table_entry_confirm(
        access=access,
        donne_number=donne.number,
        voucher=Voucher(
            player_id=seats["W"].pk, code=player_codes_get(tournament=t)[seats["W"].pk]
        ),
        version=None,
    )
    table2, donne2, _seats2 = _cell(t, 2)
    arbiter = personas.arbiter
    first = result_save(
        tournament=t,
        table=table2,
        donne=donne2,
        data=ResultInput(status="all_passed"),
        user=arbiter,
        expected_version=None,
    )
    result_save(
        tournament=t,
        table=table2,
        donne=donne2,
        data=GARDE,
        user=arbiter,
        expected_version=first.version,
        reason="feuille de marque mal lue",
    )
    other = Donne.objects.filter(etui_set=donne2.etui_set).exclude(pk=donne2.pk).first()
    result_annul(
        tournament=t,
        table=table2,
        donne=other,
        user=arbiter,
        reason="étuis mélangés",
        expected_version=None,
    )
    penalty = penalty_give(tournament=t, player=seats["E"], kind="warning", user=arbiter)
    penalty_withdraw(penalty=penalty, user=arbiter, reason="erreur de joueur")
    return {"t": t, "entered": seats["N"], "confirmer": seats["W"]}


def expected(story: dict, language: str) -> list[str]:
    entered, confirmer = story["entered"], story["confirmer"]
    if language == "fr":
        return [
            f"Méthode{NNBSP}: écart à la moyenne → différence par paires",
            "Placement régénéré",
            f"Statut{NNBSP}: inscriptions → en cours",
            f"Tour 1{NNBSP}: pas commencé → ouvert",
            f"Saisi à la table par {entered}, confirmé par {confirmer}",
            "feuille de marque mal lue",
            "Donne annulée",
            "Pénalité retirée",
        ]
    return [
        "Method: difference from the average → pairwise difference",
        "Seating regenerated",
        "Status: registration → running",
        "Round 1: not started → open",
        f"Entered at the table by {entered}, confirmed by {confirmer}",
        "feuille de marque mal lue",
        "Donne annulled",
        "Penalty withdrawn",
    ]


def test_reasons_the_software_gives_are_stored_as_codes(story):
    t = story["t"]
    regenerated = LedgerEntry.objects.get(tournament=t, action=A.SEATING_GENERATED)
    assert (regenerated.reason, regenerated.reason_code) == ("", "seating_regenerated")
    with translation.override("fr"):
        assert entry_text(regenerated).reason == "Placement régénéré"
    with translation.override("en"):
        assert entry_text(regenerated).reason == "Seating regenerated"
    typed = LedgerEntry.objects.get(tournament=t, action=A.RESULT_CHANGED)
    assert (typed.reason, typed.reason_code) == ("feuille de marque mal lue", "")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_ledger_page_reads_in_the_readers_language(client, story, personas, language):
    client.force_login(personas.arbiter)
    url = reverse("arbiter_ledger", args=[story["t"].pk])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    for text in expected(story, language):
        assert text in html, text
    assert "status:" not in html and "round: 1; state" not in html


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_api_gives_codes_and_words(story, personas, language):
    api = APIClient()
    api.force_authenticate(personas.arbiter)
    path = f"/api/v1/tournaments/{story['t'].pk}/ledger/?action=status_changed,round_opened"
    body = api.get(path, HTTP_ACCEPT_LANGUAGE=language).json()["results"]
    status, opened = body
    assert status["action"] == "status_changed"
    change = status["changes"][0]
    assert (change["field"], change["before"], change["after"]) == (
        "status",
        "registration",
        "running",
    )
    words = expected(story, language)
    assert status["summary"] == words[2] and opened["summary"] == words[3]
    assert status["action_display"] == ("Statut changé" if language == "fr" else "Status changed")
    every = api.get(f"/api/v1/tournaments/{story['t'].pk}/ledger/", HTTP_ACCEPT_LANGUAGE=language)
    entries = every.json()["results"]
    confirmed = next(e for e in entries if e["action"] == "result_confirmed")
    assert confirmed["action_display"] == words[4]
    generated = next(e for e in entries if e["action"] == "seating_generated")
    assert generated["reason"] == "" and generated["reason_code"] == "seating_regenerated"
    assert generated["reason_display"] == words[1]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_arbiters_log_prints_the_same_words(story, language):
    document = Document(tournament=story["t"], kind=Document.Kind.ARBITER_LOG, language=language)
    (_name, _type, content), _renderer = document_render(document)
    text = re.sub(r"\s+", " ", pdf_text(content).replace(NNBSP, " "))
    for words in expected(story, language):
        assert words.replace(NNBSP, " ") in text, words


def test_reasons_saved_as_text_earlier_become_codes(story):
    """The data migration recognises the texts the software used to save, in both
    languages; anything else stays as typed."""
    migration = importlib.import_module("tournaments.migrations.0009_ledger_reason_codes")
    assert migration.code_of("régénéré", "seating_generated", False) == (
        "seating_regenerated",
        None,
    )
    assert migration.code_of("publié avec 3 résultat(s) manquant(s)", "status_changed", False) == (
        "published_missing",
        {"count": 3},
    )
    assert migration.code_of("published with 1 result(s) missing", "status_changed", False)[1] == {
        "count": 1
    }
    assert migration.code_of("Corrigé à la table par Ana", "result_created", True)[0] == (
        "table_entry"
    )
    assert migration.code_of("régénéré par erreur", "seating_generated", False) == ("", None)
    t = story["t"]
    entry = LedgerEntry.objects.filter(tournament=t, action=A.STATUS_CHANGED).first()
    LedgerEntry.objects.filter(pk=entry.pk).update(
        reason="publié avec 2 résultat(s) manquant(s)", reason_code=""
    )

    class Apps:
        @staticmethod
        def get_model(app: str, name: str):
            return LedgerEntry

    migration.forwards(Apps, None)
    entry.refresh_from_db()
    assert (entry.reason, entry.reason_code, entry.reason_params) == (
        "",
        "published_missing",
        {"count": 2},
    )
    with translation.override("en"):
        assert entry_text(entry).reason == "Published with 2 results missing"
    with translation.override("fr"):
        assert entry_text(entry).reason == "Publié avec 2 résultats manquants"
