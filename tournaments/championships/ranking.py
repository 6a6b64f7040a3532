"""A championship's ranking as a subject of the derived-ranking mechanism (`CHAMPIONSHIP`,
`scoring.rankings.derived`): one `ChampionshipRanking` row per championship holding the lines
`scoring.rules.championship.championship_scopes` computes (everyone and each série, in one
pass) from its counted events' rows.

- The events counted are those agreed and final: a site tournament once published (its
  current ranking snapshot's rows, `scoring.rankings.season.current_rows`), a simultaneous
  event once its embargo is over (its `OverallRankingRow`s). Players are keyed by licence
  ("L<licence>"), so one player's site tournaments and simultaneous events add up.
- A computation reads them in a fixed number of queries (seven) whatever the season's size,
  ranks everyone and each série apart, and stores the lines with the versions they count
  (`counted`); a read (`championship_caught_up`) compares those with the current versions
  and computes in-process when they differ, so a page never misses a saved result.
- When a tournament's ranking task or a simultaneous event's overall ranking task has run
  (`derived.ranking_computed`: a correction after publication, a status change), only the
  championships counting that event are marked stale and scheduled (`on_event_ranked`, one
  query); adding or removing an event, changing the rule or the séries marks only that
  championship (`schedule_championship`). Scheduling coalesces (CHAMPIONSHIP_MIN_INTERVAL).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date, timedelta
from fractions import Fraction
from functools import cached_property
from typing import Any

from django.conf import settings
from django.db.models.functions import Now
from django.utils import timezone

from scoring.rankings import season
from scoring.rankings import state as states
from scoring.rankings.catch_up import ranking_snapshot_caught_up
from scoring.rankings.derived import IN_PROCESS, Subject, schedule, sweep_subject
from scoring.rankings.rows import (
    championship_standings_decode,
    championship_standings_encode,
    rows_results,
)
from scoring.rankings.services import TOURNAMENT_RANKING
from scoring.rankings.state import TaskClock
from scoring.rules.championship import (
    Event,
    EventLine,
    Line,
    Rule,
    Standings,
    championship_standings,
    qualifiers,
)
from tarot_club.kit.runtime import collector_paused
from tournaments.models import Method, Player, Tournament
from tournaments.search import fold, player_search_name
from tournaments.simultaneous.hub.models import (
    OverallRankingRow,
    OverallRankingState,
    SimultaneousEvent,
)
from tournaments.simultaneous.hub.ranking import OVERALL_RANKING

from .models import Championship, ChampionshipEvent, ChampionshipRanking, SeasonSerie

logger = logging.getLogger(__name__)

Counted = dict[str, int]  # {"t:<id>" | "s:<id>": version of the rows counted}


def event_is_final(entry: ChampionshipEvent) -> bool:
    """A tournament once published; a simultaneous event once its embargo is over."""
    if entry.tournament_id is not None:
        return entry.tournament.status == Tournament.Status.PUBLISHED
    return entry.simultaneous_event.embargo_lifted_at is not None


@dataclass
class Inputs:
    """What one computation reads."""

    counted: Counted = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    players: dict[str, list[str]] = field(
        default_factory=dict
    )  # key: first, last, licence, club, search
    series: dict[str, str] = field(default_factory=dict)  # player key -> série


def _player(inputs: Inputs, licence: str, first: str, last: str, club: str) -> str:
    key = f"L{licence}"
    if key not in inputs.players:
        search = f"{player_search_name(first_name=first, last_name=last)} {licence}"
        inputs.players[key] = [first, last, licence, club, search]
    return key


def _site_events(inputs: Inputs, tournaments: list[Tournament]) -> None:
    """The published tournaments' current snapshot rows (two queries)."""
    current = season.current_rows([t.pk for t in tournaments])
    decoded = {pk: rows_results(rows or {}) for pk, (_v, rows) in current.items()}
    ids = {pid for rows in decoded.values() for pid in rows}
    people = {
        pk: (licence, first, last, club)
        for pk, licence, first, last, club in Player.objects.filter(pk__in=ids).values_list(
            "pk", "licence", "first_name", "last_name", "club__name"
        )
    }
    keys = {pk: _player(inputs, *person) for pk, person in people.items()}
    for tournament in tournaments:
        if tournament.pk not in current:
            continue
        inputs.counted[f"t:{tournament.pk}"] = current[tournament.pk][0]
        matchpoints = tournament.method == Method.MATCHPOINTS
        lines = [
            EventLine(keys[pid], rank, total, total if matchpoints else None, compared)
            for pid, (rank, total, compared) in decoded[tournament.pk].items()
            if pid in keys
        ]
        inputs.events.append(Event(f"t:{tournament.pk}", tournament.date, tuple(lines)))


