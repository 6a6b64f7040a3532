"""The state of a derived ranking, one row per subject (a tournament, a simultaneous event),
and the bookkeeping on it that lets web processes and workers coalesce computations through
the database (so that it still works when Redis is down).

`DerivedState` is abstract: every kind of derived ranking has its own table deriving from it
(`scoring.rankings.models.RankingState`, the hub's `OverallRankingState`), keyed by its
subject (the primary key is the subject's id). The functions below take the concrete model
and the subject's id; `scoring.rankings.derived` calls them for every kind alike.

Every time kept here comes from the database's clock, so web hosts and workers whose own
clocks drift still agree on what is recent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import models
from django.db.models import (
    Case,
    DateTimeField,
    Exists,
    ExpressionWrapper,
    F,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Now


class DerivedState(models.Model):
    """The bookkeeping of one subject's derived ranking.

    - `stale_since`: the first change not yet in the stored ranking (None: it is current);
    - `queued_at`: a task is queued and has not started (the claim: one queued task per
      subject; later changes need no new task, it reads the newest version when it starts).
      A claim older than the subject's claim timeout is void;
    - `started_at`: when the last computation started; spaces computations out (coalescing);
    - `computations`: how many computations stored something; `last_error`: the last
      failure's message, for the pages.

    The version the stored ranking reflects is the subject's own (a tournament's snapshots
    carry it; the hub's state has a `results_version` column).
    """

    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    stale_since = models.DateTimeField(null=True, blank=True)
    computations = models.PositiveIntegerField(default=0)
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        abstract = True


State = type[DerivedState]


@dataclass(frozen=True)
class TaskClock:
    """The coalescing clock as a task moved it: when it started, and the value before."""

    previous: datetime | None
    started: datetime


def database_time_minus(seconds: float) -> ExpressionWrapper:
    """The database's time less `seconds`, as an expression (compared in the database)."""
    return ExpressionWrapper(Now() - timedelta(seconds=seconds), output_field=DateTimeField())


def state_ensure(state: State, pk: int) -> None:
    """The subject's state row exists (created empty if not; a race is harmless). A subject
    whose row needs more than its id (a club season) creates it before any of these calls."""
    state.objects.bulk_create([state(pk=pk)], ignore_conflicts=True)


def mark_stale(
    state: State, pk: int, *, claim_timeout: timedelta
) -> tuple[datetime | None, bool, datetime]:
    """Note that the subject has a change not yet ranked; return (started_at of the last
    computation, whether a queued task already holds the claim, the database's time)."""
    row = (
        state.objects.filter(pk=pk)
        .annotate(db_now=Now())
        .values_list("started_at", "queued_at", "stale_since", "db_now")
        .first()
    )
    if row is None:  # the subject's first change: its row, then the same steps
        state_ensure(state, pk)
        return mark_stale(state, pk, claim_timeout=claim_timeout)
    started_at, queued_at, stale_since, now = row
    if stale_since is None:
        state.objects.filter(pk=pk, stale_since__isnull=True).update(stale_since=now)
    return started_at, queued_at is not None and queued_at >= now - claim_timeout, now


def mark_stale_and_claim(
    state: State, pk: int, *, claim_timeout: timedelta
) -> tuple[datetime | None, bool, datetime]:
    """`mark_stale`, then claim the right to queue a task (one queued task per subject): the
    stale mark and the claim go in one UPDATE when both are to do (every change after a
    computation started). Returns (started_at, whether this call holds the claim, now)."""
    rows = list(
        state.objects.filter(pk=pk)
        .annotate(db_now=Now())
        .values_list("started_at", "queued_at", "stale_since", "db_now")
    )
    if not rows:
        state_ensure(state, pk)
        return mark_stale_and_claim(state, pk, claim_timeout=claim_timeout)
    started_at, queued_at, stale_since, now = rows[0]
    claimed = False
    if queued_at is None or queued_at < now - claim_timeout:
        free = Q(queued_at__isnull=True) | Q(queued_at__lt=now - claim_timeout)
        changes: dict[str, Any] = {"queued_at": now}
        if stale_since is None:
            changes["stale_since"] = Coalesce(F("stale_since"), Value(now))
        claimed = state.objects.filter(free, pk=pk).update(**changes) == 1
        stale_since = stale_since if not claimed else now
    if stale_since is None:
        state.objects.filter(pk=pk, stale_since__isnull=True).update(stale_since=now)
    return started_at, claimed, now


