"""Reads for the hub's field pages, exports and booklet: the stored overall ranking (rows
replaced at once by `tournaments.simultaneous.hub.ranking`, never computed here), the field's
results of a donne, the event's donnes. Each function states its query count; the pages' tests
hold them to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from django.db.models import Count, Q
from django.utils.translation import gettext_lazy as _

from scoring.rules import dealing
from scoring.rules.cards import Donne, format_hand
from tournaments.models import Method
from tournaments.search import fold

from . import sql
from .frequencies import FieldResult as FieldOutcome
from .models import (
    FieldPlayer,
    FieldResult,
    Invitation,
    LateCorrection,
    OverallRankingClub,
    OverallRankingGroup,
    OverallRankingRow,
    SimultaneousEvent,
)
from .ranking import club_cards

PAGE_SIZE = 100
"""Rows on a page of the overall ranking: 12,000 players make 120 pages of a few KB each."""

FIND_LIMIT = 20
"""The most players "find me" lists when several match."""

ROW_FIELDS = (
    "place",
    "rank",
    "licence",
    "first_name",
    "last_name",
    "invitation_id",
    "invitation__public_id",
    "club_name",
    "total",
    "differential_total",
    "penalty_points",
    "donnes_played",
    "donnes_compared",
)


@dataclass(frozen=True)
class Line:
    """One player's line of the stored overall ranking, as the pages and exports show it."""

    place: int
    rank: int
    tied: bool
    licence: str
    first_name: str
    last_name: str
    invitation_id: int | None
    club_public_id: str | None
    club_name: str
    total: Fraction
    differential_total: Fraction
    penalty_points: int
    donnes_played: int
    donnes_compared: int

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()

    @property
    def page(self) -> int:
        """The page of the overall ranking that holds this line."""
        return page_of(self.place)


@dataclass(frozen=True)
class Freshness:
    """Which results the stored ranking reflects: `updating` while an applied upload is not in
    it yet; `computed_at` None before the first computation."""

    version: int | None
    computed_at: datetime | None
    updating: bool
    players: int


def stored_key(fresh: Freshness) -> str:
    """What names the stored ranking in a cache key: its version and when it was computed (a
    database restored from a backup may give a version again, never with the same time)."""
    stamp = fresh.computed_at.timestamp() if fresh.computed_at else 0
    return f"{fresh.version}:{stamp:.6f}"


BUILT_SECONDS = 600
"""How long a built file (the ranking's CSV, the booklet) is kept: a new stored ranking is a
new key, so this only bounds how long a renamed player keeps the old spelling."""

BUILD_WAIT = 45.0
"""How long a process waits for the file another process is building before it builds its
own (the booklet of 12,000 players takes about 15 s to lay out)."""


def built_once(key: str, build: Callable[[], Any], *, wait: float = BUILD_WAIT) -> Any:
    """`build()` once per key for all the web processes: kept in this process's cache and,
    when the shared cache is Redis, there too; while one process builds (it claims the key
    in Redis), the others wait for its file rather than build it too (when the embargo ends,
    the whole field asks for the booklet at once). Without Redis, or when it does not
    answer, each process builds its own."""
    from django.core.cache import cache

    value = cache.get(key)
    if value is not None:
        return value
    shared = _shared_cache()
    value = _shared_call(shared, "get", key)
    claimed = value is None and _shared_call(shared, "add", f"{key}:building", 1, wait + 15)
    if value is None and shared is not None and not claimed:
        value = _wait_for(shared, key, wait)
    if value is None:
        value = build()
        _shared_call(shared, "set", key, value, BUILT_SECONDS)
    cache.set(key, value, BUILT_SECONDS)
    return value


def _shared_cache() -> Any:
    """The shared cache when it is Redis (the database's would cost more than it saves)."""
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    shared = caches["shared"]
    return shared if isinstance(shared, RedisCache) else None


def _shared_call(shared: Any, method: str, *args: Any) -> Any:
    """`shared.<method>(*args)`; None when there is no shared cache or it does not answer
    (a claim that cannot be asked for reads as granted: True)."""
    if shared is None:
        return None
    try:
        return getattr(shared, method)(*args)
    except Exception:  # Redis down: as if there were none
        return True if method == "add" else None


