from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SimultaneousHubConfig(AppConfig):
    name = "tournaments.simultaneous.hub"
    label = "simultaneous_hub"
    verbose_name = _("Simultaneous events (hub)")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Workers' sweeps also compute overall rankings left stale (a lost task)."""
        from scoring.rankings.sweep import sweep_register

        from .ranking import overall_rankings_sweep

        sweep_register(overall_rankings_sweep)
