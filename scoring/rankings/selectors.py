"""Reads for the rankings pages: the ranking, a player's score card, a donne's traveller, a
club's season and a player's history. Selectors only read: nothing here computes or schedules.

Freshness: a page shows the latest snapshot for the tournament's method and rate;
it is "current" only when its results version is the tournament's. Otherwise the page says
the ranking is being updated; the views that show it call `scoring.rankings.catch_up` first,
which helps it catch up. No page ever presents a snapshot as current when a saved result is
missing from it.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from functools import cache
from typing import Any, TypeVar

from django.db.models import F, QuerySet
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import Now
from django.utils.translation import gettext_lazy as _

from scoring.rankings.models import RankingSnapshot
from scoring.rankings.rows import SnapshotRow, key_player, row_decode, row_key, rows_decode
from scoring.rules import display
from scoring.rules.display import HandView
from scoring.rules.duplicate import differentials, matchpoint_percentage
from tournaments.models import (
    POSITIONS,
    Club,
    Contract,
    Donne,
    Player,
    Position,
    Result,
    Seat,
    SeatPosition,
    TableRound,
    Tournament,
)
from tournaments.search import name_order, name_ordering
from tournaments.selectors import complete_donnes

logger = logging.getLogger(__name__)

POSITION_LABELS = dict(Position.choices)
CONTRACT_LABELS = dict(Contract.choices)
FIFTH_SEAT = SeatPosition.FIFTH


def frac(value: Any) -> Fraction | None:
    """Decode an exact number stored by scoring.rankings.services (int or "n/d")."""
    if value is None:
        return None
    return Fraction(value)


# --- freshness -------------------------------------------------------------------------------


def _latest_snapshot(tournament: Tournament) -> RankingSnapshot | None:
    """Latest snapshot for the tournament's method and rate; failing that (the method just
    changed), the latest of any method, to show while the new one is computed."""
    snapshots = RankingSnapshot.objects.filter(tournament_id=tournament.pk).defer("cards")
    latest = (
        snapshots.filter(
            method=tournament.method,
            matchpoint_penalty_rate=tournament.matchpoint_penalty_rate,
        )
        .order_by("-results_version", "-pk")
        .first()
    )
    if latest is None:
        latest = snapshots.order_by("-pk").first()
    return latest


def snapshot_is_current(snapshot: RankingSnapshot | None, tournament: Tournament) -> bool:
    """True when the snapshot reflects every saved change under the tournament's settings."""
    return (
        snapshot is not None
        and snapshot.results_version >= tournament.results_version
        and snapshot.method == tournament.method
        and Decimal(snapshot.matchpoint_penalty_rate) == Decimal(tournament.matchpoint_penalty_rate)
    )


def ranking_snapshot(tournament: Tournament) -> tuple[RankingSnapshot | None, bool]:
    """The snapshot to show (without its cards) and whether it is current (one query); a
    stale one is shown as it is (`scoring.rankings.catch_up` helps it catch up)."""
    snapshot = _latest_snapshot(tournament)
    return snapshot, snapshot_is_current(snapshot, tournament)


# --- who sees which ranking (RULES §6.1) ------------------------------------------------------

ROOM = "room"
"""Players, the public, the room's screen: during play, the complete donnes alone."""
PROVISIONAL = "provisional"
"""The arbiters and organisers during play: every counted result."""
FINAL = "final"
"""Once the tournament is finished or published: every counted result, for everyone."""
AUDIENCES = (ROOM, PROVISIONAL, FINAL)


def ranking_audience(tournament: Tournament, *, can_manage: bool, asked: str | None = None) -> str:
    """Which ranking a reader is shown: FINAL once the tournament is finished or published;
    during play PROVISIONAL for whoever manages it (unless he `asked` for ROOM, to see what
    the room sees), ROOM for everyone else whatever he asks."""
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED):
        return FINAL
    if can_manage and asked != ROOM:
        return PROVISIONAL
    return ROOM


def _room(data: dict[str, Any]) -> dict[str, Any] | None:
    room = data.get("room")
    return room if isinstance(room, dict) else None


def snapshot_rows(data: dict[str, Any], audience: str) -> dict[str, Any]:
    """A snapshot's rows (keyed "p<id>") for the audience: the room's rows for ROOM (none
    when the snapshot has no room section: better nothing than results the room may not
    see), every counted result otherwise."""
    if audience != ROOM:
        return data.get("rows") or {}
    room = _room(data)
    if room is None:
        return {}
    rows = room.get("rows")
    return (data.get("rows") if rows is None else rows) or {}


def snapshot_complete(data: dict[str, Any]) -> tuple[frozenset[int], int]:
    """The ids of the donnes complete when the snapshot was computed, and the number of the
    tournament's donnes (nothing known for a snapshot without a room section)."""
    room = _room(data)
    if room is None:
        return frozenset(), 0
    return frozenset(room.get("complete") or ()), int(room.get("donnes") or 0)


# --- the ranking -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RankingLine:
    rank: int
    tied: bool
    player: Player
    total: Fraction
    differential_total: Fraction
    penalty_points: int
    donnes_played: int
    donnes_compared: int


