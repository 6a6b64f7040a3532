"""The overall ranking of a simultaneous event (RULES.md §6.3): every applied result of every
club pooled, each compared with every result of the field on the same donne at the same
position, ranked by the pure `scoring.rules.ranking` with the event's method and penalties.

Pooling (`pools`): the plays are grouped by (donne, position) as they are read, club by
club, each a licence, a room table numbering the club's table apart from every other club's
(`TABLE_SPAN`) and a score; an annulled table is (donne, room table); a sit-out (sitter's
licence, donne); penalties in force come off the penalised licence. A process keeps each
club's pool for the event's next computation and reads again only the clubs whose results
changed since (their `results_serial` moved). `compute_group_ranking` is `compute_ranking` as plain
values (same exact numbers, same errors) without anyone's card, which is what is stored.

The stored ranking is one `OverallRankingRow` per player, each group's values
(`OverallRankingGroup`) and each club's results as ranked (`OverallRankingClub`, written
again only for the clubs whose results changed), all replaced in one transaction and tagged
with the `results_version` they reflect; `OverallRankingState.results_version` says which
version is stored. A player's card is built when read (`club_cards`), line for line the one
`compute_ranking` gives. Reading is a fixed number of queries whatever the size, as columns
(no model instances), JSON columns decoded with msgspec.

The overall ranking is a subject of the derived-ranking mechanism (`OVERALL_RANKING`,
`scoring.rankings.derived`): its state, scheduling (coalesced, at least
SIMULTANEOUS_RANKING_MIN_INTERVAL seconds apart), task (`simultaneous_hub.
recompute_overall_ranking`) and sweep (an event left stale for SIMULTANEOUS_RANKING_SWEEP_AFTER
seconds) are the tournament ranking's. Without a broker the computation runs in-process on
commit unless SIMULTANEOUS_RANKING_INLINE is False (the benchmark times uploads without it).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

import msgspec
from django.conf import settings
from django.db import transaction
from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils import timezone

from scoring.rankings import state as states
from scoring.rankings.derived import IN_PROCESS, Subject, schedule, sweep_subject
from scoring.rankings.state import TaskClock
from scoring.rules.ranking import (
    GroupRanking,
    Penalty,
    PlayGroups,
    annulled_line,
    compute_group_ranking,
    group_line,
    sat_out_line,
)
from tarot_club.kit.runtime import collector_paused
from tarot_club.kit.sql import in_atomic_block
from tournaments.search import player_search_name

from . import sql
from .models import (
    FieldPenalty,
    FieldPlayer,
    FieldResult,
    Invitation,
    OverallRankingClub,
    OverallRankingGroup,
    OverallRankingRow,
    OverallRankingState,
    SimultaneousEvent,
)
from .pools import KEPT, RESULT_FIELDS, ClubPool, KeptPools, merged, pool_clubs

logger = logging.getLogger(__name__)

_PLAYED, _ANNULLED = FieldResult.Status.PLAYED.value, FieldResult.Status.ANNULLED.value


@dataclass
class OverallInputs:
    """What one computation reads, consistently."""

    event_id: int
    results_version: int
    method: str
    rate: Decimal
    groups: PlayGroups = field(default_factory=dict)
    annulled: list[tuple[int, int]] = field(default_factory=list)
    sit_outs: list[tuple[str, int]] = field(default_factory=list)
    penalties: list[Penalty] = field(default_factory=list)
    players: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # first, last, inv
    clubs: dict[int, tuple[str, str]] = field(default_factory=dict)  # inv: public id, name
    # Each club's `results_serial` and pool (`pools.ClubPool`: its rows as read, what
    # `OverallRankingClub` keeps of a club whose results changed).
    serials: dict[int, int] = field(default_factory=dict)
    pools: dict[int, ClubPool] = field(default_factory=dict)


def overall_inputs(*, event_id: int, kept: KeptPools | None = KEPT) -> OverallInputs | None:
    """The pooled field of an event as ranking input (None if the event is gone), read in one
    snapshot. ``kept``: the pools this process kept of the event's last computation; only the
    clubs whose results serial moved since are read again (None: read every club). Inside a
    caller's transaction nothing is kept or reused: what it reads may never be committed."""
    if in_atomic_block():
        kept = None
    with sql.consistent_read():
        head = (
            SimultaneousEvent.objects.filter(pk=event_id)
            .values_list("results_version", "method", "matchpoint_penalty_rate", "public_id")
            .first()
        )
        if head is None:
            return None
        version, method, rate, public_id = head
        inputs = OverallInputs(event_id, version, method, rate)
        clubs = sql.fetch_all(
            Invitation.objects.filter(event_id=event_id)
            .order_by()
            .values_list("pk", "public_id", "club_name", "results_serial")
        )
        inputs.clubs = {pk: (public_id, name) for pk, public_id, name, _serial in clubs}
        inputs.serials = {pk: serial for pk, _public_id, _name, serial in clubs}
        pools = kept.get((event_id, public_id)) if kept is not None else {}
        changed = {pk for pk, serial in inputs.serials.items() if _serial_of(pools, pk) != serial}
        read = _read_results(event_id, changed, every_club=len(changed) == len(clubs))
        penalties = sql.fetch_all(
            FieldPenalty.objects.filter(event_id=event_id, withdrawn=False)
            .order_by()
            .values_list("licence", "points", "donne")
        )
        players = sql.fetch_all(
            FieldPlayer.objects.filter(event_id=event_id)
            .order_by()
            .values_list("licence", "first_name", "last_name", "invitation_id")
        )
    fresh = pool_clubs(read, inputs.serials)
    inputs.pools = {
        pk: (fresh.get(pk) or ClubPool(serial, [])) if pk in changed else pools[pk]
        for pk, serial in inputs.serials.items()
    }
    if kept is not None:
        kept.put((event_id, public_id), inputs.pools)
    inputs.groups, inputs.annulled, inputs.sit_outs = merged(inputs.pools.values())
    inputs.penalties = [Penalty(licence, points, donne) for licence, points, donne in penalties]
    inputs.players = {licence: (first, last, inv) for licence, first, last, inv in players}
    ranked = set().union(*(pool.licences for pool in inputs.pools.values()))
    ranked |= {p.player for p in inputs.penalties}
    # Players listed without a result yet still appear, with 0 (as seated players do).
    inputs.penalties.extend(Penalty(licence, 0) for licence in sorted(set(inputs.players) - ranked))
    return inputs


