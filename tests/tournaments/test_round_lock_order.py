"""Opening and closing a round at the same moment never deadlocks (issue 30.7 b).

Every change of a round's state locks the tournament, then the round (`lock_round`); before,
opening locked the tournament then the round while closing locked the round then (its
ledger line's key) the tournament, and PostgreSQL broke the cycle by failing one of them (a
503 on the site). The race is run on PostgreSQL, each pair on two connections.
"""

from __future__ import annotations

import itertools
import threading

import pytest
from django.db import connection

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Donne, LedgerEntry, Round, TableRound
from tournaments.services.checks import WARNING_CODES
from tournaments.services.results import ResultInput, result_save, round_close, round_open

PAIRS = 25


def complete_round_1(t, user) -> Round:
    """Every result of round 1 (all passed): it may be closed."""
    round_1 = Round.objects.get(tournament=t, number=1)
    for tr in TableRound.objects.filter(round=round_1).select_related("table"):
        for donne in Donne.objects.filter(etui_set_id=tr.etui_set_id):
            result_save(
                tournament=t,
                table=tr.table,
                donne=donne,
                data=ResultInput(status="all_passed"),
                user=user,
                expected_version=None,
                confirmed=WARNING_CODES,
            )
    return round_1


@pytest.mark.django_db(transaction=True)
def test_opening_and_closing_the_same_round_at_once_never_fail(personas) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks across connections: PostgreSQL")
    t = stage_tournament(personas=personas)
    round_1 = complete_round_1(t, personas.arbiter)
    failures: list[BaseException] = []

    def run(action, start: threading.Barrier) -> None:
        try:
            start.wait(10)
            action(round_=Round.objects.select_related("tournament").get(pk=round_1.pk))
        except BaseException as exc:  # ResultInvalid included: the round is complete
            failures.append(exc)
        finally:
            connection.close()

    for _ in range(PAIRS):
        start = threading.Barrier(2)
        threads = [
            threading.Thread(
                target=run, args=(lambda **kw: round_close(user=personas.arbiter, **kw), start)
            ),
            threading.Thread(
                target=run, args=(lambda **kw: round_open(user=personas.organiser, **kw), start)
            ),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert failures == []
    # Every change that happened is in the ledger: 2 lines per pair at most, each a real
    # change of state, alternating.
    lines = list(
        LedgerEntry.objects.filter(
            tournament=t,
            round=round_1,
            action__in=[LedgerEntry.Action.ROUND_OPENED, LedgerEntry.Action.ROUND_CLOSED],
        ).values_list("after__state", flat=True)
    )
    assert all(a != b for a, b in itertools.pairwise(lines))
