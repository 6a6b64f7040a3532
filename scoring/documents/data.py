"""Reads the preparation documents share: the seating (who sits where, which étui set each
table plays) and the donnes, in a fixed number of queries whatever the tournament's size."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from django.db.models import Prefetch

from tournaments.models import Donne, EtuiSet, Player, Result, Seat, TableRound, Tournament

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
    """Every given player's score card, as `scoring.selectors.score_card` makes it for one
    (for an arbiter: `can_manage=True`, nothing hidden), but reading the snapshot, the seats, the donnes and the results
    once for all of them: a fixed number of queries instead of a few per player.

    tests/documents/test_data.py checks that both give equal cards for every player.
    """
    from scoring.models import RankingSnapshot
    from scoring.selectors import (
        CardScore,
        RankingLine,
        ScoreCard,
        ScoreCardLine,
        frac,
        snapshot_is_current,
    )

    snapshot = RankingSnapshot.objects.filter(pk=snapshot_id).first() if snapshot_id else None
    current = snapshot_is_current(snapshot, tournament)
    cards: dict[str, Any] = snapshot.cards if snapshot else {}
    data: dict[str, Any] = snapshot.data if snapshot else {}
    rows: dict[str, Any] = data.get("rows") or {}
    field_size = int(data.get("players") or 0)
    method = snapshot.method if snapshot else tournament.method
    is_mp = method == "matchpoints"

    wanted = {p.pk for p in players}
    seats_of: dict[int, list[tuple[int, int, int, int, str]]] = {}
    for player_id, *values in (
        Seat.objects.filter(round__tournament=tournament)
        .order_by("round__number")
        .values_list(
            "player_id",
            "round__number",
            "table_round__table_id",
            "table_round__table__number",
            "table_round__etui_set_id",
            "position",
        )
    ):
        if player_id in wanted:
            seats_of.setdefault(player_id, []).append(tuple(values))  # type: ignore[arg-type]
    donnes_of: dict[int, list[tuple[int, int, int]]] = {}
    for donne in (
        Donne.objects.filter(tournament=tournament)
        .order_by("number")
        .values_list("id", "number", "etui_set_id")
    ):
        donnes_of.setdefault(donne[2], []).append(donne)
    results = {
        (r.table_id, r.donne_id): r
        for r in Result.objects.filter(tournament=tournament)
        .order_by()
        .defer("confirmed_warnings", "annul_reason")
    }

    out: dict[int, ScoreCard] = {}
    for player in players:
        key = f"p{player.pk}"
        seats = seats_of.get(player.pk, [])
        row_values = rows.get(key)
        if not seats and row_values is None:
            continue
        set_round: dict[int, tuple[int, int, int]] = {}
        for round_number, table_id, table_number, etui_set, _position in seats:
            set_round[etui_set] = (round_number, table_id, table_number)
        donnes = [d for etui_set in set_round for d in donnes_of.get(etui_set, [])]
        by_donne = {line[0]: line for line in cards.get(key) or []}
        ordered = sorted(donnes, key=lambda d: (set_round[d[2]][0], d[1]))
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
            if line is not None:
                _d, position, _t, score_v, diff_v, pct_v, status, group_size = line
                score, differential, percentage = frac(score_v), frac(diff_v), frac(pct_v)
            if line is None and result is not None:  # entered, not in the snapshot yet
                position = next(
                    (p for p, pid in result.holders.items() if int(pid) == player.pk), None
                )
            scores: list[CardScore] = []
            if result is not None and result.status != Result.Status.ANNULLED:
                scores = [
                    CardScore(p, result.score_of(p), p == position)
                    for p in POSITIONS
                    if p in result.scores or result.status == Result.Status.ALL_PASSED
                ]
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
                chart.append((str(number), running_total))
            lines.append(
                ScoreCardLine(
                    round_number=round_number,
                    donne_id=donne_id,
                    donne_number=number,
                    table_number=table_number,
                    position=position,
                    status=status,
                    taker=result.taker if result else "",
                    contract=result.contract if result else "",
                    all_passed=bool(result and result.status == Result.Status.ALL_PASSED),
                    scores=scores,
                    score=score,
                    differential=differential,
                    percentage=percentage,
                    group_size=group_size,
                    running_total=running_total,
                    traveller_visible=True,
                    entered=result is not None,
                    hidden=False,
                )
            )
        row = None
        if row_values is not None:
            row = RankingLine(
                rank=row_values[0],
                tied=False,
                player=player,
                total=Fraction(row_values[1]),
                differential_total=Fraction(row_values[2]),
                penalty_points=row_values[3],
                donnes_played=row_values[4],
                donnes_compared=row_values[5],
            )
        out[player.pk] = ScoreCard(
            tournament=tournament,
            player=player,
            lines=lines,
            row=row,
            field_size=field_size,
            method=method,
            is_current=current,
            computed_at=snapshot.computed_at if snapshot else None,
            chart=chart,
        )
    return out
