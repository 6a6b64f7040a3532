from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SimultaneousHubConfig(AppConfig):
    name = "tournaments.simultaneous.hub"
    label = "simultaneous_hub"
    verbose_name = _("Simultaneous events (hub)")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """The overall ranking is a subject of the derived-ranking mechanism (defining it, in
        `ranking`, adds it to the workers' sweep); after its task, the booklet is built. The
        workers' sweep closes the events whose claims window has passed."""
        from scoring.rankings.derived import ranking_computed
        from scoring.rankings.sweep import sweep_register

        from .services import events_window_sweep
        from .tasks import on_ranking_computed

        ranking_computed.connect(on_ranking_computed, weak=False, dispatch_uid="hub-booklet")
        sweep_register(events_window_sweep)
