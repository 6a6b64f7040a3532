"""Site-wide tables."""

from __future__ import annotations

from django.db import models


class Heartbeat(models.Model):
    """Last time a worker (or the in-process runner) executed the heartbeat task.

    Lets /healthz and the tests see that tasks really run, wherever they run.
    """

    name = models.CharField(max_length=80, unique=True)
    worker = models.CharField(max_length=200, blank=True)
    count = models.PositiveIntegerField(default=0)
    at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.name} @ {self.worker}"
