"""The claims window of a tournament (issue 34 §4): when it opens, what the pages say about
it, and the task queued for its end.

The window opens once, when the last round closes (or when the tournament is finished with a
round still open): the ranking is then provisional until ``claims_close_at``, the moment
``claims_window_minutes`` later. It becomes final (``final_at``) once that moment has passed
and no claim is open: the task queued here for that moment, the workers' sweep, the settling
of the last open claim or the organiser closing early do it (`tournaments.services.claims`).
This module imports only the models, so that the writers of rounds and statuses can call it.
"""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass
from functools import partial

from celery import current_app
from django.db import transaction
from django.utils import timezone

from ..models import Round, Tournament

__all__ = [
    "WINDOW_END_TASK",
    "ClaimsWindow",
    "claims_window",
    "claims_window_end_schedule",
    "claims_window_open_if_last",
    "claims_window_start",
]

logger = logging.getLogger(__name__)

# The task that makes the ranking final at the window's end (tournaments/tasks.py), queued by
# name: the task module imports the services.
WINDOW_END_TASK = "tournaments.claims_window_end"

NONE = "none"
PROVISIONAL = "provisional"
FINAL = "final"


@dataclass(frozen=True)
class ClaimsWindow:
    """Where a tournament stands: ``none`` (the last round has not closed yet: the ranking
    says what it always said), ``provisional`` until ``closes_at`` (claims accepted), or
    ``final`` since ``final_at``."""

    state: str
    closes_at: datetime.datetime | None
    final_at: datetime.datetime | None

    @property
    def is_provisional(self) -> bool:
        return self.state == PROVISIONAL

    @property
    def is_final(self) -> bool:
        return self.state == FINAL

    @property
    def has_passed(self) -> bool:
        """Provisional with its closing time passed: claims are refused, and the ranking is
        final once the open claims are settled (or the task or the sweep has run)."""
        return (
            self.is_provisional and self.closes_at is not None and timezone.now() >= self.closes_at
        )

    @property
    def stamp(self) -> str:
        """A short text that changes whenever what the pages say of the window changes: it
        opens, its time passes, the organiser closes it early (its closing time moves), the
        ranking becomes final. The live line (`claims-window.js`) polls with it; the room
        screen's cached pages are keyed by it."""

        def seconds(moment: datetime.datetime | None) -> str:
            return f"{moment.timestamp():.0f}" if moment is not None else "-"

        passed = "p" if self.has_passed else ""
        return f"{self.state}{passed}.{seconds(self.closes_at)}.{seconds(self.final_at)}"

    def accepts_claims(self, now: datetime.datetime | None = None) -> bool:
        """Whether a claim filed at ``now`` is on time: the window is open and not passed."""
        if self.closes_at is None or self.final_at is not None:
            return False
        return (now or timezone.now()) < self.closes_at


def claims_window(tournament: Tournament) -> ClaimsWindow:
    """The tournament's window as its row says (no query)."""
    if tournament.final_at is not None:
        return ClaimsWindow(FINAL, tournament.claims_close_at, tournament.final_at)
    if tournament.claims_close_at is not None:
        return ClaimsWindow(PROVISIONAL, tournament.claims_close_at, None)
    return ClaimsWindow(NONE, None, None)


def claims_window_start(*, tournament_id: int, now: datetime.datetime | None = None) -> bool:
    """Open the window now, in the caller's transaction, unless it was opened before (a
    round reopened for a correction and closed again keeps it); queue its end once
    committed. Returns whether it opened."""
    now = now or timezone.now()
    minutes = (
        Tournament.objects.filter(pk=tournament_id, claims_close_at__isnull=True)
        .values_list("claims_window_minutes", flat=True)
        .first()
    )
    if minutes is None:
        return False
    closes_at = now + datetime.timedelta(minutes=minutes)
    opened = Tournament.objects.filter(pk=tournament_id, claims_close_at__isnull=True).update(
        claims_close_at=closes_at
    )
    if opened:
        transaction.on_commit(partial(claims_window_end_schedule, tournament_id, closes_at))
    return bool(opened)


def claims_window_open_if_last(*, tournament_id: int) -> bool:
    """Open the window when every round of the tournament is closed (the caller has just
    closed one, in its transaction). One query when it was open already, three at most."""
    if Tournament.objects.filter(pk=tournament_id, claims_close_at__isnull=False).exists():
        return False
    rounds = Round.objects.filter(tournament_id=tournament_id)
    if not rounds.exists() or rounds.exclude(state=Round.State.CLOSED).exists():
        return False
    return claims_window_start(tournament_id=tournament_id)


def claims_window_end_schedule(tournament_id: int, closes_at: datetime.datetime) -> None:
    """Queue the task that makes the ranking final at ``closes_at`` (eta). Without a broker
    (eager) the task runs now and finds the window passed or not; a task lost with Redis is
    made up for by the workers' sweep. Never raises: the window is opened either way."""
    task = current_app.tasks.get(WINDOW_END_TASK)
    if task is None:  # the task module is not loaded in this process: the sweep does it
        logger.warning(
            "no task %s: the sweep makes tournament %s final", WINDOW_END_TASK, tournament_id
        )
        return
    try:
        if task.app.conf.task_always_eager:
            task.apply(args=(tournament_id,), throw=False)
        else:
            task.apply_async((tournament_id,), eta=closes_at, retry=True)
    except Exception:
        logger.warning(
            "could not queue the end of the claims window of tournament %s; the sweep will",
            tournament_id,
            exc_info=True,
        )
