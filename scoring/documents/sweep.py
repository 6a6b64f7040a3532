"""The documents' part of the workers' sweep (scoring.rankings.sweep): builds left behind by a
dead worker or a lost task are dispatched again."""

from __future__ import annotations

from django.db.models import Q

from scoring.documents.models import Document
from scoring.documents.services import dispatch_build
from scoring.documents.services import stale_after as document_stale
from scoring.rankings.state import database_time_minus


def documents_sweep() -> list[int]:
    """Dispatch again the builds whose heartbeat stopped and the requests left pending."""
    limit = document_stale().total_seconds()
    Status = Document.Status
    dead = Q(status=Status.RUNNING, heartbeat_at__lt=database_time_minus(limit))
    lost = Q(status=Status.PENDING, heartbeat_at__lt=database_time_minus(limit * 4))
    ids = list(Document.objects.filter(dead | lost).values_list("pk", flat=True)[:20])
    for document_id in ids:
        dispatch_build(document_id)
    return ids
