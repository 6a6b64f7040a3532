from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Tell the kit's API error handler how to answer the tournaments' domain errors; the
        workers' sweep makes final the rankings whose claims window passed (a lost task)."""
        from scoring.rankings.sweep import sweep_register

        from .api.errors import register
        from .services.claims import claims_sweep

        register()
        sweep_register(claims_sweep)
