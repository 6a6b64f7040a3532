"""A championship's tables: the championship and its rule, the events it counts (site
tournaments and simultaneous events of the hub), the players' séries, its log, and its stored
ranking (a subject of the derived-ranking mechanism, `ranking.CHAMPIONSHIP`).

The rule's fields are those of `scoring.rules.championship.Rule`; they are frozen once the
first counted event is final (`frozen_at`, `services.rule_frozen_by`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _

from scoring.rankings.state import DerivedState
from tournaments.validators import validate_plain_text

# The French federation's séries, the default list a championship offers.
DEFAULT_SERIES = ["Promotion", "4e", "3e", "2e", "1re"]


def default_series() -> list[str]:
    return list(DEFAULT_SERIES)


class Championship(models.Model):
    """A championship over a season: its organisers, its dates and its rule."""

    class Kind(models.TextChoices):
        TOTAL = "total", _("Sum of the event totals")
        PERCENTAGE = "percentage", _("Mean match-point percentage")
        PLACES = "places", _("Points by place")

    name = models.CharField(_("name"), max_length=160, validators=[validate_plain_text])
    season_start = models.DateField(_("season start"))
    season_end = models.DateField(_("season end"))
    club = models.ForeignKey(
        "tournaments.Club",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="championships",
        verbose_name=_("club"),
    )
    # Over simultaneous events of the hub: organised by their organisers.
    hub_scope = models.BooleanField(_("over simultaneous events"), default=False)
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="organised_championships",
        verbose_name=_("organisers"),
    )
    kind = models.CharField(_("rule"), max_length=12, choices=Kind.choices, default=Kind.TOTAL)
    places = models.JSONField(_("points by place"), default=list, blank=True)
    places_beyond = models.PositiveIntegerField(_("points beyond the table"), default=0)
    scale_by_field = models.BooleanField(_("scaled by the field's size"), default=False)
    best_of = models.PositiveSmallIntegerField(_("best results counted"), null=True, blank=True)
    planned_events = models.PositiveSmallIntegerField(_("events planned"), null=True, blank=True)
    minimum_events = models.PositiveSmallIntegerField(_("minimum events"), default=0)
    tie_breaks = models.JSONField(_("tie-breaks"), default=list, blank=True)
    series = models.JSONField(_("séries"), default=default_series, blank=True)
    handicaps = models.JSONField(_("handicaps"), default=dict, blank=True)  # série -> "n/d"
    final_name = models.CharField(
        _("final"), max_length=160, blank=True, validators=[validate_plain_text]
    )
    qualify_top = models.PositiveIntegerField(_("qualified overall"), null=True, blank=True)
    qualify_top_per_serie = models.PositiveIntegerField(
        _("qualified per série"), null=True, blank=True
    )
    frozen_at = models.DateTimeField(_("rule frozen at"), null=True, blank=True)
    # Bumped by every change the ranking reads besides the events' rows (the rule, the
    # séries, an event added, agreed or removed): the stored ranking records the one it read.
    revision = models.PositiveIntegerField(default=0, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-season_start", "name"]
        verbose_name = _("championship")
        verbose_name_plural = _("championships")

    def __str__(self) -> str:
        return self.name


class ChampionshipEvent(models.Model):
    """An event the championship counts: a site tournament or a simultaneous event. Counted
    once agreed (`agreed_by`): by its organiser, or at once when the one adding it is."""

    championship = models.ForeignKey(Championship, on_delete=models.CASCADE, related_name="events")
    tournament = models.ForeignKey(
        "tournaments.Tournament",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="championship_entries",
    )
    simultaneous_event = models.ForeignKey(
        "simultaneous_hub.SimultaneousEvent",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="championship_entries",
    )
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True
    )
    added_at = models.DateTimeField(auto_now_add=True)
    agreed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    agreed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["championship", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["championship", "tournament"], name="championship_tournament_once"
            ),
            models.UniqueConstraint(
                fields=["championship", "simultaneous_event"], name="championship_simultaneous_once"
            ),
            models.CheckConstraint(
                condition=models.Q(tournament__isnull=True)
                ^ models.Q(simultaneous_event__isnull=True),
                name="championship_event_one_kind",
            ),
        ]
        verbose_name = _("championship event")
        verbose_name_plural = _("championship events")

    def __str__(self) -> str:
        return f"{self.championship_id}: {self.key}"

    @property
    def key(self) -> str:
        """The event's key in the pure rule: "t:<tournament id>" or "s:<event id>"."""
        if self.tournament_id is not None:
            return f"t:{self.tournament_id}"
        return f"s:{self.simultaneous_event_id}"

    @property
    def agreed(self) -> bool:
        return self.agreed_by_id is not None


class SeasonSerie(models.Model):
    """A player's série for the championship's season, by licence."""

    championship = models.ForeignKey(
        Championship, on_delete=models.CASCADE, related_name="player_series"
    )
    licence = models.CharField(_("licence number"), max_length=7)
    serie = models.CharField(_("série"), max_length=40)

    class Meta:
        ordering = ["championship", "licence"]
        constraints = [
            models.UniqueConstraint(fields=["championship", "licence"], name="one_serie_per_player")
        ]
        verbose_name = _("player's série")
        verbose_name_plural = _("players' séries")

    def __str__(self) -> str:
        return f"{self.licence}: {self.serie}"


class ChampionshipLogEntry(models.Model):
    """Append-only log of every change of a championship: its rule, dates, events (added,
    agreed, removed), séries and qualifiers. Who, when, what before and after."""

    class Action(models.TextChoices):
        CREATED = "created", _("Championship created")
        EDITED = "edited", _("Championship edited")
        EVENT_ADDED = "event_added", _("Event added")
        EVENT_AGREED = "event_agreed", _("Event agreed")
        EVENT_REMOVED = "event_removed", _("Event removed")
        SERIES_SET = "series_set", _("Séries set")

    championship = models.ForeignKey(Championship, on_delete=models.CASCADE, related_name="log")
    action = models.CharField(_("action"), max_length=20, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True
    )
    at = models.DateTimeField(_("at"), auto_now_add=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["at", "pk"]
        verbose_name = _("championship log entry")
        verbose_name_plural = _("championship log")

    def __str__(self) -> str:
        return f"{self.championship_id} {self.action}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ValidationError(_("The ledger is append-only: an entry cannot be changed."))
        super().save(*args, **kwargs)


class ChampionshipRanking(DerivedState):
    """The stored ranking of a championship (`DerivedState`: a subject of the derived-ranking
    mechanism, `ranking.CHAMPIONSHIP`).

    - `data`: {"lines": JSON text of everyone's lines, "series": JSON text of {série:
      [[index of the player's line, rank in the série], ...]}, "players": {key: [first,
      last, licence, club, folded search]}}, as `rows.championship_standings_encode` writes
      it (older rows: {"lines": {scope: [encoded line]}}, each série written out, still
      read); compressed with lz4 on PostgreSQL;
    - `counted`: {"t:<id>"|"s:<id>": version} of the events' rows it was computed from, and
      {"revision": n} of the championship (None: never computed): a read compares it with
      the current versions.
    """

    championship = models.OneToOneField(
        Championship, on_delete=models.CASCADE, primary_key=True, related_name="ranking"
    )
    data = models.JSONField(default=dict)
    counted = models.JSONField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("championship ranking")
        verbose_name_plural = _("championship rankings")

    def __str__(self) -> str:
        return f"{self.championship_id}: {self.computations} computations"
