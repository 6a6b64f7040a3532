"""Celery entry point of the documents: thin, takes an id, calls the service.

Found by Celery's autodiscovery (tarot_club/celery.py) and imported by scoring's ready(); the
name is explicit (`services.BUILD_TASK`) so that producers and workers agree whatever imports it
first, and the services queue it by that name without importing this module.
"""

from __future__ import annotations

from tarot_club.kit.tasks import retrying_task

from .services import BUILD_TASK, document_build


@retrying_task(BUILD_TASK, acks_late=True)
def build_document(document_id: int) -> int | None:
    """Build a requested document; idempotent (a finished or failed one is left alone)."""
    document = document_build(document_id=document_id)
    return document.pages if document is not None else None
