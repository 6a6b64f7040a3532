"""Computing and storing a tournament's ranking, and the bookkeeping that lets the
web processes and the workers coalesce computations through the database.

`ranking_recompute` reads everything in a fixed number of queries, whatever the size of the
tournament, inside one consistent read (REPEATABLE READ on PostgreSQL), runs the pure
`scoring.rules.ranking.compute_ranking` and stores a RankingSnapshot tagged with the results
version it read. It is idempotent: a snapshot that exists for (version, method, rate) is not
computed again.

Linear in the size of the tournament: the rows are read as columns (values_list, no model
instances; the JSON columns as text, decoded with msgspec), and the garbage collector is
paused for the computation. The computation builds hundreds of thousands of small, acyclic
objects; with the collector on, every 700 allocations start a collection that walks all of
the young objects, then ever larger generations, which made a tournament three times larger
cost almost five times more.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from functools import partial
from typing import Any

import msgspec
from django.conf import settings
from django.db import transaction
from django.db.models import (
    Exists,
    IntegerField,
    OuterRef,
    Q,
    TextField,
    Value,
)
from django.db.models.functions import Cast, Now

from scoring.rankings import state as states
from scoring.rankings.derived import IN_PROCESS, Subject, schedule
from scoring.rankings.models import RankingSnapshot, RankingState
from scoring.rankings.rows import exact_number, row_encode, row_key, rows_encode
from scoring.rankings.sql import commit_without_waiting, consistent_read, snapshot_insert
from scoring.rankings.state import TaskClock
from scoring.rules.ranking import (
    DonneLine,
    DonneStatus,
    Penalty,
    Ranking,
    RankingTable,
    compute_ranking_table,
)
from tarot_club.kit.runtime import collector_paused
from tarot_club.kit.sql import in_atomic_block, is_postgresql
from tournaments.models import Donne, Result, Seat, TableRound, Tournament
from tournaments.models import Penalty as PenaltyRow

logger = logging.getLogger(__name__)

SNAPSHOT_FORMAT = 1
# Snapshots older than this many results versions are deleted when a new one is stored.
KEEP_VERSIONS = 20
# A queued task that has not started after this long is presumed lost: a new one may be queued.
QUEUE_CLAIM_TIMEOUT = timedelta(seconds=30)


# The largest score one player can get from one four-handed deal (RULES §5): a garde contre
# won with 91 points and 3 bouts, the petit au bout, four triple poignées and an announced
# chelem give a unit of 1100, and the taker three units. A stored score beyond it is not data.
MAX_DEAL_SCORE = 3 * ((25 + 55 + 10) * 6 + 4 * 40 + 400)


class RankingDataError(ValueError):
    """A stored result cannot be turned into ranking input (a bug or a hand-edited row).
    Not transient: the task does not retry it."""


@dataclass(frozen=True)
class RankingInputs:
    """What one computation reads, consistently, from the database."""

    tournament_id: int
    results_version: int
    method: str
    rate: Decimal
    exists: bool
    plays: list[tuple[int, int, str, int, int]]  # (player, donne, position, table, score)
    annulled: list[tuple[int, int]]
    sit_outs: list[tuple[int, int]]
    penalties: list[Penalty]
    read_at: datetime | None = None  # the database's time of the consistent read
    complete: frozenset[int] = frozenset()  # donnes every scheduled table has a result for
    donnes: int = 0  # the tournament's donnes


def min_interval() -> float:
    """Seconds between the starts of two computations of one tournament (coalescing)."""
    return float(getattr(settings, "RANKING_MIN_INTERVAL", 1.0))


def stale_after() -> float:
    """Seconds a page waits for the workers before computing the ranking in-process."""
    return float(getattr(settings, "RANKING_STALE_AFTER", 15.0))


# --- the computation ---------------------------------------------------------------------------


def _counted_results(tournament_id: int) -> Any:
    """The one place that says which results enter the ranking."""
    return Result.objects.counted().filter(tournament_id=tournament_id).order_by()


def ranked_results(*, tournament_id: int) -> Any:
    """The results that enter the ranking, as columns: (pk, status, donne id, table id,
    holders, scores, sitter id)."""
    return _counted_results(tournament_id).values_list(
        "pk", "status", "donne_id", "table_id", "holders", "scores", "sitter_id"
    )


def ranked_results_json(*, tournament_id: int) -> Any:
    """`ranked_results` with holders and scores as their JSON text, for the caller to decode
    with msgspec: Django decodes each JSON value with json.loads, which for the thousands of
    small documents of a championship costs as much as the query itself."""
    return (
        _counted_results(tournament_id)
        .annotate(
            holders_json=Cast("holders", TextField()), scores_json=Cast("scores", TextField())
        )
        .values_list(
            "pk", "status", "donne_id", "table_id", "holders_json", "scores_json", "sitter_id"
        )
    )


def _plays_of(
    results: list[tuple[Any, ...]],
) -> tuple[list[tuple[int, int, str, int, int]], list[tuple[int, int]], list[tuple[int, int]]]:
    """The plays (player, donne, position, table, score: the fields of a
    scoring.rules.ranking.Play), the annulled (donne, table) and the sit-outs (player, donne)
    of the rows of `ranked_results_json`. Raises RankingDataError for a row that is not
    data (JSON that does not decode, a score beyond any deal)."""
    plays: list[tuple[int, int, str, int, int]] = []  # the fields of a scoring.rules.ranking.Play
    annulled: list[tuple[int, int]] = []
    sit_outs: list[tuple[int, int]] = []
    played_status = Result.Status.PLAYED
    annulled_status = Result.Status.ANNULLED
    add = plays.append
    decode = msgspec.json.decode
    for pk, status, donne, table, holders_json, scores_json, sitter in results:
        if sitter is not None:
            sit_outs.append((sitter, donne))
        if status == annulled_status:
            annulled.append((donne, table))
        try:
            holders, scores = decode(holders_json), decode(scores_json)
        except msgspec.DecodeError:
            raise RankingDataError(f"result {pk}: holders or scores are not JSON") from None
        if not holders:
            continue
        if status == played_status:
            position = None
            try:
                for position, player in holders.items():
                    score = scores[position]
                    if type(score) is not int:
                        score = int(score)
                    if not -MAX_DEAL_SCORE <= score <= MAX_DEAL_SCORE:
                        raise RankingDataError(
                            f"result {pk}: holders or scores out of range: position "
                            f"{position!r} scores beyond any deal ({MAX_DEAL_SCORE})"
                        )
                    add(
                        (
                            player if type(player) is int else int(player),
                            donne,
                            position,
                            table,
                            score,
                        )
                    )
            except RankingDataError:
                raise
            except (KeyError, TypeError, ValueError):
                raise RankingDataError(
                    f"result {pk}: no valid score for position {position!r} in {scores!r}"
                ) from None
        else:  # all passed: a real 0 that is compared; annulled: left out of the group
            for position, player in holders.items():
                add((int(player), donne, position, table, 0))
    return plays, annulled, sit_outs


def ranking_inputs(*, tournament_id: int) -> RankingInputs | None:
    """Read a tournament's results as ranking input (None if the tournament is gone).

    Three queries whatever the size: the tournament (and whether its snapshot is stored),
    the results, and in one UNION the penalties, the seated players (these appear in the
    ranking before their first result), the tables scheduled per étui set and the donnes
    (which donnes are complete, RULES §6.1: as `scoring.rankings.selectors.complete_donnes` decides).
    Few round trips matter: on a busy host each one waits its turn.
    """
    stored = RankingSnapshot.objects.filter(
        tournament_id=OuterRef("pk"),
        results_version=OuterRef("results_version"),
        method=OuterRef("method"),
        matchpoint_penalty_rate=OuterRef("matchpoint_penalty_rate"),
    )
    with consistent_read():
        head = (
            Tournament.objects.filter(pk=tournament_id)
            .annotate(stored=Exists(stored), db_now=Now())
            .values_list("results_version", "method", "matchpoint_penalty_rate", "stored", "db_now")
            .first()
        )
        if head is None:
            return None
        version, method, rate, exists, read_at = head
        if exists:
            return RankingInputs(
                tournament_id, version, method, rate, True, [], [], [], [], read_at
            )
        results = list(ranked_results_json(tournament_id=tournament_id))
        penalty_rows, seated, scheduled, etui_set_of = _side_rows(tournament_id)

    plays, annulled, sit_outs = _plays_of(results)
    penalties = [Penalty(player, points, donne) for player, points, donne in penalty_rows]
    # Seated players without any result yet still appear (with 0): a 0-point entry adds the
    # player to the ranking without changing anyone's total.
    ranked = {p[0] for p in plays} | {p for p, _ in sit_outs} | {p.player for p in penalties}
    penalties.extend(Penalty(player, 0) for player in sorted(seated - ranked))
    entered = {(row[2], row[3]) for row in results}  # (donne, table)
    complete = frozenset(
        donne
        for donne, etui_set in etui_set_of.items()
        if (due := scheduled.get(etui_set)) and all((donne, table) in entered for table in due)
    )
    return RankingInputs(
        tournament_id,
        version,
        method,
        rate,
        False,
        plays,
        annulled,
        sit_outs,
        penalties,
        read_at,
        complete,
        len(etui_set_of),
    )


_PENALTY, _SEAT, _SCHEDULED, _DONNE = range(4)


def _side_rows(
    tournament_id: int,
) -> tuple[list[tuple[int, int, int | None]], set[int], dict[int, set[int]], dict[int, int]]:
    """In one query (a UNION of four reads): the penalties in force (player, points, donne),
    the seated players, the tables scheduled per étui set, and each donne's étui set."""
    no_int = Cast(Value(None), IntegerField())

    def kind(value: int) -> Value:
        return Value(value, output_field=IntegerField())

    penalties = (
        PenaltyRow.objects.filter(tournament_id=tournament_id, withdrawn_at__isnull=True)
        .order_by()
        .values_list("player_id", "points", "donne_id", kind(_PENALTY))
    )
    seats = (
        Seat.objects.filter(round__tournament_id=tournament_id)
        .order_by()
        .values_list("player_id", no_int, no_int, kind(_SEAT))
        .distinct()
    )
    scheduled_rows = (
        TableRound.objects.filter(round__tournament_id=tournament_id)
        .order_by()
        .values_list("etui_set_id", "table_id", no_int, kind(_SCHEDULED))
    )
    donnes = (
        Donne.objects.filter(tournament_id=tournament_id)
        .order_by()
        .values_list("pk", "etui_set_id", no_int, kind(_DONNE))
    )
    penalty_rows: list[tuple[int, int, int | None]] = []
    seated: set[int] = set()
    scheduled: dict[int, set[int]] = {}
    etui_set_of: dict[int, int] = {}
    for first, second, third, row_kind in penalties.union(seats, scheduled_rows, donnes, all=True):
        if row_kind == _PENALTY:
            penalty_rows.append((first, second, third))
        elif row_kind == _SEAT:
            seated.add(first)
        elif row_kind == _SCHEDULED:
            scheduled.setdefault(first, set()).add(second)
        else:
            etui_set_of[first] = second
    return penalty_rows, seated, scheduled, etui_set_of


