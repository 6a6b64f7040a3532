"""A club tournament's link to a simultaneous event on a hub (RULES.md §6.3)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.models import Tournament


class SimultaneousLink(models.Model):
    """The tournament plays the donnes of the hub's event and sends it its results.

    ``token`` is the club's secret for this event (never shown again once stored). Uploads are
    numbered by ``sequence``; ``acked_sequence`` is the last one the hub applied. A refusal
    (4xx) is kept in ``error``/``error_code`` and not retried until someone sends again; so
    is an upload the hub ignored as older than one it holds (STALE: ``response`` holds the
    hub's ``last_sequence``); a transient failure (hub unreachable, 5xx) is retried at
    ``retry_at``.
    """

    class State(models.TextChoices):
        JOINED = "joined", _("Joined, nothing sent yet")
        ACKNOWLEDGED = "acknowledged", _("Up to date on the hub")
        PENDING = "pending", _("Results waiting to be sent")
        FAILING = "failing", _("Hub unreachable, retrying")
        REFUSED = "refused", _("Refused by the hub")
        STALE = "stale", _("Ignored by the hub: it holds a newer upload")

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="simultaneous_link"
    )
    hub_url = models.URLField(_("hub address"), max_length=300)
    token = models.CharField(_("token"), max_length=200)
    event = models.CharField(_("event"), max_length=100)
    event_name = models.CharField(_("event name"), max_length=200, blank=True)
    invitation = models.CharField(_("invitation"), max_length=100)
    club_name = models.CharField(_("name on the hub"), max_length=200, blank=True)
    sets = models.PositiveSmallIntegerField(_("étui sets of the event"))
    # The event's donnes as the hub gave them: [{"number", "dealer", "hands", "chien"}].
    donnes = models.JSONField(default=list)
    # The seed once the hub revealed it, and what checking the donnes against it said.
    seed = models.CharField(_("revealed seed"), max_length=128, blank=True)
    verified = models.BooleanField(null=True)
    verification = models.TextField(blank=True)
    # The hub's overall ranking page, stored once the hub says the embargo ended (it revealed
    # the seed): the club's pages then point the players to it.
    ranking_url = models.URLField(_("overall ranking"), max_length=400, blank=True)
    # When the event becomes final, as the hub last said (its answers' "window", issue 34
    # §5): the end of its claims window once the embargo ended, and when it closed.
    event_claims_until = models.DateTimeField(
        _("event's corrections taken until"), null=True, blank=True
    )
    event_final_at = models.DateTimeField(_("event final since"), null=True, blank=True)
    state = models.CharField(max_length=12, choices=State.choices, default=State.JOINED)
    sequence = models.PositiveIntegerField(default=0)
    acked_sequence = models.PositiveIntegerField(default=0)
    sent_version = models.BigIntegerField(null=True, blank=True)
    acked_version = models.BigIntegerField(null=True, blank=True)
    acked_final = models.BooleanField(default=False)
    acked_at = models.DateTimeField(null=True, blank=True)
    attempted_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    retry_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    response = models.JSONField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("simultaneous event link")
        verbose_name_plural = _("simultaneous event links")

    def __str__(self) -> str:
        return f"{self.tournament} → {self.hub_url} {self.event}"
