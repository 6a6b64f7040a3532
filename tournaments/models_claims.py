"""A claim of the claims window (issue 34 §4): a player (or the arbiter for them) says a
result is wrong, or that an irregularity of play was not put right, after the last round and
before the ranking is final. The arbiter settles it: rejected, or accepted with the
correction or penalty made through the existing services, linked here. Rows are never
deleted. Every relation is named by string so that this module imports no other module of
the app (``tournaments.models`` imports it).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

MAX_TEXT = 1000
MAX_REASON = 300


class Claim(models.Model):
    """One claim about one table's donne. ``filed_by`` is the player who filed it (from the
    table's page with their code, or their own page), ``recorded_by`` the arbiter who recorded it
    for them (either or both). ``without_call`` holds the arbiter's written reason for taking
    a claim about an irregularity that no call to the arbiter during the donne backs."""

    class Kind(models.TextChoices):
        RESULT = "result", _("Result")
        IRREGULARITY = "irregularity", _("Irregularity of play")

    class State(models.TextChoices):
        OPEN = "open", _("Open")
        REJECTED = "rejected", _("Rejected")
        ACCEPTED = "accepted", _("Accepted")

    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="claims"
    )
    table = models.ForeignKey("tournaments.Table", on_delete=models.PROTECT, related_name="+")
    donne = models.ForeignKey("tournaments.Donne", on_delete=models.PROTECT, related_name="+")
    result = models.ForeignKey(
        "tournaments.Result",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="claims",
        verbose_name=_("result"),
    )
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    text = models.CharField(_("claim"), max_length=MAX_TEXT)
    filed_by = models.ForeignKey(
        "tournaments.Player",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="claims",
        verbose_name=_("filed by"),
    )
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("recorded by"),
    )
    without_call = models.CharField(_("taken without a call"), max_length=MAX_REASON, blank=True)
    filed_at = models.DateTimeField(_("filed at"), auto_now_add=True)
    state = models.CharField(
        _("state"), max_length=8, choices=State.choices, default=State.OPEN, db_index=True
    )
    settled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("settled by"),
    )
    settled_at = models.DateTimeField(_("settled at"), null=True, blank=True)
    reason = models.CharField(_("reason"), max_length=MAX_REASON, blank=True)
    penalty = models.ForeignKey(
        "tournaments.Penalty",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="claims",
        verbose_name=_("penalty"),
    )
    correction = models.ForeignKey(
        "tournaments.LedgerEntry",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("correction"),
    )

    class Meta:
        ordering = ["filed_at", "pk"]
        verbose_name = _("claim")
        verbose_name_plural = _("claims")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} ({self.get_state_display()})"

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN
