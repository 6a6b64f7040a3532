"""The hub's Celery entry points. Thin: they take ids and call a service.

- `recompute_overall_ranking` is the task of the overall ranking's subject
  (`ranking.OVERALL_RANKING`): scheduling, coalescing and the sweep are the derived-ranking
  mechanism's (`scoring.rankings.derived`), the computation `ranking.overall_recompute`.
- `event_window_end`: closes the event at the end of its claims window (issue 34 §5); the
  workers' sweep (`services.events_window_sweep`, registered in the app's ready()) makes up
  for a lost one.
- `build_booklet`: after each of those tasks (`on_ranking_computed`, a receiver of
  `derived.ranking_computed` connected in the app's ready()), the booklet is built once the
  embargo is over. Without a broker it runs in-process unless SIMULTANEOUS_BOOKLET_INLINE is
  False.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from scoring.rankings.derived import PUBLISH_RETRY_POLICY, broker_in_use
from tarot_club.kit.tasks import retrying_task

from .booklet import booklet_build
from .models import SimultaneousEvent
from .ranking import OVERALL_RANKING
from .services import WINDOW_END_TASK, event_window_close

logger = logging.getLogger(__name__)

# `simultaneous_hub.recompute_overall_ranking`: compute and store the event's overall ranking.
recompute_overall_ranking = OVERALL_RANKING.task


@retrying_task(WINDOW_END_TASK)
def event_window_end(event_id: int) -> bool:
    """Close the event at the end of its claims window (queued with that eta by
    `services.event_window_schedule`); early (eager, a clock ahead) it does nothing and the
    sweep closes it later. Returns whether it closed it."""
    return event_window_close(event_id=event_id)


@retrying_task("simultaneous_hub.build_booklet")
def build_booklet(event_id: int) -> list[str]:
    """Build and store the event's booklet once the embargo ended (booklet.booklet_build)."""
    return booklet_build(event_id=event_id)


def on_ranking_computed(sender: object, *, pk: int, **_: Any) -> None:
    """The receiver of `derived.ranking_computed`: after the overall ranking's task, the
    booklet (other subjects are not the hub's)."""
    if sender is OVERALL_RANKING:
        schedule_booklet(pk)


def schedule_booklet(event_id: int) -> None:
    """After a recompute: queue the booklet's build when the embargo is over (the build itself
    skips a booklet already stored for the current ranking). Without a broker it runs
    in-process unless SIMULTANEOUS_BOOKLET_INLINE is False. Never raises: the page builds the
    booklet on demand when this did not."""
    if not SimultaneousEvent.objects.filter(pk=event_id, embargo_lifted_at__isnull=False).exists():
        return
    try:
        if not broker_in_use(OVERALL_RANKING):
            if getattr(settings, "SIMULTANEOUS_BOOKLET_INLINE", True):
                build_booklet.apply(args=(event_id,), throw=False)
            return
        build_booklet.apply_async((event_id,), retry=True, retry_policy=PUBLISH_RETRY_POLICY)
    except Exception:
        logger.warning("could not build the booklet of event %s", event_id, exc_info=True)
