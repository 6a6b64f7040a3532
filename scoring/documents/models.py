"""A generated document: what was asked, its progress, and the stored file."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Document(models.Model):
    """One PDF of a tournament, built by a task. `fingerprint` says what it was built from
    (scoring.documents.fingerprint): when the inputs it prints change, it is out of date and
    the next request builds it again. `results_version` says which results it shows.

    `part` narrows a document: for hand records and étui sheets the étui set's number, for
    score cards and player reports the player's id (a player downloads his own); 0 is the
    whole tournament."""

    class Kind(models.TextChoices):
        HAND_RECORDS = "hand_records", _("Hand records")
        ETUI_SETS = "etui_sets", _("Étui sets")
        SCORE_SHEETS = "score_sheets", _("Table score sheets")
        ROUTE_CARDS = "route_cards", _("Route cards")
        SCORE_CARDS = "score_cards", _("Score cards")
        RANKING = "ranking", _("Ranking")
        DONNE_RESULTS = "donne_results", _("Donne results")
        MOVEMENT_CHART = "movement_chart", _("Movement wall chart")
        TABLE_CARDS = "table_cards", _("Table cards")
        CHECK_IN_LIST = "check_in_list", _("Check-in list")
        ETUI_LABELS = "etui_labels", _("Étui labels")
        ARBITER_LOG = "arbiter_log", _("Arbiter's log")
        RESULTS_SUMMARY = "results_summary", _("Results summary")
        PLAYER_REPORT = "player_report", _("Player reports")

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting")
        RUNNING = "running", _("Being built")
        DONE = "done", _("Ready")
        FAILED = "failed", _("Failed")

    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="documents"
    )
    kind = models.CharField(_("document"), max_length=16, choices=Kind.choices)
    part = models.PositiveBigIntegerField(_("part"), default=0)
    language = models.CharField(_("language"), max_length=8, default="fr")
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default="pending")
    progress = models.PositiveSmallIntegerField(_("progress"), default=0)  # percent
    results_version = models.PositiveBigIntegerField(default=0)
    # Fingerprint of every input it prints (names, tournament, seating, donnes, results…),
    # read before rendering: any later change makes it out of date.
    fingerprint = models.CharField(max_length=64, blank=True)
    file = models.FileField(upload_to="documents/%Y/%m/", blank=True)
    pages = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Set at each progress step: a build whose worker died stops beating and can be replaced.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "scoring"
        ordering = ["-created_at"]
        constraints = [
            # At most one build in progress per document: asking again while one is being
            # built returns that one (enforced by the database, not by a process lock).
            models.UniqueConstraint(
                fields=["tournament", "kind", "language", "part"],
                condition=models.Q(status__in=["pending", "running"]),
                name="one_document_build_in_progress",
            )
        ]
        verbose_name = _("document")
        verbose_name_plural = _("documents")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.tournament_id}, {self.language})"
