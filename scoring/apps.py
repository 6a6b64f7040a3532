from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ScoringConfig(AppConfig):
    name = "scoring"
    verbose_name = _("Scoring")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register the documents' sweep with the workers' sweep (the rankings know nothing of
        the documents) and their build task (queued by name), the ranking's scheduling as a
        receiver of `results_changed`, and the club seasons' and the players' rating's as
        receivers of the tournament ranking's `ranking_computed` (they count the snapshots
        that task writes)."""
        from scoring.documents import tasks as document_tasks  # noqa: F401 (its task, by name)
        from scoring.documents.sweep import documents_sweep
        from scoring.rankings import rating, season
        from scoring.rankings.derived import ranking_computed
        from scoring.rankings.services import TOURNAMENT_RANKING
        from scoring.rankings.sweep import sweep_register
        from scoring.rankings.tasks import on_results_changed
        from tournaments.signals import results_changed

        sweep_register(documents_sweep)
        results_changed.connect(on_results_changed, weak=False, dispatch_uid="ranking-schedule")
        ranking_computed.connect(
            season.on_tournament_ranked,
            sender=TOURNAMENT_RANKING,
            weak=False,
            dispatch_uid="club-season-schedule",
        )
        ranking_computed.connect(
            rating.on_tournament_ranked,
            sender=TOURNAMENT_RANKING,
            weak=False,
            dispatch_uid="player-rating-schedule",
        )
