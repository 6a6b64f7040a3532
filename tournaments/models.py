"""The domain's tables: clubs, players, tournaments, seating, étuis and donnes, results,
penalties and the append-only ledger of every change to a result or a penalty.

Names follow RULES.md §9. Positions are N, E, S, W in code (Nord, Est, Sud, Ouest on screen).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from .search import CodePoints, name_ordering
from .validators import validate_plain_text

POSITIONS = ("N", "E", "S", "W")


class Position(models.TextChoices):
    NORD = "N", _("North")
    EST = "E", _("East")
    SUD = "S", _("South")
    OUEST = "W", _("West")


class SeatPosition(models.TextChoices):
    """Where a player sits for a round; the fifth player of a table of five plays the hand of
    whoever sits out the donne (RULES.md §7)."""

    NORD = "N", _("North")
    EST = "E", _("East")
    SUD = "S", _("South")
    OUEST = "W", _("West")
    FIFTH = "F", _("Fifth player")


class Method(models.TextChoices):
    AVERAGE = "average", _("Difference from the average")
    PAIRWISE = "pairwise", _("Pairwise difference")
    MATCHPOINTS = "matchpoints", _("Match points")


class Contract(models.TextChoices):
    PRISE = "prise", _("Prise")
    GARDE = "garde", _("Garde")
    GARDE_SANS = "garde_sans", _("Garde sans le chien")
    GARDE_CONTRE = "garde_contre", _("Garde contre le chien")


class PetitAuBout(models.TextChoices):
    ATTACK = "attack", _("Attack")
    DEFENCE = "defence", _("Defence")


class PoigneeSize(models.TextChoices):
    SIMPLE = "simple", _("Simple")
    DOUBLE = "double", _("Double")
    TRIPLE = "triple", _("Triple")


class Chelem(models.TextChoices):
    ANNOUNCED_MADE = "announced_made", _("Announced and made")
    UNANNOUNCED_MADE = "unannounced_made", _("Made without announcement")
    ANNOUNCED_FAILED = "announced_failed", _("Announced and failed")
    DEFENCE = "defence", _("Made by the defence")


licence_validator = RegexValidator(
    r"^[0-9]{7}$",
    _("A federation licence number has exactly 7 digits, for example 0123456."),
    code="invalid_licence",
)
federation_number_validator = RegexValidator(
    r"^[0-9]{4,7}$",
    _("A club's federation number has 4 to 7 digits, for example 0101."),
    code="invalid_federation_number",
)


class Club(models.Model):
    name = models.CharField(_("name"), max_length=120, validators=[validate_plain_text])
    federation_number = models.CharField(
        _("federation number"), max_length=7, unique=True, validators=[federation_number_validator]
    )
    city = models.CharField(_("city"), max_length=120, blank=True, validators=[validate_plain_text])
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="organised_clubs",
        verbose_name=_("organisers"),
    )
    # The club's arbiters: with its organisers, the only accounts its tournaments may name
    # arbiter (tournaments.services.clubs.club_staff).
    arbiters = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="arbitrated_clubs",
        verbose_name=_("arbiters"),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("club")
        verbose_name_plural = _("clubs")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("club_detail", args=[self.pk])


class PlayerQuerySet(models.QuerySet):
    """Bulk writes keep the folded search column too (they bypass Player.save)."""

    def bulk_create(self, objs: Any, *args: Any, **kwargs: Any) -> list[Any]:
        objs = list(objs)
        for player in objs:
            player.refresh_search_name()
        return super().bulk_create(objs, *args, **kwargs)

    def bulk_update(self, objs: Any, fields: Any, *args: Any, **kwargs: Any) -> int:
        objs, fields = list(objs), list(fields)
        if {"first_name", "last_name"} & set(fields):
            for player in objs:
                player.refresh_search_name()
            fields = [*fields, "search_name", "sort_name"]
        return super().bulk_update(objs, fields, *args, **kwargs)


class Player(models.Model):
    first_name = models.CharField(_("first name"), max_length=80, validators=[validate_plain_text])
    last_name = models.CharField(_("last name"), max_length=80, validators=[validate_plain_text])
    licence = models.CharField(
        _("licence number"), max_length=7, unique=True, validators=[licence_validator]
    )
    club = models.ForeignKey(
        Club, on_delete=models.PROTECT, related_name="players", verbose_name=_("club")
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="player",
        verbose_name=_("login"),
    )
    # Folded names for accent- and case-blind search (tournaments/search.py); kept by save().
    search_name = models.CharField(max_length=200, blank=True, default="", editable=False)
    # The one order of names (tournaments/search.py, name_order); kept by save().
    sort_name = models.CharField(max_length=200, blank=True, default="", editable=False)

    objects = PlayerQuerySet.as_manager()

    class Meta:
        ordering = name_ordering()
        verbose_name = _("player")
        verbose_name_plural = _("players")
        indexes = [
            models.Index(fields=["last_name", "first_name"]),
            models.Index(CodePoints(models.F("sort_name")), name="player_sort_name_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.first_name} {self.last_name}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.refresh_search_name()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"first_name", "last_name"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "search_name", "sort_name"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("player_detail", args=[self.pk])

    def refresh_search_name(self) -> None:
        """Fold the names into the search and sort columns (tournaments/search.py)."""
        from .search import player_search_name, player_sort_name

        names = {"first_name": self.first_name, "last_name": self.last_name}
        self.search_name = player_search_name(**names)
        self.sort_name = player_sort_name(**names)

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        REGISTRATION = "registration", _("Registration")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        PUBLISHED = "published", _("Published")

    club = models.ForeignKey(
        Club, on_delete=models.PROTECT, related_name="tournaments", verbose_name=_("club")
    )
    name = models.CharField(_("name"), max_length=160, validators=[validate_plain_text])
    date = models.DateField(_("date"))
    venue = models.CharField(
        _("venue"), max_length=200, blank=True, validators=[validate_plain_text]
    )
    rounds = models.PositiveSmallIntegerField(
        _("number of rounds"), default=4, validators=[MinValueValidator(1), MaxValueValidator(30)]
    )
    donnes_per_relais = models.PositiveSmallIntegerField(
        _("donnes per relais"), default=4, validators=[MinValueValidator(1), MaxValueValidator(8)]
    )
    method = models.CharField(
        _("comparison method"), max_length=12, choices=Method.choices, default=Method.AVERAGE
    )
    matchpoint_penalty_rate = models.DecimalField(
        _("match-point penalty rate"),
        max_digits=6,
        decimal_places=3,
        default="0.1",
        help_text=_("Percentage points taken off per penalty point under the match-point method."),
    )
    arbiters = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="arbitrated_tournaments",
        verbose_name=_("arbiters"),
    )
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.DRAFT
    )
    # Fair donnes (RULES.md §2): the seed stays secret until revealed; the commitment is public.
    identity = models.CharField(_("identity"), max_length=200, blank=True)
    seed = models.CharField(_("seed"), max_length=128, blank=True)
    commitment = models.CharField(_("commitment"), max_length=64, blank=True)
    seed_revealed_at = models.DateTimeField(_("seed revealed at"), null=True, blank=True)
    movement = models.JSONField(_("movement"), null=True, blank=True)
    # Bumped in the same transaction as every change of a result, penalty or annulment; a
    # ranking snapshot records the version it was computed from.
    results_version = models.PositiveBigIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # The room on the day: who may read the live ranking and the seating while it runs, how
    # long a round lasts on the room's screen, and the line of announcements shown there.
    public_during_play = models.BooleanField(
        _("public while it runs"),
        default=True,
        help_text=_(
            "Anyone in the room may read the live ranking and look up where they sit, without "
            "an account. Results of donnes not yet played at every table stay hidden."
        ),
    )
    round_minutes = models.PositiveSmallIntegerField(
        _("length of a round (minutes)"),
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(240)],
        help_text=_("The clock of the room's screen counts down from this."),
    )
    announcement = models.CharField(
        _("announcements"),
        max_length=300,
        blank=True,
        help_text=_("One line shown at the bottom of the room's screen."),
    )

    class Meta:
        ordering = ["-date", "name"]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")

    def __str__(self) -> str:
        return f"{self.name} ({self.date:%Y-%m-%d})"

    def get_absolute_url(self) -> str:
        return reverse("tournament_detail", args=[self.pk])

    @property
    def is_public(self) -> bool:
        return self.status == self.Status.PUBLISHED


class Registration(models.Model):
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="registrations"
    )
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="registrations")
    registered_at = models.DateTimeField(auto_now_add=True)
    checked_in_at = models.DateTimeField(_("checked in at"), null=True, blank=True)

    class Meta:
        ordering = name_ordering("player__")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="unique_registration")
        ]
        verbose_name = _("registration")
        verbose_name_plural = _("registrations")

    def __str__(self) -> str:
        return f"{self.player} @ {self.tournament}"

    @property
    def checked_in(self) -> bool:
        return self.checked_in_at is not None


class Round(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", _("Not started")
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField(_("number"))
    state = models.CharField(_("state"), max_length=8, choices=State.choices, default="pending")
    # The round's clock (tournaments/services/clock.py): seconds run before the current start,
    # the start of the current run (None while stopped), and minutes added by the arbiter.
    clock_started_at = models.DateTimeField(null=True, blank=True)
    clock_elapsed_seconds = models.PositiveIntegerField(default=0)
    clock_extra_seconds = models.IntegerField(default=0)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="unique_round_number")
        ]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")

    def __str__(self) -> str:
        return str(_("Round %(number)s") % {"number": self.number})


class Table(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField(_("number"))
    size = models.PositiveSmallIntegerField(
        _("players"), default=4, validators=[MinValueValidator(4), MaxValueValidator(5)]
    )
    # The table card (tournaments.services.table_entry.table_card_url): its link is signed
    # with this version, so a new card makes the old one dead; revoking the table's page
    # revokes the card until the arbiter issues a new page (and with it a new card).
    card_version = models.PositiveIntegerField(default=0)
    card_revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="unique_table_number")
        ]
        verbose_name = _("table")
        verbose_name_plural = _("tables")

    def __str__(self) -> str:
        return str(_("Table %(number)s") % {"number": self.number})


class EtuiSet(models.Model):
    """The étuis of one relais: the donnes a table plays in one round."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="etui_sets")
    number = models.PositiveSmallIntegerField(_("number"))

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="unique_etui_set")
        ]
        verbose_name = _("étui set")
        verbose_name_plural = _("étui sets")

    def __str__(self) -> str:
        return str(_("Set %(number)s") % {"number": self.number})


