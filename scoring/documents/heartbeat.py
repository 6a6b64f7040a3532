"""A heartbeat beside long work: a daemon thread calls `beat()` every few seconds while the
work runs, so a build whose process died is known by its silence within seconds, whatever
the length of the steps between two progress reports."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection, connections

logger = logging.getLogger(__name__)


@contextmanager
def beating(beat: Callable[[], None], *, every: float) -> Iterator[None]:
    """Call `beat` every `every` seconds in a thread until the block ends.

    Inside an outer transaction (a caller's atomic block, a test) the row it would touch is
    not visible to another connection, so no thread is started.
    """
    if connection.in_atomic_block or every <= 0:
        yield
        return
    stop = threading.Event()

    def run() -> None:
        try:
            while not stop.wait(every):
                try:
                    beat()
                except Exception:  # a missed beat is not worth stopping the work
                    logger.warning("heartbeat failed", exc_info=True)
        finally:
            connections.close_all()  # this thread's own connection

    thread = threading.Thread(target=run, name="heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=every + 1)
