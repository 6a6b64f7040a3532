"""A task for the broker-outage tests: it holds its worker for a given time and leaves a
trace of its start and end in a file, so a test can kill Redis while it runs and know when
it has ended. Loaded by the test's worker only (`celery worker --include`)."""

from __future__ import annotations

import time
from pathlib import Path

from celery import shared_task


@shared_task(name="tests.hold_worker", ignore_result=True)
def hold_worker(trace: str, seconds: float) -> None:
    """Append "started", wait `seconds`, append "done" to the file `trace`."""
    path = Path(trace)
    with path.open("a") as out:
        out.write("started\n")
    time.sleep(seconds)
    with path.open("a") as out:
        out.write("done\n")
