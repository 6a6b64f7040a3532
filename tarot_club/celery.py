"""The Celery application. Settings come from Django's (CELERY_* names)."""

from __future__ import annotations

import os

from celery import Celery, signals
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tarot_club.settings")

# The Redis transport that survives a lost connection (tarot_club/broker.py).
TRANSPORT_ALIASES["redis"] = TRANSPORT_ALIASES["rediss"] = "tarot_club.broker:Transport"

app = Celery("tarot_club")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Each app's tasks module, and the task modules of scoring's parts.
app.autodiscover_tasks()
app.autodiscover_tasks(["scoring.rankings", "scoring.documents"])


@signals.worker_ready.connect
def _start_sweep(sender: object = None, **kwargs: object) -> None:
    """Each worker sweeps for work left behind (scoring/rankings/sweep.py): at its start, then
    periodically, so a stale ranking is computed without a page read."""
    if os.environ.get("TAROT_SWEEP", "1") == "0":
        return
    from scoring.rankings.sweep import sweep_thread_start

    hostname = getattr(sender, "hostname", None) or "worker"
    sweep_thread_start(where=hostname)
