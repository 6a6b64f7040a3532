"""The field's results pooled for the overall ranking, club by club, and kept by each process
between two computations of an event.

A club's pool is its result rows as read (`RESULT_FIELDS`) and the plays they hold, grouped by
(donne, position) as `scoring.rules.ranking.compute_group_ranking` takes them, with its
annulled tables and sit-outs. A club's results change only with its `Invitation.
results_serial` (an applied upload that changed one, a revocation: both in the transaction
that writes them), so a pool read at a serial stays the club's results while the serial does:
after one club's upload, a computation reads that club's rows again and reuses the others'
pools (`KEPT`, per process, the last SIMULTANEOUS_RANKING_KEPT_EVENTS events). Pools are never changed once made;
`merged` copies them into the field's groups. tests/tournaments/simultaneous/hub/
test_overall_ranking.py ties a computation from kept pools to one that reads everything.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import msgspec
from django.conf import settings

from scoring.rules.ranking import PlayGroups

from .models import FieldResult

# A field result as read: (invitation, table, donne, status, holders JSON, scores JSON, sitter).
RESULT_FIELDS = ("invitation_id", "table", "donne", "status", "h", "s", "sitter")

# A room-wide table number: invitation id × TABLE_SPAN + the club's table number (at most
# wire.MAX_TABLE), so one club's table 3 is not another's.
TABLE_SPAN = 100_000
_PLAYED, _ANNULLED = FieldResult.Status.PLAYED.value, FieldResult.Status.ANNULLED.value

KEPT_EVENTS = 4
"""Events whose pools a process keeps by default (SIMULTANEOUS_RANKING_KEPT_EVENTS; the least
recently computed is dropped first; 0 keeps none: every computation reads every club)."""


@dataclass(frozen=True)
class ClubPool:
    """One club's results at ``serial``: rows as read, plays grouped, annulled tables
    (donne, room table), sit-outs (licence, donne) and the licences of them all."""

    serial: int
    results: list[tuple[Any, ...]]
    groups: PlayGroups = field(default_factory=dict)
    annulled: list[tuple[int, int]] = field(default_factory=list)
    sit_outs: list[tuple[str, int]] = field(default_factory=list)
    licences: set[str] = field(default_factory=set)  # every licence with a line


def pool_club(serial: int, results: list[tuple[Any, ...]]) -> ClubPool:
    """A club's result rows as its pool: all passed is a real 0, compared; an annulled
    table's plays are in their groups and the table in ``annulled`` (the rule leaves them
    out). Groups are found by donne, then position (no pair built per play)."""
    decode = msgspec.json.decode
    pool = ClubPool(serial, results)
    by_donne: dict[int, dict[str, tuple[list[Any], list[Any], list[Any]]]] = {}
    for invitation, table, donne, status, holders_json, scores_json, sitter in results:
        key = invitation * TABLE_SPAN + table  # an int: cheaper to hash than a pair
        if sitter:
            pool.sit_outs.append((sitter, donne))
            pool.licences.add(sitter)
        holders = decode(holders_json)
        pool.licences.update(holders.values())
        if status == _PLAYED:
            scores = decode(scores_json)
        else:
            scores = dict.fromkeys(holders, 0)
            if status == _ANNULLED:
                pool.annulled.append((donne, key))
        positions = by_donne.get(donne)
        if positions is None:
            positions = by_donne[donne] = {}
        for position, licence in holders.items():
            group = positions.get(position)
            if group is None:
                group = positions[position] = ([], [], [])
            group[0].append(licence)
            group[1].append(key)
            group[2].append(scores[position])
    pool.groups.update(
        ((donne, position), group)
        for donne, positions in by_donne.items()
        for position, group in positions.items()
    )
    return pool


def pool_clubs(
    results: list[tuple[Any, ...]], serials: dict[int, int] | None = None
) -> dict[int, ClubPool]:
    """Result rows of several clubs as each club's pool (``serials``: each club's serial, 0
    when not given)."""
    by_club: dict[int, list[tuple[Any, ...]]] = {}
    for row in results:
        by_club.setdefault(row[0], []).append(row)
    serials = serials or {}
    return {club: pool_club(serials.get(club, 0), rows) for club, rows in by_club.items()}


def merged(
    pools: Iterable[ClubPool],
) -> tuple[PlayGroups, list[tuple[int, int]], list[tuple[str, int]]]:
    """The field's groups, annulled tables and sit-outs from its clubs' pools (new lists:
    the pools are left as they are)."""
    pools = list(pools)
    groups: PlayGroups = {}
    found = groups.get
    for pool in pools:
        for key, (players, tables, scores) in pool.groups.items():
            group = found(key)
            if group is None:
                groups[key] = (list(players), list(tables), list(scores))
            else:  # `+=` rather than extend(): no method looked up per part
                all_players, all_tables, all_scores = group
                all_players += players
                all_tables += tables
                all_scores += scores
    annulled = list(chain.from_iterable(pool.annulled for pool in pools))
    sit_outs = list(chain.from_iterable(pool.sit_outs for pool in pools))
    return groups, annulled, sit_outs


class KeptPools:
    """Each event's club pools, kept by this process for its next computation; an event is
    keyed by its id and public id, so an id used again by a new event finds nothing.
    ``events``: how many events are kept (None: SIMULTANEOUS_RANKING_KEPT_EVENTS)."""

    def __init__(self, events: int | None = None) -> None:
        self._events = events
        self._kept: OrderedDict[tuple[int, str], dict[int, ClubPool]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[int, str]) -> dict[int, ClubPool]:
        """The event's kept pools (a new dict: the caller may change it)."""
        with self._lock:
            kept = self._kept.get(key)
            return dict(kept) if kept else {}

    def put(self, key: tuple[int, str], pools: dict[int, ClubPool]) -> None:
        """Keep ``pools`` as the event's, dropping the least recently kept event if needed."""
        limit = self._events
        if limit is None:
            limit = int(getattr(settings, "SIMULTANEOUS_RANKING_KEPT_EVENTS", KEPT_EVENTS))
        with self._lock:
            self._kept[key] = pools
            self._kept.move_to_end(key)
            while len(self._kept) > max(limit, 0):
                self._kept.popitem(last=False)

    def clear(self) -> None:
        """Forget every event's pools (the next computations read everything)."""
        with self._lock:
            self._kept.clear()


KEPT = KeptPools()