def _serial_of(pools: dict[int, ClubPool], club: int) -> int | None:
    pool = pools.get(club)
    return None if pool is None else pool.serial


def _read_results(event_id: int, clubs: set[int], *, every_club: bool) -> list[tuple[Any, ...]]:
    """The result rows (`RESULT_FIELDS`) of ``clubs`` (of the whole event if ``every_club``)."""
    if not clubs:
        return []
    results = FieldResult.objects.filter(event_id=event_id)
    if not every_club:
        results = results.filter(invitation_id__in=sorted(clubs))
    return sql.fetch_all(
        results.order_by()
        .annotate(h=Cast("holders", TextField()), s=Cast("scores", TextField()))
        .values_list(*RESULT_FIELDS)
    )


def _pool(inputs: OverallInputs, results: list[tuple[Any, ...]]) -> None:
    """Result rows (`RESULT_FIELDS`, of any clubs) pooled into ``inputs`` as `overall_inputs`
    pools the rows it reads."""
    inputs.pools = pool_clubs(results, inputs.serials)
    inputs.groups, inputs.annulled, inputs.sit_outs = merged(inputs.pools.values())


def overall_compute(inputs: OverallInputs) -> GroupRanking:
    """The pure ranking of the pooled field."""
    return compute_group_ranking(
        inputs.groups,
        method=inputs.method,
        annulled=inputs.annulled,
        sit_outs=inputs.sit_outs,
        penalties=inputs.penalties,
        matchpoint_penalty_rate=Fraction(inputs.rate),
    )


def _float(value: int | str) -> float:
    if isinstance(value, int):
        return float(value)
    numerator, denominator = value.split("/")
    return int(numerator) / int(denominator)


# The stored row's columns, in the order `overall_rows` gives them.
ROW_FIELDS = (
    "event_id",
    "results_version",
    "place",
    "rank",
    "licence",
    "first_name",
    "last_name",
    "invitation_id",
    "club_name",
    "total",
    "total_value",
    "differential_total",
    "penalty_points",
    "donnes_played",
    "donnes_compared",
    "search_name",
)


@lru_cache(maxsize=65_536)
def _search_name(first: str, last: str, licence: str) -> str:
    """A row's "find me" text (folded names, then the licence), kept between computations:
    a worker ranks the same players again every few seconds while the clubs upload, and
    folding 12,000 names cost a third of building the rows."""
    return f"{player_search_name(first_name=first, last_name=last)} {licence}"


