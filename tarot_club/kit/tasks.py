"""The retrying task every app's Celery entry points are made with: retried only on the
failures that may go away by themselves (`runtime.TRANSIENT_ERRORS`: the database or Redis
restarting), with exponential backoff and jitter; a bug or bad data fails at once. No result
is kept (the tasks write what they make to the database)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from celery import shared_task

from .runtime import TRANSIENT_ERRORS


def retrying_task(
    name: str, *, max_retries: int = 5, backoff: int = 2, backoff_max: int = 60, **options: Any
) -> Callable[[Callable[..., Any]], Any]:
    """`shared_task` named ``name``, retried on transient failures up to ``max_retries``
    times, ``backoff`` seconds doubling up to ``backoff_max`` (jittered); ``options`` go to
    Celery as they are (``bind``, ``acks_late``...)."""
    return shared_task(
        name=name,
        autoretry_for=TRANSIENT_ERRORS,
        retry_backoff=backoff,
        retry_backoff_max=backoff_max,
        retry_jitter=True,
        max_retries=max_retries,
        ignore_result=True,
        **options,
    )
