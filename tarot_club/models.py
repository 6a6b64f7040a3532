"""Site-wide tables: the workers' heartbeat, and the API's stored answers to retried writes
(the kit's idempotency, ``tarot_club/kit/api/idempotency.py``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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


class IdempotencyRecord(models.Model):
    """The first response to an API write sent with an ``Idempotency-Key`` header, per user and
    key, so a client that retries (a tablet whose Wi-Fi dropped before the answer came back)
    gets the first answer again and changes nothing twice. ``fingerprint`` identifies the request
    (method, path, body): the same key with another request is refused, never replayed."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="idempotency_records"
    )
    key = models.CharField(_("idempotency key"), max_length=255)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    fingerprint = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    body = models.JSONField(null=True, blank=True)
    headers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        # Made by tournaments' migration 0003 and moved here in state only (tarot_club 0003).
        db_table = "tournaments_idempotencyrecord"
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="unique_idempotency_key")
        ]
        verbose_name = _("idempotency record")
        verbose_name_plural = _("idempotency records")

    def __str__(self) -> str:
        return f"{self.user_id} {self.key} → {self.status_code}"
