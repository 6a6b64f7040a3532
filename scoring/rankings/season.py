"""A club's season ranking as a subject of the derived-ranking mechanism (`CLUB_SEASON`,
`scoring.rankings.derived`): one `ClubSeason` row per (club, start, end, method), created on
its first read, holding the lines `scoring.rules.season.season_table` computes from the
current ranking snapshots of the club's published tournaments in the period under that method.

- when a tournament's ranking task has run (`derived.ranking_computed`, sent after the task
  that `results_changed` scheduled: a result, an annulment, a penalty, a tournament's status),
  the seasons whose club and dates cover the tournament are marked stale (found in one query)
  and scheduled (`derived.schedule`: coalesced, CLUB_SEASON_MIN_INTERVAL seconds apart); the
  workers' sweep computes those left stale CLUB_SEASON_SWEEP_AFTER seconds.
- A computation reads the counted snapshots' rows in one query and stores the lines with the
  snapshots' versions they count (`counted`); a read (`scoring.rankings.catch_up.
  club_season_caught_up`) compares those with the current snapshots and computes in-process
  when they differ, so the page never shows a season that misses a saved result.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Exists, F, OuterRef, Q
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Now

from scoring.rankings import state as states
from scoring.rankings.derived import IN_PROCESS, Subject, schedule, sweep_subject
from scoring.rankings.models import ClubSeason, RankingSnapshot
from scoring.rankings.rows import event_rows, season_rows_decode, season_rows_encode
from scoring.rankings.state import TaskClock
from scoring.rules.season import SeasonRow, season_table
from tournaments.models import Tournament

logger = logging.getLogger(__name__)

Counted = dict[str, int]  # {"<tournament id>": results version of its current snapshot}


@dataclass(frozen=True)
class StoredSeason:
    """A season's stored state as a read needs it."""

    pk: int
    counted: Counted | None
    rows: list[SeasonRow]


def season_tournaments(*, club_id: int, start: date, end: date, method: str) -> list[Tournament]:
    """The tournaments a season counts: the club's published ones in the period under the
    method, by date then name; one query."""
    return list(
        Tournament.objects.filter(
            club_id=club_id,
            status=Tournament.Status.PUBLISHED,
            date__gte=start,
            date__lte=end,
            method=method,
        ).order_by("date", "name")
    )


def _current(where: Q, *, rows: bool) -> dict[int, tuple[int, Any]]:
    """{tournament id: (version, stored rows or None)} of the current snapshot of each
    tournament `where` selects (snapshots' `tournament__` lookups) that has one; one query."""
    query = RankingSnapshot.objects.filter(
        where,
        method=F("tournament__method"),
        matchpoint_penalty_rate=F("tournament__matchpoint_penalty_rate"),
        results_version__gte=F("tournament__results_version"),
    ).order_by("tournament_id", "results_version")
    if rows:
        query = query.annotate(season_rows=KeyTransform("rows", "data"))
        values = query.values_list("tournament_id", "results_version", "season_rows")
    else:
        values = query.values_list("tournament_id", "results_version")
    current: dict[int, tuple[int, Any]] = {}
    for tournament_id, version, *stored in values:  # the newest last
        current[tournament_id] = (version, stored[0] if stored else None)
    return current


def current_counted(tournament_ids: list[int]) -> Counted:
    """The versions of the given tournaments' current snapshots (those that have one)."""
    if not tournament_ids:
        return {}
    current = _current(Q(tournament_id__in=tournament_ids), rows=False)
    return {str(pk): version for pk, (version, _rows) in current.items()}


def current_rows(tournament_ids: list[int]) -> dict[int, tuple[int, Any]]:
    """{tournament id: (results version, stored rows)} of the current snapshots of the given
    tournaments (those that have one); one query. A championship
    (`tournaments.championships.ranking`) reads its site tournaments through it."""
    if not tournament_ids:
        return {}
    return _current(Q(tournament_id__in=tournament_ids), rows=True)


def season_compute(
    *, club_id: int, start: date, end: date, method: str
) -> tuple[Counted, list[SeasonRow]]:
    """The season's lines from the current snapshots, and the versions they count; one query."""
    where = Q(
        tournament__club_id=club_id,
        tournament__status=Tournament.Status.PUBLISHED,
        tournament__date__gte=start,
        tournament__date__lte=end,
        tournament__method=method,
    )
    current = _current(where, rows=True)
    table = season_table((event_rows(rows or {}) for _v, rows in current.values()), method)
    return {str(pk): version for pk, (version, _rows) in current.items()}, table