def _wait_for(shared: Any, key: str, wait: float) -> Any:
    """The value another process is building, polled every half second for `wait` seconds
    (None if it did not come)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        time.sleep(0.5)
        value = _shared_call(shared, "get", key)
        if value is not None:
            return value
    return None


def method_label(event: SimultaneousEvent) -> str:
    return str(dict(Method.choices).get(event.method, event.method))


def freshness(event: SimultaneousEvent) -> Freshness:
    """The stored ranking's state (one query; none when `event` was read with
    ``select_related("ranking_state")``, as `access.readable_event` reads it)."""
    from .models import OverallRankingState

    if type(event).ranking_state.is_cached(event):
        state = getattr(event, "ranking_state", None)  # None cached: DoesNotExist
    else:
        state = OverallRankingState.objects.filter(event=event).first()
    if state is None or state.results_version is None:
        return Freshness(None, None, event.results_version > 0, 0)
    return Freshness(
        state.results_version,
        state.computed_at,
        state.results_version < event.results_version,
        state.players,
    )


def _lines(rows: Iterable[tuple[Any, ...]], tied_ranks: set[int]) -> list[Line]:
    out = []
    for row in rows:
        values = dict(zip(ROW_FIELDS, row, strict=True))
        out.append(
            Line(
                place=values["place"],
                rank=values["rank"],
                tied=values["rank"] in tied_ranks,
                licence=values["licence"],
                first_name=values["first_name"],
                last_name=values["last_name"],
                invitation_id=values["invitation_id"],
                club_public_id=values["invitation__public_id"],
                club_name=values["club_name"],
                total=Fraction(values["total"]),
                differential_total=Fraction(values["differential_total"]),
                penalty_points=values["penalty_points"],
                donnes_played=values["donnes_played"],
                donnes_compared=values["donnes_compared"],
            )
        )
    return out


def _tied(event: SimultaneousEvent, ranks: set[int]) -> set[int]:
    """Which of `ranks` several players share (one query)."""
    if not ranks:
        return set()
    return set(
        OverallRankingRow.objects.filter(event=event, rank__in=ranks)
        .values("rank")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("rank", flat=True)
    )


def rows_where(event: SimultaneousEvent, *filters: Q) -> list[Line]:
    """The stored rows matching `filters`, by place, ties marked (two queries)."""
    rows = list(
        OverallRankingRow.objects.filter(*filters, event=event)
        .order_by("place")
        .values_list(*ROW_FIELDS)
    )
    return _lines(rows, _tied(event, {row[1] for row in rows}))


def page_count(players: int) -> int:
    return max(1, -(-players // PAGE_SIZE))


def page_of(place: int) -> int:
    return (place - 1) // PAGE_SIZE + 1


def ranking_page(event: SimultaneousEvent, page: int) -> list[Line]:
    """Page `page` (1-based) of the overall ranking (two queries)."""
    first = (page - 1) * PAGE_SIZE
    return rows_where(event, Q(place__gt=first, place__lte=first + PAGE_SIZE))


def find_players(event: SimultaneousEvent, query: str) -> list[Line]:
    """The ranked players whose licence is `query` or whose names hold every word of it
    (accents and case ignored, as `tournaments.search`), at most FIND_LIMIT (two queries)."""
    words = query.split()
    if not words:
        return []
    condition = Q()
    for word in words:
        condition &= Q(search_name__contains=fold(word)) | Q(licence__startswith=word)
    return rows_where(event, condition)[:FIND_LIMIT]


def club_lines(event: SimultaneousEvent, invitation: Invitation) -> list[Line]:
    """The club's players in the overall ranking, best first (two queries)."""
    return rows_where(event, Q(invitation=invitation))


def player_row(event: SimultaneousEvent, licence: str) -> OverallRankingRow | None:
    """The stored row of a player, with his club's invitation (one query)."""
    return (
        OverallRankingRow.objects.filter(event=event, licence=licence)
        .select_related("invitation")
        .first()
    )


def player_card(
    event: SimultaneousEvent, licence: str
) -> tuple[OverallRankingRow, list[list[Any]]] | None:
    """The stored row of a player and his card (`ranking.club_cards`'s lines), read in one
    snapshot so that both come from the same stored ranking; None when he is not in it
    (three queries: the row, the club's results as ranked, the values of his groups)."""
    with sql.consistent_read():
        row = player_row(event, licence)
        if row is None:
            return None
        if row.invitation is None:
            return row, []
        results = (
            OverallRankingClub.objects.filter(event=event, invitation_id=row.invitation_id)
            .values_list("results", flat=True)
            .first()
        ) or []
        # The player's own results, and only their groups' values.
        mine = [r for r in results if r[5] == licence or licence in r[3].values()]
        groups = Q()
        for _table, donne, _status, holders, _scores, _sitter in mine:
            for position in (p for p, held in holders.items() if held == licence):
                groups |= Q(donne=donne, position=position)
        values = (
            _group_values(OverallRankingGroup.objects.filter(groups, event=event)) if groups else {}
        )
    return row, club_cards(mine, values, row.invitation.public_id).get(licence, [])


def field_cards(event: SimultaneousEvent) -> dict[str, list[list[Any]]]:
    """Every player's card by licence (`ranking.club_cards`), in one snapshot (three
    queries)."""
    with sql.consistent_read():
        clubs = dict(Invitation.objects.filter(event=event).values_list("pk", "public_id"))
        kept = list(
            OverallRankingClub.objects.filter(event=event).values_list("invitation_id", "results")
        )
        values = _group_values(OverallRankingGroup.objects.filter(event=event))
    cards: dict[str, list[list[Any]]] = {}
    for invitation, results in kept:
        cards.update(club_cards(results, values, clubs[invitation]))
    return cards