class Donne(models.Model):
    """One pre-dealt deal, kept in its own étui. Hands use the notation of docs/formats.md."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="donnes")
    etui_set = models.ForeignKey(EtuiSet, on_delete=models.CASCADE, related_name="donnes")
    number = models.PositiveSmallIntegerField(_("number"))
    dealer = models.CharField(_("dealer"), max_length=1, choices=Position.choices)
    hand_n = models.CharField(_("North hand"), max_length=200)
    hand_e = models.CharField(_("East hand"), max_length=200)
    hand_s = models.CharField(_("South hand"), max_length=200)
    hand_w = models.CharField(_("West hand"), max_length=200)
    chien = models.CharField(_("chien"), max_length=80)
    # Attempts the generator discarded (petit sec, RULES.md §2): part of what verification checks.
    redraws = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="unique_donne_number")
        ]
        verbose_name = _("donne")
        verbose_name_plural = _("donnes")

    def __str__(self) -> str:
        return str(_("Donne %(number)s") % {"number": self.number})

    def hand(self, position: str) -> str:
        return getattr(self, f"hand_{position.lower()}")

    @property
    def hands(self) -> dict[str, str]:
        return {p: self.hand(p) for p in POSITIONS}


class TableRound(models.Model):
    """Which étui set a table plays in a round, and at a table of five who sits out when."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="table_rounds")
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="table_rounds")
    etui_set = models.ForeignKey(EtuiSet, on_delete=models.PROTECT, related_name="table_rounds")
    # For a table of five: for each donne of the relais (in order), the position whose player
    # sits out; the fifth player plays that hand. Empty at a table of four.
    sit_outs = models.CharField(_("sit-outs"), max_length=8, blank=True)

    class Meta:
        ordering = ["round__number", "table__number"]
        constraints = [
            models.UniqueConstraint(fields=["round", "table"], name="unique_table_round")
        ]
        verbose_name = _("table round")
        verbose_name_plural = _("table rounds")

    def __str__(self) -> str:
        return f"{self.round} · {self.table} · {self.etui_set}"