# Exact numbers for JSON (scoring.rankings.rows, where snapshot rows are encoded).
_num = exact_number


_STATUS = {status: status.value for status in DonneStatus}


def _card_lines(per_donne: dict[Any, DonneLine]) -> list[list[Any]]:
    """A player's score-card lines from a Ranking row."""
    num, status_text = _num, _STATUS
    return [
        [
            donne,
            position,
            table,
            score if type(score) is int else num(score),
            num(differential),
            None if percentage is None else num(percentage),
            status_text[status],
            group_size,
        ]
        for donne, (position, table, score, differential, percentage, status, group_size) in (
            per_donne.items()
        )
    ]


def ranking_encode(ranking: Ranking) -> tuple[dict[str, Any], dict[str, Any]]:
    """A `compute_ranking` Ranking as the snapshot's `data` and `cards` JSON (see
    RankingSnapshot): the same documents `ranking_table_encode` makes from the table."""
    rows: dict[str, Any] = {}
    cards: dict[str, Any] = {}
    for row in ranking.rows:
        key = row_key(row.player)
        rows[key] = row_encode(
            row.rank,
            row.total,
            row.differential_total,
            row.penalty_points,
            row.donnes_played,
            row.donnes_compared,
        )
        cards[key] = _card_lines(row.per_donne)
    return _data(ranking.method, ranking.matchpoint_penalty_rate, rows), cards


