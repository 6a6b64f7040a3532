"""Two arbiters rule the same call at once (issue 34, "a ruling on a call already ruled"): on
PostgreSQL the second ruling waits for the first's lock on the call, then is refused with the
ruling already made; one ruling, one ledger line, one penalty, nothing half-saved."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction
from django.utils import translation

from tests.tournaments.test_table_entry import holders
from tournaments.models import ArbiterCall, LedgerEntry, Penalty
from tournaments.services.calls import CallAlreadyRuled, CallRuling, call_rule

from .conftest import call


def lock_waits() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_two_arbiters_ruling_at_once_make_one_ruling(t, personas) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("row locks across connections: PostgreSQL")
    made = call(t)
    west = holders(t, 1, made.donne.number)["W"]
    ruling_held, release = threading.Event(), threading.Event()
    outcome: dict[str, BaseException | None] = {}

    def first() -> None:  # rules, and holds its transaction open until released
        try:
            with translation.override("en"), transaction.atomic():
                call_rule(
                    call=made,
                    user=personas.arbiter,
                    ruling=CallRuling(ruling="penalty", player=west, kind="early_pickup"),
                )
                ruling_held.set()
                release.wait(30)
        finally:
            connection.close()

    def second() -> None:
        try:
            with translation.override("en"):
                call_rule(
                    call=made,
                    user=personas.organiser,
                    ruling=CallRuling(ruling="none", note="Rien à signaler"),
                )
            outcome["error"] = None
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            connection.close()

    one = threading.Thread(target=first)
    one.start()
    assert ruling_held.wait(30)
    two = threading.Thread(target=second)
    two.start()
    waited = False
    for _ in range(300):  # until the second ruling waits for the call's lock (bounded)
        waited = lock_waits() >= 1
        if waited or not two.is_alive():
            break
        time.sleep(0.05)
    release.set()
    one.join(30)
    two.join(30)
    assert waited, "the second ruling did not wait for the first's lock on the call"
    assert isinstance(outcome["error"], CallAlreadyRuled), outcome
    assert "already ruled" in outcome["error"].errors["call"][0]
    made.refresh_from_db()
    assert made.ruling == "penalty" and made.ruled_by == personas.arbiter
    assert Penalty.objects.count() == 1
    assert not LedgerEntry.objects.filter(action=LedgerEntry.Action.CALL_RULED).exists()
    assert ArbiterCall.objects.count() == 1
