from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ChampionshipsConfig(AppConfig):
    name = "tournaments.championships"
    label = "championships"
    verbose_name = _("Championships")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """The championship ranking is a subject of the derived-ranking mechanism (defining
        it, in `ranking`, adds it to the workers' sweep); after a tournament's ranking task
        or a simultaneous event's overall ranking task, the championships counting that
        event are marked stale and scheduled. The API's domain errors are registered, and the
        player's page gets his championships (`player_section`)."""
        from scoring.rankings.derived import ranking_computed
        from scoring.rankings.player_sections import register_player_section

        from .errors import register
        from .player_section import championship_section
        from .ranking import on_event_ranked

        ranking_computed.connect(on_event_ranked, weak=False, dispatch_uid="championship-stale")
        register()
        register_player_section(championship_section)
