"""The round's clock on the room's screen, kept on the server so every screen agrees.

The clock is three stored values on the round (seconds already run, the start of the current
run or None while paused, seconds added by the arbiter); the time left is computed from them
and the tournament's round length at each read, so a reloaded page, a second screen or a
restarted server all show the same time.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from ..models import Round, Tournament

WARNING_SECONDS = 5 * 60
MAX_ADDED_MINUTES = 60


@dataclass(frozen=True)
class ClockState:
    """What a screen shows: seconds left (never below zero) and whether it runs."""

    total_seconds: int
    elapsed_seconds: int
    running: bool
    started: bool

    @property
    def remaining_seconds(self) -> int:
        return max(0, self.total_seconds - self.elapsed_seconds)

    @property
    def phase(self) -> str:
        """ "idle" (never started), "running", "paused", "warning" (5 minutes left) or "over"."""
        if not self.started:
            return "idle"
        if self.remaining_seconds == 0:
            return "over"
        if self.remaining_seconds <= WARNING_SECONDS:
            return "warning"
        return "running" if self.running else "paused"

    @property
    def display(self) -> str:
        minutes, seconds = divmod(self.remaining_seconds, 60)
        return f"{minutes:02d}:{seconds:02d}"


def clock_state(
    *, round_: Round, tournament: Tournament, now: dt.datetime | None = None
) -> ClockState:
    """The clock of `round_` at `now` (default: the present)."""
    now = now or timezone.now()
    elapsed = round_.clock_elapsed_seconds
    if round_.clock_started_at is not None:
        elapsed += max(0, int((now - round_.clock_started_at).total_seconds()))
    return ClockState(
        total_seconds=tournament.round_minutes * 60 + round_.clock_extra_seconds,
        elapsed_seconds=elapsed,
        running=round_.clock_started_at is not None,
        started=round_.clock_started_at is not None or round_.clock_elapsed_seconds > 0,
    )


def _locked(round_: Round) -> Round:
    return Round.objects.select_for_update().get(pk=round_.pk)


def clock_start(*, round_: Round) -> Round:
    """Start or resume the clock (a running clock is left as it is)."""
    with transaction.atomic():
        locked = _locked(round_)
        if locked.clock_started_at is None:
            locked.clock_started_at = timezone.now()
            locked.save(update_fields=["clock_started_at"])
    return locked


def clock_pause(*, round_: Round) -> Round:
    """Stop the clock, keeping the seconds already run."""
    with transaction.atomic():
        locked = _locked(round_)
        if locked.clock_started_at is not None:
            run = int((timezone.now() - locked.clock_started_at).total_seconds())
            locked.clock_elapsed_seconds += max(0, run)
            locked.clock_started_at = None
            locked.save(update_fields=["clock_started_at", "clock_elapsed_seconds"])
    return locked


def clock_add_minutes(*, round_: Round, minutes: int) -> Round:
    """Give the room more (or, negative, less) time; refused beyond an hour either way."""
    if not -MAX_ADDED_MINUTES <= minutes <= MAX_ADDED_MINUTES:
        raise ValueError(minutes)
    with transaction.atomic():
        locked = _locked(round_)
        locked.clock_extra_seconds += minutes * 60
        locked.save(update_fields=["clock_extra_seconds"])
    return locked


def clock_reset(*, round_: Round) -> Round:
    """Back to the full length, stopped."""
    with transaction.atomic():
        locked = _locked(round_)
        locked.clock_started_at = None
        locked.clock_elapsed_seconds = 0
        locked.clock_extra_seconds = 0
        locked.save(
            update_fields=["clock_started_at", "clock_elapsed_seconds", "clock_extra_seconds"]
        )
    return locked


def current_round(tournament: Tournament) -> Round | None:
    """The round the room plays: the highest open one (an earlier round left open while the
    next is played does not hold the screen back), else the last closed one, else the first."""
    rounds = list(tournament.round_set.order_by("number"))
    if not rounds:
        return None
    open_rounds = [r for r in rounds if r.state == Round.State.OPEN]
    if open_rounds:
        return open_rounds[-1]
    closed = [r for r in rounds if r.state == Round.State.CLOSED]
    return closed[-1] if closed else rounds[0]
