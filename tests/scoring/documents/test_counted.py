"""Printed documents count what the ranking counts: a result entered at a table's page stays out
of the score cards' averages, the donne results, the results summary and the ranking's
"after round N" until an opponent confirms it (`Result.objects.counted()`), and the documents
go out of date when the confirmation arrives."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from scoring.documents.data import donne_averages, result_details
from scoring.documents.fingerprint import document_fingerprint
from scoring.documents.models import Document
from scoring.documents.ranking import rounds_complete
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import EntryStatus, Result, TableRound, Tournament
from tournaments.services.preparation import donne_index, seats_for_donne
from tournaments.services.results import ResultInput
from tournaments.services.table_entry import (
    Voucher,
    player_codes_get,
    table_access_issue,
    table_entry_confirm,
    table_entry_save,
)

from .test_details import render, save

pytestmark = pytest.mark.django_db

Kind = Document.Kind
GARDE = ResultInput(status="played", taker="N", contract="garde", bouts=2, points=Decimal(60))


def summary_played(tournament: Tournament) -> str:
    text = render(tournament, Kind.RESULTS_SUMMARY)
    return text.split(" players · ")[1].split(" donnes played")[0]


def test_a_result_awaiting_confirmation_is_left_out_of_the_documents_until_confirmed(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    table_rounds = list(
        TableRound.objects.filter(round__tournament=tournament)
        .select_related("table", "etui_set")
        .order_by("table__number")
    )
    # A donne both tables play in round 1, and another one.
    first, second = table_rounds
    shared = sorted(
        set(first.etui_set.donnes.values_list("number", flat=True))
        & set(second.etui_set.donnes.values_list("number", flat=True))
    )
    assert len(shared) >= 2, "both tables play the same étui set in a single round"
    compared, lonely = (tournament.donnes.get(number=n) for n in shared[:2])
    # Table 1: the arbiter enters every donne but `lonely`; table 2 enters `compared` and
    # `lonely` at its page (all passed), the arbiter the others.
    for tr in table_rounds:
        for donne in tr.etui_set.donnes.order_by("number"):
            if tr is second and donne in (compared, lonely):
                continue
            if tr is first and donne == lonely:
                continue
            data = GARDE if tr is first else ResultInput(status="all_passed")
            save(tournament, tr.table, donne, data, personas.arbiter)
    access = table_access_issue(table_round=second)
    entered = {}
    for donne in (compared, lonely):
        hands = seats_for_donne(second, donne_index(second, donne)).hands
        entered[donne], _player = table_entry_save(
            access=access,
            donne_number=donne.number,
            data=ResultInput(status="all_passed"),
            voucher=Voucher(
                player_id=hands["N"].pk,
                code=player_codes_get(tournament=tournament)[hands["N"].pk],
            ),
            expected_version=None,
        )
        assert entered[donne].entry_status == EntryStatus.AWAITING
    tournament.refresh_from_db()
    donnes = tournament.donnes.count()

    # Only the arbiter's results count: `lonely` is not played anywhere yet.
    assert summary_played(tournament) == f"{donnes - 1} of {donnes}"
    save(tournament, first.table, lonely, GARDE, personas.arbiter)
    tournament.refresh_from_db()
    taker_score = Result.objects.get(table=first.table, donne=compared).score_of("N")
    averages = donne_averages(tournament)
    assert averages[(compared.pk, "N")] == Fraction(taker_score)
    assert (compared.pk, second.table.number) not in result_details(tournament)
    assert (lonely.pk, second.table.number) not in result_details(tournament)
    assert rounds_complete(tournament) == (0, 1)  # two cells of round 1 await confirmation
    before = document_fingerprint(tournament, Kind.SCORE_CARDS, "en")

    # An opponent of the camp who entered them confirms both: now they count everywhere.
    codes = player_codes_get(tournament=tournament)
    for donne, result in entered.items():
        east = seats_for_donne(second, donne_index(second, donne)).hands["E"]
        table_entry_confirm(
            access=access,
            donne_number=donne.number,
            voucher=Voucher(player_id=east.pk, code=codes[east.pk]),
            version=result.version,
        )
    tournament.refresh_from_db()
    assert document_fingerprint(tournament, Kind.SCORE_CARDS, "en") != before
    averages = donne_averages(tournament)
    assert averages[(compared.pk, "N")] == Fraction(taker_score, 2)
    details = result_details(tournament)
    assert details[(compared.pk, second.table.number)].pk == entered[compared].pk
    assert (lonely.pk, second.table.number) in details
    assert rounds_complete(tournament) == (1, 1)
    assert summary_played(tournament) == f"{donnes} of {donnes}"
