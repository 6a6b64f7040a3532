"""The hub's tables (RULES.md §6.3): a simultaneous event and its dealing, the clubs it
invites, the log of every upload received, what the clubs' applied uploads hold (players,
results, penalties: the field), and the stored overall ranking with its coalescing state.

The field tables are written only by `tournaments.simultaneous.hub.services` (an upload is
applied in one transaction, which bumps `SimultaneousEvent.results_version`); the ranking rows
only by `tournaments.simultaneous.hub.ranking`, which replaces them all at once.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from scoring.rankings.fields import JSONTextField
from scoring.rankings.state import DerivedState
from tournaments.models import Method, Position
from tournaments.validators import validate_plain_text


def new_public_id() -> str:
    """A public id for an event or an invitation: 16 random lowercase hex digits."""
    return secrets.token_hex(8)


class SimultaneousEvent(models.Model):
    """One event: the same donnes played in every invited club, ranked across the field.

    The dealing is a tournament's (RULES §2, `scoring.rules.dealing`): the seed stays secret
    until the embargo ends, the commitment is public from the start, and the identity
    ("simultaneous:<public id>") names the event. Donne k is the same cards in every club.
    """

    class State(models.TextChoices):
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")

    public_id = models.CharField(
        _("public id"), max_length=40, unique=True, default=new_public_id, editable=False
    )
    name = models.CharField(_("name"), max_length=160, validators=[validate_plain_text])
    date = models.DateField(_("date"))
    session_starts_at = models.DateTimeField(_("sessions start"), null=True, blank=True)
    session_ends_at = models.DateTimeField(_("sessions end"), null=True, blank=True)
    rounds = models.PositiveSmallIntegerField(
        _("number of rounds"), default=3, validators=[MinValueValidator(1), MaxValueValidator(30)]
    )
    donnes_per_relais = models.PositiveSmallIntegerField(
        _("donnes per relais"), default=4, validators=[MinValueValidator(4), MaxValueValidator(4)]
    )
    sets = models.PositiveSmallIntegerField(
        _("étui sets"),
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(60)],
        help_text=_("The most étui sets any club may use; the event deals 4 donnes per set."),
    )
    method = models.CharField(
        _("comparison method"), max_length=12, choices=Method.choices, default=Method.AVERAGE
    )
    matchpoint_penalty_rate = models.DecimalField(
        _("match-point penalty rate"), max_digits=6, decimal_places=3, default="0.1"
    )
    identity = models.CharField(_("identity"), max_length=200, unique=True)
    seed = models.CharField(_("seed"), max_length=128)
    commitment = models.CharField(_("commitment"), max_length=64)
    state = models.CharField(_("state"), max_length=8, choices=State.choices, default=State.OPEN)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    # Set once, when every invited club has sent its final upload or the organiser closed the
    # event: from then on hands, travellers and the overall ranking are public, seed revealed.
    embargo_lifted_at = models.DateTimeField(_("embargo lifted at"), null=True, blank=True)
    # The claims window (issue 34 §5): from the end of the embargo, the clubs' claims and
    # corrections are taken for this long; then the hub closes the event by itself (a task at
    # ``claims_close_at`` and the workers' sweep). 0: closed as the embargo ends.
    claims_window_minutes = models.PositiveSmallIntegerField(
        _("claims window (minutes)"),
        default=30,
        validators=[MaxValueValidator(1440)],
        help_text=_(
            "After the embargo ends, the clubs' corrections are taken for this long; then the "
            "event closes by itself and its ranking is final."
        ),
    )
    claims_close_at = models.DateTimeField(_("corrections taken until"), null=True, blank=True)
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="simultaneous_events",
        verbose_name=_("organisers"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Bumped in the transaction of every applied upload that changed the field; the stored
    # overall ranking records the version it was computed from.
    results_version = models.PositiveBigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["-date", "name"]
        verbose_name = _("simultaneous event")
        verbose_name_plural = _("simultaneous events")

    def __str__(self) -> str:
        return f"{self.name} ({self.date:%Y-%m-%d})"

    @property
    def donne_count(self) -> int:
        """Donnes dealt for the event: 4 per étui set."""
        return self.donnes_per_relais * self.sets

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN

    @property
    def embargo_over(self) -> bool:
        """Hands, travellers, the overall ranking and the seed are public."""
        return self.embargo_lifted_at is not None


class Invitation(models.Model):
    """A club invited to an event. The token the club authenticates with is shown once to the
    organiser; only its SHA-256 is kept."""

    event = models.ForeignKey(
        SimultaneousEvent, on_delete=models.CASCADE, related_name="invitations"
    )
    public_id = models.CharField(
        _("invitation id"), max_length=40, unique=True, default=new_public_id, editable=False
    )
    club_name = models.CharField(_("club"), max_length=120, validators=[validate_plain_text])
    federation_number = models.CharField(_("federation number"), max_length=7, blank=True)
    token_sha256 = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    # The highest sequence applied (None before the first upload): a lower one is stale.
    last_sequence = models.BigIntegerField(null=True, blank=True)
    last_upload_at = models.DateTimeField(null=True, blank=True)
    # When the club's final upload was applied, and the session end it reported (the upload's
    # generated_at): every invitation final ends the embargo.
    final_received_at = models.DateTimeField(null=True, blank=True)
    session_ended_at = models.DateTimeField(null=True, blank=True)
    # Counts the changes of the club's results (an applied upload that changed one, a
    # revocation): the overall ranking keeps a club's results as it ranked them
    # (`OverallRankingClub`) and writes them again only when this moved.
    results_serial = models.PositiveBigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["event", "club_name"]
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")

    def __str__(self) -> str:
        return f"{self.club_name} @ {self.event_id}"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class UploadLog(models.Model):
    """Every upload the hub received, applied or not: who sent it, when, what it changed or
    why it was refused. Append-only."""

    class Outcome(models.TextChoices):
        APPLIED = "applied", _("Applied")
        STALE = "stale", _("Older than one applied (ignored)")
        REFUSED = "refused", _("Refused")

    class Source(models.TextChoices):
        API = "api", _("Sent by the club")
        MANUAL = "manual", _("File uploaded by an organiser")

    event = models.ForeignKey(
        SimultaneousEvent, on_delete=models.CASCADE, related_name="uploads", null=True
    )
    invitation = models.ForeignKey(
        Invitation, on_delete=models.CASCADE, related_name="uploads", null=True, blank=True
    )
    received_at = models.DateTimeField(auto_now_add=True)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.API)
    by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, related_name="+", null=True
    )
    outcome = models.CharField(max_length=8, choices=Outcome.choices)
    code = models.CharField(max_length=40, blank=True)  # the refusal's machine code
    reason = models.TextField(blank=True)  # the refusal's message (in the sender's language)
    # A licence_elsewhere refusal: the players the club claimed that another club holds
    # ([{"licence", "first_name", "last_name"}]), for the organiser to settle.
    claims = models.JSONField(default=list, blank=True)
    sequence = models.BigIntegerField(null=True, blank=True)
    final = models.BooleanField(default=False)
    body_sha256 = models.CharField(max_length=64, blank=True)
    size = models.PositiveIntegerField(default=0)
    results_new = models.PositiveIntegerField(default=0)
    results_replaced = models.PositiveIntegerField(default=0)
    results_unchanged = models.PositiveIntegerField(default=0)
    results_removed = models.PositiveIntegerField(default=0)
    penalties_new = models.PositiveIntegerField(default=0)
    penalties_replaced = models.PositiveIntegerField(default=0)
    penalties_unchanged = models.PositiveIntegerField(default=0)
    penalties_removed = models.PositiveIntegerField(default=0)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-received_at", "-pk"]
        indexes = [models.Index(fields=["event", "-received_at"])]
        verbose_name = _("upload")
        verbose_name_plural = _("uploads")

    def __str__(self) -> str:
        return f"{self.event_id} {self.invitation_id} #{self.sequence} {self.outcome}"


class FieldPlayer(models.Model):
    """A player of the field, by licence: plays the event in one club only."""

    event = models.ForeignKey(
        SimultaneousEvent, on_delete=models.CASCADE, related_name="field_players"
    )
    invitation = models.ForeignKey(
        Invitation, on_delete=models.CASCADE, related_name="field_players"
    )
    licence = models.CharField(_("licence number"), max_length=7)
    first_name = models.CharField(_("first name"), max_length=80)
    last_name = models.CharField(_("last name"), max_length=80)

    class Meta:
        ordering = ["last_name", "first_name"]
        constraints = [
            models.UniqueConstraint(
                fields=["event", "licence"], name="simultaneous_one_club_per_licence"
            )
        ]
        verbose_name = _("player of the field")
        verbose_name_plural = _("players of the field")

    def __str__(self) -> str:
        return f"{self.first_name} {self.last_name} ({self.licence})"


class FieldResult(models.Model):
    """A club's result on one donne of the event, as its latest applied upload says.

    Keyed by (invitation, table, donne); `version` is the club's: a newer one replaced an
    older one. `holders` maps positions to licences; `scores` positions to ints (played),
    `sitter` the licence sitting out at a table of five (RULES §7).
    """

    class Status(models.TextChoices):
        PLAYED = "played", _("Played")
        ALL_PASSED = "all_passed", _("All passed")
        ANNULLED = "annulled", _("Annulled")

    event = models.ForeignKey(
        SimultaneousEvent, on_delete=models.CASCADE, related_name="field_results"
    )
    invitation = models.ForeignKey(
        Invitation, on_delete=models.CASCADE, related_name="field_results"
    )
    table = models.PositiveIntegerField(_("table"))
    donne = models.PositiveSmallIntegerField(_("donne"))
    version = models.PositiveIntegerField(default=1)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices)
    holders = models.JSONField(default=dict)  # {position: licence}
    sitter = models.CharField(max_length=7, blank=True)
    taker = models.CharField(_("taker"), max_length=1, choices=Position.choices, blank=True)
    contract = models.CharField(_("contract"), max_length=12, blank=True)
    bouts = models.PositiveSmallIntegerField(_("bouts"), null=True, blank=True)
    points = models.DecimalField(_("points"), max_digits=3, decimal_places=1, null=True, blank=True)
    petit_au_bout = models.CharField(_("petit au bout"), max_length=8, blank=True)
    poignees = models.JSONField(_("poignées"), default=dict, blank=True)  # {position: size}
    chelem = models.CharField(_("chelem"), max_length=16, blank=True)
    scores = models.JSONField(_("scores"), default=dict, blank=True)  # {position: int}

    class Meta:
        ordering = ["donne", "invitation", "table"]
        constraints = [
            models.UniqueConstraint(
                fields=["invitation", "table", "donne"], name="simultaneous_one_result_per_table"
            )
        ]
        indexes = [models.Index(fields=["event", "donne"])]
        verbose_name = _("result of the field")
        verbose_name_plural = _("results of the field")

    def __str__(self) -> str:
        return f"{self.invitation_id} T{self.table} D{self.donne} v{self.version}"


class FieldPenalty(models.Model):
    """A club's arbiter's penalty (RULES §8), keyed by (invitation, ref)."""

    event = models.ForeignKey(
        SimultaneousEvent, on_delete=models.CASCADE, related_name="field_penalties"
    )
    invitation = models.ForeignKey(
        Invitation, on_delete=models.CASCADE, related_name="field_penalties"
    )
    ref = models.CharField(max_length=40)
    licence = models.CharField(_("licence number"), max_length=7)
    points = models.PositiveIntegerField(_("points"), validators=[MaxValueValidator(10000)])
    donne = models.PositiveSmallIntegerField(_("donne"), null=True, blank=True)
    withdrawn = models.BooleanField(default=False)

    class Meta:
        ordering = ["invitation", "ref"]
        constraints = [
            models.UniqueConstraint(
                fields=["invitation", "ref"], name="simultaneous_one_penalty_per_ref"
            )
        ]
        verbose_name = _("penalty of the field")
        verbose_name_plural = _("penalties of the field")

    def __str__(self) -> str:
        return f"{self.licence}: {self.points}"


class OverallRankingRow(models.Model):
    """One player's line of the stored overall ranking (all rows of an event are replaced at
    once, tagged with the results version they reflect).

    `place` orders the rows (1…n, no ties: for paging); `rank` is the ranking's (ties share
    it). Totals are exact fractions as text ("45/2") with a float copy for display and sorting
    elsewhere. `search_name`: folded names and licence for "find me". A player's card is
    built when it is read, from his club's results as ranked (`OverallRankingClub`) and the
    values of each group (`OverallRankingGroup`), stored with the rows.
    """

    # Indexes: (event, place), (event, licence) and (invitation, place) serve every read and
    # the deletions' cascades; each index more is written 12,000 times a computation. No foreign key constraint in the database: its deferred check ran twice
    # per row at each computation's commit (docs/BENCHMARKS.md); the rows are derived from
    # the event and invitations read in the same snapshot, and Django's deletions cascade.
    event = models.ForeignKey(
        SimultaneousEvent,
        on_delete=models.CASCADE,
        related_name="ranking_rows",
        db_index=False,
        db_constraint=False,
    )
    results_version = models.PositiveBigIntegerField()
    place = models.PositiveIntegerField()
    rank = models.PositiveIntegerField()
    licence = models.CharField(max_length=7)
    first_name = models.CharField(max_length=80)
    last_name = models.CharField(max_length=80)
    invitation = models.ForeignKey(
        Invitation,
        on_delete=models.CASCADE,
        related_name="ranking_rows",
        null=True,
        db_index=False,
        db_constraint=False,
    )
    club_name = models.CharField(max_length=120)
    total = models.CharField(max_length=40)
    total_value = models.FloatField()
    differential_total = models.CharField(max_length=40)
    penalty_points = models.PositiveIntegerField(default=0)
    donnes_played = models.PositiveIntegerField(default=0)
    donnes_compared = models.PositiveIntegerField(default=0)
    search_name = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["event", "place"]
        # Plain indexes, not unique constraints: each row is inserted where a row with the
        # same keys was deleted in the same transaction, and checking each key's uniqueness
        # against those dead rows took a third of the rows' storing (docs/BENCHMARKS.md).
        # `ranking.overall_rows` numbers the places and takes each licence once (tested).
        indexes = [
            models.Index(fields=["event", "place"], name="simultaneous_ranking_place"),
            models.Index(fields=["event", "licence"], name="simultaneous_ranking_licence"),
            models.Index(fields=["invitation", "place"], name="simultaneous_ranking_club"),
        ]
        verbose_name = _("overall ranking row")
        verbose_name_plural = _("overall ranking rows")

    def __str__(self) -> str:
        return f"{self.event_id} #{self.place} {self.licence}"


class OverallRankingGroup(models.Model):
    """What the stored overall ranking made of one (donne, position) of the field: its size
    (the plays compared, 1 for a play alone) and, per score, the differential and percentage
    as `scoring.rules.ranking.GroupRanking.values` writes them: ``values`` is a list of
    [score, differential, percentage or None]. Replaced with the ranking's rows."""

    event = models.ForeignKey(
        SimultaneousEvent, on_delete=models.CASCADE, related_name="ranking_groups"
    )
    donne = models.PositiveSmallIntegerField()
    position = models.CharField(max_length=1)
    size = models.PositiveIntegerField()
    values = JSONTextField(default=list)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["event", "donne", "position"], name="simultaneous_ranking_one_group"
            )
        ]

    def __str__(self) -> str:
        return f"{self.event_id} D{self.donne}{self.position} ({self.size})"


