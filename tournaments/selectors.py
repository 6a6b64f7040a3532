"""Reads for pages and the API."""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from .models import (
    ArbiterCall,
    Donne,
    Player,
    PlayerLink,
    Registration,
    Result,
    TableRound,
    Tournament,
)


def visible_tournaments(user) -> QuerySet[Tournament]:
    """Tournaments a user may see listed: all but drafts, plus the drafts he manages."""
    qs = Tournament.objects.select_related("club")
    if user.is_authenticated and user.is_superuser:
        return qs
    visible = ~Q(status=Tournament.Status.DRAFT)
    if user.is_authenticated:
        visible |= Q(arbiters=user) | Q(club__organisers=user)
    return qs.filter(visible).distinct()


def home_tournaments(user) -> list[Tournament]:
    return list(visible_tournaments(user).order_by("-date", "name")[:50])


def player_codes(tournament: Tournament) -> dict[int, str]:
    """Each registered player's 4-digit confirmation code ({player id: code}), for the route
    cards; the missing ones are drawn on first read (tournaments.services.table_entry)."""
    from .services.table_entry import player_codes_get

    return player_codes_get(tournament=tournament)


# --- which donnes are finished everywhere ----------------------------------------------------


def complete_donnes(tournament: Tournament) -> set[int]:
    """Ids of the donnes every scheduled table has a result (or an annulment) for (RULES
    §6.1: what the room's ranking counts and when a traveller may be opened).

    Three flat queries and set arithmetic: the tables scheduled per étui set, the donnes of
    each set, and the (donne, table) pairs that have a result (a join here would cost far
    more on a tournament of 1,000 players).
    """
    scheduled: dict[int, set[int]] = defaultdict(set)
    for etui_set, table in (
        TableRound.objects.filter(round__tournament=tournament)
        .order_by()
        .values_list("etui_set_id", "table_id")
    ):
        scheduled[etui_set].add(table)
    entered: dict[int, set[int]] = defaultdict(set)
    for donne, table in (
        Result.objects.counted()
        .filter(tournament=tournament)
        .order_by()
        .values_list("donne_id", "table_id")
    ):
        entered[donne].add(table)
    return {
        donne
        for donne, etui_set in Donne.objects.filter(tournament=tournament)
        .order_by()
        .values_list("pk", "etui_set_id")
        if scheduled.get(etui_set) and scheduled[etui_set] <= entered.get(donne, set())
    }


def donne_is_complete(donne: Donne) -> bool:
    """Every table scheduled to play the donne has a result or an annulment for it."""
    scheduled = set(
        TableRound.objects.filter(etui_set_id=donne.etui_set_id).values_list("table_id", flat=True)
    )
    entered = set(Result.objects.counted().filter(donne=donne).values_list("table_id", flat=True))
    return bool(scheduled) and scheduled <= entered


# --- calls to the arbiter --------------------------------------------------------------------


def call_recorded_for(tournament_id: int, table_id: int, donne_id: int) -> bool:
    """Whether any call to the arbiter (open or ruled) was recorded from that table about that
    donne: what a claim about an irregularity of play needs (issue 34 §4). One query."""
    return ArbiterCall.objects.filter(
        tournament_id=tournament_id, table_id=table_id, donne_id=donne_id
    ).exists()


# --- the club's players: their events ----------------------------------------------------------

STARTED_STATUSES = (
    Tournament.Status.RUNNING,
    Tournament.Status.FINISHED,
    Tournament.Status.PUBLISHED,
)


def season_containing(day: datetime.date) -> tuple[datetime.date, datetime.date]:
    """The club season containing `day`: 1 September to 31 August (as the season ranking's
    default period, scoring.rankings.views.default_season)."""
    first_year = day.year if day.month >= 9 else day.year - 1
    return datetime.date(first_year, 9, 1), datetime.date(first_year + 1, 8, 31)


@dataclass(frozen=True)
class PlayerActivity:
    """A player's events as the club's organisers see them: how many started events this
    season, his last started event (any season), his live personal link.
    A feature that adds a column to the club's list (the rating) extends this row."""

    player: Player
    season_events: int
    last_event: Tournament | None
    link_token: str | None  # his live personal link's token, for his club's organisers
    rating: float | None = None  # his indice (scoring.rankings.rating), when shown

    @property
    def has_link(self) -> bool:
        return self.link_token is not None


def club_player_activity(
    players: Sequence[Player], start: datetime.date, end: datetime.date
) -> list[PlayerActivity]:
    """The activity of the given players (a page of the club's list), in their order: two
    queries whatever their number (the counts and last events as subqueries, then those
    events)."""
    ids = [p.pk for p in players]
    if not ids:
        return []
    started = Registration.objects.filter(
        player=OuterRef("pk"), tournament__status__in=STARTED_STATUSES
    )
    season = (
        started.filter(tournament__date__gte=start, tournament__date__lte=end)
        .order_by()
        .values("player")
        .annotate(n=Count("pk"))
        .values("n")
    )
    last = started.order_by("-tournament__date", "-tournament_id").values("tournament_id")[:1]
    rows = {
        pk: (n, last_id, link)
        for pk, n, last_id, link in Player.objects.filter(pk__in=ids)
        .annotate(
            n=Coalesce(Subquery(season, output_field=IntegerField()), 0),
            last_id=Subquery(last),
            link=Subquery(
                PlayerLink.objects.filter(player=OuterRef("pk"), revoked_at=None).values("token")[
                    :1
                ]
            ),
        )
        .order_by()
        .values_list("pk", "n", "last_id", "link")
    }
    events = Tournament.objects.in_bulk([r[1] for r in rows.values() if r[1]])
    return [
        PlayerActivity(
            player=p,
            season_events=rows[p.pk][0],
            last_event=events.get(rows[p.pk][1]),
            link_token=rows[p.pk][2],
        )
        for p in players
        if p.pk in rows
    ]