@dataclass(frozen=True)
class RankingView:
    """What the ranking page shows. `is_current` False means "being updated"."""

    tournament: Tournament
    rows: list[RankingLine]
    method: str
    rate: Decimal
    version: int | None
    results_version: int
    is_current: bool
    computed_at: datetime | None
    snapshot_id: int | None
    audience: str = FINAL
    complete_count: int = 0  # donnes complete (RULES §6.1) in the snapshot
    donne_count: int = 0  # the tournament's donnes

    @property
    def updating(self) -> bool:
        return not self.is_current

    @property
    def is_room(self) -> bool:
        """Counts complete donnes only (and says so)."""
        return self.audience == ROOM

    @property
    def is_provisional(self) -> bool:
        """Every counted result, donnes still in play included (the arbiter's view)."""
        return self.audience == PROVISIONAL

    @property
    def method_label(self) -> str:
        return method_label(self.method)

    @property
    def is_matchpoints(self) -> bool:
        return self.method == "matchpoints"


def method_label(method: str) -> str:
    from tournaments.models import Method

    return str(dict(Method.choices).get(method, method))


def ranking_line(player: Player, row: SnapshotRow, *, tied: bool) -> RankingLine:
    """A player's line from the player's row of a snapshot (`scoring.rankings.rows`)."""
    return RankingLine(
        rank=row.rank,
        tied=tied,
        player=player,
        total=row.total,
        differential_total=row.differential_total,
        penalty_points=row.penalty_points,
        donnes_played=row.donnes_played,
        donnes_compared=row.donnes_compared,
    )


def ranking_lines(rows: dict[int, SnapshotRow]) -> list[RankingLine]:
    """Ranking lines with their players (one query), best first, ties by name."""
    players = Player.objects.select_related("club").in_bulk(list(rows))
    ranks = Counter(row.rank for row in rows.values())
    lines = [
        ranking_line(players[pid], row, tied=ranks[row.rank] > 1)
        for pid, row in rows.items()
        if pid in players
    ]
    lines.sort(key=lambda line: (line.rank, name_order(line.player)))
    return lines


def ranking_view(
    tournament: Tournament,
    snapshot: RankingSnapshot | None,
    current: bool,
    *,
    audience: str = FINAL,
) -> RankingView:
    """The page's view of a snapshot for the audience (see `ranking_audience`; players and
    clubs in one query)."""
    data = snapshot.data if snapshot else {}
    rows = ranking_lines(rows_decode(snapshot_rows(data, audience))) if data else []
    complete, donnes = snapshot_complete(data)
    source = snapshot if snapshot is not None else tournament
    return RankingView(
        tournament=tournament,
        rows=rows,
        method=source.method,
        rate=Decimal(source.matchpoint_penalty_rate),
        version=snapshot.results_version if snapshot else None,
        results_version=tournament.results_version,
        is_current=current,
        computed_at=snapshot.computed_at if snapshot else None,
        snapshot_id=snapshot.pk if snapshot else None,
        audience=audience,
        complete_count=len(complete),
        donne_count=donnes,
    )


def ranking_current(tournament: Tournament, *, audience: str = FINAL) -> RankingView:
    """The tournament's ranking of the stored snapshot as the pages show it to the audience
    (a fixed number of queries; a stale one is shown as it is)."""
    snapshot, current = ranking_snapshot(tournament)
    return ranking_view(tournament, snapshot, current, audience=audience)


# --- rendered once per snapshot ----------------------------------------------------------------

SNAPSHOT_CACHE_SECONDS = 300
"""How long a rendering of a snapshot is kept. A new result makes a new snapshot (a new key);
the timeout only bounds how long an edited player name may show its old spelling."""


def snapshot_cache_key(kind: str, snapshot: RankingSnapshot) -> str:
    """Cache key of one rendering (`kind`: the page's table, the API's rows) of one snapshot
    in the active language: the same for every reader, so it is built once per snapshot.
    The computation time is part of it: a database restored from a backup (or a test
    database rolled back) may give a snapshot id again, never with the same time."""
    from django.utils.translation import get_language

    stamp = snapshot.computed_at.timestamp() if snapshot.computed_at else 0
    return (
        f"ranking:{kind}:{snapshot.tournament_id}:{snapshot.pk}:{stamp:.6f}:{get_language() or '-'}"
    )


def snapshot_cache_get(kind: str, snapshot: RankingSnapshot) -> Any:
    """A rendering `snapshot_cached` has kept (this process's cache, then the shared one),
    or None; builds nothing."""
    from django.core.cache import cache, caches
    from django.core.cache.backends.redis import RedisCache

    key = snapshot_cache_key(kind, snapshot)
    value = cache.get(key)
    shared = caches["shared"]
    if value is None and isinstance(shared, RedisCache):
        try:
            value = shared.get(key)
        except Exception:  # Redis down: a miss
            return None
        if value is not None:
            cache.set(key, value, SNAPSHOT_CACHE_SECONDS)
    return value


def snapshot_render_claim(kind: str, snapshot: RankingSnapshot, seconds: float = 10) -> bool:
    """Claim the rendering of a snapshot for this process, through the shared cache (Redis),
    for `seconds`: True when nobody else is rendering it, or when there is no shared cache
    to ask (then every process renders its own)."""
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    shared = caches["shared"]
    if not isinstance(shared, RedisCache):
        return True
    try:
        return bool(shared.add(f"{snapshot_cache_key(kind, snapshot)}:rendering", 1, seconds))
    except Exception:  # Redis down: render here
        return True