def note_computed(
    state: State,
    pk: int,
    *,
    moved_on: QuerySet[Any],
    read_at: datetime | None,
    computed: bool,
    changes: dict[str, Any] | None = None,
) -> None:
    """After a computation: count it (when `computed`), clear `last_error`, set the subject's
    own `changes`, and clear `stale_since` unless the subject moved on meanwhile (`moved_on`:
    a queryset that finds a row when it did), decided by the database in the same UPDATE so
    that no change can slip between.

    When it moved on, the changes this computation did not see were committed after its
    read (`read_at`, the database's time of it, when known): `stale_since` becomes that time,
    unless it is later already. Keeping the first change's time instead would, while changes
    keep coming (each computation a little behind), make the ranking look stale for ever."""
    later = Exists(moved_on)
    if read_at is not None:
        since = Value(read_at, output_field=DateTimeField())
        later_since = [When(later & Q(stale_since__lt=read_at), then=since)]
    else:
        later_since = []
    update: dict[str, Any] = {
        "stale_since": Case(*later_since, When(later, then=F("stale_since")), default=Value(None)),
        "last_error": "",
        **(changes or {}),
    }
    if computed:
        update["computations"] = F("computations") + 1
    if state.objects.filter(pk=pk).update(**update):
        return
    state.objects.bulk_create([state(pk=pk, computations=int(computed))], ignore_conflicts=True)
    if changes:
        state.objects.filter(pk=pk).update(**changes)


def claim_queue(state: State, pk: int, *, now: datetime, claim_timeout: timedelta) -> bool:
    """Claim the right to queue a task (one queued task per subject at a time)."""
    free = Q(queued_at__isnull=True) | Q(queued_at__lt=now - claim_timeout)
    return state.objects.filter(free, pk=pk).update(queued_at=now) == 1


def release_queue(state: State, pk: int, *, claimed_at: datetime) -> None:
    """Give the claim back when the task could not be queued (broker down)."""
    state.objects.filter(pk=pk, queued_at=claimed_at).update(queued_at=None)


def task_started(state: State, pk: int) -> TaskClock:
    """A task starts: changes from now on need a new task (the claim is released), and that
    task waits the subject's minimum interval from now, since this one may be about to
    compute. The clock's previous value is returned: a computation that then finds its
    ranking already stored puts it back (`clock_given_back`), so it delays nobody."""
    row = (
        state.objects.filter(pk=pk)
        .annotate(db_now=Now())
        .values_list("started_at", "db_now")
        .first()
    )
    if row is None:
        state_ensure(state, pk)
        return task_started(state, pk)
    previous, now = row
    state.objects.filter(pk=pk).update(queued_at=None, started_at=now)
    return TaskClock(previous=previous, started=now)


def clock_given_back(state: State, pk: int, clock: TaskClock) -> None:
    """Nothing was computed: the clock goes back to where it was, unless another task has
    moved it since."""
    state.objects.filter(pk=pk, started_at=clock.started).update(started_at=clock.previous)


def claim_in_process(state: State, pk: int, *, window: float) -> bool:
    """Claim an in-process computation unless one started less than `window` seconds ago
    (many readers or sweeping workers must not all compute it). The row is created only when
    missing (a subject whose rows need more than their id creates them first)."""
    free = Q(started_at__isnull=True) | Q(started_at__lte=database_time_minus(window))
    if state.objects.filter(free, pk=pk).update(started_at=Now()) == 1:
        return True
    if state.objects.filter(pk=pk).exists():
        return False
    state_ensure(state, pk)
    return state.objects.filter(free, pk=pk).update(started_at=Now()) == 1


def stale_for(state: State, seconds: float) -> list[int]:
    """The subjects stale for at least `seconds`, the longest waiting first."""
    return list(
        state.objects.filter(stale_since__lte=database_time_minus(seconds))
        .order_by("stale_since")
        .values_list("pk", flat=True)
    )


def note_error(state: State, pk: int, error: BaseException) -> None:
    """Keep the last failure's message where the pages can show it."""
    if state.objects.filter(pk=pk).update(last_error=str(error)[:300]):
        return
    state_ensure(state, pk)
    state.objects.filter(pk=pk).update(last_error=str(error)[:300])


def is_pending(
    *,
    queued_at: datetime | None,
    started_at: datetime | None,
    stale_since: datetime | None,
    now: datetime,
    claim_timeout: timedelta,
    running_for: float,
) -> bool:
    """From a state row: True when a task is queued (claim not void) or a computation that
    started less than `running_for` seconds ago started after the first unranked change (it
    will include it), so a reader has nothing to ask for."""
    if queued_at is not None and queued_at >= now - claim_timeout:
        return True
    return (
        started_at is not None
        and stale_since is not None
        and started_at >= stale_since
        and started_at >= now - timedelta(seconds=running_for)
    )
