"""A result write whose checks saw the round open (or the tournament started) is refused by
the write itself when the round was closed (or the tournament set back) in between: the
checks read before the transaction, the results version's bump inside it is conditional.

The checks are made to read a state that is no longer the database's by handing the write a
context (`result_cell`, as the API does) read before the change; on PostgreSQL a second
connection closes the round while the write runs.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import close_old_connections, connection, transaction
from django.utils import translation

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import LedgerEntry, Result, Round, Tournament
from tournaments.services.checks import WARNING_CODES
from tournaments.services.results import (
    ResultInput,
    ResultInvalid,
    result_annul,
    result_cell,
    result_save,
)

GARDE = ResultInput(status="played", taker="N", contract="garde", bouts=2, points=50)
PRISE = ResultInput(status="played", taker="N", contract="prise", bouts=2, points=50)


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def cell(t: Tournament, donne: int = 1, *, correcting: bool = False):
    ctx = result_cell(tournament=t, table_number=1, donne_number=donne, correcting=correcting)
    assert ctx is not None
    return ctx


def save(t: Tournament, user, ctx, data=GARDE, version=None, reason: str = ""):
    # In a transaction of its own, as the API's writes (the test's is left usable).
    with transaction.atomic():
        return _save(t, user, ctx, data, version, reason)


def _save(t: Tournament, user, ctx, data, version, reason: str):
    return result_save(
        tournament=t,
        table=ctx.table,
        donne=ctx.donne,
        data=data,
        user=user,
        expected_version=version,
        reason=reason,
        confirmed=WARNING_CODES,
        context=ctx,
    )


def written(t: Tournament) -> tuple[int, int, int]:
    return (
        Result.objects.filter(tournament=t).count(),
        LedgerEntry.objects.filter(tournament=t).count(),
        Tournament.objects.get(pk=t.pk).results_version,
    )


def close(round_: Round) -> None:
    """A closing committed by someone else since the checks read the round."""
    Round.objects.filter(pk=round_.pk).update(state=Round.State.CLOSED)


@pytest.mark.django_db
class TestStaleChecks:
    def test_control_the_same_path_writes_when_nothing_changed(self, personas) -> None:
        t = stage_tournament(personas=personas)
        before = written(t)
        save(t, personas.arbiter, cell(t))
        count, ledger, version = written(t)
        assert (count, ledger, version) == (before[0] + 1, before[1] + 1, before[2] + 1)

    def test_creation_in_a_round_closed_since_the_checks(self, personas) -> None:
        t = stage_tournament(personas=personas)
        save(t, personas.arbiter, cell(t, 2))  # the round is open, as when it gets closed
        ctx = cell(t)
        assert ctx.round.state == Round.State.OPEN
        close(ctx.round)
        before = written(t)
        with pytest.raises(ResultInvalid, match="Round 1 is closed"):
            save(t, personas.arbiter, ctx)
        assert written(t) == before
        assert Round.objects.get(pk=ctx.round.pk).state == Round.State.CLOSED

    def test_creation_that_would_open_a_pending_round_closed_since(self, personas) -> None:
        t = stage_tournament(personas=personas)
        ctx = cell(t)
        assert ctx.round.state == Round.State.PENDING
        close(ctx.round)
        before = written(t)
        with pytest.raises(ResultInvalid, match="Round 1 is closed"):
            save(t, personas.arbiter, ctx)
        assert written(t) == before
        assert Round.objects.get(pk=ctx.round.pk).state == Round.State.CLOSED

    def test_correction_in_a_round_closed_since_the_checks(self, personas) -> None:
        t = stage_tournament(personas=personas)
        first = save(t, personas.arbiter, cell(t))
        ctx = cell(t, correcting=True)
        close(ctx.round)
        before = written(t)
        with pytest.raises(ResultInvalid, match="Round 1 is closed"):
            save(t, personas.arbiter, ctx, PRISE, version=1, reason="sheet misread")
        assert written(t) == before
        kept = Result.objects.get(pk=first.pk)
        assert (kept.version, kept.contract) == (1, "garde")

    def test_annulment_in_a_round_closed_since_the_checks(self, personas) -> None:
        t = stage_tournament(personas=personas)
        save(t, personas.arbiter, cell(t, 2))
        ctx = cell(t)
        close(ctx.round)
        before = written(t)
        with pytest.raises(ResultInvalid, match="Round 1 is closed"), transaction.atomic():
            result_annul(
                tournament=t,
                table=ctx.table,
                donne=ctx.donne,
                user=personas.arbiter,
                reason="étuis mixed",
                expected_version=None,
                context=ctx,
            )
        assert written(t) == before

    def test_tournament_set_back_to_registration_since_the_checks(self, personas) -> None:
        t = stage_tournament(personas=personas)
        ctx = cell(t)
        Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.REGISTRATION)
        before = written(t)
        with pytest.raises(ResultInvalid, match="has not started"):
            save(t, personas.arbiter, ctx)  # `t` still says running
        assert written(t) == before


@pytest.mark.django_db(transaction=True)
def test_closing_in_progress_on_another_connection(personas) -> None:
    """PostgreSQL: a closing that holds the round (not committed yet) when the write reaches
    its last statement makes the write wait, then refuse once the closing commits."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks across connections: PostgreSQL")
    t = stage_tournament(personas=personas)
    save(t, personas.arbiter, cell(t, 2))
    ctx = cell(t)
    before = written(t)
    locked, release = threading.Event(), threading.Event()
    outcome: dict[str, BaseException | None] = {}

    def closing() -> None:
        try:
            with transaction.atomic():
                Round.objects.select_for_update().get(pk=ctx.round.pk)
                Round.objects.filter(pk=ctx.round.pk).update(state=Round.State.CLOSED)
                locked.set()
                release.wait(30)
        finally:
            close_old_connections()
            connection.close()

    def writing() -> None:
        try:
            with translation.override("en"):
                save(t, personas.arbiter, ctx)
            outcome["error"] = None
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            connection.close()

    closer = threading.Thread(target=closing)
    closer.start()
    assert locked.wait(30)
    writer = threading.Thread(target=writing)
    writer.start()
    waiting = False
    for _ in range(300):  # until the write waits for the round's lock (bounded)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            )
            waiting = cursor.fetchone()[0] == 1
        if waiting or not writer.is_alive():
            break
        time.sleep(0.05)
    release.set()
    closer.join(30)
    writer.join(30)
    assert waiting, "the write did not wait for the closing's lock on the round"
    assert isinstance(outcome["error"], ResultInvalid), outcome
    assert "Round 1 is closed" in str(outcome["error"].errors)
    assert written(t) == before