def snapshot_cached(kind: str, snapshot: RankingSnapshot | None, build: Any) -> Any:
    """`build()` once per (snapshot, language), kept in the process's cache and in the cache
    the web processes share when it is Redis, so a host's several processes render
    a new snapshot once between them rather than once each (a 1,000-row table costs a few
    hundred milliseconds, and results may make a new snapshot every second). Uncached
    without a snapshot; a shared cache that does not answer is only a miss."""
    from django.core.cache import cache, caches

    if snapshot is None:
        return build()
    key = snapshot_cache_key(kind, snapshot)
    value = cache.get(key)
    if value is not None:
        return value
    from django.core.cache.backends.redis import RedisCache

    shared = caches["shared"]
    if not isinstance(shared, RedisCache):  # the database's cache would cost more than it saves
        shared = None
    try:
        value = shared.get(key) if shared is not None else None
    except Exception:  # Redis down: render here
        logger.warning("shared cache unavailable for %s", kind, exc_info=True)
        shared = value = None
    if value is None:
        value = build()
        try:
            if shared is not None:
                shared.set(key, value, SNAPSHOT_CACHE_SECONDS)
        except Exception:
            logger.warning("shared cache unavailable for %s", kind, exc_info=True)
    cache.set(key, value, SNAPSHOT_CACHE_SECONDS)
    return value


def ranking_poll_tournament(pk: int) -> Tournament | None:
    """The tournament for a ranking poll, in one query: with its latest snapshot's id and
    version for its method and rate (`latest_snapshot_id`, `latest_snapshot_version`) and its
    RankingState (`state_queued_at`, `state_started_at`, `state_stale_since`). The query is
    `_poll_queryset` narrowed to the tournament (no ordering: at most one row)."""
    return next(iter(_poll_queryset().filter(pk=pk)[:1]), None)


@cache
def _poll_queryset() -> QuerySet[Tournament]:
    """Every tournament as `ranking_poll_tournament` reads it, built once per process: the
    three subqueries and the state's join cost more to build than the query takes to run,
    and a room's screens and phones poll it every few seconds (a room screen's 304)."""
    from django.db.models import OuterRef, Subquery

    latest = RankingSnapshot.objects.filter(
        tournament_id=OuterRef("pk"),
        method=OuterRef("method"),
        matchpoint_penalty_rate=OuterRef("matchpoint_penalty_rate"),
    ).order_by("-results_version", "-pk")
    return Tournament.objects.only(
        "pk",
        "club_id",
        "status",
        "public_during_play",
        "results_version",
        "method",
        "matchpoint_penalty_rate",
        # what the room screen says of the claims window (its cached pages' key)
        "claims_close_at",
        "final_at",
    ).annotate(
        latest_snapshot_id=Subquery(latest.values("pk")[:1]),
        latest_snapshot_version=Subquery(latest.values("results_version")[:1]),
        latest_snapshot_computed_at=Subquery(latest.values("computed_at")[:1]),
        state_queued_at=F("ranking_state__queued_at"),
        state_started_at=F("ranking_state__started_at"),
        state_stale_since=F("ranking_state__stale_since"),
        db_now=Now(),
    )


def ranking_poll_unchanged(tournament: Tournament, *, since: str, cur: str) -> bool:
    """True when a poll that showed snapshot `since` (current: `cur` "1") has nothing new to
    get, decided from `ranking_poll_tournament` alone (no other query): the same snapshot,
    equally current, and, when it is stale, nothing a full read would do (a task is pending
    and the workers are not late; without a broker a read computes, so it is never
    unchanged)."""

    from scoring.rankings.services import ranking_pending, stale_after
    from scoring.rankings.tasks import broker_in_use

    snapshot_id = tournament.latest_snapshot_id  # type: ignore[attr-defined]
    version = tournament.latest_snapshot_version  # type: ignore[attr-defined]
    current = snapshot_id is not None and version >= tournament.results_version
    if since != str(snapshot_id or "") or cur != ("1" if current else "0"):
        return False
    if current:
        return True
    if not broker_in_use():
        return False
    now = tournament.db_now  # type: ignore[attr-defined]
    stale_since = tournament.state_stale_since  # type: ignore[attr-defined]
    if stale_since is None or (now - stale_since).total_seconds() >= stale_after():
        return False
    return ranking_pending(
        queued_at=tournament.state_queued_at,  # type: ignore[attr-defined]
        started_at=tournament.state_started_at,  # type: ignore[attr-defined]
        stale_since=stale_since,
        now=now,
    )


# --- a player's score card -------------------------------------------------------------------


@dataclass(frozen=True)
class CardScore:
    position: str
    score: int | None
    mine: bool


