"""The tournaments' Celery task: the end of a claims window (issue 34 §4).

Queued by `tournaments.services.claims_window` for the moment the window ends (eta); the
workers' sweep (`claims_sweep`, registered in the app's ready()) makes up for a task lost
with Redis or a worker down at that moment."""

from __future__ import annotations

from tarot_club.kit.tasks import retrying_task

from .services.claims import claims_finalize
from .services.claims_window import WINDOW_END_TASK


@retrying_task(WINDOW_END_TASK)
def claims_window_end(tournament_id: int) -> bool:
    """Make the tournament's ranking final if its window has passed and no claim is open;
    returns whether it did. Run early (eager, a clock ahead) it does nothing: the sweep or the
    settling of the last claim does it later."""
    return claims_finalize(tournament_id=tournament_id)