@pytest.mark.django_db(transaction=True)
def test_closing_waits_for_a_result_being_written_then_counts_it(personas) -> None:
    """PostgreSQL: the closing locks the round before it counts the results, so the last result,
    written on another connection that holds the round, is counted once committed: the round
    closes instead of being refused for a result that was already on its way."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks across connections: PostgreSQL")
    from tournaments.services.results import round_close

    t = stage_tournament(personas=personas)
    cells = [
        result_cell(tournament=t, table_number=table, donne_number=donne, correcting=False)
        for table, donnes in ((1, range(1, 5)), (2, range(5, 9)))
        for donne in donnes
    ]
    for ctx in cells[:-1]:
        save(t, personas.arbiter, ctx)
    last = cells[-1]
    locked, release = threading.Event(), threading.Event()
    outcome: dict[str, BaseException | None] = {}

    def writing() -> None:
        try:
            with transaction.atomic():
                Round.objects.select_for_update().get(pk=last.round.pk)
                _save(t, personas.arbiter, last, GARDE, None, "")
                locked.set()
                release.wait(30)
        finally:
            connection.close()

    def closing() -> None:
        try:
            with translation.override("en"):
                round_close(round_=Round.objects.get(pk=last.round.pk), user=personas.arbiter)
            outcome["error"] = None
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            connection.close()

    writer = threading.Thread(target=writing)
    writer.start()
    assert locked.wait(30)
    closer = threading.Thread(target=closing)
    closer.start()
    waiting = False
    for _ in range(300):  # until the closing waits for the round's lock (bounded)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock' AND query LIKE '%%FOR UPDATE%%'"
            )
            waiting = cursor.fetchone()[0] == 1
        if waiting or not closer.is_alive():
            break
        time.sleep(0.05)
    release.set()
    writer.join(30)
    closer.join(30)
    assert waiting, "the closing did not wait for the round's lock"
    assert outcome["error"] is None, outcome
    assert Round.objects.get(pk=last.round.pk).state == Round.State.CLOSED