def _hub_events(inputs: Inputs, events: list[SimultaneousEvent]) -> None:
    """The simultaneous events' stored overall rankings (two queries)."""
    if not events:
        return
    ids = [e.pk for e in events]
    versions = dict(
        OverallRankingState.objects.filter(pk__in=ids, results_version__isnull=False).values_list(
            "pk", "results_version"
        )
    )
    by_event: dict[int, list[EventLine]] = {pk: [] for pk in versions}
    matchpoints = {e.pk for e in events if e.method == Method.MATCHPOINTS}
    rows = OverallRankingRow.objects.filter(event_id__in=list(versions)).values_list(
        "event_id",
        "rank",
        "licence",
        "first_name",
        "last_name",
        "club_name",
        "total",
        "donnes_compared",
        "results_version",
    )
    exact: dict[str, Fraction] = {}
    keys: dict[str, str] = {}  # licence -> player key, his names read from his first row
    for event_id, rank, licence, first, last, club, total, compared, version in rows.iterator(
        chunk_size=5000
    ):
        if version != versions[event_id]:
            continue
        value = exact.get(total)
        if value is None:  # totals repeat: each text parsed once
            value = exact[total] = Fraction(total)
        key = keys.get(licence)
        if key is None:
            key = keys[licence] = _player(inputs, licence, first, last, club)
        by_event[event_id].append(
            EventLine(key, rank, value, value if event_id in matchpoints else None, compared)
        )
    for event in events:
        if event.pk in versions:
            inputs.counted[f"s:{event.pk}"] = versions[event.pk]
            inputs.events.append(Event(f"s:{event.pk}", event.date, tuple(by_event[event.pk])))


def counted_entries(pk: int) -> list[ChampionshipEvent]:
    """The championship's events, agreed or not, with their tournament or event; one query."""
    return list(
        ChampionshipEvent.objects.filter(championship_id=pk)
        .select_related("tournament", "simultaneous_event")
        .order_by("pk")
    )


def championship_inputs(pk: int, entries: list[ChampionshipEvent]) -> Inputs:
    """The rows of the championship's agreed final events and its players' séries."""
    inputs = Inputs()
    final = [e for e in entries if e.agreed and event_is_final(e)]
    _site_events(inputs, [e.tournament for e in final if e.tournament_id is not None])
    _hub_events(inputs, [e.simultaneous_event for e in final if e.tournament_id is None])
    for licence, serie in SeasonSerie.objects.filter(championship_id=pk).values_list(
        "licence", "serie"
    ):
        inputs.series[f"L{licence}"] = serie
    return inputs


def rule_of(championship: Championship) -> Rule:
    """The pure rule of the championship's fields."""
    return Rule(
        kind=championship.kind,
        places=tuple(championship.places or ()),
        places_beyond=championship.places_beyond,
        scale_by_field=championship.scale_by_field,
        best_of=championship.best_of,
        minimum_events=championship.minimum_events,
        tie_breaks=tuple(championship.tie_breaks or ()),
        handicaps={s: Fraction(v) for s, v in (championship.handicaps or {}).items()},
    )


def championship_compute(
    championship: Championship, entries: list[ChampionshipEvent]
) -> tuple[Counted, dict[str, Any]]:
    """The championship's lines (everyone, then each série apart) and the versions counted."""
    with collector_paused():  # a season's many small objects, none in a cycle
        return _computed(championship, entries)


def _computed(
    championship: Championship, entries: list[ChampionshipEvent]
) -> tuple[Counted, dict[str, Any]]:
    """`championship_compute`'s work: read, rank once for everyone and the séries, encode."""
    inputs = championship_inputs(championship.pk, entries)
    inputs.counted["revision"] = championship.revision
    rule = rule_of(championship)
    standings = championship_standings(rule, inputs.events, inputs.series)  # one pass for all
    players = inputs.players
    listed = {
        line.player: players[line.player] for line in standings.lines if line.player in players
    }
    return inputs.counted, {**championship_standings_encode(standings), "players": listed}


