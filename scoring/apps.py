from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the documents' sweep with the workers' sweep (the rankings know nothing of
        the documents)."""
        from scoring.documents.sweep import documents_sweep
        from scoring.rankings.sweep import sweep_register

        sweep_register(documents_sweep)
