"""Calling the arbiter and ruling the call (issue 34 points 1 and 2), as services: who may
call, what a call refuses, joining an open call, the phone's time, taking and every ruling
through the existing services, with the ledger linked and nothing half-saved."""

from __future__ import annotations

import datetime

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from tests.tournaments.test_results_service import GARDE_WON
from tests.tournaments.test_table_entry import by_code, holders
from tournaments.models import (
    ArbiterCall,
    LedgerEntry,
    Penalty,
    Result,
)
from tournaments.services.calls import (
    CallAlreadyRuled,
    CallInput,
    CallInvalid,
    CallRuling,
    call_make,
    call_rule,
    call_take,
    calls_open,
    calls_summary,
)
from tournaments.services.penalties import PenaltyInvalid
from tournaments.services.results import ResultInvalid
from tournaments.services.table_entry import Voucher

from .conftest import access_of, call, relais

pytestmark = pytest.mark.django_db


def test_a_player_of_the_table_calls_with_his_code_and_the_phones_time_is_kept(t):
    donne = relais(t)[1]
    sent = timezone.now() - datetime.timedelta(minutes=3)
    made = call(t, donne=donne, trick=7, phone_time=sent, irregularity="carte_exposee")
    assert made.state == "open" and made.trick == 7 and made.donne == donne
    assert made.phone_time == sent and made.received_at > sent and made.called_at == sent
    assert made.called_by == holders(t, 1, donne.number)["N"]
    assert made.round.number == 1 and made.table.number == 1


def test_a_phone_clock_hours_off_is_not_believed(t):
    made = call(t, phone_time=timezone.now() - datetime.timedelta(days=2))
    assert made.phone_time is None and made.called_at == made.received_at


def test_a_player_of_another_table_or_a_wrong_code_cannot_call(t):
    stranger = holders(t, 2, relais(t, 2)[0].number)["N"]
    data = CallInput(donne_number=relais(t)[0].number, irregularity="renonce")
    with pytest.raises(ResultInvalid) as refused:
        call_make(access=access_of(t), voucher=by_code(t, stranger), data=data)
    assert "player" in refused.value.errors
    north = holders(t, 1, relais(t)[0].number)["N"]
    wrong = "0000" if by_code(t, north).code != "0000" else "1111"
    with pytest.raises(ResultInvalid) as refused:
        call_make(access=access_of(t), voucher=Voucher(player_id=north.pk, code=wrong), data=data)
    assert "code" in refused.value.errors
    assert not ArbiterCall.objects.exists()


def test_a_donne_not_played_here_an_unknown_irregularity_and_other_without_note_are_named(t):
    other_table_donne = relais(t, 2)[0]
    assert other_table_donne.etui_set_id != relais(t)[0].etui_set_id
    with pytest.raises(CallInvalid) as refused:
        call(t, donne=other_table_donne)
    assert refused.value.errors["donne"] == [
        f"Donne {other_table_donne.number} is not played at this table in this round."
    ]
    with pytest.raises(CallInvalid) as refused:
        call(t, irregularity="triche", trick=19)
    assert "triche" in refused.value.errors["irregularity"][0]
    assert "trick" in refused.value.errors
    with pytest.raises(CallInvalid) as refused:
        call(t, irregularity="autre")
    assert "note" in refused.value.errors
    assert call(t, irregularity="autre", note="Carte tombée").note == "Carte tombée"
    assert ArbiterCall.objects.count() == 1


def test_a_second_call_on_the_same_donne_while_open_joins_it_and_a_resend_is_one_call(t):
    first = call(t, seat="N")
    data = CallInput(donne_number=first.donne.number, irregularity="hesitation")
    east = holders(t, 1, first.donne.number)["E"]
    joined, was_open = call_make(access=access_of(t), voucher=by_code(t, east), data=data)
    assert was_open and joined.pk == first.pk and joined.joins == 1
    again = call(t, donne=relais(t)[1], client_ref="abc123")
    same = call(t, donne=relais(t)[1], client_ref="abc123")
    assert same.pk == again.pk and ArbiterCall.objects.count() == 2


