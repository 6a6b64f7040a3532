"""Shared helpers of the calls' tests: a running tournament with dealt hands, a table page, and
a call made the way a player makes it."""

from __future__ import annotations

import pytest
from django.utils import translation

from tests.tournaments.test_table_entry import by_code, holders, table_round
from tests.tournaments.test_table_entry import t as t
from tournaments.models import ArbiterCall, Donne, TableAccess
from tournaments.services.calls import CallInput, call_make
from tournaments.services.table_entry import table_access_issue


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def relais(t, table: int = 1) -> list[Donne]:
    """The donnes table ``table`` plays in round 1, in order."""
    tr = table_round(t, table)
    return list(Donne.objects.filter(etui_set=tr.etui_set).order_by("number"))


def access_of(t, table: int = 1) -> TableAccess:
    return table_access_issue(table_round=table_round(t, table))


def call(t, table: int = 1, donne: Donne | None = None, seat: str = "N", **extra) -> ArbiterCall:
    """A call from ``table`` about ``donne`` (its first by default), by the player at ``seat``
    with his code."""
    donne = donne or relais(t, table)[0]
    player = holders(t, table, relais(t, table)[0].number)[seat]
    data = CallInput(
        donne_number=donne.number,
        irregularity=extra.pop("irregularity", "renonce"),
        **extra,
    )
    made, _joined = call_make(access=access_of(t, table), voucher=by_code(t, player), data=data)
    return made