class Seat(models.Model):
    table_round = models.ForeignKey(TableRound, on_delete=models.CASCADE, related_name="seats")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats")
    position = models.CharField(_("position"), max_length=1, choices=SeatPosition.choices)

    class Meta:
        ordering = ["table_round", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table_round", "position"], name="unique_seat"),
            models.UniqueConstraint(fields=["round", "player"], name="one_seat_per_round"),
        ]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")

    def __str__(self) -> str:
        return f"{self.player} {self.position} ({self.table_round})"


class EntryStatus(models.TextChoices):
    """Who stands behind a result: the arbiter, or a table's page and an opponent."""

    ARBITER = "arbiter", _("Entered by the arbiter")
    AWAITING = "awaiting", _("Awaiting confirmation")
    CONFIRMED = "confirmed", _("Confirmed by an opponent")
    CONTESTED = "contested", _("Contested")
    NEEDS_ARBITER = "needs_arbiter", _("Needs the arbiter")


# The one rule of which results count (rankings, travellers, complete donnes, closing a
# round): those the arbiter entered or overrode, and those an opponent confirmed.
COUNTED_ENTRY_STATUSES = (EntryStatus.ARBITER, EntryStatus.CONFIRMED)


class ResultQuerySet(models.QuerySet):
    def counted(self) -> ResultQuerySet:
        """Results that count; those waiting at a table for confirmation do not."""
        return self.filter(entry_status__in=COUNTED_ENTRY_STATUSES)


