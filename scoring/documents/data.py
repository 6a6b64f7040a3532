"""Reads the preparation documents share: the seating (who sits where, which étui set each
table plays) and the donnes, in a fixed number of queries whatever the tournament's size."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

from django.conf import settings
from django.db.models import Prefetch
from django.urls import reverse

from tournaments.models import (
    ArbiterCall,
    Donne,
    EtuiSet,
    LedgerEntry,
    Penalty,
    Player,
    Registration,
    Result,
    Seat,
    TableRound,
    Tournament,
)
from tournaments.search import name_order

if TYPE_CHECKING:
    from scoring.rankings.selectors import RankingView, ScoreCard

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
    from scoring.rankings.selectors import ranking_current
    from scoring.rankings.services import ranking_recompute

    view = ranking_current(tournament)
    if not view.is_current:
        ranking_recompute(tournament_id=tournament.pk)
        tournament.refresh_from_db(fields=["results_version", "method", "matchpoint_penalty_rate"])
        view = ranking_current(tournament)
    return view


def by_name(player: Player) -> tuple[str, int]:
    """The one order of names of the site (tournaments.search.name_order): "Étienne" between
    "Dupont" and "Fabre", "de La Tour" under D, where a binary collation files "É" and "d'"
    after "Z"."""
    return name_order(player)


def tournament_players(tournament: Tournament) -> list[Player]:
    """Everyone seated in the tournament, by name (one query)."""
    players = (
        Player.objects.filter(seats__round__tournament=tournament).select_related("club").distinct()
    )
    return sorted(players, key=by_name)


def score_cards_bulk(
    tournament: Tournament, players: list[Player], *, snapshot_id: int | None
) -> dict[int, ScoreCard]:
    """Every given player's score card as an arbiter sees it (nothing hidden), from the
    snapshot the document prints: `scoring.rankings.selectors.score_cards_from_snapshot`, the one
    implementation the pages use too, in a fixed number of queries."""
    from scoring.rankings.models import RankingSnapshot
    from scoring.rankings.selectors import score_cards_from_snapshot, snapshot_is_current

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


# --- what the score cards, donne results and the new kinds add ------------------------------


def next_tables(seating: Seating) -> dict[tuple[int, int], list[int]]:
    """Where the étuis of each (round, table) go next: the tables that play the same étui set
    in the next round (several when sets are played in copies; none after the last round or
    when no table plays the set next)."""
    tables_of: dict[tuple[int, int], list[int]] = {}
    for sitting in seating.sittings:
        tables_of.setdefault((sitting.round_number, sitting.etui_set), []).append(
            sitting.table_number
        )
    return {
        (s.round_number, s.table_number): sorted(
            tables_of.get((s.round_number + 1, s.etui_set), [])
        )
        for s in seating.sittings
    }


def site_url() -> str:
    return str(getattr(settings, "SITE_URL", "http://127.0.0.1:8000")).rstrip("/")


def table_page_url(tournament: Tournament, table_number: int) -> str:
    """The page a table card's QR code opens: the table's page of the round open there at
    the time (`tournaments.services.table_entry.table_card_url`)."""
    from tournaments.models import Table as TableRow
    from tournaments.services.table_entry import table_card_url

    table = TableRow.objects.filter(tournament=tournament, number=table_number).first()
    if table is None:
        return f"{site_url()}{reverse('tournament_detail', args=[tournament.pk])}"
    return table_card_url(table=table)


def donne_averages(tournament: Tournament) -> dict[tuple[int, str], Fraction]:
    """The mean score of each (donne id, position) over the tables that played it (annulled
    ones left out): the average the differentials are measured from (RULES §6). One query."""
    sums: dict[tuple[int, str], list[int]] = defaultdict(list)
    for donne_id, status, scores, holders in (
        Result.objects.counted()
        .filter(tournament=tournament)
        .exclude(status=Result.Status.ANNULLED)
        .order_by()
        .values_list("donne_id", "status", "scores", "holders")
    ):
        for position in POSITIONS:
            if position in (holders or {}) or status == Result.Status.ALL_PASSED:
                sums[(donne_id, position)].append(int((scores or {}).get(position, 0)))
    return {key: Fraction(sum(values), len(values)) for key, values in sums.items() if values}


class ResultDetail(NamedTuple):
    """What a score card prints of a result beside its contract."""

    pk: int
    status: str
    bouts: int | None
    points: Any
    petit_au_bout: str
    poignees: dict[str, str]
    chelem: str


def result_details(tournament: Tournament) -> dict[tuple[int, int], ResultDetail]:
    """Every result by (donne id, table number), with what a score card prints beside the
    contract (bouts, points, petit au bout, poignées, chelem). One query, of those fields only,
    as plain values (a thousand-player tournament has thousands of results, each with its
    scores and hands' holders in JSON that a score card does not print from here)."""
    return {
        (donne_id, table_number): ResultDetail(pk, *fields)
        for donne_id, table_number, pk, *fields in Result.objects.counted()
        .filter(tournament=tournament)
        .order_by()
        .values_list(
            "donne_id",
            "table__number",
            "pk",
            "status",
            "bouts",
            "points",
            "petit_au_bout",
            "poignees",
            "chelem",
        )
    }


def penalties_of(tournament: Tournament) -> dict[int, list[Penalty]]:
    """The penalties in force (not withdrawn), by player id, in the order given. One query."""
    out: dict[int, list[Penalty]] = defaultdict(list)
    for penalty in (
        Penalty.objects.filter(tournament=tournament, withdrawn_at__isnull=True)
        .select_related("donne")
        .order_by("given_at", "pk")
    ):
        out[penalty.player_id].append(penalty)
    return out


def registrations(tournament: Tournament) -> list[Registration]:
    """Everyone registered, by name, with their club (one query): the check-in list."""
    entries = Registration.objects.filter(tournament=tournament).select_related(
        "player", "player__club"
    )
    return sorted(entries, key=lambda registration: by_name(registration.player))


def ledger(tournament: Tournament) -> list[LedgerEntry]:
    """The tournament's ledger, oldest first, with who did it and on what (one query)."""
    return list(
        LedgerEntry.objects.filter(tournament=tournament)
        .select_related(
            "actor",
            "result__table",
            "result__donne",
            "penalty__player",
            "penalty__donne",
            "by_player",
            "result__entered_by",
        )
        .order_by("at", "pk")
    )


def arbiter_calls(tournament: Tournament) -> list[ArbiterCall]:
    """The tournament's calls to the arbiter, oldest first, with their table, donne, caller
    and what the ruling made (one query)."""
    return list(
        ArbiterCall.objects.filter(tournament=tournament)
        .select_related("table", "donne", "called_by", "taken_by", "ruled_by", "penalty__player")
        .order_by("received_at", "pk")
    )