def championship_recompute(
    pk: int, *, where: str = IN_PROCESS, clock: TaskClock | None = None
) -> int | None:
    """Compute and store the championship `pk` unless its stored lines count the current
    rows already; return how many events it counts (None if it is gone). Idempotent. Sets
    `frozen_at` when a counted event is final. ``clock`` (a task): put back when there is
    nothing to compute."""
    championship = Championship.objects.filter(pk=pk).annotate(db_now=Now()).first()
    if championship is None:
        return None
    read_at = championship.db_now
    states.state_ensure(ChampionshipRanking, pk)
    stored = ChampionshipRanking.objects.filter(pk=pk).values_list("counted", flat=True).first()
    entries = counted_entries(pk)
    counted, data = championship_compute(championship, entries)
    computed = stored != counted
    if not computed and clock is not None:
        states.clock_given_back(ChampionshipRanking, pk, clock)
    if len(counted) > 1 and championship.frozen_at is None:
        Championship.objects.filter(pk=pk, frozen_at__isnull=True).update(frozen_at=timezone.now())
    changes = {"data": data, "counted": counted, "computed_at": Now()} if computed else None
    states.note_computed(
        ChampionshipRanking,
        pk,
        moved_on=ChampionshipRanking.objects.filter(pk=pk, stale_since__gt=read_at),
        read_at=read_at,
        computed=computed,
        changes=changes,
    )
    if computed:
        logger.info("championship %s: %s players by %s", pk, len(data["players"]), where)
    return len(counted) - 1


def current_counted(championship: Championship, entries: list[ChampionshipEvent]) -> Counted:
    """The versions of the current rows of the agreed final events (two queries at most),
    after helping a published tournament without a current snapshot catch up, and the
    championship's revision."""
    final = [e for e in entries if e.agreed and event_is_final(e)]
    tournaments = [e.tournament for e in final if e.tournament_id is not None]
    counted = {f"t:{k}": v for k, v in season.current_counted([t.pk for t in tournaments]).items()}
    missing = [t for t in tournaments if f"t:{t.pk}" not in counted]
    if missing and any([ranking_snapshot_caught_up(t)[1] for t in missing]):
        counted = {
            f"t:{k}": v for k, v in season.current_counted([t.pk for t in tournaments]).items()
        }
    hub = [e.simultaneous_event_id for e in final if e.tournament_id is None]
    if hub:
        for pk, version in OverallRankingState.objects.filter(
            pk__in=hub, results_version__isnull=False
        ).values_list("pk", "results_version"):
            counted[f"s:{pk}"] = version
    counted["revision"] = championship.revision
    return counted


@dataclass(frozen=True)
class Standing:
    """A championship as a read shows it: its events, its stored ranking (`data`, as
    `rows.championship_standings_encode` writes it, with the players), what it counts."""

    championship: Championship
    entries: list[ChampionshipEvent]
    data: dict[str, Any]
    counted: Counted

    @cached_property
    def standings(self) -> Standings:
        """The stored lines of everyone and each série, decoded once."""
        return championship_standings_decode(self.data)

    @property
    def players(self) -> dict[str, list[str]]:
        """Player key -> [first name, last name, licence, club, folded search text]."""
        return self.data.get("players", {})

    @property
    def provisional(self) -> list[ChampionshipEvent]:
        """The agreed events not final yet: the ranking is provisional while there are any."""
        return [e for e in self.entries if e.agreed and not event_is_final(e)]

    @property
    def pending(self) -> list[ChampionshipEvent]:
        """Events added and waiting for their organiser's agreement."""
        return [e for e in self.entries if not e.agreed]

    def scope(self, serie: str | None) -> list[Line]:
        """The lines of everyone (`serie` None or "") or of one série, ranked apart."""
        return self.standings.scope(serie)

    def series(self) -> list[str]:
        """The séries ranked apart, in the championship's order."""
        listed = list(self.championship.series or [])
        present = list(self.standings.series)
        return [s for s in listed if s in present] + sorted(set(present) - set(listed))

    def serie_of(self) -> dict[str, str]:
        """Player key -> his série, for the players ranked in one."""
        lines = self.standings.lines
        return {
            lines[index].player: serie
            for serie, members in self.standings.series.items()
            for index, _rank in members
        }

    def qualified(self) -> dict[str, set[str]]:
        """The qualified players' keys: {"": top K overall, série: top K of the série}."""
        out: dict[str, set[str]] = {}
        top, per_serie = self.championship.qualify_top, self.championship.qualify_top_per_serie
        if top:
            out[""] = set(qualifiers(self.scope(None), top))
        if per_serie:
            for serie in self.series():
                out[serie] = set(qualifiers(self.scope(serie), per_serie))
        return out

    def shown(self, serie: str | None = None, query: str = "") -> list[ShownLine]:
        """The lines of the scope with their players, those matching every word of `query`
        (accent- and case-blind, `tournaments.search.fold`; a licence's first digits)."""
        words = [fold(w) for w in query.split() if fold(w)]
        qualified = (
            set().union(*self.qualified().values())
            if self.championship.final_name
            or (self.championship.qualify_top or self.championship.qualify_top_per_serie)
            else set()
        )
        out = []
        for line in self.scope(serie):
            first, last, licence, club, search = self.players.get(line.player, ["", "", "", "", ""])
            if any(w not in search for w in words):
                continue
            out.append(ShownLine(line, first, last, licence, club, line.player in qualified))
        return out


