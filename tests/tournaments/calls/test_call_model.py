"""The call's record (issue 34): one open call per table and donne, the selector a claim asks."""

from __future__ import annotations

import datetime

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from tests.tournaments.test_table_entry import holders, table_round
from tests.tournaments.test_table_entry import t as t
from tournaments.models import ArbiterCall, Donne, Irregularity
from tournaments.selectors import call_recorded_for

pytestmark = pytest.mark.django_db


def a_call(t, tr, donne, player, **extra) -> ArbiterCall:
    return ArbiterCall.objects.create(
        tournament=t,
        round=tr.round,
        table=tr.table,
        table_round=tr,
        donne=donne,
        irregularity=Irregularity.RENONCE,
        called_by=player,
        **extra,
    )


def test_call_recorded_for_sees_only_that_table_and_donne(t):
    tr = table_round(t)
    donnes = list(Donne.objects.filter(etui_set=tr.etui_set).order_by("number"))
    north = holders(t, 1, donnes[0].number)["N"]
    assert not call_recorded_for(t.pk, tr.table_id, donnes[0].pk)
    a_call(t, tr, donnes[0], north)
    assert call_recorded_for(t.pk, tr.table_id, donnes[0].pk)
    assert not call_recorded_for(t.pk, tr.table_id, donnes[1].pk)
    assert not call_recorded_for(t.pk, table_round(t, 2).table_id, donnes[0].pk)


def test_one_open_call_per_table_and_donne_but_a_ruled_one_leaves_room(t):
    tr = table_round(t)
    donne = Donne.objects.filter(etui_set=tr.etui_set).order_by("number").first()
    north = holders(t, 1, donne.number)["N"]
    first = a_call(t, tr, donne, north)
    with pytest.raises(IntegrityError), transaction.atomic():
        a_call(t, tr, donne, north)
    first.state = ArbiterCall.State.RULED
    first.save()
    a_call(t, tr, donne, north)


def test_called_at_is_the_phones_time_when_earlier_and_time_to_arbiter_counts_from_it(t):
    tr = table_round(t)
    donne = Donne.objects.filter(etui_set=tr.etui_set).order_by("number").first()
    now = timezone.now()
    call = a_call(
        t,
        tr,
        donne,
        holders(t, 1, donne.number)["N"],
        phone_time=now - datetime.timedelta(seconds=90),
        received_at=now,
    )
    assert call.called_at == call.phone_time and call.seconds_to_arbiter is None
    call.taken_at = now + datetime.timedelta(seconds=30)
    assert call.seconds_to_arbiter == 120.0