class Result(models.Model):
    """A table's result on one donne. Changed only through tournaments.services.results, which
    keeps the ledger and the version (optimistic concurrency) in the same transaction."""

    class Status(models.TextChoices):
        PLAYED = "played", _("Played")
        ALL_PASSED = "all_passed", _("All passed")
        ANNULLED = "annulled", _("Annulled")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="results")
    table_round = models.ForeignKey(TableRound, on_delete=models.PROTECT, related_name="results")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="results")
    donne = models.ForeignKey(Donne, on_delete=models.PROTECT, related_name="results")
    status = models.CharField(_("status"), max_length=10, choices=Status.choices)
    taker = models.CharField(_("taker"), max_length=1, choices=Position.choices, blank=True)
    contract = models.CharField(_("contract"), max_length=12, choices=Contract.choices, blank=True)
    bouts = models.PositiveSmallIntegerField(_("bouts"), null=True, blank=True)
    points = models.DecimalField(_("points"), max_digits=3, decimal_places=1, null=True, blank=True)
    petit_au_bout = models.CharField(
        _("petit au bout"), max_length=8, choices=PetitAuBout.choices, blank=True
    )
    poignees = models.JSONField(_("poignées"), default=dict, blank=True)  # {position: size}
    chelem = models.CharField(_("chelem"), max_length=16, choices=Chelem.choices, blank=True)
    scores = models.JSONField(_("scores"), default=dict, blank=True)  # {position: int}
    holders = models.JSONField(default=dict, blank=True)  # {position: player id} when saved
    sitter = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="sat_out_results"
    )
    confirmed_warnings = models.JSONField(default=list, blank=True)
    annul_reason = models.CharField(_("reason for annulment"), max_length=300, blank=True)
    version = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Entry at the table (tournaments.services.table_entry): only counted statuses count.
    entry_status = models.CharField(
        _("entry status"),
        max_length=14,
        choices=EntryStatus.choices,
        default=EntryStatus.ARBITER,
        db_index=True,
    )
    entered_by = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    confirmed_by = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    table_access = models.ForeignKey(
        "TableAccess", on_delete=models.PROTECT, null=True, blank=True, related_name="results"
    )
    contest_note = models.CharField(_("contest note"), max_length=300, blank=True)
    # What the cards of the donne say against an entry made at a table, computed on save and
    # never shown at the table (RULES.md §5.2, §6.2): [{"code", "message"}], for the arbiter.
    card_flags = models.JSONField(default=list, blank=True)

    objects = ResultQuerySet.as_manager()

    class Meta:
        ordering = ["donne__number", "table__number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "donne"], name="one_result_per_table_donne")
        ]
        verbose_name = _("result")
        verbose_name_plural = _("results")

    def __str__(self) -> str:
        return f"{self.table} · {self.donne}"

    def score_of(self, position: str) -> int:
        return int(self.scores.get(position, 0))


