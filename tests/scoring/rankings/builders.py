"""Tournaments of any size built straight through the ORM (bulk_create), with results.

Why not the generation service: the query-count tests and the benchmark need tournaments of
very different sizes quickly (1,000 players). The shape is that of a duplicate tournament:
tables of four (and of five when the count needs it, RULES §7), one étui set per round, each
table playing every set once, players keeping their seats; results are scored by the real
engine. Page tests that need the real seating use `stage_tournament` instead.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from scoring.rules.cards import DECK, format_hand
from scoring.rules.engine import score_deal
from tournaments.models import (
    POSITIONS,
    Club,
    Donne,
    EtuiSet,
    Player,
    Registration,
    Result,
    Round,
    Seat,
    Table,
    TableRound,
    Tournament,
)
from tournaments.services.events import results_changed

CONTRACTS = ("prise", "prise", "garde", "garde", "garde", "garde_sans", "garde_contre")


def table_sizes(players: int) -> list[int]:
    """Tables of four, and as few tables of five as needed (n = 4a + 5b, RULES §7)."""
    for fives in range(0, 4):
        rest = players - 5 * fives
        if rest >= 0 and rest % 4 == 0:
            return [5] * fives + [4] * (rest // 4)
    raise ValueError(f"{players} players cannot be seated four or five to a table")


@dataclass
class Built:
    tournament: Tournament
    user: Any
    players: list[Player]
    tables: list[Table]
    rounds: list[Round]
    donnes: dict[int, Donne]  # by number
    table_rounds: dict[tuple[int, int], TableRound]  # (round number, table number)
    seats: dict[tuple[int, int], dict[str, int]]  # (round, table) -> {N/E/S/W/F: player id}
    set_donnes: dict[int, list[Donne]] = field(default_factory=dict)  # étui set id -> donnes

    def holding(
        self, round_no: int, table_no: int, index: int
    ) -> tuple[dict[str, int], int | None]:
        """Who holds each hand on the index-th donne of the relais, and who sits out."""
        table_round = self.table_rounds[(round_no, table_no)]
        seats = dict(self.seats[(round_no, table_no)])
        sitter = None
        if table_round.sit_outs:
            out = table_round.sit_outs[index % len(table_round.sit_outs)]
            sitter = seats[out]
            seats[out] = seats.pop("F")
        else:
            seats.pop("F", None)
        return seats, sitter

    def schedule(self) -> list[tuple[int, int, int, Donne]]:
        """Every (round, table, index in relais, donne) to be played."""
        out = []
        for (round_no, table_no), table_round in sorted(self.table_rounds.items()):
            for index, donne in enumerate(self.set_donnes[table_round.etui_set_id]):
                out.append((round_no, table_no, index, donne))
        return out


def build_tournament(
    *,
    players: int = 8,
    rounds: int = 2,
    per_relais: int = 4,
    method: str = "average",
    status: str = Tournament.Status.RUNNING,
    club: Club | None = None,
    name: str = "Tournoi construit",
    date: datetime.date | None = None,
    seed: int = 1,
    user: Any = None,
) -> Built:
    """A seated, dealt tournament with no result yet, in a handful of bulk queries."""
    rng = random.Random(seed)
    if club is None:
        number = f"{Club.objects.count() + 7001:04d}"
        club = Club.objects.create(name=f"Club {number}", federation_number=number)
    if user is None:
        user = get_user_model().objects.create_user(f"builder{rng.randrange(10**9)}")
    tournament = Tournament.objects.create(
        club=club,
        name=name,
        date=date or datetime.date(2026, 12, 5),
        rounds=rounds,
        donnes_per_relais=per_relais,
        method=method,
        status=status,
    )
    base = Player.objects.count()
    roster = Player.objects.bulk_create(
        Player(
            first_name=f"Joueur{i}",
            last_name=f"Nom{base + i:05d}",
            licence=f"{8000000 + base + i:07d}",
            club=club,
        )
        for i in range(players)
    )
    now = timezone.now()
    Registration.objects.bulk_create(
        Registration(tournament=tournament, player=p, checked_in_at=now) for p in roster
    )
    sizes = table_sizes(players)
    tables = Table.objects.bulk_create(
        Table(tournament=tournament, number=i + 1, size=size) for i, size in enumerate(sizes)
    )
    round_rows = Round.objects.bulk_create(
        Round(tournament=tournament, number=r + 1, state=Round.State.OPEN) for r in range(rounds)
    )
    sets = EtuiSet.objects.bulk_create(
        EtuiSet(tournament=tournament, number=s + 1) for s in range(rounds)
    )
    donnes = _deal_donnes(tournament, sets, per_relais, rng)
    by_key, seats = _seat_players(round_rows, tables, sets, roster, per_relais)
    set_donnes: dict[int, list[Donne]] = {}
    for donne in donnes:
        set_donnes.setdefault(donne.etui_set_id, []).append(donne)
    return Built(
        tournament=tournament,
        user=user,
        players=roster,
        tables=tables,
        rounds=round_rows,
        donnes={d.number: d for d in donnes},
        table_rounds=by_key,
        seats=seats,
        set_donnes=set_donnes,
    )


def _deal_donnes(
    tournament: Tournament, sets: list[EtuiSet], per_relais: int, rng: random.Random
) -> list[Donne]:
    """`per_relais` donnes per étui set, dealt at random from `rng` (one bulk query)."""
    donne_rows = []
    for s, etui_set in enumerate(sets):
        for i in range(per_relais):
            deck = list(DECK)
            rng.shuffle(deck)
            donne_rows.append(
                Donne(
                    tournament=tournament,
                    etui_set=etui_set,
                    number=s * per_relais + i + 1,
                    dealer=POSITIONS[i % 4],
                    hand_n=format_hand(deck[0:18]),
                    hand_e=format_hand(deck[18:36]),
                    hand_s=format_hand(deck[36:54]),
                    hand_w=format_hand(deck[54:72]),
                    chien=format_hand(deck[72:78]),
                )
            )
    return Donne.objects.bulk_create(donne_rows)


def _seat_players(
    round_rows: list[Round],
    tables: list[Table],
    sets: list[EtuiSet],
    roster: list[Player],
    per_relais: int,
) -> tuple[dict[tuple[int, int], TableRound], dict[tuple[int, int], dict[str, int]]]:
    """The table rounds (each table plays set (round + table) in turn; a table of five
    passes its sit-outs around) and the seats (the same players at a table every round), in
    two bulk queries: the table rounds by (round, table) number and the seats' player ids by
    (round, table) number and position."""
    rounds = len(round_rows)
    table_round_rows = []
    for r, round_row in enumerate(round_rows):
        for t, table in enumerate(tables):
            sit_outs = "".join(POSITIONS[(i + r) % 4] for i in range(per_relais))
            table_round_rows.append(
                TableRound(
                    round=round_row,
                    table=table,
                    etui_set=sets[(r + t) % rounds],
                    sit_outs=sit_outs if table.size == 5 else "",
                )
            )
    table_rounds = TableRound.objects.bulk_create(table_round_rows)
    by_key = {(tr.round.number, tr.table.number): tr for tr in table_rounds}
    seat_rows = []
    seats: dict[tuple[int, int], dict[str, int]] = {}
    start = 0
    seat_of_table = []
    for table in tables:
        seat_of_table.append(roster[start : start + table.size])
        start += table.size
    for (round_no, table_no), table_round in by_key.items():
        occupants = seat_of_table[table_no - 1]
        positions = [*POSITIONS, "F"][: len(occupants)]
        seats[(round_no, table_no)] = {p: pl.pk for p, pl in zip(positions, occupants, strict=True)}
        seat_rows.extend(
            Seat(table_round=table_round, round=table_round.round, player=pl, position=p)
            for p, pl in zip(positions, occupants, strict=True)
        )
    Seat.objects.bulk_create(seat_rows)
    return by_key, seats


def random_deal(rng: random.Random) -> dict[str, Any]:
    """A plausible entry: taker, contract, bouts and points, scored by the engine."""
    bouts = rng.choice((0, 1, 1, 2, 2, 2, 3))
    low = {0: 30, 1: 35, 2: 30, 3: 25}[bouts]
    high = {0: 70, 1: 70, 2: 70, 3: 75}[bouts]
    return {
        "taker": rng.choice(POSITIONS),
        "contract": rng.choice(CONTRACTS),
        "bouts": bouts,
        "points": rng.randint(low, high),
    }


def result_fields(
    built: Built,
    round_no: int,
    table_no: int,
    index: int,
    donne: Donne,
    *,
    status: str = Result.Status.PLAYED,
    deal: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The fields of a Result row as the result service stores them."""
    holders, sitter = built.holding(round_no, table_no, index)
    values: dict[str, Any] = {
        "tournament": built.tournament,
        "table_round": built.table_rounds[(round_no, table_no)],
        "table": built.table_rounds[(round_no, table_no)].table,
        "donne": donne,
        "status": status,
        "holders": holders,
        "sitter_id": sitter,
        "created_by": built.user,
        "updated_by": built.user,
    }
    if status == Result.Status.PLAYED:
        deal = deal or {"taker": "N", "contract": "garde", "bouts": 2, "points": 50}
        score = score_deal(
            players=4, contract=deal["contract"], bouts=deal["bouts"], points=deal["points"]
        )
        values.update(
            taker=deal["taker"],
            contract=deal["contract"],
            bouts=deal["bouts"],
            points=deal["points"],
            scores={p: (score.taker if p == deal["taker"] else score.defender) for p in POSITIONS},
        )
    elif status == Result.Status.ALL_PASSED:
        values["scores"] = {p: 0 for p in POSITIONS}
    return values