def ranking_table_encode(
    table: RankingTable, *, complete: Collection[int] = (), donnes: int = 0
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A `compute_ranking_table` result as the snapshot's `data` and `cards` JSON; with its
    room rows (computed with `complete`), the room's section (see RankingSnapshot)."""
    rows = rows_encode(table.rows)
    lines = table.lines
    cards = {f"p{player}": lines[player] for player, _values in table.rows}
    data = _data(table.method, table.matchpoint_penalty_rate, rows)
    if table.room_rows is not None:
        room: dict[str, Any] = {"donnes": donnes, "complete": sorted(complete)}
        if table.room_rows is not table.rows:  # else the same rows: not stored twice
            room["rows"] = rows_encode(table.room_rows)
        data["room"] = room
    return data, cards


def _data(method: Any, rate: Fraction, rows: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": SNAPSHOT_FORMAT,
        "method": str(method),
        "rate": _num(rate),
        "players": len(rows),
        "rows": rows,
    }


def ranking_recompute(
    *, tournament_id: int, where: str = IN_PROCESS, clock: TaskClock | None = None
) -> int:
    """Compute and store the tournament's ranking; return the results version it reflects.

    Idempotent: when a snapshot exists for the current version, method and rate, nothing is
    computed. Two computations racing on one version store one snapshot (unique constraint).
    ``clock`` (a task): how `ranking_task_started` moved the coalescing clock; when there is
    nothing to compute it is put back, so a task that finds its snapshot delays nobody.
    """
    with collector_paused():
        return _recompute(tournament_id=tournament_id, where=where, clock=clock)


def _recompute(*, tournament_id: int, where: str, clock: TaskClock | None) -> int:
    started = time.perf_counter()
    inputs = ranking_inputs(tournament_id=tournament_id)
    if inputs is None:
        logger.info("ranking of tournament %s not computed: it no longer exists", tournament_id)
        return 0
    if inputs.exists:
        _state_after(inputs, computed=False)
        if clock is not None:
            states.clock_given_back(RankingState, tournament_id, clock)  # only real work moves it
        return inputs.results_version
    table = compute_ranking_table(
        inputs.plays,
        method=inputs.method,
        annulled=inputs.annulled,
        sit_outs=inputs.sit_outs,
        penalties=inputs.penalties,
        matchpoint_penalty_rate=Fraction(inputs.rate),
        complete=inputs.complete,
    )
    data, cards = ranking_table_encode(table, complete=inputs.complete, donnes=inputs.donnes)
    duration = int((time.perf_counter() - started) * 1000)
    own_transaction = not in_atomic_block()
    with transaction.atomic():
        if own_transaction and is_postgresql():
            # Safe for derived data only, hence only in a transaction of the computation's
            # own: a crash may lose the last snapshot with its RankingState update, and the
            # ranking then reads as stale and is computed again.
            commit_without_waiting()
        created = _snapshot_insert(
            RankingSnapshot(
                tournament_id=tournament_id,
                results_version=inputs.results_version,
                method=inputs.method,
                matchpoint_penalty_rate=inputs.rate,
                computed_in=where[:200],
                duration_ms=duration,
                data=data,
                cards=cards,
            )
        )
        _state_after(inputs, computed=created)
        RankingSnapshot.objects.filter(
            tournament_id=tournament_id,
            results_version__lt=inputs.results_version - KEEP_VERSIONS,
        ).delete()
    logger.info(
        "ranking of tournament %s v%s (%s) computed in %s ms by %s",
        tournament_id,
        inputs.results_version,
        inputs.method,
        duration,
        where,
    )
    return inputs.results_version


def _snapshot_insert(snapshot: RankingSnapshot) -> bool:
    """INSERT the snapshot; False when another computation stored this version meanwhile
    (scoring.rankings.sql.snapshot_insert)."""
    return snapshot_insert(snapshot, dumps=_json_text)


def _json_text(value: Any) -> str:
    """JSON of plain values (the ranking rows) with msgspec, several times json.dumps' speed."""
    return msgspec.json.encode(value).decode()


def _state_after(inputs: RankingInputs, *, computed: bool) -> None:
    """Count the computation; clear `stale_since` unless the tournament moved on meanwhile
    (its version, method or rate: `scoring.rankings.state.note_computed`). While results keep
    coming, the staleness is dated from this computation's read, so that pages do not take
    the workers for late after RANKING_STALE_AFTER."""
    moved_on = Tournament.objects.filter(pk=inputs.tournament_id).filter(
        Q(results_version__gt=inputs.results_version)
        | ~Q(method=inputs.method)
        | ~Q(matchpoint_penalty_rate=inputs.rate)
    )
    states.note_computed(
        RankingState,
        inputs.tournament_id,
        moved_on=moved_on,
        read_at=inputs.read_at,
        computed=computed,
    )


# --- the subject and its bookkeeping (scoring.rankings.state), for the pages and the writes ---


def _compute(pk: int, *, where: str, clock: TaskClock | None) -> int:
    return ranking_recompute(tournament_id=pk, where=where, clock=clock)


# The tournament ranking as a subject of the derived-ranking mechanism (scoring.rankings.derived):
# its task is `scoring.rankings.tasks.recompute_ranking`. The sweep computes a ranking that
# waited a third of RANKING_STALE_AFTER, so it is current within RANKING_STALE_AFTER even when
# Redis lost the queued task.
TOURNAMENT_RANKING = Subject(
    label="ranking of tournament",
    state=RankingState,
    compute=_compute,
    task_name="scoring.recompute_ranking",
    min_interval=min_interval,
    sweep_after=lambda: stale_after() / 3,
    sweep_window=min_interval,
    claim_timeout=QUEUE_CLAIM_TIMEOUT,
)


def ranking_mark_stale(*, tournament_id: int) -> tuple[datetime | None, bool, datetime]:
    """Note that the tournament has a change not yet ranked; return (started_at of the last
    computation, whether a queued task already holds the claim, the database's time)."""
    return states.mark_stale(RankingState, tournament_id, claim_timeout=QUEUE_CLAIM_TIMEOUT)


def ranking_claim_queue(*, tournament_id: int, now: datetime) -> bool:
    """Claim the right to queue a task (one queued task per tournament at a time)."""
    return states.claim_queue(
        RankingState, tournament_id, now=now, claim_timeout=QUEUE_CLAIM_TIMEOUT
    )


def ranking_task_started(*, tournament_id: int) -> TaskClock:
    """A task starts (`scoring.rankings.state.task_started`)."""
    return states.task_started(RankingState, tournament_id)


def ranking_pending(
    *,
    queued_at: datetime | None,
    started_at: datetime | None,
    stale_since: datetime | None,
    now: datetime,
) -> bool:
    """From a RankingState row: True when a task is queued (claim not void) or a computation
    started after the first unranked change (it will include it), so a page read has nothing
    to ask for."""
    return states.is_pending(
        queued_at=queued_at,
        started_at=started_at,
        stale_since=stale_since,
        now=now,
        claim_timeout=QUEUE_CLAIM_TIMEOUT,
        running_for=stale_after(),
    )


def ranking_claim_in_process(*, tournament_id: int, window: float) -> bool:
    """Claim an in-process computation unless one started less than `window` seconds ago
    (many phones polling a stale ranking must not all compute it)."""
    return states.claim_in_process(RankingState, tournament_id, window=window)


def ranking_note_error(*, tournament_id: int, error: BaseException) -> None:
    """Keep the last failure's message where the arbiter's pages can show it."""
    states.note_error(RankingState, tournament_id, error)


def ranking_method_changed(*, tournament_id: int) -> None:
    """Call when a tournament's comparison method or match-point rate changes: schedules a new
    ranking once committed. (Snapshots are keyed on method and rate, so the pages also notice
    on their own and say "being updated" until the new one is stored.)"""
    transaction.on_commit(partial(schedule, TOURNAMENT_RANKING, tournament_id))