@dataclass(frozen=True)
class ScoreCardLine:
    round_number: int
    donne_id: int
    donne_number: int
    table_number: int | None
    position: str | None
    status: str  # played, annulled, sat_out, pending (not in the ranking yet)
    taker: str
    contract: str
    all_passed: bool
    scores: list[CardScore]
    score: Fraction | None
    differential: Fraction | None
    percentage: Fraction | None
    group_size: int
    running_total: Fraction | None
    traveller_visible: bool
    entered: bool = False  # pending, but a result is saved: the ranking is being updated
    hidden: bool = False  # another player's line on a donne not finished everywhere
    sits_out: bool = False  # a donne to come on which the seating has him sit out
    waiting: bool = False  # entered, counted in the room's ranking once the donne is complete

    @property
    def unranked(self) -> bool:
        return self.status == "pending" and self.entered

    @property
    def position_label(self) -> str:
        return str(POSITION_LABELS.get(self.position or "", ""))

    @property
    def taker_label(self) -> str:
        return str(POSITION_LABELS.get(self.taker, ""))

    @property
    def contract_label(self) -> str:
        return str(CONTRACT_LABELS.get(self.contract, ""))


@dataclass(frozen=True)
class ScoreCard:
    tournament: Tournament
    player: Player
    lines: list[ScoreCardLine]
    row: RankingLine | None
    field_size: int
    method: str
    is_current: bool
    computed_at: datetime | None
    chart: list[tuple[str, Fraction]] = field(default_factory=list)
    audience: str = FINAL

    @property
    def is_room(self) -> bool:
        """Its total counts complete donnes only, as the room's ranking."""
        return self.audience == ROOM

    @property
    def updating(self) -> bool:
        return not self.is_current

    @property
    def is_matchpoints(self) -> bool:
        return self.method == "matchpoints"

    @property
    def method_label(self) -> str:
        return method_label(self.method)


def _hand_to_come(seat: str, sit_outs: str, donne_number: int) -> str | None:
    """The hand a player seated at `seat` holds on a donne not played yet, as
    `tournaments.services.preparation.seats_for_donne` deals them: at a table of five the
    fifth player takes the hand of who sits out; None when he is the one sitting out."""
    index = (donne_number - 1) % 4  # preparation.donne_index
    role = sit_outs[index] if index < len(sit_outs) else ""
    if seat == FIFTH_SEAT:
        return role if role in POSITIONS else None
    return None if role == seat else seat


_FEW_CARDS = 8
"""Up to this many players, score cards read only their own keys of the snapshot, their seats
and their tables' results; beyond, the whole snapshot and the tournament's seats and results
once (cheaper than a long list of keys and ids)."""


def score_card(
    tournament: Tournament,
    player: Player,
    *,
    can_manage: bool,
    viewer_player_id: int | None = None,
) -> ScoreCard | None:
    """A player's score card (see `score_cards`); None if the player is not in this
    tournament. A fixed number of queries."""
    cards = score_cards(
        tournament, [player], can_manage=can_manage, viewer_player_id=viewer_player_id
    )
    return cards.get(player.pk)


def score_cards(
    tournament: Tournament,
    players: list[Player] | None = None,
    *,
    can_manage: bool,
    viewer_player_id: int | None = None,
    audience: str | None = None,
) -> dict[int, ScoreCard]:
    """The score cards of the given players (None: everyone seated or ranked), by player id,
    from the stored snapshot (a stale one as it is). See `score_cards_from_snapshot`."""
    snapshot, current = ranking_snapshot(tournament)
    return score_cards_from_snapshot(
        tournament,
        players,
        snapshot=snapshot,
        current=current,
        can_manage=can_manage,
        viewer_player_id=viewer_player_id,
        audience=audience,
    )


def _snapshot_cards(
    snapshot: RankingSnapshot | None, keys: list[str] | None
) -> dict[str, list[list[Any]]]:
    """The snapshot's score-card lines by player key: only the given keys, extracted in the
    database, or all of them (one query, none without a snapshot)."""
    if snapshot is None or keys == []:
        return {}
    qs = RankingSnapshot.objects.filter(pk=snapshot.pk)
    if keys is None:
        return qs.values_list("cards", flat=True).first() or {}
    names = [f"card{i}" for i in range(len(keys))]
    extracted = qs.annotate(
        **{name: KeyTransform(key, "cards") for name, key in zip(names, keys, strict=True)}
    ).values_list(*names)
    values = extracted.first()
    return {key: value for key, value in zip(keys, values or (), strict=False) if value}


_MISSING = object()
_Frozen = TypeVar("_Frozen")


def _frozen(cls: type[_Frozen], **values: Any) -> _Frozen:
    """`cls(**values)` for a frozen dataclass given every field, without its __init__'s one
    object.__setattr__ per field: a thousand score cards build 24,000 lines and 96,000
    scores (tests/scoring/documents/test_data.py checks the instances equal the constructor's)."""
    instance = object.__new__(cls)
    instance.__dict__.update(values)
    return instance


@dataclass(frozen=True, slots=True)
class _CardResult:
    """A result as a score card reads it: status, contract, taker, scores, hands' holders."""

    status: str
    taker: str
    contract: str
    scores: dict[str, Any]
    holders: dict[str, Any]

    def score_of(self, position: str) -> int:
        return int(self.scores.get(position, 0))


