"""One mechanism for every ranking derived from results: a *subject* is a kind of ranking (the
tournament ranking, a simultaneous event's overall ranking; next a championship), defined by

- a state model deriving from `scoring.rankings.state.DerivedState` (one row per subject id),
- a compute function `compute(pk, *, where, clock) -> version` that reads, calls the pure
  `scoring.rules.ranking` and stores (idempotent: a current ranking is not computed again),
- a Celery task name (kept stable: queued tasks survive a deployment),

and its timings. `Subject(...)` builds the subject's Celery task; the rest is shared:

- `schedule(subject, pk)`, on commit of a change: marks the subject stale, then queues a task
  only if no queued task holds the subject's claim (a database row, so it works across
  processes and without Redis), with a countdown that keeps computations of one subject at
  least `min_interval()` seconds apart. The task releases the claim when it starts and reads
  the newest version, so any change committed after that start queues the next one: a burst
  of changes gives one computation now and one after the interval. Never raises.
- without a broker in use (CELERY_EAGER, a laptop with no Redis) the task runs in-process on
  commit, unless the subject says not to (`inline`) or, for a subject whose readers catch
  up on their own (`inline_waits`), one ran less than `min_interval()` ago.
- `sweep_subjects(where=...)`, from every worker's sweep (`scoring.rankings.sweep`): computes
  what stayed stale for `sweep_after()` seconds (a lost task, a dead worker); one worker wins
  each subject's claim.
- `ranking_computed` is sent after a task's computation (the hub builds its booklet then).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

import kombu.exceptions
from django.dispatch import Signal

from scoring.rankings import state as states
from scoring.rankings.state import State, TaskClock
from tarot_club.kit.runtime import TRANSIENT_ERRORS
from tarot_club.kit.tasks import retrying_task

logger = logging.getLogger(__name__)

IN_PROCESS = "in-process"
# Fail fast when the broker is down: the change is saved; the sweep or the pages catch up.
PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}

# Sent by a subject's task after its computation: sender = the Subject, pk = the subject id.
ranking_computed = Signal()


class Compute(Protocol):
    def __call__(self, pk: int, *, where: str, clock: TaskClock | None) -> int | None: ...


def _always() -> bool:
    return True


class Subject:
    """A kind of derived ranking (see the module's docstring); building one registers its
    Celery task under `task_name` and the subject with the workers' sweep."""

    def __init__(
        self,
        *,
        label: str,
        state: State,
        compute: Compute,
        task_name: str,
        min_interval: Callable[[], float],
        sweep_after: Callable[[], float],
        sweep_window: Callable[[], float],
        claim_timeout: timedelta,
        inline: Callable[[], bool] = _always,
        inline_waits: bool = True,
    ) -> None:
        self.label = label  # for the logs: "ranking of tournament"
        self.state = state
        self.compute = compute
        self.task_name = task_name
        self.min_interval = min_interval
        self.sweep_after = sweep_after
        self.sweep_window = sweep_window
        self.claim_timeout = claim_timeout
        self.inline = inline
        self.inline_waits = inline_waits
        self.task = _task_of(self)
        if all(s.task_name != task_name for s in _SUBJECTS):
            _SUBJECTS.append(self)

    def __repr__(self) -> str:
        return f"<Subject {self.task_name}>"


_SUBJECTS: list[Subject] = []


def subjects() -> tuple[Subject, ...]:
    """Every subject defined so far (their modules are imported by the apps' ready())."""
    return tuple(_SUBJECTS)


def _task_of(subject: Subject) -> Any:
    """The subject's Celery task: take the claim's release and the clock, compute, and on a
    non-transient failure keep its message in the state row."""

    @retrying_task(subject.task_name, max_retries=6, backoff=1, backoff_max=30, bind=True)
    def recompute(self: Any, pk: int) -> int | None:
        where = (
            IN_PROCESS if self.request.is_eager else (self.request.hostname or socket.gethostname())
        )
        return run_task(subject, pk, where=where)

    recompute.__doc__ = f"Compute and store the {subject.label} `pk`; return the version."
    return recompute


def run_task(subject: Subject, pk: int, *, where: str) -> int | None:
    """What a subject's task does (see `_task_of`)."""
    clock = states.task_started(subject.state, pk)
    try:
        version = subject.compute(pk, where=where, clock=clock)
    except TRANSIENT_ERRORS:
        raise
    except Exception as exc:
        logger.exception("%s %s failed", subject.label, pk)
        try:
            states.note_error(subject.state, pk, exc)
        except Exception:
            logger.exception("could not record the error of the %s %s", subject.label, pk)
        raise
    for receiver, outcome in ranking_computed.send_robust(sender=subject, pk=pk):
        if isinstance(outcome, Exception):  # the ranking is stored: log, do not fail the task
            logger.error(
                "ranking_computed receiver %r failed for the %s %s",
                receiver,
                subject.label,
                pk,
                exc_info=(type(outcome), outcome, outcome.__traceback__),
            )
    return version


def broker_in_use(subject: Subject) -> bool:
    """False when tasks run in-process (CELERY_EAGER or no REDIS_URL)."""
    return not subject.task.app.conf.task_always_eager


def schedule(subject: Subject, pk: int) -> None:
    """Ask for a new computation once a change is committed. Never raises: a saved change must
    stay saved when the broker or the worker is down (the readers say "being updated" and
    the sweep or the pages catch up)."""
    try:
        _schedule(subject, pk)
    except (kombu.exceptions.OperationalError, *TRANSIENT_ERRORS) as exc:
        logger.warning("could not schedule the %s %s: %s", subject.label, pk, exc)
    except Exception:
        logger.exception("could not schedule the %s %s", subject.label, pk)


def _wait_after(subject: Subject, started_at: datetime | None, now: datetime) -> float:
    if started_at is None:
        return 0.0
    return max(0.0, subject.min_interval() - (now - started_at).total_seconds())


def _schedule(subject: Subject, pk: int) -> None:
    timeout = subject.claim_timeout
    if not broker_in_use(subject):
        started_at, _queued, now = states.mark_stale(subject.state, pk, claim_timeout=timeout)
        if not subject.inline():
            return
        if subject.inline_waits and _wait_after(subject, started_at, now) > 0.0:
            return  # computed too recently: the next read computes it
        subject.task.apply(args=(pk,), throw=False)
        return
    # The stale mark and the claim in one statement (two round trips for the whole dispatch).
    started_at, claimed, now = states.mark_stale_and_claim(subject.state, pk, claim_timeout=timeout)
    if not claimed:
        return  # a queued task will read this change when it starts
    wait = _wait_after(subject, started_at, now)
    try:
        subject.task.apply_async(
            (pk,), countdown=wait or None, retry=True, retry_policy=PUBLISH_RETRY_POLICY
        )
    except Exception:
        states.release_queue(subject.state, pk, claimed_at=now)
        raise


def sweep_subject(subject: Subject, *, where: str) -> list[int]:
    """Compute the subject's rankings left stale for `sweep_after()` seconds, unless a
    computation started less than `sweep_window()` ago (another worker, a page); return the
    ids computed."""
    done = []
    for pk in states.stale_for(subject.state, subject.sweep_after()):
        if not states.claim_in_process(subject.state, pk, window=subject.sweep_window()):
            continue  # another worker or a page computes it right now
        subject.compute(pk, where=where, clock=None)
        done.append(pk)
    return done


def sweep_subjects(*, where: str) -> dict[str, list[int]]:
    """`sweep_subject` for every subject; returns the ids computed by task name."""
    return {s.task_name: sweep_subject(s, where=where) for s in subjects()}
