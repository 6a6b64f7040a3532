"""A call to the arbiter from a table (issue 34): the irregularity a player names, the donne
and trick, who called and when (his phone's time, and the server's when it arrived), then the
arbiter's way to the table and his ruling, linked to what it made (a penalty, a result, the
ledger entry). Imported by ``tournaments.models``; every relation is named by string so that
this module imports no other module of the app.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

# A table plays 18 tricks with four hands of 18 cards (RULES.md §2).
MAX_TRICK = 18


class Irregularity(models.TextChoices):
    """The irregularities the arbitration principles name, and "autre" with a note."""

    FAUX_ECART = "faux_ecart", _("Faux écart")
    JEU_HORS_TOUR = "jeu_hors_tour", _("Play out of turn")
    CARTE_EXPOSEE = "carte_exposee", _("Exposed card")
    RENONCE = "renonce", pgettext_lazy("irregularity", "Revoke")
    HESITATION = "hesitation", _("Unjustified hesitation")
    MANIERISME = "manierisme", _("Mannerism")
    NOMBRE_CARTES = "nombre_cartes", _("Wrong number of cards")
    ETUI_MAL_REPLACE = "etui_mal_replace", _("Hand put back wrongly in the étui")
    AUTRE = "autre", _("Other")


# The irregularities for which the arbiter rebuilds the étui from the donne as dealt.
ETUI_IRREGULARITIES = frozenset({Irregularity.NOMBRE_CARTES, Irregularity.ETUI_MAL_REPLACE})


class ArbiterCall(models.Model):
    """One call from a table about one donne of its round. While it is open (``open`` or
    ``en_route``) a second call from the same table on the same donne joins it (``joins``);
    once ruled it keeps the ruling and what it made. Rows are never deleted."""

    class State(models.TextChoices):
        OPEN = "open", _("Waiting for the arbiter")
        EN_ROUTE = "en_route", _("Arbiter on the way")
        RULED = "ruled", _("Ruled")

    class Ruling(models.TextChoices):
        NONE = "none", _("No irregularity")
        WARNING = "warning", _("Warning")
        PENALTY = "penalty", _("Penalty")
        ANNULMENT = "annulment", _("Donne annulled")
        SCORE = "score", _("Score set by the arbiter")

    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="calls"
    )
    round = models.ForeignKey("tournaments.Round", on_delete=models.CASCADE, related_name="+")
    table = models.ForeignKey("tournaments.Table", on_delete=models.CASCADE, related_name="calls")
    table_round = models.ForeignKey(
        "tournaments.TableRound", on_delete=models.CASCADE, related_name="calls"
    )
    donne = models.ForeignKey("tournaments.Donne", on_delete=models.PROTECT, related_name="calls")
    trick = models.PositiveSmallIntegerField(
        _("trick"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_TRICK)],
    )
    irregularity = models.CharField(_("irregularity"), max_length=20, choices=Irregularity.choices)
    note = models.CharField(_("note"), max_length=300, blank=True)
    called_by = models.ForeignKey(
        "tournaments.Player", on_delete=models.PROTECT, related_name="+", verbose_name=_("caller")
    )
    # The table page the call came from (None for a call the API made for a bound phone).
    table_access = models.ForeignKey(
        "tournaments.TableAccess",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # The phone's clock when the player called (kept offline, sent later); the server's on
    # arrival. The time to the arbiter counts from the earlier of the two.
    phone_time = models.DateTimeField(_("phone time"), null=True, blank=True)
    received_at = models.DateTimeField(_("received at"), default=timezone.now)
    # The phone's own id for this call: a call queued offline and sent twice is one call.
    client_ref = models.CharField(max_length=40, blank=True, default="")
    # Later calls from the same table on the same donne that joined this open one.
    joins = models.PositiveSmallIntegerField(default=0)
    last_joined_at = models.DateTimeField(null=True, blank=True)

    state = models.CharField(_("state"), max_length=8, choices=State.choices, default=State.OPEN)
    taken_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    taken_at = models.DateTimeField(null=True, blank=True)
    ruling = models.CharField(_("ruling"), max_length=10, choices=Ruling.choices, blank=True)
    ruled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    ruled_at = models.DateTimeField(null=True, blank=True)
    ruling_note = models.CharField(_("ruling note"), max_length=300, blank=True)
    # What the ruling made, through the existing services: the penalty (a warning is a
    # penalty of 0 points), the result (annulled or set), the ledger entry that says it.
    penalty = models.ForeignKey(
        "tournaments.Penalty",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="calls",
    )
    result = models.ForeignKey(
        "tournaments.Result",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="calls",
    )
    ledger_entry = models.ForeignKey(
        "tournaments.LedgerEntry",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="calls",
    )

    class Meta:
        ordering = ["received_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "donne"],
                condition=~models.Q(state="ruled"),
                name="one_open_call_per_table_donne",
            ),
            models.UniqueConstraint(
                fields=["tournament", "client_ref"],
                condition=~models.Q(client_ref=""),
                name="one_call_per_client_ref",
            ),
        ]
        indexes = [
            models.Index(fields=["tournament", "state"], name="call_tournament_state"),
            models.Index(fields=["table", "donne"], name="call_table_donne"),
        ]
        verbose_name = _("call to the arbiter")
        verbose_name_plural = _("calls to the arbiter")

    def __str__(self) -> str:
        return f"{self.table_id}·{self.donne_id} {self.irregularity} ({self.state})"

    @property
    def called_at(self):
        """When the player called: his phone's time if it is earlier than the arrival."""
        if self.phone_time is not None and self.phone_time < self.received_at:
            return self.phone_time
        return self.received_at

    @property
    def seconds_to_arbiter(self) -> float | None:
        """Seconds from the call to the arbiter taking it (or ruling it, if never taken)."""
        reached = self.taken_at or self.ruled_at
        if reached is None:
            return None
        return max(0.0, (reached - self.called_at).total_seconds())

    @property
    def is_open(self) -> bool:
        return self.state != self.State.RULED