def score_cards_from_snapshot(
    tournament: Tournament,
    players: list[Player] | None,
    *,
    snapshot: RankingSnapshot | None,
    current: bool,
    can_manage: bool,
    viewer_player_id: int | None = None,
    audience: str | None = None,
) -> dict[int, ScoreCard]:
    """The given players' score cards (None: everyone seated or ranked) from that snapshot
    (its cards may be deferred), by player id, in the players' order; a player neither seated
    nor ranked in this tournament has none. A fixed number of queries whatever the number of
    players: the snapshot's cards, the seats, the donnes, the results (and the players when
    not given; the finished donnes when not `can_manage`).

    A card has every donne the player is scheduled for, in the order he plays them, with the
    result at his table, his differential and the running total. Another player's card does
    not tell what happened on a donne some tables have still to play (contract, scores,
    differential are `hidden`), as its traveller does not: only the card's owner
    (`viewer_player_id`) and the arbiters and organisers (`can_manage`) see those lines.

    `audience` (by default `ranking_audience` of `can_manage`): for ROOM, the card's rank and
    totals are the room's ranking's, and a donne not complete in the snapshot counts nothing
    yet (its line is `waiting`, without differential), so the running total ends on the
    room's total."""
    data: dict[str, Any] = snapshot.data if snapshot else {}
    if audience is None:
        audience = ranking_audience(tournament, can_manage=can_manage)
    rows: dict[str, Any] = snapshot_rows(data, audience)
    few = players is not None and len(players) <= _FEW_CARDS
    cards = _snapshot_cards(snapshot, [row_key(p.pk) for p in players or ()] if few else None)
    set_rounds, seated = _card_seats(tournament, players if few else None)
    if players is None:
        ids = set(set_rounds) | {key_player(key) for key in rows}
        players = list(
            Player.objects.select_related("club").filter(pk__in=ids).order_by(*name_ordering())
        )
    players = [p for p in players if p.pk in set_rounds or row_key(p.pk) in rows]
    if not players:
        return {}
    donnes_of, results = _card_donnes_and_results(tournament, players, set_rounds, few=few)
    counted_donnes, _donnes = snapshot_complete(data)
    # Stored numbers decoded once each (a thousand cards repeat the same few thousand).
    fracs: dict[Any, Fraction | None] = {None: None}

    def exact(value: Any) -> Fraction | None:
        known = fracs.get(value, _MISSING)
        if known is _MISSING:
            known = fracs[value] = frac(value)
        return known  # type: ignore[return-value]

    read = _CardRead(
        tournament=tournament,
        snapshot=snapshot,
        current=current,
        can_manage=can_manage,
        viewer_player_id=viewer_player_id,
        audience=audience,
        rows=rows,
        cards=cards,
        counted_donnes=counted_donnes,
        field_size=int(data.get("players") or 0),
        method=snapshot.method if snapshot else tournament.method,
        set_rounds=set_rounds,
        seated=seated,
        donnes_of=donnes_of,
        results=results,
        visible=set() if can_manage else complete_donnes(tournament),
        exact=exact,
    )
    return {player.pk: _score_card(read, player) for player in players}


def _card_seats(
    tournament: Tournament, players: list[Player] | None
) -> tuple[dict[int, dict[int, tuple[int, int, int]]], dict[tuple[int, int], tuple[str, str]]]:
    """The seats of the given players (None: everyone's), in one query: per player, per étui
    set, (round number, table id, table number); per (player, étui set), (seat, sit-outs)."""
    seats = Seat.objects.filter(round__tournament=tournament)
    if players is not None:
        seats = seats.filter(player_id__in=[p.pk for p in players])
    set_rounds: dict[int, dict[int, tuple[int, int, int]]] = defaultdict(dict)
    seated: dict[tuple[int, int], tuple[str, str]] = {}  # (player, étui set): seat, sit-outs
    for player_id, round_number, table_id, table_number, etui_set, seat, sit_outs in seats.order_by(
        "round__number"
    ).values_list(
        "player_id",
        "round__number",
        "table_round__table_id",
        "table_round__table__number",
        "table_round__etui_set_id",
        "position",
        "table_round__sit_outs",
    ):
        set_rounds[player_id][etui_set] = (round_number, table_id, table_number)
        seated[(player_id, etui_set)] = (seat, sit_outs)
    return set_rounds, seated


def _card_donnes_and_results(
    tournament: Tournament,
    players: list[Player],
    set_rounds: dict[int, dict[int, tuple[int, int, int]]],
    *,
    few: bool,
) -> tuple[dict[int, list[tuple[int, int, int]]], dict[tuple[int, int], _CardResult]]:
    """The donnes by étui set ((id, number, étui set), by number) and the counted results
    by (table, donne), as plain values, in two queries: only those of the players' sets and
    tables when `few`, else the tournament's (a thousand cards: thousands of results)."""
    donnes = Donne.objects.filter(tournament=tournament)
    if few:
        donnes = donnes.filter(etui_set_id__in={s for p in players for s in set_rounds[p.pk]})
    donnes_of: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for donne in donnes.order_by("number").values_list("id", "number", "etui_set_id"):
        donnes_of[donne[2]].append(donne)
    results_qs = Result.objects.counted().filter(tournament=tournament)
    if few:
        results_qs = results_qs.filter(
            table_id__in={t for p in players for _r, t, _n in set_rounds[p.pk].values()},
            donne_id__in=[d[0] for ds in donnes_of.values() for d in ds],
        )
    results = {
        (table_id, donne_id): _CardResult(status, taker, contract, scores or {}, holders or {})
        for table_id, donne_id, status, taker, contract, scores, holders in (
            results_qs.order_by().values_list(
                "table_id", "donne_id", "status", "taker", "contract", "scores", "holders"
            )
        )
    }
    return donnes_of, results


