"""Reads the preparation documents share: the seating (who sits where, which étui set each
table plays) and the donnes, in a fixed number of queries whatever the tournament's size."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db.models import Prefetch

from tournaments.models import Donne, EtuiSet, Player, Seat, TableRound, Tournament

if TYPE_CHECKING:
    from scoring.selectors import RankingView, ScoreCard

POSITIONS = ("N", "E", "S", "W")
FIFTH = "F"


@dataclass
class Sitting:
    """One table in one round: its players by position and the donnes of its relais."""

    table_round: TableRound
    round_number: int
    table_number: int
    table_size: int
    etui_set: int
    donnes: list[Donne]
    seats: dict[str, Player]
    sit_outs: str

    def sitter(self, index: int) -> str | None:
        """At a table of five, the position ('N'…'W' or 'F') sitting out donne `index`."""
        if self.table_size == 5 and index < len(self.sit_outs):
            return self.sit_outs[index]
        return None


@dataclass
class Seating:
    sittings: list[Sitting]
    donnes: list[Donne]
    sets: dict[int, list[Donne]] = field(default_factory=dict)

    def by_player(self) -> dict[int, list[tuple[Sitting, str]]]:
        """Each player's sittings in round order, with his position."""
        out: dict[int, list[tuple[Sitting, str]]] = {}
        for sitting in self.sittings:
            for position, player in sitting.seats.items():
                out.setdefault(player.pk, []).append((sitting, position))
        return out


def load_donnes(tournament: Tournament, *, etui_set: int = 0) -> list[Donne]:
    """The tournament's donnes in order (one étui set only when `etui_set` is not 0)."""
    qs = Donne.objects.filter(tournament=tournament).select_related("etui_set").order_by("number")
    if etui_set:
        qs = qs.filter(etui_set__number=etui_set)
    return list(qs)


def load_seating(tournament: Tournament) -> Seating:
    """Every table of every round with its players and donnes: three queries."""
    donnes = load_donnes(tournament)
    sets: dict[int, list[Donne]] = {}
    for donne in donnes:
        sets.setdefault(donne.etui_set.number, []).append(donne)
    table_rounds = (
        TableRound.objects.filter(round__tournament=tournament)
        .select_related("round", "table", "etui_set")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player", "player__club"))
        )
        .order_by("round__number", "table__number")
    )
    sittings = [
        Sitting(
            table_round=tr,
            round_number=tr.round.number,
            table_number=tr.table.number,
            table_size=tr.table.size,
            etui_set=tr.etui_set.number,
            donnes=sets.get(tr.etui_set.number, []),
            seats={seat.position: seat.player for seat in tr.seats.all()},
            sit_outs=tr.sit_outs,
        )
        for tr in table_rounds
    ]
    return Seating(sittings=sittings, donnes=donnes, sets=sets)


def etui_set_numbers(tournament: Tournament) -> list[int]:
    return list(
        EtuiSet.objects.filter(tournament=tournament)
        .order_by("number")
        .values_list("number", flat=True)
    )


def donne_range(donnes: list[Donne]) -> tuple[int, int]:
    numbers = [d.number for d in donnes]
    return (min(numbers), max(numbers)) if numbers else (0, 0)


def ranking_up_to_date(tournament: Tournament) -> RankingView:
    """The tournament's ranking, computed here if the snapshot lags behind the results: a
    printed ranking or score card must show every saved result, not "being updated"."""
    from scoring.selectors import ranking_current
    from scoring.services.ranking import ranking_recompute

    view = ranking_current(tournament, refresh=False)
    if not view.is_current:
        ranking_recompute(tournament_id=tournament.pk)
        tournament.refresh_from_db(fields=["results_version", "method", "matchpoint_penalty_rate"])
        view = ranking_current(tournament, refresh=False)
    return view


def tournament_players(tournament: Tournament) -> list[Player]:
    """Everyone seated in the tournament, by name (one query)."""
    return list(
        Player.objects.filter(seats__round__tournament=tournament)
        .select_related("club")
        .distinct()
        .order_by("last_name", "first_name", "pk")
    )


def score_cards_bulk(
    tournament: Tournament, players: list[Player], *, snapshot_id: int | None
) -> dict[int, ScoreCard]:
    """Every given player's score card as an arbiter sees it (nothing hidden), from the
    snapshot the document prints: `scoring.selectors.score_cards_from_snapshot`, the one
    implementation the pages use too, in a fixed number of queries."""
    from scoring.models import RankingSnapshot
    from scoring.selectors import score_cards_from_snapshot, snapshot_is_current

    snapshot = (
        RankingSnapshot.objects.defer("cards").filter(pk=snapshot_id).first()
        if snapshot_id
        else None
    )
    return score_cards_from_snapshot(
        tournament,
        players,
        snapshot=snapshot,
        current=snapshot_is_current(snapshot, tournament),
        can_manage=True,
    )
