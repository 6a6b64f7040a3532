"""Helping a stale ranking catch up: the one service a read calls before it shows a ranking.

The selectors (`scoring.rankings.selectors`) only read: a page or an API read that shows the
ranking calls `ranking_snapshot_caught_up` (or `ranking_caught_up`) instead, which reads the
latest snapshot and, when it is older than the results, helps it catch up:
- with a broker in use, it nudges the scheduler (which queues a task unless one is queued);
  if the workers have not caught up RANKING_STALE_AFTER seconds after the first unranked
  change (worker stopped, Redis down), it computes the ranking in-process;
- without a broker (CELERY_EAGER: a laptop, the test suite), it computes it in-process
  right away (saves within RANKING_MIN_INTERVAL of a computation leave it to the next read,
  so an arbiter entering a burst of results is not slowed down).
No page ever presents a snapshot as current when a saved result is missing from it.
Exports and printed documents read the stored snapshot as it is and never call this.
"""

from __future__ import annotations

import logging
from datetime import date

from django.db.models.functions import Now
from django.utils import timezone

from scoring.rankings import season
from scoring.rankings.models import RankingSnapshot, RankingState
from scoring.rankings.selectors import (
    RankingView,
    Season,
    SeasonLine,
    ranking_audience,
    ranking_poll_tournament,
    ranking_poll_unchanged,
    ranking_snapshot,
    ranking_view,
)
from scoring.rankings.services import (
    IN_PROCESS,
    ranking_claim_in_process,
    ranking_note_error,
    ranking_pending,
    ranking_recompute,
    stale_after,
)
from scoring.rankings.tasks import broker_in_use, schedule_ranking
from scoring.rules.season import SeasonRow, shared_ranks
from tournaments.models import Club, Player, Tournament
from tournaments.search import name_order

logger = logging.getLogger(__name__)


def ranking_catch_up(tournament: Tournament) -> bool:
    """Help the tournament's stale ranking catch up (see the module docstring); True when it
    was computed here, in-process (then a new snapshot is there to read). Call it when a
    read found the snapshot not current; it never raises: a failed in-process computation
    is logged and noted on the ranking's state, and the page says "being updated"."""
    if broker_in_use():
        queued_at, started_at, stale_since, now = (
            RankingState.objects.filter(pk=tournament.pk)
            .annotate(db_now=Now())
            .values_list("queued_at", "started_at", "stale_since", "db_now")
            .first()
        ) or (None, None, None, timezone.now())
        waited = (now - stale_since).total_seconds() if stale_since else 0.0
        if stale_since is None or waited < stale_after():
            # A queued task or a running computation will bring the change: asking again
            # would only queue a task that finds nothing to do.
            pending = ranking_pending(
                queued_at=queued_at, started_at=started_at, stale_since=stale_since, now=now
            )
            if not pending:
                schedule_ranking(tournament.pk)  # starts the clock; queues unless queued
            return False
        window = stale_after()
    else:
        window = 0.0  # no worker to wait for: the reader computes it now
    if not ranking_claim_in_process(tournament_id=tournament.pk, window=window):
        return False
    try:
        ranking_recompute(tournament_id=tournament.pk, where=IN_PROCESS)
    except Exception as exc:  # the page still answers, saying "being updated"
        logger.exception("in-process ranking of tournament %s failed", tournament.pk)
        ranking_note_error(tournament_id=tournament.pk, error=exc)
        return False
    return True


def ranking_snapshot_caught_up(tournament: Tournament) -> tuple[RankingSnapshot | None, bool]:
    """`ranking_snapshot` (the snapshot to show, without its cards, and whether it is
    current), after helping a stale ranking catch up: one read when it is current, a second
    one only when it was computed here."""
    snapshot, current = ranking_snapshot(tournament)
    if not current and ranking_catch_up(tournament):
        snapshot, current = ranking_snapshot(tournament)
    return snapshot, current


