"""“Où suis-je assis ?”: a player types part of his name and reads his table and position for
each round, and at a table of five who sits out which donne.

Built on the seating plan (tournaments.services.tournaments.tournament_seating_plan, a fixed
number of queries) and the accent-blind search (tournaments.search).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Player, Round, Tournament
from ..search import fold, players_matching
from .tournaments import PlanSitOut, PlanTable, tournament_seating_plan

MAX_MATCHES = 8
MIN_QUERY_LENGTH = 2


@dataclass(frozen=True)
class SeatStop:
    """Where the player sits in one round."""

    round: int
    open: bool
    table: int
    position: str
    label: str
    etui_set: int
    donnes: list[int]
    sit_outs: list[PlanSitOut]  # at a table of five: who sits out each donne
    mine_out: list[int]  # the donnes this player sits out


@dataclass(frozen=True)
class SeatRoute:
    player: Player
    stops: list[SeatStop]


def seats_lookup(*, tournament: Tournament, query: str) -> list[SeatRoute]:
    """The routes of the tournament's seated players whose name (accents and case ignored) or
    licence matches every word of `query`; at most MAX_MATCHES, none for a too short query."""
    query = " ".join(query.split())
    if len(query) < MIN_QUERY_LENGTH or not fold(query):
        return []  # too short, or only apostrophes: they match every name
    seated = Player.objects.filter(seats__round__tournament=tournament).distinct()
    wanted = set(players_matching(seated, query).values_list("pk", flat=True)[: MAX_MATCHES + 1])
    if not wanted:
        return []
    plan = tournament_seating_plan(tournament=tournament)
    open_rounds = set(
        tournament.round_set.filter(state=Round.State.OPEN).values_list("number", flat=True)
    )
    tables: dict[tuple[int, int], PlanTable] = {
        (plan_round.number, table.number): table
        for plan_round in plan.rounds
        for table in plan_round.tables
    }
    routes: list[SeatRoute] = []
    for route in plan.routes:
        if route.player.pk not in wanted:
            continue
        stops = []
        for stop in route.stops:
            if stop is None:
                continue
            table = tables[(stop.round, stop.table)]
            stops.append(
                SeatStop(
                    round=stop.round,
                    open=stop.round in open_rounds,
                    table=stop.table,
                    position=stop.position,
                    label=stop.label,
                    etui_set=table.etui_set,
                    donnes=table.donnes,
                    sit_outs=table.sit_outs,
                    mine_out=[s.donne for s in table.sit_outs if s.player == route.player],
                )
            )
        routes.append(SeatRoute(player=route.player, stops=stops))
    return routes[:MAX_MATCHES]