def _group_values(groups: Any) -> dict[tuple[int, str], tuple[int, dict[Any, tuple[Any, Any]]]]:
    """Stored groups as `GroupRanking.values`."""
    return {
        (donne, position): (
            size,
            {score: (differential, pct) for score, differential, pct in values},
        )
        for donne, position, size, values in groups.values_list(
            "donne", "position", "size", "values"
        )
    }


def line_of(event: SimultaneousEvent, row: OverallRankingRow) -> Line:
    """The line of a stored row, its rank's tie read (one query)."""
    club = row.invitation.public_id if row.invitation else None
    values = tuple(
        club if name == "invitation__public_id" else getattr(row, name) for name in ROW_FIELDS
    )
    return _lines([values], _tied(event, {row.rank}))[0]


def event_donnes(event: SimultaneousEvent, numbers: Iterable[int] | None = None) -> list[Donne]:
    """The event's donnes (all, or those numbered `numbers`), dealt again from its seed: the
    same cards every club received (no query)."""
    wanted = range(1, event.donne_count + 1) if numbers is None else numbers
    return [
        dealing.generate_donne(event.seed, event.identity, n)
        for n in wanted
        if 1 <= n <= event.donne_count
    ]


def donne_hands(donne: Donne) -> dict[str, str]:
    """The donne's hands in the notation of `Donne.hand_n` ("N", "E", "S", "W", "chien")."""
    hands = dict(zip(("N", "E", "S", "W"), (format_hand(h) for h in donne.hands), strict=True))
    hands["chien"] = format_hand(donne.chien)
    return hands


def donne_table_counts(event: SimultaneousEvent) -> dict[int, int]:
    """How many tables of the field entered each donne (one query)."""
    return dict(
        FieldResult.objects.filter(event=event)
        .values("donne")
        .annotate(n=Count("id"))
        .values_list("donne", "n")
    )


OUTCOME_FIELDS = ("status", "contract", "taker", "bouts", "points", "scores")


def _outcome(
    status: str, contract: str | None, taker: str | None, bouts: Any, points: Any, scores: Any
) -> FieldOutcome:
    return FieldOutcome(
        status,
        contract or "",
        taker or "",
        bouts,
        Fraction(points) if points is not None else None,
        {p: int(s) for p, s in (scores or {}).items()},
    )


def field_outcomes(event: SimultaneousEvent, number: int) -> list[FieldOutcome]:
    """Every table's result on donne `number`, as the frequency sheet reads them (one query)."""
    return [
        _outcome(*row)
        for row in FieldResult.objects.filter(event=event, donne=number).values_list(
            *OUTCOME_FIELDS
        )
    ]


def every_field_outcome(event: SimultaneousEvent) -> dict[int, list[FieldOutcome]]:
    """Every table's result on every donne, by donne number, each list holding what
    `field_outcomes` reads of that donne (in another order; the frequency sheet takes any).
    One query, grouped by what happened: thousands of tables share a few hundred outcomes,
    each converted once and listed as many times as tables had it."""
    by_donne: dict[int, list[FieldOutcome]] = {}
    rows = (
        FieldResult.objects.filter(event=event)
        .order_by()
        .values_list("donne", *OUTCOME_FIELDS)
        .annotate(tables=Count("pk"))
    )
    for donne, *row, tables in rows:
        by_donne.setdefault(donne, []).extend([_outcome(*row)] * tables)
    return by_donne


def club_names(event: SimultaneousEvent) -> dict[int, str]:
    """The invited clubs' names by invitation id (one query)."""
    return dict(Invitation.objects.filter(event=event).values_list("pk", "club_name"))


def player_names(event: SimultaneousEvent, licences: Iterable[str]) -> dict[str, str]:
    """Full names of the field's players by licence (one query)."""
    return {
        licence: f"{first} {last}".strip()
        for licence, first, last in FieldPlayer.objects.filter(
            event=event, licence__in=set(licences)
        ).values_list("licence", "first_name", "last_name")
    }


ANNULLED_LABEL = _("Annulled")


@dataclass(frozen=True)
class LateLine:
    """A correction applied after the embargo, as the public pages mark it."""

    donne: int
    table: int
    club_name: str
    change: str
    change_label: str
    players: list[str]
    received_at: datetime


def late_corrections(event: SimultaneousEvent, donne: int | None = None) -> list[LateLine]:
    """The corrections that reached the hub after the embargo (issue 34 §5), oldest first,
    of one donne or all: the donne, the club's table, the players at it, when. Two queries
    (none more when there is none)."""
    rows = list(
        LateCorrection.objects.filter(event=event, **({"donne": donne} if donne else {}))
        .select_related("invitation")
        .order_by("received_at", "pk")
    )
    if not rows:
        return []
    names = player_names(event, (lic for r in rows for lic in (r.holders or {}).values()))
    labels = dict(LateCorrection.Change.choices)
    return [
        LateLine(
            donne=r.donne,
            table=r.table,
            club_name=r.invitation.club_name,
            change=r.change,
            change_label=str(labels.get(r.change, r.change)),
            players=[names.get(lic, lic) for _pos, lic in sorted((r.holders or {}).items()) if lic],
            received_at=r.received_at,
        )
        for r in rows
    ]
