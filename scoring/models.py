"""Stored outputs of the computations: ranking snapshots (and, later, documents)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class RankingSnapshot(models.Model):
    """A tournament's ranking as computed from `results_version` of its results.

    Pages show the latest snapshot and say "being updated" while the tournament's
    results_version is newer than the snapshot's.
    """

    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="ranking_snapshots"
    )
    results_version = models.PositiveBigIntegerField()
    method = models.CharField(max_length=12)
    computed_at = models.DateTimeField(auto_now_add=True)
    duration_ms = models.PositiveIntegerField(default=0)
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["-results_version", "-pk"]
        get_latest_by = "results_version"
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "results_version", "method"], name="unique_snapshot_version"
            )
        ]
        verbose_name = _("ranking snapshot")
        verbose_name_plural = _("ranking snapshots")

    def __str__(self) -> str:
        return f"{self.tournament_id} v{self.results_version} {self.method}"