@dataclass(eq=False)
class _CardRead:
    """What every score card of one `score_cards_from_snapshot` read shares: the snapshot's
    rows and cards, the seats, donnes and results read once, and the values decoded once."""

    tournament: Tournament
    snapshot: RankingSnapshot | None
    current: bool
    can_manage: bool
    viewer_player_id: int | None
    audience: str
    rows: dict[str, Any]
    cards: dict[str, list[list[Any]]]
    counted_donnes: frozenset[int]
    field_size: int
    method: str
    set_rounds: dict[int, dict[int, tuple[int, int, int]]]
    seated: dict[tuple[int, int], tuple[str, str]]
    donnes_of: dict[int, list[tuple[int, int, int]]]
    results: dict[tuple[int, int], _CardResult]
    visible: set[int]
    exact: Callable[[Any], Fraction | None]  # `frac`, decoded once per distinct value
    # Frozen, so shared: a few hundred distinct scores on 24,000 lines.
    card_scores: dict[tuple[str, Any, bool], CardScore] = field(default_factory=dict)


def _score_card(read: _CardRead, player: Player) -> ScoreCard:
    """One player's card from the shared read (see `score_cards_from_snapshot`)."""
    key = row_key(player.pk)
    row_values = read.rows.get(key)
    lines, chart = _card_lines(read, player, read.cards.get(key) or [])
    snapshot = read.snapshot
    return ScoreCard(
        tournament=read.tournament,
        player=player,
        lines=lines,
        row=(
            ranking_line(player, row_decode(row_values), tied=False)
            if row_values is not None
            else None
        ),
        field_size=read.field_size,
        method=read.method,
        is_current=read.current,
        computed_at=snapshot.computed_at if snapshot else None,
        chart=chart,
        audience=read.audience,
    )


def _card_lines(
    read: _CardRead, player: Player, snapshot_lines: list[list[Any]]
) -> tuple[list[ScoreCardLine], list[tuple[str, Fraction]]]:
    """A player's card lines, in the order he plays the donnes, and the points of his chart,
    from his lines of the snapshot and the shared read."""
    can_manage, visible, results = read.can_manage, read.visible, read.results
    room, counted_donnes = read.audience == ROOM, read.counted_donnes
    is_mp = read.method == "matchpoints"
    exact, card_scores = read.exact, read.card_scores
    annulled, all_passed = Result.Status.ANNULLED.value, Result.Status.ALL_PASSED.value
    set_round = read.set_rounds.get(player.pk, {})
    owner = read.viewer_player_id is not None and read.viewer_player_id == player.pk
    by_donne = {line[0]: line for line in snapshot_lines}
    donnes_of = read.donnes_of
    ordered = sorted(
        (d for etui_set in set_round for d in donnes_of.get(etui_set, [])),
        key=lambda d: (set_round[d[2]][0], d[1]),
    )
    lines: list[ScoreCardLine] = []
    chart: list[tuple[str, Fraction]] = []
    running = Fraction(0)
    pct_sum, pct_count = Fraction(0), 0
    for donne_id, number, etui_set in ordered:
        round_number, table_id, table_number = set_round[etui_set]
        line = by_donne.get(donne_id)
        result = results.get((table_id, donne_id))
        status = "pending"
        position = None
        score = differential = percentage = None
        group_size = 0
        waiting = False
        if line is not None:
            _d, position, _t, score_v, diff_v, pct_v, status, group_size = line
            score, differential, percentage = exact(score_v), exact(diff_v), exact(pct_v)
            if room and donne_id not in counted_donnes and status != "sat_out":
                # Not in the room's ranking until every table has played it.
                waiting, status, group_size = True, "pending", 0
                differential = percentage = None
        if line is None and result is not None:  # entered, not in the snapshot yet
            position = next((p for p, pid in result.holders.items() if int(pid) == player.pk), None)
        elif line is None:  # to come: the hand the seating gives him
            position = _hand_to_come(*read.seated[(player.pk, etui_set)], number)
        sits_out = line is None and result is None and position is None
        traveller_visible = can_manage or donne_id in visible
        hidden = result is not None and not traveller_visible and not owner
        scores: list[CardScore] = []
        if result is not None and result.status != annulled and not hidden:
            held, passed = result.scores, result.status == all_passed
            scores = []
            for p in POSITIONS:
                if p in held or passed:
                    score_key = (p, held.get(p, 0), p == position)
                    known = card_scores.get(score_key)
                    if known is None:
                        known = CardScore(p, int(score_key[1]), score_key[2])
                        card_scores[score_key] = known
                    scores.append(known)
        running_total: Fraction | None = None
        if status in ("played", "annulled", "sat_out"):
            if is_mp:
                if percentage is not None:
                    pct_sum += percentage
                    pct_count += 1
                running_total = pct_sum / pct_count if pct_count else Fraction(0)
            else:
                running += differential or 0
                running_total = running
            if not hidden:
                chart.append((str(number), running_total))
        shown = result if not hidden else None
        lines.append(
            _frozen(
                ScoreCardLine,
                round_number=round_number,
                donne_id=donne_id,
                donne_number=number,
                table_number=table_number,
                position=position,
                status=status,
                taker=shown.taker if shown else "",
                contract=shown.contract if shown else "",
                all_passed=bool(shown and shown.status == all_passed),
                scores=scores,
                score=None if hidden else score,
                differential=None if hidden else differential,
                percentage=None if hidden else percentage,
                group_size=group_size,
                running_total=None if hidden else running_total,
                traveller_visible=traveller_visible,
                entered=result is not None,
                hidden=hidden,
                sits_out=sits_out,
                waiting=waiting,
            )
        )
    return lines, chart