class Penalty(models.Model):
    """An arbiter's sanction (RULES.md §8). Withdrawing keeps the row and says who and why."""

    class Kind(models.TextChoices):
        EARLY_PICKUP = "early_pickup", _("Picking up the cards early")
        WARNING = "warning", _("Warning")
        OTHER = "other", _("Other")

    CATALOGUE_POINTS = {"early_pickup": 100, "warning": 0}

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="penalties")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="penalties")
    donne = models.ForeignKey(
        Donne, on_delete=models.PROTECT, null=True, blank=True, related_name="penalties"
    )
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    points = models.PositiveIntegerField(_("points"), validators=[MaxValueValidator(10000)])
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    given_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    given_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    withdrawal_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["given_at"]
        verbose_name = _("penalty")
        verbose_name_plural = _("penalties")

    def __str__(self) -> str:
        return f"{self.player}: {self.points} ({self.get_kind_display()})"

    @property
    def active(self) -> bool:
        return self.withdrawn_at is None


class LedgerEntry(models.Model):
    """Append-only history of every change to a tournament: its results and penalties, and
    its creation, edits, status, seating (generation, hand edits), seed reveal, rounds and the
    registrations changed once seated. Who, when, before, after and why; ``round`` and
    ``player`` say what an entry is about, for filtering. Rows are never updated nor deleted."""

    class Action(models.TextChoices):
        RESULT_CREATED = "result_created", _("Result entered")
        RESULT_CHANGED = "result_changed", _("Result corrected")
        RESULT_ANNULLED = "result_annulled", _("Donne annulled")
        PENALTY_GIVEN = "penalty_given", _("Penalty given")
        PENALTY_WITHDRAWN = "penalty_withdrawn", _("Penalty withdrawn")
        RESULT_CONFIRMED = "result_confirmed", _("Result confirmed")
        RESULT_CONTESTED = "result_contested", _("Result contested")
        TOURNAMENT_CREATED = "tournament_created", _("Tournament created")
        TOURNAMENT_EDITED = "tournament_edited", _("Tournament edited")
        STATUS_CHANGED = "status_changed", _("Status changed")
        SEATING_GENERATED = "seating_generated", _("Seating generated")
        SEATING_EDITED = "seating_edited", _("Seating edited")
        SEED_REVEALED = "seed_revealed", _("Seed revealed")
        ROUND_OPENED = "round_opened", _("Round opened")
        ROUND_CLOSED = "round_closed", _("Round closed")
        REGISTRATION_CHANGED = "registration_changed", _("Registration changed")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="ledger")
    result = models.ForeignKey(
        Result, on_delete=models.PROTECT, null=True, blank=True, related_name="history"
    )
    penalty = models.ForeignKey(
        Penalty, on_delete=models.PROTECT, null=True, blank=True, related_name="history"
    )
    action = models.CharField(_("action"), max_length=20, choices=Action.choices)
    # None only for changes made outside a user's request (a management command).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("by"),
        null=True,
        blank=True,
    )
    at = models.DateTimeField(_("at"), auto_now_add=True)
    # What a person typed, as typed; never a text the software wrote (that is a code).
    reason = models.CharField(_("reason"), max_length=300, blank=True)
    # A reason the software gave, as a code and its parameters, put in words when read
    # (tournaments.ledger_text), in the reader's language.
    reason_code = models.CharField(max_length=40, blank=True, default="")
    reason_params = models.JSONField(null=True, blank=True)
    # Field codes and raw values (no text for people): tournaments.ledger_text reads them.
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    round = models.ForeignKey(
        Round, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    player = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # A change made from a table's page: the player who made it and the page.
    by_player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    table_access = models.ForeignKey(
        "TableAccess", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["at", "pk"]
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger")

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.get_action_display()}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ValidationError(_("The ledger is append-only: an entry cannot be changed."))
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise ValidationError(_("The ledger is append-only: an entry cannot be deleted."))


class TableAccess(models.Model):
    """The secret of one table's page for one round: anyone holding it (the QR code of the
    score sheet, or the short code typed) may enter and confirm that table's results in that
    round, nothing else. Revoked by the arbiter (a new one is issued) or when the round closes.
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="table_accesses"
    )
    table_round = models.ForeignKey(TableRound, on_delete=models.CASCADE, related_name="accesses")
    secret = models.CharField(max_length=64, unique=True)  # 256 random bits, URL-safe
    short_code = models.CharField(max_length=6, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table_round__round__number", "table_round__table__number", "-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["table_round"],
                condition=models.Q(revoked_at__isnull=True),
                name="one_live_access_per_table_round",
            )
        ]
        verbose_name = _("table page access")
        verbose_name_plural = _("table page accesses")

    def __str__(self) -> str:
        return f"{self.table_round} · {self.short_code}"


class PlayerCode(models.Model):
    """A player's personal 4-digit code for one tournament (printed on his route card): he
    types it to confirm a result entered by the other camp. Wrong codes are counted; too many
    from one phone lock it on that phone (`CodeThrottle`), each lock longer than the last, and
    wrong codes from strangers' phones spend a budget (tournaments.services.table_entry)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    code = models.CharField(max_length=4)
    wrong_total = models.PositiveIntegerField(default=0)
    # Wrong codes typed from places (phones, addresses) where the player never proved himself:
    # what brute force spends, bounded by table_entry.CODE_GUESS_BUDGET.
    guesses = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="one_code_per_player")
        ]
        verbose_name = _("player code")
        verbose_name_plural = _("player codes")

    def __str__(self) -> str:
        return f"{self.player} @ {self.tournament_id}"


