"""The players' rating ("indice", docs/RATING.md) as a subject of the derived-ranking
mechanism (`PLAYER_RATING`, `scoring.rankings.derived`): one state row for the site
(`RatingState`, pk 1), since an event's ratings depend on every event before it.

- Counted events: the site's published tournaments, each through its current ranking
  snapshot, except those of a club that switched the rating off (`ClubRatingSetting`); none
  at all when the site's RATING_ENABLED is off. A published tournament's donnes are all
  complete (RULES §6.1), so a rating never tells anything about a donne still in play.
- Games: the snapshot's score-card lines give, for each donne and position, the players who
  held those cards and their scores (annulled and sat-out lines left out); the pure
  `scoring.rules.rating.compute_ratings` rates them (Glicko-2, one period per date).
- When a tournament's ranking task has run (`derived.ranking_computed`, sent after the task
  that `results_changed` scheduled, also for a change of its date), the rating is scheduled if the tournament is published
  or was counted (one query); a club's switch schedules it too. `derived.schedule`
  coalesces: RATING_MIN_INTERVAL seconds between two computations; the workers' sweep
  computes it when left stale RATING_SWEEP_AFTER seconds.
- A computation reads the counted snapshots (two queries), and stores every player's rating
  and history (`PlayerRating`, written over in one transaction) with the snapshots' versions and
  the tournaments' dates it counts (`RatingState.counted`); when those are what is stored
  already, nothing is written. A date change (`tournament_update` sends `results_changed`
  for it) therefore recomputes the rating: events are rated in date order.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.db.models.functions import Now

from scoring.rankings import state as states
from scoring.rankings.derived import IN_PROCESS, Subject, schedule, sweep_subject
from scoring.rankings.models import ClubRatingSetting, PlayerRating, RankingSnapshot, RatingState
from scoring.rankings.state import TaskClock
from scoring.rules.rating import EventRating, RatingEvent, RatingTable, compute_ratings
from tournaments.models import Tournament

logger = logging.getLogger(__name__)

SITE = 1  # the one state row's id
PLAYED = "played"  # a score-card line's status when the player played the donne
_POSITION, _SCORE, _STATUS = 1, 3, 6  # in a score-card line (RankingSnapshot.cards)

# {"<tournament id>": [results version of its current snapshot, the tournament's date]}: a
# date moves an event in the rating's order, so a date change is a change of what it counts.
Counted = dict[str, list[Any]]


def site_enabled() -> bool:
    """Whether the site computes and shows the rating at all (RATING_ENABLED)."""
    return bool(getattr(settings, "RATING_ENABLED", True))


def club_enabled(club_id: int) -> bool:
    """Whether the rating is shown for the club's players and its events (the site's
    setting, then the club's switch); one query when the site's is on."""
    if not site_enabled():
        return False
    return not ClubRatingSetting.objects.filter(club_id=club_id, enabled=False).exists()


def counted_where() -> Q:
    """The snapshots' tournaments the rating counts: published, of a club with it on."""
    off = ClubRatingSetting.objects.filter(club_id=OuterRef("tournament__club_id"), enabled=False)
    return Q(tournament__status=Tournament.Status.PUBLISHED) & ~Q(Exists(off))


def current_snapshots(where: Q) -> dict[int, tuple[int, int, date]]:
    """{tournament id: (snapshot id, results version, date)} of the current snapshot of each
    tournament `where` selects that has one; one query, no snapshot's rows read."""
    query = (
        RankingSnapshot.objects.filter(
            where,
            method=F("tournament__method"),
            matchpoint_penalty_rate=F("tournament__matchpoint_penalty_rate"),
            results_version__gte=F("tournament__results_version"),
        )
        .order_by("tournament_id", "results_version")
        .values_list("tournament_id", "pk", "results_version", "tournament__date")
    )
    current: dict[int, tuple[int, int, date]] = {}
    for tournament_id, pk, version, day in query:  # the newest last
        current[tournament_id] = (pk, version, day)
    return current


def card_groups(cards: Mapping[str, Sequence[Sequence[Any]]]) -> list[list[tuple[int, Any]]]:
    """A snapshot's score-card lines as the groups of players who held the same cards:
    [(player, score)] per (donne, position), the lines played only."""
    groups: dict[tuple[Any, Any], list[tuple[int, Any]]] = {}
    for key, lines in cards.items():
        player = int(key[1:])
        for line in lines:
            if line[_STATUS] != PLAYED:
                continue
            score = line[_SCORE]
            if isinstance(score, str):
                score = Fraction(score)
            groups.setdefault((line[0], line[_POSITION]), []).append((player, score))
    return list(groups.values())


