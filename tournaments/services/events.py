"""What happens when a tournament's results change (result, annulment, penalty)."""

from __future__ import annotations

from functools import partial

from django.db import transaction
from django.db.models import F

from ..models import Tournament


def results_changed(*, tournament_id: int) -> None:
    """Bump the tournament's results version and schedule its ranking once committed.

    Call it inside the transaction that changed the result, so the version moves with the
    change or not at all; the ranking task then runs on commit (or in-process without a
    broker), and a snapshot older than the version is shown as "being updated".
    """
    Tournament.objects.filter(pk=tournament_id).update(results_version=F("results_version") + 1)
    from scoring.tasks import schedule_ranking

    transaction.on_commit(partial(schedule_ranking, tournament_id))