class OverallRankingClub(models.Model):
    """One club's results as the stored overall ranking ranked them: ``results`` is a list
    of [table, donne, status, holders, scores, sitter] as `FieldResult` holds them, read in
    the computation's snapshot. Written again only when the club's `results_serial` moved
    (``serial``: the one ranked), in the transaction that stores the ranking's rows, so a
    card read from it always matches the stored totals."""

    event = models.ForeignKey(
        SimultaneousEvent, on_delete=models.CASCADE, related_name="ranking_clubs"
    )
    invitation = models.ForeignKey(
        Invitation, on_delete=models.CASCADE, related_name="ranking_clubs"
    )
    serial = models.PositiveBigIntegerField()
    results = JSONTextField(default=list)  # PostgreSQL json: written without parsing

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["event", "invitation"], name="simultaneous_ranking_one_club"
            )
        ]

    def __str__(self) -> str:
        return f"{self.event_id} club {self.invitation_id} s{self.serial}"


class OverallRankingState(DerivedState):
    """The coalescing of the overall ranking's computation, shared through the database by
    web processes and workers: the overall ranking is a subject of the derived-ranking
    mechanism (`scoring.rankings.derived`) as a tournament's ranking is (`DerivedState`:
    `queued_at`, `started_at`, `stale_since`, `computations`, `last_error`), plus:

    - `results_version`: the version the stored rows reflect (None: none stored yet);
    - when, where, in how long it was computed, and for how many players.
    """

    event = models.OneToOneField(
        SimultaneousEvent, on_delete=models.CASCADE, primary_key=True, related_name="ranking_state"
    )
    results_version = models.PositiveBigIntegerField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)
    computed_in = models.CharField(max_length=200, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    players = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("overall ranking state")
        verbose_name_plural = _("overall ranking states")

    def __str__(self) -> str:
        return f"{self.event_id}: v{self.results_version}"


class EventBooklet(models.Model):
    """The event's PDF booklet in one language, kept on the storage. ``key`` says what it was
    built from (the stored ranking's version and time, and the embargo state): a booklet whose
    key is not the current one is out of date and is built again. The worker builds it after
    the final recompute once the embargo ends, so the first reader gets it at once."""

    event = models.ForeignKey(SimultaneousEvent, on_delete=models.CASCADE, related_name="booklets")
    language = models.CharField(max_length=8)
    key = models.CharField(max_length=200)
    name = models.CharField(max_length=200)
    file = models.FileField(upload_to="simultaneous/booklets/%Y/%m/")
    built_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "language"], name="one_booklet_per_language")
        ]
        verbose_name = _("booklet")
        verbose_name_plural = _("booklets")

    def __str__(self) -> str:
        return f"{self.event_id} {self.language} {self.key}"


