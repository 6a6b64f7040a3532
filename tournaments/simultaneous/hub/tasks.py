"""The overall ranking's computation in Celery, coalesced as tournaments' rankings are
(scoring/rankings/tasks.py), through `OverallRankingState` in the database:

- every applied upload that changed the field calls `schedule_overall_ranking` on commit: it
  marks the event stale, then queues a task only if no queued task holds the event's claim,
  with a countdown that keeps computations at least SIMULTANEOUS_RANKING_MIN_INTERVAL seconds
  apart. A burst of uploads gives one computation now and one after the interval.
- the task releases the claim when it starts and reads the newest version, so any upload
  committed after that start queues the next one.
- a worker's sweep (`ranking.overall_rankings_sweep`, registered with `scoring.rankings.sweep`)
  computes an event left stale
  for SIMULTANEOUS_RANKING_SWEEP_AFTER seconds (a lost task, a dead worker).

Without a broker (CELERY_EAGER, tests, a laptop) the computation runs in-process on commit
unless SIMULTANEOUS_RANKING_INLINE is False (the benchmark times uploads without it).
"""

from __future__ import annotations

import logging
import socket
from datetime import timedelta

import kombu.exceptions
from celery import shared_task
from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Now

from scoring.runtime import TRANSIENT_ERRORS

logger = logging.getLogger(__name__)

QUEUE_CLAIM_TIMEOUT = timedelta(seconds=60)
PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}


def min_interval() -> float:
    """Seconds between the starts of two computations of one event."""
    return float(getattr(settings, "SIMULTANEOUS_RANKING_MIN_INTERVAL", 2.0))


@shared_task(
    bind=True,
    name="simultaneous_hub.recompute_overall_ranking",
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    retry_jitter=True,
    max_retries=6,
    ignore_result=True,
)
def recompute_overall_ranking(self, event_id: int) -> int | None:  # type: ignore[no-untyped-def]
    """Compute and store the event's overall ranking; returns the version stored."""
    from .models import OverallRankingState
    from .ranking import IN_PROCESS, overall_recompute

    where = IN_PROCESS if self.request.is_eager else (self.request.hostname or socket.gethostname())
    OverallRankingState.objects.filter(pk=event_id).update(queued_at=None, started_at=Now())
    try:
        version = overall_recompute(event_id=event_id, where=where)
    except TRANSIENT_ERRORS:
        raise
    except Exception as exc:
        logger.exception("overall ranking of event %s failed", event_id)
        OverallRankingState.objects.filter(pk=event_id).update(last_error=str(exc)[:300])
        raise
    schedule_booklet(event_id)
    return version


@shared_task(
    name="simultaneous_hub.build_booklet",
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    ignore_result=True,
)
def build_booklet(event_id: int) -> list[str]:
    """Build and store the event's booklet once the embargo ended (booklet.booklet_build)."""
    from .booklet import booklet_build

    return booklet_build(event_id=event_id)


def schedule_booklet(event_id: int) -> None:
    """After a recompute: queue the booklet's build when the embargo is over (the build itself
    skips a booklet already stored for the current ranking). Without a broker it runs
    in-process unless SIMULTANEOUS_BOOKLET_INLINE is False. Never raises: the page builds the
    booklet on demand when this did not."""
    from .models import SimultaneousEvent

    if not SimultaneousEvent.objects.filter(pk=event_id, embargo_lifted_at__isnull=False).exists():
        return
    try:
        if not broker_in_use():
            if getattr(settings, "SIMULTANEOUS_BOOKLET_INLINE", True):
                build_booklet.apply(args=(event_id,), throw=False)
            return
        build_booklet.apply_async((event_id,), retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except Exception:
        logger.warning("could not build the booklet of event %s", event_id, exc_info=True)


def broker_in_use() -> bool:
    return not recompute_overall_ranking.app.conf.task_always_eager


def schedule_overall_ranking(event_id: int) -> None:
    """Ask for a new overall ranking once an upload is committed. Never raises: an applied
    upload stays applied when the broker is down (the sweep catches up)."""
    try:
        _schedule(event_id)
    except (kombu.exceptions.OperationalError, *TRANSIENT_ERRORS) as exc:
        logger.warning("could not schedule the overall ranking of event %s: %s", event_id, exc)
    except Exception:
        logger.exception("could not schedule the overall ranking of event %s", event_id)


def _schedule(event_id: int) -> None:
    from .models import OverallRankingState

    OverallRankingState.objects.get_or_create(pk=event_id)
    OverallRankingState.objects.filter(pk=event_id, stale_since__isnull=True).update(
        stale_since=Now()
    )
    if not broker_in_use():
        if getattr(settings, "SIMULTANEOUS_RANKING_INLINE", True):
            recompute_overall_ranking.apply(args=(event_id,), throw=False)
        return
    row = (
        OverallRankingState.objects.filter(pk=event_id)
        .annotate(now=Now())
        .values_list("started_at", "now")
        .get()
    )
    started_at, now = row
    free = Q(queued_at__isnull=True) | Q(queued_at__lt=now - QUEUE_CLAIM_TIMEOUT)
    if not OverallRankingState.objects.filter(free, pk=event_id).update(queued_at=now):
        return  # a queued task will read this upload when it starts
    wait = 0.0
    if started_at is not None:
        wait = max(0.0, min_interval() - (now - started_at).total_seconds())
    try:
        recompute_overall_ranking.apply_async(
            (event_id,), countdown=wait or None, retry=True, retry_policy=PUBLISH_RETRY_POLICY
        )
    except Exception:
        OverallRankingState.objects.filter(pk=event_id, queued_at=now).update(queued_at=None)
        raise
