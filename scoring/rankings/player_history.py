"""A player's events ("Mon tarot", issue 35): every event he played on this site, newest
first, with his place and total from each event's latest ranking snapshot, and the points of
the chart of his results over time.

Which events: those he is registered in that have started (running, finished, published).
While an event runs, his line is the room's (complete donnes only, RULES §6.1), as the
ranking page shows it to players; once finished, the final one. Drafts and registrations
show nothing. Two queries whatever the number of events: the registrations with their
tournaments and clubs and the id of each one's latest snapshot (a subquery), then those
snapshots' rows for this player alone (extracted in the database).

`HistoryLine` is the row the page, the API and the club's view read; another feature that
adds a column (the rating) extends it rather than the query.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from django.db.models import OuterRef, Subquery
from django.db.models.fields.json import KeyTransform

from scoring.rankings.models import RankingSnapshot
from scoring.rankings.rows import row_decode, row_key
from scoring.rankings.selectors import ROOM, ranking_audience
from tournaments.models import Player, Registration, Tournament

STARTED = (Tournament.Status.RUNNING, Tournament.Status.FINISHED, Tournament.Status.PUBLISHED)


@dataclass(frozen=True)
class HistoryLine:
    """A player's line for one event. `total` is the tournament's total under its method
    (differentials, or match points % under `matchpoints`); `field_share` the share of the
    field he finished ahead of (0 to 100, the chart's comparable measure across methods;
    None alone or unranked). `live`: the event runs, the line counts complete donnes only."""

    tournament: Tournament
    rank: int | None
    field_size: int
    total: Fraction | None
    donnes_played: int
    penalty_points: int
    is_current: bool
    live: bool

    @property
    def is_matchpoints(self) -> bool:
        return self.tournament.method == "matchpoints"

    @property
    def percentage(self) -> Fraction | None:
        """His match-point percentage, under that method (else None)."""
        return self.total if self.is_matchpoints else None

    @property
    def field_share(self) -> Fraction | None:
        if self.rank is None or self.field_size < 2:
            return None
        return Fraction(100 * (self.field_size - self.rank), self.field_size - 1)

    @property
    def report_open(self) -> bool:
        """The event is over: its report may exist (the report page checks the donnes)."""
        return not self.live and self.rank is not None


def _registrations(player: Player) -> list[Tournament]:
    """The started tournaments he is registered in, newest first, with their clubs and the
    id and version of each one's latest snapshot under its method and rate (one query)."""
    latest = RankingSnapshot.objects.filter(
        tournament_id=OuterRef("tournament_id"),
        method=OuterRef("tournament__method"),
        matchpoint_penalty_rate=OuterRef("tournament__matchpoint_penalty_rate"),
    ).order_by("-results_version", "-pk")
    registrations = (
        Registration.objects.filter(player=player, tournament__status__in=STARTED)
        .select_related("tournament__club")
        .annotate(
            snapshot_id=Subquery(latest.values("pk")[:1]),
            snapshot_version=Subquery(latest.values("results_version")[:1]),
        )
        .order_by("-tournament__date", "-tournament__pk")
    )
    out = []
    for registration in registrations:
        tournament = registration.tournament
        tournament.snapshot_id = registration.snapshot_id
        tournament.snapshot_version = registration.snapshot_version
        out.append(tournament)
    return out


def _rows(player: Player, snapshot_ids: list[int]) -> dict[int, tuple[Any, Any, Any, Any]]:
    """Per snapshot: his final row, his room row, the room's donnes and the field size, read
    from the JSON in the database (one query; none without snapshots)."""
    if not snapshot_ids:
        return {}
    key = row_key(player.pk)
    rows = (
        RankingSnapshot.objects.filter(pk__in=snapshot_ids)
        .annotate(
            row=KeyTransform(key, KeyTransform("rows", "data")),
            room_row=KeyTransform(key, KeyTransform("rows", KeyTransform("room", "data"))),
            room_donnes=KeyTransform("donnes", KeyTransform("room", "data")),
            size=KeyTransform("players", "data"),
        )
        .order_by()
        .values_list("pk", "row", "room_row", "room_donnes", "size")
    )
    return {pk: (row, room_row, room_donnes, size) for pk, row, room_row, room_donnes, size in rows}


def history_lines(player: Player) -> list[HistoryLine]:
    """Every started event of the player, newest first (two queries; see the module)."""
    tournaments = _registrations(player)
    rows = _rows(player, [t.snapshot_id for t in tournaments if t.snapshot_id is not None])
    lines = []
    for tournament in tournaments:
        row, room_row, room_donnes, size = rows.get(tournament.snapshot_id, (None,) * 4)
        live = ranking_audience(tournament, can_manage=False) == ROOM
        if live:
            # the room's rows; none stored: the same as `rows`; no room section: nothing
            row = room_row if room_row is not None else (row if room_donnes is not None else None)
        decoded = row_decode(row) if row else None
        lines.append(
            HistoryLine(
                tournament=tournament,
                rank=decoded.rank if decoded else None,
                field_size=int(size or 0),
                total=decoded.total if decoded else None,
                donnes_played=decoded.donnes_played if decoded else 0,
                penalty_points=decoded.penalty_points if decoded else 0,
                is_current=(tournament.snapshot_version or -1) >= tournament.results_version,
                live=live,
            )
        )
    return lines


def history_chart_points(lines: list[HistoryLine]) -> list[tuple[str, Fraction]]:
    """The chart's points, oldest first: each ranked event's share of the field beaten,
    labelled by its date (ISO, the page writes it in its language)."""
    return [
        (line.tournament.date.isoformat(), line.field_share)
        for line in reversed(lines)
        if line.field_share is not None
    ]