def test_only_the_arbiter_takes_and_rules(t, personas):
    made = call(t)
    for user in (personas.stranger, personas.player_user):
        with pytest.raises(PermissionDenied):
            call_take(call=made, user=user)
        with pytest.raises(PermissionDenied):
            call_rule(call=made, user=user, ruling=CallRuling(ruling="none"))
    taken = call_take(call=made, user=personas.arbiter)
    assert taken.state == "en_route" and taken.taken_by == personas.arbiter
    assert taken.seconds_to_arbiter is not None


def test_no_irregularity_is_in_the_ledger_and_a_second_ruling_is_refused(t, personas):
    made = call(t)
    ruled = call_rule(
        call=made, user=personas.arbiter, ruling=CallRuling(ruling="none", note="Jeu régulier")
    )
    assert ruled.state == "ruled" and ruled.ruling == "none"
    entry = ruled.ledger_entry
    assert entry.action == LedgerEntry.Action.CALL_RULED and entry.reason == "Jeu régulier"
    with pytest.raises(CallAlreadyRuled) as refused:
        call_rule(call=made, user=personas.arbiter, ruling=CallRuling(ruling="warning"))
    assert f"Call {made.pk}" in refused.value.errors["call"][0]
    with pytest.raises(CallAlreadyRuled):
        call_take(call=made, user=personas.arbiter)
    # A new call on the donne is possible once the first is ruled.
    assert call(t).pk != made.pk


def test_a_penalty_from_the_catalogue_on_the_named_player_is_linked(t, personas):
    made = call(t)
    west = holders(t, 1, made.donne.number)["W"]
    ruled = call_rule(
        call=made,
        user=personas.arbiter,
        ruling=CallRuling(ruling="penalty", player=west, kind="early_pickup"),
    )
    penalty = ruled.penalty
    assert penalty.points == 100 and penalty.player == west and penalty.donne == made.donne
    assert ruled.ledger_entry.penalty == penalty
    assert ruled.ledger_entry.action == LedgerEntry.Action.PENALTY_GIVEN


def test_a_warning_is_a_penalty_of_nothing(t, personas):
    made = call(t)
    north = holders(t, 1, made.donne.number)["N"]
    ruled = call_rule(
        call=made, user=personas.arbiter, ruling=CallRuling(ruling="warning", player=north)
    )
    assert ruled.penalty.kind == Penalty.Kind.WARNING and ruled.penalty.points == 0


def test_a_refused_penalty_saves_nothing(t, personas):
    made = call(t)
    north = holders(t, 1, made.donne.number)["N"]
    with pytest.raises(PenaltyInvalid) as refused_penalty:  # "other" without its points
        call_rule(
            call=made,
            user=personas.arbiter,
            ruling=CallRuling(ruling="penalty", player=north, kind="other"),
        )
    assert "points" in refused_penalty.value.errors
    made.refresh_from_db()
    assert made.state == "open" and not Penalty.objects.exists()
    with pytest.raises(CallInvalid) as refused:
        call_rule(call=made, user=personas.arbiter, ruling=CallRuling(ruling="pardon"))
    assert "ruling" in refused.value.errors


def test_an_annulment_and_a_score_go_through_the_results_services(t, personas):
    first, second = relais(t)[:2]
    annulled = call_rule(
        call=call(t, donne=first),
        user=personas.arbiter,
        ruling=CallRuling(ruling="annulment", note="Étui mal replacé, jeux mélangés"),
    )
    assert annulled.result.status == Result.Status.ANNULLED
    assert annulled.ledger_entry.action == LedgerEntry.Action.RESULT_ANNULLED
    assert annulled.ledger_entry.result == annulled.result
    made = call(t, donne=second)
    with pytest.raises(ResultInvalid):  # an annulment needs its reason: nothing saved
        call_rule(call=made, user=personas.arbiter, ruling=CallRuling(ruling="annulment"))
    made.refresh_from_db()
    assert made.state == "open" and not Result.objects.filter(donne=second).exists()
    scored = call_rule(
        call=made,
        user=personas.arbiter,
        ruling=CallRuling(ruling="score", data=GARDE_WON, note="Renonce: score de l’arbitre"),
    )
    assert scored.result.entry_status == "arbiter" and scored.result.scores
    assert scored.ledger_entry.action == LedgerEntry.Action.RESULT_CREATED