def overall_rows(inputs: OverallInputs, table: GroupRanking) -> list[tuple[Any, ...]]:
    """The stored rows of a computed ranking, as tuples of `ROW_FIELDS` (no model instances:
    12,000 of them cost more than the ranking)."""
    rows = []
    clubs = inputs.clubs
    players = inputs.players
    for place, (licence, values) in enumerate(table.rows, start=1):
        rank, total, differential, penalty_points, played, compared = values
        first, last, invitation = players.get(licence, ("", "", None))
        rows.append(
            (
                inputs.event_id,
                inputs.results_version,
                place,
                rank,
                licence,
                first,
                last,
                invitation,
                clubs[invitation][1] if invitation in clubs else "",
                str(total),
                _float(total),
                str(differential),
                penalty_points,
                played,
                compared,
                _search_name(first, last, licence),
            )
        )
    return rows


# The stored group's columns, in the order `group_rows` gives them.
GROUP_FIELDS = ("event_id", "donne", "position", "size", "values")


def group_rows(inputs: OverallInputs, table: GroupRanking) -> list[tuple[Any, ...]]:
    """The stored values of each group (`OverallRankingGroup`), as tuples of `GROUP_FIELDS`."""
    return [
        (
            inputs.event_id,
            donne,
            position,
            size,
            [[score, *shown] for score, shown in by_score.items()],
        )
        for (donne, position), (size, by_score) in table.values.items()
    ]


def club_cards(
    results: list[list[Any]],
    values: dict[tuple[int, str], tuple[int, dict[Any, tuple[Any, Any]]]],
    club: str,
) -> dict[str, list[list[Any]]]:
    """Every card of one club, by licence, from its results as ranked (`OverallRankingClub.
    results`) and the groups' values (`GroupRanking.values`; a group not stored leaves its
    lines without a value): lines [donne, position, club, table, score, differential,
    percentage, status, group size] in the order of the donnes, the numbers exact as the
    ranking wrote them. A sit-out's line has no position, club or table."""
    cards: dict[str, list[list[Any]]] = {}
    for table, donne, status, holders, scores, sitter in results:
        if sitter:
            cards.setdefault(sitter, []).append(sat_out_line(donne))
        for position, licence in holders.items():
            if status == _ANNULLED:
                line = annulled_line(donne, position, table)
            else:
                score = scores[position] if status == _PLAYED else 0
                if (donne, position) in values:
                    line = group_line(values, donne, position, table, score)
                else:  # not stored with this ranking: the play, without its worth
                    line = [donne, position, table, score, None, None, _PLAYED, None]
            cards.setdefault(licence, []).append(line)
    for card in cards.values():
        card.sort(key=lambda line: line[0])
        for line in card:
            line[2:3] = (None, None) if line[2] is None else (club, line[2])
    return cards


def overall_recompute(
    *, event_id: int, where: str = IN_PROCESS, clock: TaskClock | None = None
) -> int | None:
    """Compute and store the event's overall ranking unless the stored one is current; return
    the results version stored (None if the event is gone). Idempotent. ``clock`` (a task):
    how the task moved the coalescing clock, put back when there is nothing to compute."""
    with collector_paused():
        started = time.perf_counter()
        stored = (
            OverallRankingState.objects.filter(pk=event_id)
            .values_list("results_version", flat=True)
            .first()
        )
        inputs = overall_inputs(event_id=event_id)
        if inputs is None:
            return None
        if stored == inputs.results_version:
            _state_after(inputs, computed=False, where=where, duration_ms=0, players=None)
            if clock is not None:
                states.clock_given_back(OverallRankingState, event_id, clock)
            return stored
        table = overall_compute(inputs)
        rows = overall_rows(inputs, table)
        groups = group_rows(inputs, table)
        with transaction.atomic():
            state = OverallRankingState.objects.select_for_update().filter(pk=event_id).first()
            if state is not None and (state.results_version or -1) >= inputs.results_version:
                return state.results_version  # a racing computation stored this or newer
            OverallRankingRow.objects.filter(event_id=event_id).delete()
            _store_rows(rows)
            OverallRankingGroup.objects.filter(event_id=event_id).delete()
            sql.copy_rows(OverallRankingGroup, GROUP_FIELDS, groups, json_field="values")
            _store_clubs(inputs)
            duration = int((time.perf_counter() - started) * 1000)
            _state_after(
                inputs, computed=True, where=where, duration_ms=duration, players=len(rows)
            )
    logger.info(
        "overall ranking of event %s v%s: %s players in %s ms by %s",
        event_id,
        inputs.results_version,
        len(rows),
        duration,
        where,
    )
    return inputs.results_version


