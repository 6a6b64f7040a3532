"""Celery entry point of the club's uploads to its hub. Thin: takes an id, calls a service."""

from __future__ import annotations

from tarot_club.kit.tasks import retrying_task

RETRY_COUNTDOWNS = (5, 15, 30, 60, 120)


@retrying_task(
    "simultaneous.upload_to_hub",
    max_retries=len(RETRY_COUNTDOWNS),
    backoff=1,
    backoff_max=30,
    bind=True,
)
def upload_to_hub(self, tournament_id: int) -> str:
    """Send the tournament's whole current state to its hub (idempotent: a new sequence, the
    same content is "unchanged" there). A hub that cannot be reached is tried again with
    backoff, then by the workers' sweep; a refusal stays on the link for the arbiter."""
    from .services import upload_run

    outcome = upload_run(tournament_id=tournament_id)
    if (
        outcome == "failing"
        and not self.request.is_eager
        and self.request.retries < len(RETRY_COUNTDOWNS)
    ):
        raise self.retry(countdown=RETRY_COUNTDOWNS[self.request.retries])
    return outcome
