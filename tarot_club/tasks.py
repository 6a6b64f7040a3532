"""Site-wide Celery tasks."""

from __future__ import annotations

import socket

from celery import shared_task
from django.db.models import F


@shared_task(name="tarot_club.heartbeat", ignore_result=False)
def heartbeat(name: str) -> str:
    """Record that a task ran, and where: the hostname, or "in-process" when eager."""
    from .models import Heartbeat

    where = (
        "in-process"
        if heartbeat.request.is_eager
        else (heartbeat.request.hostname or socket.gethostname())
    )
    row, _created = Heartbeat.objects.get_or_create(name=name)
    Heartbeat.objects.filter(pk=row.pk).update(count=F("count") + 1, worker=where)
    return where
