"""What every part shares about the process it runs in: which failures may go away
by themselves (a task retries only those), and pausing the cyclic garbage collector during a
long computation or build."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

import redis.exceptions
from django.db import InterfaceError, OperationalError

# Failures that may go away by themselves (the database or Redis restarting): retried; a bug
# or bad data is not.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block, restored (with its usual thresholds)
    even on error. For work that makes many small objects that all live to its end: reference
    counting frees as usual meanwhile."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