class LateCorrection(models.Model):
    """A club's correction of a result applied after the embargo ended (issue 34 §5), when the
    field was already public: the public pages mark it (the donne, the players, when)."""

    class Change(models.TextChoices):
        NEW = "new", _("Result added")
        REPLACED = "replaced", _("Result corrected")
        REMOVED = "removed", _("Result removed")

    event = models.ForeignKey(
        SimultaneousEvent, on_delete=models.CASCADE, related_name="late_corrections"
    )
    invitation = models.ForeignKey(
        Invitation, on_delete=models.CASCADE, related_name="late_corrections"
    )
    table = models.PositiveIntegerField(_("table"))
    donne = models.PositiveSmallIntegerField(_("donne"))
    change = models.CharField(_("change"), max_length=8, choices=Change.choices)
    # The licences at the table ({position: licence}), as the result said.
    holders = models.JSONField(default=dict)
    received_at = models.DateTimeField(_("received at"), auto_now_add=True)

    class Meta:
        ordering = ["received_at", "pk"]
        indexes = [models.Index(fields=["event", "donne"], name="late_correction_donne")]
        verbose_name = _("correction after the embargo")
        verbose_name_plural = _("corrections after the embargo")

    def __str__(self) -> str:
        return f"{self.event_id} donne {self.donne} table {self.table} ({self.change})"