class CodeThrottle(models.Model):
    """Wrong codes typed for one player from one source: a phone (the random id its table page
    keeps) or, for a request without one, an address. Five wrong codes lock that player's code
    for that source only, each lock longer than the last: the guesser waits, the owner's
    other phones do not. ``trusted`` once the player typed his right code from there."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=32)  # a digest, never the phone's id itself
    failures = models.PositiveSmallIntegerField(default=0)
    locked_until = models.DateTimeField(null=True, blank=True)
    # Locks since the code was issued (or since the last quiet period): each lasts longer.
    lockouts = models.PositiveSmallIntegerField(default=0)
    trusted = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player", "source"], name="one_throttle_per_source"
            )
        ]
        verbose_name = _("code throttle")
        verbose_name_plural = _("code throttles")

    def __str__(self) -> str:
        return f"{self.player} @ {self.tournament_id} · {self.source[:8]}"


class PhoneBinding(models.Model):
    """A phone bound to a player: its page sends the token instead of his code. Only the
    player makes one (his code typed on a phone bound to nobody else, the box ticked), and
    it is valid only at the table and in the round where it was made. One live binding per
    player: a new one ends the previous one. The arbiter sees them and revokes them. Rows
    are kept once ended (``ended_at``, ``end_reason``, ``ended_by``): the record of who held
    which phone when. This table keeps digests only, never the token nor the phone's id."""

    class End(models.TextChoices):
        REPLACED = "replaced", _("another phone was bound")
        ARBITER = "arbiter", _("revoked by the arbiter")
        NEW_CODE = "new_code", _("new code")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    table_round = models.ForeignKey(TableRound, on_delete=models.CASCADE, related_name="+")
    table_access = models.ForeignKey(
        TableAccess, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    token_digest = models.CharField(max_length=64, unique=True)
    phone_digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=10, choices=End.choices, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=models.Q(ended_at__isnull=True),
                name="one_live_binding_per_player",
            )
        ]
        verbose_name = _("phone binding")
        verbose_name_plural = _("phone bindings")

    def __str__(self) -> str:
        return f"{self.player} @ {self.table_round_id}"


class PlayerLink(models.Model):
    """A player's personal link to "Mon tarot" (his events and his reports) for a player
    without an account: anyone holding it reads what the player himself may read, nothing
    else. Issued and revoked by an organiser of the player's club; printed as a QR code on
    his score card. One live link per player: a new one revokes the previous one. A revoked
    link answers 410 with a message; the row is kept (who issued, who revoked, when)."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="links")
    token = models.CharField(max_length=64, unique=True)  # 256 random bits, URL-safe
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["player"],
                condition=models.Q(revoked_at__isnull=True),
                name="one_live_link_per_player",
            )
        ]
        verbose_name = _("personal link")
        verbose_name_plural = _("personal links")

    def __str__(self) -> str:
        return f"{self.player} · {self.created_at:%Y-%m-%d}"

    @property
    def live(self) -> bool:
        return self.revoked_at is None
