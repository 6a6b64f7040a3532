"""What happens when a tournament's results change (result, annulment, penalty)."""

from __future__ import annotations

from django.db.models import F

from ..models import Round, Tournament
from ..signals import results_changed_on_commit
from ..sql import open_round_bump_statement, run


def results_changed(*, tournament_id: int) -> None:
    """Bump the tournament's results version and send `results_changed` once committed.

    Call it inside the transaction that changed the result, so the version moves with the
    change or not at all; the signal's receivers (the ranking's scheduling, a simultaneous
    club's upload) run on commit, and a snapshot older than the version is shown as "being
    updated" meanwhile.
    """
    Tournament.objects.filter(pk=tournament_id).update(results_version=F("results_version") + 1)
    results_changed_on_commit(tournament_id)


def results_changed_in_open_round(*, tournament_id: int, round_id: int) -> bool:
    """`results_changed` for a result of ``round_id``, refused by the database itself when
    the tournament has not started or the round is closed (checked before the transaction,
    either may have changed since). Returns False, having changed nothing, when refused: the
    caller then rolls its transaction back. No query more than `results_changed`."""
    status = Tournament.Status
    params = [tournament_id, status.DRAFT, status.REGISTRATION, round_id, Round.State.CLOSED]
    if run(open_round_bump_statement(), params).rowcount != 1:
        return False
    results_changed_on_commit(tournament_id)
    return True
