"""Celery entry point of the documents: thin, takes an id, calls the service.

Found by Celery's autodiscovery (tarot_club/celery.py); the name is explicit so that producers
and workers agree whatever imports it first.
"""

from __future__ import annotations

from celery import shared_task

from scoring.runtime import TRANSIENT_ERRORS


@shared_task(
    name="scoring.build_document",
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    ignore_result=True,
    acks_late=True,
)
def build_document(document_id: int) -> int | None:
    """Build a requested document; idempotent (a finished or failed one is left alone)."""
    from .services import document_build

    document = document_build(document_id=document_id)
    return document.pages if document is not None else None