def rating_inputs() -> tuple[Counted, list[RatingEvent]]:
    """The counted snapshots' versions and the events they make; two queries (none when the
    site's rating is off: nothing is counted)."""
    if not site_enabled():
        return {}, []
    current = current_snapshots(counted_where())
    day_of = {pk: (tournament_id, day) for tournament_id, (pk, _v, day) in current.items()}
    rows = RankingSnapshot.objects.filter(pk__in=list(day_of)).values_list("pk", "cards")
    events = []
    for pk, cards in rows.iterator(chunk_size=200):
        tournament_id, day = day_of[pk]
        events.append(RatingEvent(tournament_id, day, card_groups(cards or {})))
    counted = {str(tid): [version, day.isoformat()] for tid, (_pk, version, day) in current.items()}
    return counted, events


def _round(value: float) -> float:
    return round(value, 2)


def history_encode(lines: Iterable[EventRating]) -> list[list[Any]]:
    """A player's lines as stored in `PlayerRating.history` (see the model)."""
    return [
        [
            line.event,
            _round(line.rating_before),
            _round(line.deviation_before),
            _round(line.rating_after),
            _round(line.deviation_after),
            line.games,
            _round(line.expected),
            _round(line.achieved),
        ]
        for line in lines
    ]


@dataclass(frozen=True)
class RatingLine:
    """A player's rating around one counted event (percentages 0-100)."""

    tournament: int
    rating_before: float
    deviation_before: float
    rating_after: float
    deviation_after: float
    games: int
    expected: float
    achieved: float

    @property
    def change(self) -> float:
        return self.rating_after - self.rating_before


def history_decode(stored: Iterable[Sequence[Any]]) -> list[RatingLine]:
    """A stored history, typed."""
    return [RatingLine(*values) for values in stored]


def rating_rows(table: RatingTable) -> list[PlayerRating]:
    """The table as `PlayerRating` rows, each with its history in date order."""
    lines: dict[Hashable, list[EventRating]] = {}
    for line in table.events:
        lines.setdefault(line.player, []).append(line)
    return [
        PlayerRating(
            player_id=player,
            rating=_round(rating.rating),
            deviation=_round(rating.deviation),
            volatility=rating.volatility,
            events=rating.events,
            games=rating.games,
            last_date=rating.last_day,
            history=history_encode(lines.get(player, [])),
        )
        for player, rating in table.players.items()
    ]


_STORED_FIELDS = ["rating", "deviation", "volatility", "events", "games", "last_date", "history"]


def rating_store(rows: list[PlayerRating]) -> None:
    """Every player's row as computed: written over the stored ones (one INSERT … ON
    CONFLICT DO UPDATE per batch), and the rows of players no longer rated deleted (their
    ids read first, so that no long list of ids goes to the database; usually none)."""
    rated = {row.player_id for row in rows}
    gone = [pk for pk in PlayerRating.objects.values_list("pk", flat=True) if pk not in rated]
    for start in range(0, len(gone), 500):
        PlayerRating.objects.filter(pk__in=gone[start : start + 500]).delete()
    PlayerRating.objects.bulk_create(
        rows,
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["player"],
        update_fields=_STORED_FIELDS,
    )


def rating_recompute(
    pk: int = SITE, *, where: str = IN_PROCESS, clock: TaskClock | None = None
) -> int | None:
    """Compute and store every player's rating unless the stored one counts the current
    snapshots already; return how many tournaments it counts. Idempotent. ``clock`` (a
    task): put back when there is nothing to compute."""
    states.state_ensure(RatingState, pk)
    stored, read_at = (
        RatingState.objects.filter(pk=pk).annotate(db_now=Now()).values_list("counted", "db_now")
    ).get()
    counted, events = rating_inputs()
    computed = stored != counted
    if not computed and clock is not None:
        states.clock_given_back(RatingState, pk, clock)
    changes = None
    with transaction.atomic():
        if computed:
            rows = rating_rows(compute_ratings(events))
            rating_store(rows)
            changes = {"counted": counted, "computed_at": Now(), "players": len(rows)}
        states.note_computed(
            RatingState,
            pk,
            moved_on=RatingState.objects.filter(pk=pk, stale_since__gt=read_at),
            read_at=read_at,
            computed=computed,
            changes=changes,
        )
    if computed:
        logger.info("rating: %s events by %s", len(counted), where)
    return len(counted)


@dataclass(frozen=True)
class RatingRead:
    """What a page or the API shows of a player's rating: his current rating (None: not
    rated yet, no game in a counted event), his history in date order, and whether a saved
    change is not in it yet (`updating`)."""

    rating: PlayerRating | None
    history: list[RatingLine]
    updating: bool


def player_rating(player_id: int) -> RatingRead:
    """The player's stored rating and whether the rating is being updated; two queries."""
    rating = PlayerRating.objects.filter(player_id=player_id).first()
    updating = RatingState.objects.filter(pk=SITE, stale_since__isnull=False).exists()
    history = history_decode(rating.history) if rating is not None else []
    return RatingRead(rating, history, updating)


