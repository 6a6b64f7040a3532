"""Stored answers to writes sent with an ``Idempotency-Key`` header, so a client that retries
(a tablet whose Wi-Fi dropped before the answer came back) gets the first answer again and
changes nothing twice."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class IdempotencyRecord(models.Model):
    """The first response to a write, per user and key. ``fingerprint`` identifies the request
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
        app_label = "tournaments"
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="unique_idempotency_key")
        ]
        verbose_name = _("idempotency record")
        verbose_name_plural = _("idempotency records")

    def __str__(self) -> str:
        return f"{self.user_id} {self.key} → {self.status_code}"
