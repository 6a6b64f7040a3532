"""Celery entry points of the computations. Thin: they take ids and call a service.

How a burst of results becomes one or two computations: every saved change sends
`tournaments.signals.results_changed` on commit, whose receiver here calls `schedule_ranking`. It notes the tournament as stale, then queues a task only if no
queued task holds the tournament's claim (a database row, so it works across processes and
without Redis), with a countdown that keeps computations of one tournament at least
RANKING_MIN_INTERVAL seconds apart. A task releases the claim when it starts and reads the
newest version, so any change committed after that start queues the next one. 20 results in
a second: one computation right away, one a second later with all of them.

Coalescing never delays a result: the clock that spaces computations out (`started_at`)
moves only when a computation really runs, so a task that finds its snapshot already stored
changes nothing; and a page read asks for a task only when none is queued and no computation
that will include the change is running (`ranking_pending`).

Without a broker in use (CELERY_EAGER, a laptop with no Redis) the task runs in-process on
commit, unless one ran less than RANKING_MIN_INTERVAL ago: then the pages compute it on their
next read (scoring.rankings.selectors), so the ranking is never wrong, only computed a moment later.
"""

from __future__ import annotations

import logging
import socket
from typing import Any

import kombu.exceptions
from celery import shared_task

from scoring.runtime import TRANSIENT_ERRORS

logger = logging.getLogger(__name__)

# Fail fast when the broker is down: the result is saved; the pages catch up.
PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}


@shared_task(
    bind=True,
    name="scoring.recompute_ranking",
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    retry_jitter=True,
    max_retries=6,
    ignore_result=True,
)
def recompute_ranking(self, tournament_id: int) -> int:
    """Recompute and store the tournament's ranking snapshot; returns its results version."""
    from scoring.rankings.services import IN_PROCESS, ranking_recompute, ranking_task_started

    where = IN_PROCESS if self.request.is_eager else (self.request.hostname or socket.gethostname())
    clock = ranking_task_started(tournament_id=tournament_id)
    try:
        return ranking_recompute(tournament_id=tournament_id, where=where, clock=clock)
    except TRANSIENT_ERRORS:
        raise
    except Exception as exc:
        logger.exception("ranking of tournament %s failed", tournament_id)
        _note_error(tournament_id, exc)
        raise


def _note_error(tournament_id: int, exc: BaseException) -> None:
    from scoring.rankings.services import ranking_note_error

    try:
        ranking_note_error(tournament_id=tournament_id, error=exc)
    except Exception:
        logger.exception("could not record the ranking error of tournament %s", tournament_id)


def broker_in_use() -> bool:
    """False when tasks run in-process (CELERY_EAGER or no REDIS_URL)."""
    return not recompute_ranking.app.conf.task_always_eager


def on_results_changed(sender: object, *, tournament_id: int, **_: Any) -> None:
    """The receiver of `tournaments.signals.results_changed`: schedule the ranking (a task
    already queued takes the change: `schedule_ranking` coalesces)."""
    schedule_ranking(tournament_id)


def schedule_ranking(tournament_id: int) -> None:
    """Ask for a new ranking once a change is committed. Never raises: a saved result must
    stay saved when the broker or the worker is down; the pages then say "being updated" and
    catch up (see scoring.rankings.selectors)."""
    try:
        _schedule(tournament_id)
    except (kombu.exceptions.OperationalError, *TRANSIENT_ERRORS) as exc:
        logger.warning("could not schedule the ranking of tournament %s: %s", tournament_id, exc)
    except Exception:
        logger.exception("could not schedule the ranking of tournament %s", tournament_id)


def _schedule(tournament_id: int) -> None:
    from scoring.rankings.services import (
        min_interval,
        ranking_mark_stale,
        ranking_mark_stale_and_claim,
        ranking_release_queue,
    )

    def wait_after(started_at: Any, now: Any) -> float:
        if started_at is None:
            return 0.0
        return max(0.0, min_interval() - (now - started_at).total_seconds())

    if not broker_in_use():
        started_at, _queued, now = ranking_mark_stale(tournament_id=tournament_id)
        if wait_after(started_at, now) == 0.0:
            recompute_ranking.apply(args=(tournament_id,), throw=False)
        return  # computed too recently: the next page read computes it (scoring.rankings.selectors)
    # The stale mark and the claim in one statement (two round trips for the whole dispatch).
    started_at, claimed, now = ranking_mark_stale_and_claim(tournament_id=tournament_id)
    if not claimed:
        return  # a queued task will read this change when it starts
    wait = wait_after(started_at, now)
    try:
        recompute_ranking.apply_async(
            (tournament_id,),
            countdown=wait or None,
            retry=True,
            retry_policy=PUBLISH_RETRY_POLICY,
        )
    except Exception:
        ranking_release_queue(tournament_id=tournament_id, claimed_at=now)
        raise