def season_recompute(
    pk: int, *, where: str = IN_PROCESS, clock: TaskClock | None = None
) -> int | None:
    """Compute and store the season `pk` unless its stored lines count the current snapshots
    already; return how many tournaments it counts (None if the season is gone). Idempotent.
    ``clock`` (a task): put back when there is nothing to compute."""
    head = (
        ClubSeason.objects.filter(pk=pk)
        .annotate(db_now=Now())
        .values_list("club_id", "start", "end", "method", "counted", "db_now")
        .first()
    )
    if head is None:
        return None
    club_id, start, end, method, stored, read_at = head
    counted, table = season_compute(club_id=club_id, start=start, end=end, method=method)
    computed = stored != counted
    if not computed and clock is not None:
        states.clock_given_back(ClubSeason, pk, clock)
    changes = (
        {"rows": season_rows_encode(table), "counted": counted, "computed_at": Now()}
        if computed
        else None
    )
    states.note_computed(
        ClubSeason,
        pk,
        moved_on=ClubSeason.objects.filter(pk=pk, stale_since__gt=read_at),
        read_at=read_at,
        computed=computed,
        changes=changes,
    )
    if computed:
        logger.info("club season %s: %s lines by %s", pk, len(table), where)
    return len(counted)


# Seasons stored per club at most: the page's dates come from its query string, so anyone
# could otherwise grow the table; a season past the limit is computed on each read instead.
STORED_SEASONS_PER_CLUB = 40


def stored_season(*, club_id: int, start: date, end: date, method: str) -> StoredSeason | None:
    """The season's stored state, its row created (empty, never computed) on its first read;
    one query when it exists. None, storing nothing, when the club already has
    STORED_SEASONS_PER_CLUB seasons: the caller computes it without storing it."""
    key = {"club_id": club_id, "start": start, "end": end, "method": method}
    row = ClubSeason.objects.filter(**key).values_list("pk", "counted", "rows").first()
    if row is None:
        if ClubSeason.objects.filter(club_id=club_id).count() >= STORED_SEASONS_PER_CLUB:
            return None
        ClubSeason.objects.bulk_create([ClubSeason(**key)], ignore_conflicts=True)
        row = ClubSeason.objects.filter(**key).values_list("pk", "counted", "rows").get()
    pk, counted, rows = row
    return StoredSeason(pk, counted, season_rows_decode(rows))


def note_error(pk: int, error: BaseException) -> None:
    """Keep a failed computation's message on the season's state."""
    states.note_error(ClubSeason, pk, error)


def on_tournament_ranked(sender: object, *, pk: int, **_: Any) -> None:
    """A receiver of `derived.ranking_computed` for the tournament ranking (connected with
    that sender in the app's ready()): a tournament's ranking task has run after its results
    changed (a result, an annulment, a penalty, its status: `results_changed` scheduled it),
    so schedule every season whose club and dates cover the tournament `pk` (found in one
    query; `schedule` marks each stale and coalesces). Whatever the method: a tournament
    whose method changed leaves a season. Here rather than on `results_changed` itself: a
    season counts snapshots, which that task writes, and a result's write keeps its budget
    of queries (tests/tournaments/api/test_write_queries.py)."""
    covering = Tournament.objects.filter(
        pk=pk,
        club_id=OuterRef("club_id"),
        date__gte=OuterRef("start"),
        date__lte=OuterRef("end"),
    )
    for season_pk in ClubSeason.objects.filter(Exists(covering)).values_list("pk", flat=True):
        schedule(CLUB_SEASON, season_pk)


def min_interval() -> float:
    """Seconds between the starts of two computations of one season."""
    return float(getattr(settings, "CLUB_SEASON_MIN_INTERVAL", 2.0))


def sweep_after() -> float:
    """Seconds a season may stay stale before a worker's sweep computes it."""
    return float(getattr(settings, "CLUB_SEASON_SWEEP_AFTER", 30.0))


def _inline() -> bool:
    return bool(getattr(settings, "CLUB_SEASON_INLINE", True))


def _compute(pk: int, *, where: str, clock: TaskClock | None) -> int | None:
    return season_recompute(pk, where=where, clock=clock)


# The club season ranking as a subject of the derived-ranking mechanism; its task is
# `scoring.rankings.tasks.recompute_club_season`. Without a broker it runs in-process on
# commit unless one ran less than CLUB_SEASON_MIN_INTERVAL ago (a read then catches up).
CLUB_SEASON = Subject(
    label="club season",
    state=ClubSeason,
    compute=_compute,
    task_name="scoring.recompute_club_season",
    min_interval=min_interval,
    sweep_after=sweep_after,
    sweep_window=min_interval,
    claim_timeout=timedelta(seconds=60),
    inline=_inline,
)


def club_seasons_sweep(where: str = "sweep") -> list[int]:
    """Compute the seasons left stale for CLUB_SEASON_SWEEP_AFTER seconds."""
    return sweep_subject(CLUB_SEASON, where=where)