def save_result(
    built: Built,
    round_no: int,
    table_no: int,
    index: int,
    *,
    status: str = Result.Status.PLAYED,
    deal: dict[str, Any] | None = None,
) -> Result:
    """Create or replace one result as the service does: row and version bump in one
    transaction, the ranking scheduled on commit."""
    table_round = built.table_rounds[(round_no, table_no)]
    donne = built.set_donnes[table_round.etui_set_id][index]
    values = result_fields(built, round_no, table_no, index, donne, status=status, deal=deal)
    with transaction.atomic():
        result, _created = Result.objects.update_or_create(
            table=values.pop("table"), donne=values.pop("donne"), defaults=values
        )
        results_changed(tournament_id=built.tournament.pk)
    return result


def fill_results(built: Built, *, seed: int = 2, share: float = 1.0) -> int:
    """Results for a share of the schedule, bulk-created, then one version bump."""
    rng = random.Random(seed)
    rows = []
    for round_no, table_no, index, donne in built.schedule():
        if rng.random() > share:
            continue
        status = Result.Status.ALL_PASSED if rng.random() < 0.04 else Result.Status.PLAYED
        values = result_fields(
            built, round_no, table_no, index, donne, status=status, deal=random_deal(rng)
        )
        rows.append(Result(**values))
    with transaction.atomic():
        Result.objects.bulk_create(rows, batch_size=2000)
        results_changed(tournament_id=built.tournament.pk)
    return len(rows)
