"""The signals `tournaments` sends to the parts that derive something from its data.

`results_changed` is sent once a transaction that changed a tournament's results (a result,
an annulment, a penalty, a field the ranking reads, the tournament's status; its date, which
the rankings derived from it read: the players' rating, a club season) has committed,
never inside it and never for a rolled-back change, with the keyword argument
``tournament_id``. Changes committed together or close together are coalesced by the
receivers (one computation or upload queued at a time), not here.

Receivers are connected in their app's ``ready()`` (the rankings, the simultaneous club's
upload); `tournaments` imports none of them. A receiver must be cheap (it queues a task) and
may fail without undoing anything: the signal is sent robustly and failures are logged.
"""

from __future__ import annotations

import logging
from functools import partial

from django.db import transaction
from django.dispatch import Signal

logger = logging.getLogger(__name__)

results_changed = Signal()


def send_results_changed(tournament_id: int) -> None:
    """Send `results_changed` now (the caller's transaction has committed), logging every
    receiver that failed instead of raising: a saved result stays saved."""
    for receiver, outcome in results_changed.send_robust(sender=None, tournament_id=tournament_id):
        if isinstance(outcome, Exception):
            logger.error(
                "results_changed receiver %r failed for tournament %s",
                receiver,
                tournament_id,
                exc_info=(type(outcome), outcome, outcome.__traceback__),
            )


def results_changed_on_commit(tournament_id: int) -> None:
    """Send `results_changed` once the current transaction commits (at once outside one)."""
    transaction.on_commit(partial(send_results_changed, tournament_id))