# --- a donne's traveller ---------------------------------------------------------------------


@dataclass(frozen=True)
class TravellerRow:
    table_number: int
    status: str
    players: dict[str, Player | None]
    sitter: Player | None
    result: Result
    scores: dict[str, int]
    values: dict[str, tuple[Fraction, Fraction | None]]

    @property
    def cells(
        self,
    ) -> list[tuple[str, Player | None, int | None, Fraction | None, Fraction | None]]:
        out = []
        for p in POSITIONS:
            diff, pct = self.values.get(p, (None, None))
            score = self.scores.get(p) if self.status != Result.Status.ANNULLED else None
            out.append((p, self.players.get(p), score, diff, pct))
        return out

    @property
    def taker_label(self) -> str:
        return str(POSITION_LABELS.get(self.result.taker, ""))

    @property
    def contract_label(self) -> str:
        return str(CONTRACT_LABELS.get(self.result.contract, ""))


@dataclass(frozen=True)
class Outcome:
    label: str
    scores: dict[str, int]
    tables: int
    share: int  # percent of the tables, for the bar


@dataclass(frozen=True)
class Traveller:
    tournament: Tournament
    donne: Donne
    rows: list[TravellerRow]
    hands: list[HandView]
    chien: HandView | None
    distribution: list[Outcome]
    complete: bool
    missing_tables: list[int]
    method: str

    @property
    def is_matchpoints(self) -> bool:
        return self.method == "matchpoints"

    @property
    def method_label(self) -> str:
        return method_label(self.method)


def hand_view(position: str, label: str, text: str) -> HandView:
    """`scoring.rules.display.hand_view` in the page's language."""
    from django.utils.translation import get_language

    return display.hand_view(position, label, text, get_language())


def _outcome_label(result: Result) -> str:
    if result.status == Result.Status.ALL_PASSED:
        return str(_("All passed"))
    return str(
        _("%(contract)s by %(taker)s")
        % {
            "contract": CONTRACT_LABELS.get(result.contract, result.contract),
            "taker": POSITION_LABELS.get(result.taker, result.taker),
        }
    )


def traveller(tournament: Tournament, donne: Donne) -> Traveller:
    """Every table's result on the donne side by side, with each position's differential
    under the tournament's method, the hands and the distribution of outcomes."""
    return travellers(tournament, [donne])[0]


def travellers(tournament: Tournament, donnes: Sequence[Donne]) -> list[Traveller]:
    """The travellers of several donnes (in their order) in three queries, whatever their
    number: for the donne results document."""
    donne_ids = [d.pk for d in donnes]
    by_donne: dict[int, list[Result]] = defaultdict(list)
    for r in (
        Result.objects.counted()
        .filter(donne_id__in=donne_ids)
        .select_related("table")
        .order_by("table__number")
    ):
        by_donne[r.donne_id].append(r)
    scheduled_by_set: dict[int, dict[int, int]] = defaultdict(dict)
    for set_id, table_id, number in TableRound.objects.filter(
        etui_set_id__in={d.etui_set_id for d in donnes}
    ).values_list("etui_set_id", "table_id", "table__number"):
        scheduled_by_set[set_id][table_id] = number
    ids: set[int] = set()
    for results in by_donne.values():
        for r in results:
            ids.update(int(pid) for pid in (r.holders or {}).values())
            if r.sitter_id:
                ids.add(r.sitter_id)
    players = Player.objects.in_bulk(list(ids))
    return [
        _traveller(
            tournament, d, by_donne.get(d.pk, []), scheduled_by_set.get(d.etui_set_id, {}), players
        )
        for d in donnes
    ]


