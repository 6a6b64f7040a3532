"""The tournament ranking's Celery entry point and scheduling: the tournament ranking is a
subject of the derived-ranking mechanism (`scoring.rankings.derived`; the subject,
`TOURNAMENT_RANKING`, is defined with its computation in `scoring.rankings.services`).

How a burst of results becomes one or two computations: every saved change sends
`tournaments.signals.results_changed` on commit, whose receiver here calls `schedule_ranking`.
It notes the tournament as stale, then queues a task only if no queued task holds the
tournament's claim, with a countdown that keeps computations of one tournament at least
RANKING_MIN_INTERVAL seconds apart (`derived.schedule`). 20 results in a second: one
computation right away, one a second later with all of them.

Coalescing never delays a result: the clock that spaces computations out (`started_at`)
moves only when a computation really runs, so a task that finds its snapshot already stored
changes nothing; and a page read asks for a task only when none is queued and no computation
that will include the change is running (`ranking_pending`).

Without a broker in use (CELERY_EAGER, a laptop with no Redis) the task runs in-process on
commit, unless one ran less than RANKING_MIN_INTERVAL ago: then the pages compute it on their
next read (scoring.rankings.selectors), so the ranking is never wrong, only computed a moment later.
"""

from __future__ import annotations

from typing import Any

from scoring.rankings import derived
from scoring.rankings.rating import PLAYER_RATING
from scoring.rankings.season import CLUB_SEASON
from scoring.rankings.services import TOURNAMENT_RANKING

__all__ = [
    "broker_in_use",
    "on_results_changed",
    "recompute_club_season",
    "recompute_ranking",
    "recompute_rating",
    "schedule_ranking",
]

# `scoring.recompute_ranking`: recompute and store the tournament's ranking snapshot.
recompute_ranking = TOURNAMENT_RANKING.task
# `scoring.recompute_club_season`: recompute and store a club season (scoring.rankings.season).
recompute_club_season = CLUB_SEASON.task
# `scoring.recompute_rating`: recompute and store the players' rating (scoring.rankings.rating).
recompute_rating = PLAYER_RATING.task


def broker_in_use() -> bool:
    """False when tasks run in-process (CELERY_EAGER or no REDIS_URL)."""
    return derived.broker_in_use(TOURNAMENT_RANKING)


def on_results_changed(sender: object, *, tournament_id: int, **_: Any) -> None:
    """The receiver of `tournaments.signals.results_changed`: schedule the ranking (a task
    already queued takes the change: `schedule_ranking` coalesces)."""
    schedule_ranking(tournament_id)


def schedule_ranking(tournament_id: int) -> None:
    """Ask for a new ranking once a change is committed. Never raises: a saved result must
    stay saved when the broker or the worker is down; the pages then say "being updated" and
    catch up (see scoring.rankings.selectors)."""
    derived.schedule(TOURNAMENT_RANKING, tournament_id)
