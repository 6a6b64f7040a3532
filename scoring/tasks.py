"""Celery entry points of the computations. Thin: they take ids and call a service."""

from __future__ import annotations

import logging

from celery import shared_task

logger = logging.getLogger(__name__)


@shared_task(name="scoring.recompute_ranking")
def recompute_ranking(tournament_id: int) -> int:
    """Recompute and store the tournament's ranking snapshot; returns its results version."""
    from scoring.services.ranking import ranking_recompute

    return ranking_recompute(tournament_id=tournament_id)


def schedule_ranking(tournament_id: int) -> None:
    """Ask a worker for a new ranking. Never raises: a saved result must stay saved when the
    broker is down; the ranking then catches up on the next read (see scoring.selectors)."""
    try:
        recompute_ranking.delay(tournament_id)
    except Exception:
        logger.exception("could not schedule the ranking of tournament %s", tournament_id)