def ranking_read_version(pk: int) -> tuple[Tournament | None, str | None]:
    """For a poll of tournament `pk`'s ranking, in one query (`ranking_poll_tournament`):
    the tournament (its status, visibility and versions only; None when there is none) and
    what names the ranking a read would show now (its latest snapshot, when that was
    computed, whether it is current, the tournament's status), or None when a read would do
    more than show it (a stale ranking with nothing pending: the read helps it catch up, so
    its answer is not one to keep)."""
    polled = ranking_poll_tournament(pk)
    if polled is None:
        return None, None
    latest = polled.latest_snapshot_id  # type: ignore[attr-defined]
    current = latest is not None and polled.latest_snapshot_version >= polled.results_version  # type: ignore[attr-defined]
    cur = "1" if current else "0"
    if latest is None or not ranking_poll_unchanged(polled, since=str(latest), cur=cur):
        return polled, None
    computed_at = polled.latest_snapshot_computed_at  # type: ignore[attr-defined]
    stamp = computed_at.timestamp() if computed_at else 0
    return polled, f"{latest}:{stamp:.6f}:{cur}:{polled.status}"


def ranking_caught_up(
    tournament: Tournament, *, can_manage: bool, asked: str | None = None
) -> RankingView:
    """The ranking a reader is shown (`ranking_audience` of `can_manage` and `asked`: the
    room's during play for whoever does not manage the tournament), after helping a stale
    one catch up. A fixed number of queries."""
    audience = ranking_audience(tournament, can_manage=can_manage, asked=asked)
    snapshot, current = ranking_snapshot_caught_up(tournament)
    return ranking_view(tournament, snapshot, current, audience=audience)


def club_season_caught_up(*, club: Club, start: date, end: date, method: str) -> Season:
    """The club's season (`scoring.rankings.season`) as stored, after helping each of its
    published tournaments without a current snapshot catch up, and computed here when its
    stored lines do not count exactly the current snapshots (created on the first read). A
    tournament still without a current snapshot is listed as `updating` and not counted.
    A current season: four queries."""
    tournaments = season.season_tournaments(club_id=club.pk, start=start, end=end, method=method)
    stored = season.stored_season(club_id=club.pk, start=start, end=end, method=method)
    ids = [t.pk for t in tournaments]
    counted = season.current_counted(ids)
    missing = [t for t in tournaments if str(t.pk) not in counted]
    if missing and any([ranking_snapshot_caught_up(t)[1] for t in missing]):
        counted = season.current_counted(ids)
    if stored is None:  # past the seasons a club stores: computed for this read only
        counted, rows = season.season_compute(club_id=club.pk, start=start, end=end, method=method)
    elif stored.counted != counted:
        rows, counted = _season_computed(stored.pk, club=club, start=start, end=end, method=method)
    else:
        rows = stored.rows
    updating = [t for t in tournaments if str(t.pk) not in counted]
    return Season(club, start, end, method, tournaments, updating, season_lines(rows))


def _season_computed(
    pk: int, *, club: Club, start: date, end: date, method: str
) -> tuple[list[SeasonRow], dict[str, int]]:
    """Compute and store the season in-process; if storing fails, the lines computed without
    storing them (noted on the season's state), so the page still counts every snapshot."""
    try:
        season.season_recompute(pk, where=IN_PROCESS)
        stored = season.stored_season(club_id=club.pk, start=start, end=end, method=method)
        assert stored is not None  # it exists: the season `pk` was just computed
        return stored.rows, stored.counted or {}
    except Exception as exc:
        logger.exception("in-process computation of club season %s failed", pk)
        season.note_error(pk, exc)
        counted, rows = season.season_compute(club_id=club.pk, start=start, end=end, method=method)
        return rows, counted


def season_lines(rows: list[SeasonRow]) -> list[SeasonLine]:
    """A season's stored lines with their players (one query), by total then in the players'
    name order; ranks shared by equal totals (over the players still there)."""
    players = Player.objects.select_related("club").in_bulk([row.player for row in rows])
    present = [row for row in rows if row.player in players]
    present.sort(key=lambda row: (-row.total, name_order(players[row.player])))
    ranks = shared_ranks([row.total for row in present])
    return [
        SeasonLine(
            player=players[row.player],
            rank=rank,
            total=row.total,
            tournaments=row.tournaments,
            donnes=row.donnes,
            compared_sum=row.compared_sum,
            compared=row.compared,
        )
        for row, rank in zip(present, ranks, strict=True)
    ]