def _traveller(
    tournament: Tournament,
    donne: Donne,
    results: list[Result],
    scheduled: dict[int, int],
    players: dict[int, Player],
) -> Traveller:
    method = tournament.method

    counted = [r for r in results if r.status != Result.Status.ANNULLED]
    values: dict[int, dict[str, tuple[Fraction, Fraction | None]]] = defaultdict(dict)
    for position in POSITIONS:
        group = [r for r in counted if position in r.holders]
        scores = [r.score_of(position) for r in group]
        for r, value in zip(group, differentials(scores, method), strict=True):
            pct = matchpoint_percentage(value, len(group)) if method == "matchpoints" else None
            values[r.pk][position] = (value, pct * 100 if pct is not None else None)

    rows = [
        TravellerRow(
            table_number=r.table.number,
            status=r.status,
            players={p: players.get(int(pid)) for p, pid in (r.holders or {}).items()},
            sitter=players.get(r.sitter_id) if r.sitter_id else None,
            result=r,
            scores={p: r.score_of(p) for p in POSITIONS},
            values=values.get(r.pk, {}),
        )
        for r in results
    ]
    outcomes: dict[tuple[Any, ...], list[Result]] = defaultdict(list)
    for r in counted:
        outcomes[(r.status, r.contract, r.taker, *(r.score_of(p) for p in POSITIONS))].append(r)
    distribution = [
        Outcome(
            label=_outcome_label(group[0]),
            scores={p: group[0].score_of(p) for p in POSITIONS},
            tables=len(group),
            share=round(100 * len(group) / len(counted)),
        )
        for group in sorted(
            outcomes.values(), key=lambda g: (-len(g), -g[0].score_of("N"), g[0].taker)
        )
    ]
    entered = {r.table_id for r in results}
    missing = sorted(number for table, number in scheduled.items() if table not in entered)
    return Traveller(
        tournament=tournament,
        donne=donne,
        rows=rows,
        hands=[hand_view(p, str(POSITION_LABELS[p]), donne.hand(p)) for p in POSITIONS],
        chien=hand_view("", str(_("Chien")), donne.chien) if donne.chien else None,
        distribution=distribution,
        complete=bool(scheduled) and not missing,
        missing_tables=missing,
        method=method,
    )


@dataclass(frozen=True)
class DonneEntry:
    id: int
    number: int
    etui_set: int
    visible: bool
    complete: bool


def donne_index(tournament: Tournament, *, can_manage: bool) -> list[DonneEntry]:
    """The tournament's donnes, saying which travellers may be opened."""
    done = complete_donnes(tournament)
    return [
        DonneEntry(pk, number, etui_set, can_manage or pk in done, pk in done)
        for pk, number, etui_set in Donne.objects.filter(tournament=tournament)
        .order_by("number")
        .values_list("pk", "number", "etui_set__number")
    ]


# --- a club's season and a player's history ---------------------------------------------------


@dataclass
class SeasonLine:
    """A player's line of a club's season as the page shows it (the stored subject
    `scoring.rankings.season`, read by `scoring.rankings.catch_up.club_season_caught_up`)."""

    player: Player
    rank: int = 0
    total: Fraction = Fraction(0)
    tournaments: int = 0
    donnes: int = 0
    compared_sum: Fraction = Fraction(0)
    compared: int = 0

    @property
    def average(self) -> Fraction | None:
        """Differentials (match points: percentages) per donne compared."""
        return self.compared_sum / self.compared if self.compared else None


@dataclass(frozen=True)
class Season:
    """A club's season: its counted tournaments' period and method, those of its published
    tournaments not counted yet (`updating`: no current snapshot) and the lines."""

    club: Club
    start: date
    end: date
    method: str
    tournaments: list[Tournament]
    updating: list[Tournament]
    lines: list[SeasonLine]

    @property
    def is_matchpoints(self) -> bool:
        return self.method == "matchpoints"

    @property
    def method_label(self) -> str:
        return method_label(self.method)


@dataclass(frozen=True)
class HistoryEntry:
    tournament: Tournament
    rank: int | None
    field_size: int
    total: Fraction | None
    donnes_played: int
    penalty_points: int
    is_current: bool

    @property
    def is_matchpoints(self) -> bool:
        return self.tournament.method == "matchpoints"


def player_history(player: Player, tournaments: list[Tournament]) -> list[HistoryEntry]:
    """A player's place in each of the given tournaments (those the reader may see), read
    from their latest snapshots: one query for all of them. During play, his place in the
    room's ranking (complete donnes only, RULES §6.1), as the ranking page shows it."""
    key = row_key(player.pk)
    latest: dict[int, tuple[int, list[Any] | None, int, bool]] = {}
    by_id = {t.pk: t for t in tournaments}
    rows = (
        RankingSnapshot.objects.filter(
            tournament_id__in=list(by_id),
            method=F("tournament__method"),
            matchpoint_penalty_rate=F("tournament__matchpoint_penalty_rate"),
        )
        .annotate(
            row=KeyTransform(key, KeyTransform("rows", "data")),
            room_row=KeyTransform(key, KeyTransform("rows", KeyTransform("room", "data"))),
            room_donnes=KeyTransform("donnes", KeyTransform("room", "data")),
            size=KeyTransform("players", "data"),
        )
        .order_by("tournament_id", "-results_version")
        .values_list("tournament_id", "results_version", "row", "room_row", "room_donnes", "size")
    )
    for tournament_id, version, row, room_row, room_donnes, size in rows:
        if tournament_id not in latest:
            tournament = by_id[tournament_id]
            if ranking_audience(tournament, can_manage=False) == ROOM:
                # the room's rows; none stored: the same as `rows`; no room section: nothing
                row = (
                    room_row if room_row is not None else (row if room_donnes is not None else None)
                )
            current = version >= tournament.results_version
            latest[tournament_id] = (version, row, int(size or 0), current)
    entries = []
    for tournament in tournaments:
        _version, values, size, current = latest.get(tournament.pk, (0, None, 0, False))
        row = row_decode(values) if values else None
        entries.append(
            HistoryEntry(
                tournament=tournament,
                rank=row.rank if row else None,
                field_size=size,
                total=row.total if row else None,
                donnes_played=row.donnes_played if row else 0,
                penalty_points=row.penalty_points if row else 0,
                is_current=current,
            )
        )
    return entries