def _store_rows(rows: list[tuple[Any, ...]]) -> None:
    """INSERT the rows through the hub's SQL seam (COPY on PostgreSQL)."""
    sql.copy_rows(OverallRankingRow, ROW_FIELDS, rows)


def _store_clubs(inputs: OverallInputs) -> None:
    """Keep each club's results as ranked: written again for the clubs whose results changed
    since they were kept (their `results_serial` moved), removed for those without results
    any more; the others' are already the ones ranked."""
    event_id = inputs.event_id
    kept = dict(
        OverallRankingClub.objects.filter(event_id=event_id).values_list("invitation_id", "serial")
    )
    with_results = {club for club, pool in inputs.pools.items() if pool.results}
    changed = [club for club in with_results if kept.get(club) != inputs.pools[club].serial]
    stale = set(changed) | (set(kept) - with_results)
    if stale:
        OverallRankingClub.objects.filter(event_id=event_id, invitation_id__in=stale).delete()
    sql.copy_rows(
        OverallRankingClub,
        ("event_id", "invitation_id", "serial", "results"),
        [
            (event_id, club, inputs.pools[club].serial, _kept(inputs.pools[club]))
            for club in changed
        ],
        json_field="results",
    )


def _kept(pool: ClubPool) -> list[list[Any]]:
    """A club's rows as `OverallRankingClub.results` holds them (the JSON texts as read)."""
    raw = msgspec.Raw
    return [
        [table, donne, status, raw(holders), raw(scores or "{}"), sitter]
        for _club, table, donne, status, holders, scores, sitter in pool.results
    ]


def _state_after(
    inputs: OverallInputs, *, computed: bool, where: str, duration_ms: int, players: int | None
) -> None:
    """Record the stored version (`scoring.rankings.state.note_computed`); the ranking stays
    stale if the event moved on meanwhile."""
    changes: dict[str, Any] = {}
    if computed:
        changes.update(
            results_version=inputs.results_version,
            computed_at=timezone.now(),
            computed_in=where[:200],
            duration_ms=duration_ms,
            players=players or 0,
        )
    states.note_computed(
        OverallRankingState,
        inputs.event_id,
        moved_on=SimultaneousEvent.objects.filter(
            pk=inputs.event_id, results_version__gt=inputs.results_version
        ),
        read_at=None,
        computed=computed,
        changes=changes,
    )


def min_interval() -> float:
    """Seconds between the starts of two computations of one event."""
    return float(getattr(settings, "SIMULTANEOUS_RANKING_MIN_INTERVAL", 2.0))


def sweep_after() -> float:
    """Seconds an event may stay stale before a worker's sweep computes it."""
    return float(getattr(settings, "SIMULTANEOUS_RANKING_SWEEP_AFTER", 30.0))


def _inline() -> bool:
    return bool(getattr(settings, "SIMULTANEOUS_RANKING_INLINE", True))


def _compute(pk: int, *, where: str, clock: TaskClock | None) -> int | None:
    return overall_recompute(event_id=pk, where=where, clock=clock)


# The subject of the derived-ranking mechanism; its task is
# `tournaments.simultaneous.hub.tasks.recompute_overall_ranking`.
OVERALL_RANKING = Subject(
    label="overall ranking of event",
    state=OverallRankingState,
    compute=_compute,
    task_name="simultaneous_hub.recompute_overall_ranking",
    min_interval=min_interval,
    sweep_after=sweep_after,
    sweep_window=sweep_after,
    claim_timeout=timedelta(seconds=60),
    inline=_inline,
    inline_waits=False,  # no reader computes the overall ranking: without a broker, at once
)


def schedule_overall_ranking(event_id: int) -> None:
    """Ask for a new overall ranking once an upload is committed (`derived.schedule`). Never
    raises: an applied upload stays applied when the broker is down (the sweep catches up)."""
    schedule(OVERALL_RANKING, event_id)


def overall_rankings_sweep(where: str = "sweep") -> list[int]:
    """Compute the events left stale for SIMULTANEOUS_RANKING_SWEEP_AFTER seconds (a task
    lost with Redis, a worker killed); one worker wins each event's claim."""
    return sweep_subject(OVERALL_RANKING, where=where)