def test_the_queue_is_oldest_first_by_the_phones_time_and_the_summary_counts(t, personas):
    late = call(t, donne=relais(t)[0])
    early = call(
        t,
        donne=relais(t)[1],
        irregularity="faux_ecart",
        phone_time=timezone.now() - datetime.timedelta(minutes=5),
    )
    assert [c.pk for c in calls_open(tournament=t)] == [early.pk, late.pk]
    call_take(call=early, user=personas.arbiter)
    call_rule(call=late, user=personas.arbiter, ruling=CallRuling(ruling="none"))
    summary = calls_summary(tournament=t)
    assert summary.total == 2 and summary.mean_seconds is not None
    assert sorted(summary.by_kind) == [("Faux écart", 1), ("Revoke", 1)]
    assert summary.mean_seconds >= 150  # the early call waited five minutes


def test_another_tables_call_id_never_answers_that_call(t):
    """A hostile phone sends the id (``ref``) of a call made at another table: it gets a call
    of its own, never the other table's (its state, its ruling's note)."""
    theirs = call(t, table=2, client_ref="ref-of-table-2")
    mine = call(t, table=1, client_ref="ref-of-table-2")
    assert mine.pk != theirs.pk and mine.table.number == 1 and mine.client_ref == ""
    assert ArbiterCall.objects.count() == 2


def test_a_ruling_names_a_player_of_the_calls_table(t, personas):
    made = call(t)
    stranger = holders(t, 2, relais(t, 2)[0].number)["N"]  # registered, at another table
    for ruling in ("warning", "penalty"):
        with pytest.raises(CallInvalid) as refused:
            call_rule(
                call=made,
                user=personas.arbiter,
                ruling=CallRuling(ruling=ruling, player=stranger, kind="early_pickup"),
            )
        assert "table 1" in refused.value.errors["player"][0]
    made.refresh_from_db()
    assert made.state == "open" and not Penalty.objects.exists()


def test_a_phone_bound_at_another_table_cannot_call_from_this_one(t):
    """A hostile player opens another table's page on his bound phone: his binding is for
    his own table and round only; the call is refused and nothing is saved."""
    from tests.tournaments.test_table_entry import PHONE_N
    from tournaments.services.table_entry import player_binding_issue

    stranger = holders(t, 2, relais(t, 2)[0].number)["N"]
    token = player_binding_issue(access=access_of(t, 2), player=stranger, phone=PHONE_N)
    assert token
    data = CallInput(donne_number=relais(t)[0].number, irregularity="renonce")
    with pytest.raises(ResultInvalid) as refused:
        call_make(access=access_of(t), voucher=Voucher(binding=token), data=data)
    assert "binding" in refused.value.errors and not ArbiterCall.objects.exists()
    mine, _joined = call_make(
        access=access_of(t, 2),
        voucher=Voucher(binding=token),
        data=CallInput(donne_number=relais(t, 2)[0].number, irregularity="renonce"),
    )
    assert mine.called_by == stranger and mine.table.number == 2


def test_a_bad_call_names_the_missing_code_too(t):
    """ "Other" without a note and no code: both are said at once, the player at the table
    fixes everything in one go; nothing is saved."""
    north = holders(t, 1, relais(t)[0].number)["N"]
    data = CallInput(donne_number=relais(t)[0].number, irregularity="autre")
    with pytest.raises(CallInvalid) as refused:
        call_make(access=access_of(t), voucher=Voucher(player_id=north.pk), data=data)
    assert {"note", "code"} <= set(refused.value.errors)
    assert not ArbiterCall.objects.exists()