@dataclass(frozen=True)
class ShownLine:
    """A championship line with its player, as pages and the API show it."""

    line: Line
    first_name: str
    last_name: str
    licence: str
    club: str
    qualified: bool


def _stored(pk: int) -> tuple[int, Counted | None, dict[str, Any]]:
    """The championship's revision and its stored ranking (counted, data); one query."""
    row = (
        Championship.objects.filter(pk=pk)
        .values_list("revision", "ranking__counted", "ranking__data")
        .first()
    )
    if row is None:
        return 0, None, {}
    revision, counted, data = row
    return revision, counted, data or {}


def championship_caught_up(championship: Championship) -> Standing:
    """The championship's stored ranking, computed here when it does not count exactly the
    current rows of its final events and its current revision. A current one: four queries."""
    entries = counted_entries(championship.pk)
    counted = current_counted(championship, entries)
    revision, stored, data = _stored(championship.pk)
    counted["revision"] = championship.revision = revision
    if stored != counted:
        try:
            championship_recompute(championship.pk, where=IN_PROCESS)
        except Exception as exc:  # the page still answers with what is stored
            logger.exception("in-process computation of championship %s failed", championship.pk)
            states.note_error(ChampionshipRanking, championship.pk, exc)
        _revision, stored, data = _stored(championship.pk)
    return Standing(championship, entries, data, stored or {})


def on_event_ranked(sender: object, *, pk: int, **_: Any) -> None:
    """A receiver of `derived.ranking_computed`: after a tournament's ranking task or a
    simultaneous event's overall ranking task, schedule the championships counting that
    event (found in one query), and only those."""
    if sender is TOURNAMENT_RANKING:
        where = {"tournament_id": pk}
    elif sender is OVERALL_RANKING:
        where = {"simultaneous_event_id": pk}
    else:
        return
    for championship_pk in (
        ChampionshipEvent.objects.filter(agreed_by__isnull=False, **where)
        .values_list("championship_id", flat=True)
        .distinct()
    ):
        schedule(CHAMPIONSHIP, championship_pk)


def schedule_championship(pk: int) -> None:
    """Mark the championship stale and ask for its computation (coalesced); never raises."""
    schedule(CHAMPIONSHIP, pk)


def min_interval() -> float:
    """Seconds between the starts of two computations of one championship."""
    return float(getattr(settings, "CHAMPIONSHIP_MIN_INTERVAL", 2.0))


def sweep_after() -> float:
    """Seconds a championship may stay stale before a worker's sweep computes it."""
    return float(getattr(settings, "CHAMPIONSHIP_SWEEP_AFTER", 30.0))


def _compute(pk: int, *, where: str, clock: TaskClock | None) -> int | None:
    return championship_recompute(pk, where=where, clock=clock)


# The championship ranking as a subject of the derived-ranking mechanism; its task is
# `championships.recompute`. Without a broker it runs in-process on commit unless one ran
# less than CHAMPIONSHIP_MIN_INTERVAL ago (a read then catches up).
CHAMPIONSHIP = Subject(
    label="championship",
    state=ChampionshipRanking,
    compute=_compute,
    task_name="championships.recompute",
    min_interval=min_interval,
    sweep_after=sweep_after,
    sweep_window=min_interval,
    claim_timeout=timedelta(seconds=120),
)


def championships_sweep(where: str = "sweep") -> list[int]:
    """Compute the championships left stale for CHAMPIONSHIP_SWEEP_AFTER seconds."""
    return sweep_subject(CHAMPIONSHIP, where=where)


def season_dates(today: date) -> tuple[date, date]:
    """A default season: September 1st to August 31st around `today`."""
    start_year = today.year if today.month >= 9 else today.year - 1
    return date(start_year, 9, 1), date(start_year + 1, 8, 31)
