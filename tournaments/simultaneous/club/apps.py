from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SimultaneousClubConfig(AppConfig):
    name = "tournaments.simultaneous.club"
    label = "simultaneous_club"
    verbose_name = _("Simultaneous events (club)")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Hooks: a linked tournament is seated with the event's donnes (preparation's donne
        source); a change of its results schedules an upload (`results_changed`);
        the workers' sweep resends what the hub has not acknowledged; the registrations say
        when more players are registered than the event's étui sets seat; a link saved makes this
        process forget it saw its tournament without one; a player's event report waits for the
        embargo (`under_embargo`)."""
        from django.db.models.signals import post_save

        from scoring.rankings.player_report import embargo_register
        from scoring.rankings.sweep import sweep_register
        from tournaments.services.preparation import donne_source_register, seating_limit_register
        from tournaments.signals import results_changed

        from .models import SimultaneousLink
        from .services import (
            event_donnes,
            link_created,
            on_results_changed,
            seating_limit,
            under_embargo,
            uploads_sweep,
        )

        post_save.connect(
            lambda instance, **_kw: link_created(instance.tournament_id),
            sender=SimultaneousLink,
            weak=False,
            dispatch_uid="simultaneous-link-created",
        )
        donne_source_register(event_donnes)
        seating_limit_register(seating_limit)
        results_changed.connect(on_results_changed, weak=False, dispatch_uid="club-upload")
        sweep_register(uploads_sweep)
        embargo_register(under_embargo)
