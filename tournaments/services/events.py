"""What happens when a tournament's results change (result, annulment, penalty)."""

from __future__ import annotations

from typing import Any

from django.db.models import F

from scoring.rankings.services import ranking_queued_clause

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


def open_round_bump(*, tournament_id: int, round_id: int) -> tuple[str, list[Any]]:
    """The statement of `results_changed_in_open_round` and its parameters, for a caller
    that runs it itself. It changes one row, or none when the tournament has not started or the round is closed; on PostgreSQL that
    row answers whether a ranking task is queued already
    (scoring.rankings.services.ranking_queued_clause). The caller then calls
    `ranking_on_commit` with that answer."""
    queued = ranking_queued_clause(tournament_id=tournament_id)
    status = Tournament.Status
    params = [tournament_id, status.DRAFT, status.REGISTRATION, round_id, Round.State.CLOSED]
    if queued is not None:
        params += queued[1]
    return open_round_bump_statement(queued), params


def ranking_on_commit(tournament_id: int, *, queued: bool = False) -> None:
    """Send `results_changed` once the transaction commits, saying whether the bump saw a
    ranking task queued under its lock (``queued``): the ranking's receiver then has
    nothing to do, the others (a club's upload) still run."""
    results_changed_on_commit(tournament_id, ranking_queued=queued)


def results_changed_in_open_round(*, tournament_id: int, round_id: int) -> bool:
    """`results_changed` for a result of ``round_id``, refused by the database itself when
    the tournament has not started or the round is closed (checked before the transaction,
    either may have changed since). Returns False, having changed nothing, when refused: the
    caller then rolls its transaction back. No query more than `results_changed`."""
    ran = run(*open_round_bump(tournament_id=tournament_id, round_id=round_id))
    if ran.rowcount != 1:
        return False
    ranking_on_commit(tournament_id, queued=bool(ran.rows and ran.rows[0][0]))
    return True
