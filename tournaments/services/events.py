"""What happens when a tournament's results change (result, annulment, penalty)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import connection, transaction
from django.db.models import F

from ..models import Round, Tournament


def results_changed(*, tournament_id: int) -> None:
    """Bump the tournament's results version and schedule its ranking once committed.

    Call it inside the transaction that changed the result, so the version moves with the
    change or not at all; the ranking task then runs on commit (or in-process without a
    broker), and a snapshot older than the version is shown as "being updated".
    """
    Tournament.objects.filter(pk=tournament_id).update(results_version=F("results_version") + 1)
    from scoring.rankings.tasks import schedule_ranking

    transaction.on_commit(partial(schedule_ranking, tournament_id))


def _guarded_bump_sql(vendor: str) -> str:
    """The results version's bump, made only while the tournament takes results (it has
    started) and the round is not closed. On PostgreSQL the round's row is share-locked by
    the same statement: a closing that has not committed yet makes it wait, then see the
    closed state; a closing that comes later waits for this transaction. SQLite has one
    writer at a time, so its statement sees any committed closing anyway.

    On PostgreSQL it also answers whether a ranking task is queued (a claim younger than
    the claim's timeout) with the tournament noted stale, reading the ranking's state under
    a share lock held to the commit: the task's start (which gives the claim back before it
    reads the results) and a computation's end (which clears the stale mark unless the
    version moved) both update that row, so both wait for this write's commit. A task seen
    queued here will therefore read this change: there is nothing to dispatch."""
    from scoring.rankings.models import RankingState

    t, r, s = Tournament._meta, Round._meta, RankingState._meta
    lock = " FOR SHARE" if vendor == "postgresql" else ""
    sql = (
        f"UPDATE {t.db_table} SET {_col(t, 'results_version')} = {_col(t, 'results_version')} + 1"
        f" WHERE {_col(t, 'id')} = %s AND {_col(t, 'status')} NOT IN (%s, %s)"
        f" AND EXISTS (SELECT 1 FROM {r.db_table} WHERE {_col(r, 'id')} = %s"
        f" AND {_col(r, 'state')} <> %s{lock})"
    )
    if vendor == "postgresql":
        sql += (
            f" RETURNING (SELECT {_col(s, 'queued_at')} >= STATEMENT_TIMESTAMP() - %s"
            f" AND {_col(s, 'stale_since')} IS NOT NULL FROM {s.db_table}"
            f" WHERE {_col(s, 'tournament')} = %s FOR SHARE)"
        )
    return sql


def _col(meta: Any, name: str) -> str:
    return meta.get_field(name).column


_GUARDED_BUMP: dict[str, str] = {}


def open_round_bump(*, tournament_id: int, round_id: int) -> tuple[str, list[Any]]:
    """The statement of `results_changed_in_open_round` and its parameters, for a caller
    that runs it with other statements (tournaments.services.rows.insert_pair). It changes
    one row, or none when refused; on PostgreSQL that row answers whether a ranking task
    is queued already (see `_guarded_bump_sql`). The caller then calls `ranking_on_commit`."""
    from scoring.rankings.services import QUEUE_CLAIM_TIMEOUT

    vendor = connection.vendor
    sql = _GUARDED_BUMP.get(vendor)
    if sql is None:
        sql = _GUARDED_BUMP[vendor] = _guarded_bump_sql(vendor)
    status = Tournament.Status
    params = [tournament_id, status.DRAFT, status.REGISTRATION, round_id, Round.State.CLOSED]
    if vendor == "postgresql":
        params += [QUEUE_CLAIM_TIMEOUT, tournament_id]
    return sql, params


def ranking_on_commit(tournament_id: int, *, queued: bool = False) -> None:
    """Schedule the tournament's ranking once the transaction commits; nothing to do when
    the bump saw a task queued under its lock (``queued``) and tasks go to a broker."""
    from scoring.rankings.tasks import broker_in_use, schedule_ranking

    if queued and broker_in_use():
        return
    transaction.on_commit(partial(schedule_ranking, tournament_id))


def results_changed_in_open_round(*, tournament_id: int, round_id: int) -> bool:
    """`results_changed` for a result of ``round_id``, refused by the database itself when
    the tournament has not started or the round is closed (checked before the transaction,
    either may have changed since). Returns False, having changed nothing, when refused: the
    caller then rolls its transaction back. No query more than `results_changed`."""
    from .rows import run

    ran = run(*open_round_bump(tournament_id=tournament_id, round_id=round_id))
    if ran.rowcount != 1:
        return False
    ranking_on_commit(tournament_id, queued=bool(ran.rows and ran.rows[0][0]))
    return True
