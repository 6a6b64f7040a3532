"""Reads for pages and the API."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Q, QuerySet

from .models import ArbiterCall, Donne, Result, TableRound, Tournament


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
