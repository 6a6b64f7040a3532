"""Delete the expired Idempotency-Key records of the API (run it daily, e.g. from cron)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from tarot_club.kit.api.idempotency import purge_expired, ttl


class Command(BaseCommand):
    help = (
        "Delete the API's stored Idempotency-Key answers older than API_IDEMPOTENCY_TTL "
        "seconds (24 hours by default). Safe to run at any time, e.g. daily from cron."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        deleted = purge_expired()
        hours = ttl().total_seconds() / 3600
        records = "record" if deleted == 1 else "records"
        self.stdout.write(
            f"Deleted {deleted} expired idempotency {records} (older than {hours:g} hours)."
        )
