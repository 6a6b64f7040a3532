"""The sweep: work left behind by a dead worker or a lost task is picked up without anyone
reading a page.

Every worker runs `sweep_once` when it starts and then every RANKING_SWEEP_SECONDS in a
thread of its main process (tarot_club/celery.py):
- every derived ranking (each subject of `scoring.rankings.derived`: the tournament ranking,
  a simultaneous event's overall ranking, a club season) left stale for its subject's `sweep_after()` is
  computed there and then (one worker wins the claim in the database; the others skip it):
  a tournament's ranking waits a third of RANKING_STALE_AFTER, so it is current within
  RANKING_STALE_AFTER even when Redis lost the queued task;
- and whatever the other parts registered with `sweep_register` (the documents: a build that
  stopped beating or whose task was lost is dispatched again).
Times are compared with the database's clock, so hosts whose clocks differ agree.
While the database does not answer, the sweep says so in one line when the outage begins and
in one when it ends (`DatabaseOutageLog`), not at every try.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import partial

from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connections

from scoring.rankings.derived import subjects, sweep_subject
from scoring.rankings.services import TOURNAMENT_RANKING, stale_after

logger = logging.getLogger(__name__)


def sweep_period() -> float:
    """Seconds between two sweeps of one worker: a quarter of RANKING_STALE_AFTER by default."""
    configured = getattr(settings, "RANKING_SWEEP_SECONDS", None)
    return float(configured) if configured else max(0.5, stale_after() / 4)


def rankings_sweep(*, where: str) -> list[int]:
    """Compute the tournament rankings left stale for a third of RANKING_STALE_AFTER; return
    their ids."""
    return sweep_subject(TOURNAMENT_RANKING, where=where)


def sweep_register(part: Callable[[], object]) -> None:
    """Add a part's sweep (a callable taking no argument) to every later `sweep_once`.

    Another part of scoring registers here from the app's ready(), so that the rankings import
    nothing of it."""
    if part not in _PARTS:
        _PARTS.append(part)


_PARTS: list[Callable[[], object]] = []


class DatabaseOutageLog:
    """One warning when the database stops answering the sweep, one when it answers again;
    the tries in between are silent (the sweep goes on trying every sweep_period())."""

    def __init__(self) -> None:
        self.down_since: float | None = None

    def failed(self, exc: OperationalError | InterfaceError) -> None:
        if self.down_since is not None:
            return
        self.down_since = time.monotonic()
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        logger.warning(
            "sweep: the database does not answer (%s); trying again every %g s",
            reason,
            sweep_period(),
        )

    def succeeded(self) -> None:
        if self.down_since is None:
            return
        logger.warning(
            "sweep: the database answers again (after %.0f s)", time.monotonic() - self.down_since
        )
        self.down_since = None


def sweep_once(*, where: str, outage: DatabaseOutageLog | None = None) -> None:
    """One sweep; never raises (the next one tries again). A database that does not answer
    is reported through `outage` (one line per outage), any other failure with its
    traceback."""
    outage = outage or DatabaseOutageLog()
    parts = [partial(sweep_subject, subject, where=where) for subject in subjects()]
    for part in (*parts, *_PARTS):
        try:
            close_old_connections()
            part()
        except (OperationalError, InterfaceError) as exc:
            outage.failed(exc)
            return  # the other part would fail the same way
        except Exception:
            logger.warning("sweep failed; the next one tries again", exc_info=True)
    outage.succeeded()


def sweep_forever(*, where: str, stop: threading.Event) -> None:
    """Sweep at once, then every sweep_period() seconds until `stop` is set."""
    outage = DatabaseOutageLog()
    try:
        while True:
            sweep_once(where=where, outage=outage)
            if stop.wait(sweep_period()):
                return
    finally:
        connections.close_all()


def sweep_thread_start(*, where: str) -> threading.Event:
    """Start the sweep in a daemon thread; set the returned event to stop it."""
    stop = threading.Event()
    thread = threading.Thread(
        target=sweep_forever, kwargs={"where": where, "stop": stop}, name="sweep", daemon=True
    )
    thread.start()
    return stop