@dataclass(frozen=True)
class RatingSummary:
    """What a player's page shows of the rating: whether it is shown at all (the site's and
    the club's switches), the current rating and deviation (None: not rated yet), and the
    lines by tournament id."""

    shown: bool
    rating: float | None
    deviation: float | None
    by_tournament: dict[int, RatingLine]


def with_rating(players: QuerySet[Any]) -> QuerySet[Any]:
    """A queryset of players that reads, in the same query, each one's stored rating and
    his club's switch: `rating_summary` then asks the database nothing."""
    off = ClubRatingSetting.objects.filter(club_id=OuterRef("club_id"), enabled=False)
    return players.select_related("rating").annotate(rating_off=Exists(off))


def rating_summary(player: Any) -> RatingSummary:
    """The rating for the player's pages (a `tournaments.models.Player`); no query for a
    player read through `with_rating`, one otherwise, none when the site's rating is off."""
    if not site_enabled():
        return RatingSummary(False, None, None, {})
    if not hasattr(player, "rating_off"):
        player = with_rating(type(player).objects.filter(pk=player.pk)).first()
        if player is None:
            return RatingSummary(False, None, None, {})
    if player.rating_off:
        return RatingSummary(False, None, None, {})
    try:
        stored = player.rating
    except PlayerRating.DoesNotExist:
        return RatingSummary(True, None, None, {})
    lines = history_decode(stored.history or [])
    return RatingSummary(
        True, stored.rating, stored.deviation, {line.tournament: line for line in lines}
    )


def club_ratings(player_ids: Iterable[int]) -> dict[int, PlayerRating]:
    """The current ratings of the given players (those rated), history left unread; one
    query."""
    rows = PlayerRating.objects.filter(player_id__in=list(player_ids)).defer("history")
    return {row.player_id: row for row in rows}


def club_rating_switch(*, club_id: int, enabled: bool) -> bool:
    """Switch the rating on or off for the club (its organisers decide; the caller checks);
    when it changes, the rating is scheduled once committed. Returns whether it changed."""
    with transaction.atomic():
        setting, _created = ClubRatingSetting.objects.select_for_update().get_or_create(
            club_id=club_id
        )
        if setting.enabled == enabled:
            return False
        setting.enabled = enabled
        setting.save(update_fields=["enabled"])
        transaction.on_commit(schedule_rating)
    return True


def schedule_rating() -> None:
    """Ask for a new computation of the rating (coalesced; never raises)."""
    if site_enabled():
        schedule(PLAYER_RATING, SITE)


def on_tournament_ranked(sender: object, *, pk: int, **_: Any) -> None:
    """A receiver of `derived.ranking_computed` for the tournament ranking (connected with
    that sender in the app's ready()): schedule the rating when the tournament `pk` is
    published or was counted (its status or results changed after publication); one query.
    During play nothing is scheduled: an unpublished tournament is not counted."""
    if not site_enabled():
        return
    was_counted = RatingState.objects.filter(pk=SITE, counted__has_key=str(pk))
    counts = Q(status=Tournament.Status.PUBLISHED) | Q(Exists(was_counted))
    if Tournament.objects.filter(counts, pk=pk).exists():
        schedule_rating()


def min_interval() -> float:
    """Seconds between the starts of two computations of the rating."""
    return float(getattr(settings, "RATING_MIN_INTERVAL", 10.0))


def sweep_after() -> float:
    """Seconds the rating may stay stale before a worker's sweep computes it."""
    return float(getattr(settings, "RATING_SWEEP_AFTER", 60.0))


def _inline() -> bool:
    return bool(getattr(settings, "RATING_INLINE", True))


def _compute(pk: int, *, where: str, clock: TaskClock | None) -> int | None:
    return rating_recompute(pk, where=where, clock=clock)


# The rating as a subject of the derived-ranking mechanism; its task is
# `scoring.recompute_rating`. Without a broker it runs in-process on commit unless one ran
# if one ran less than RATING_MIN_INTERVAL ago (`inline_waits` off: a process without a
# broker has no worker to sweep, and a counted event changes rarely).
PLAYER_RATING = Subject(
    label="player rating",
    state=RatingState,
    compute=_compute,
    task_name="scoring.recompute_rating",
    min_interval=min_interval,
    sweep_after=sweep_after,
    sweep_window=min_interval,
    claim_timeout=timedelta(seconds=120),
    inline=_inline,
    inline_waits=False,
)


def rating_sweep(where: str = "sweep") -> list[int]:
    """Compute the rating when left stale for RATING_SWEEP_AFTER seconds."""
    return sweep_subject(PLAYER_RATING, where=where)
