"""Plausible results for the demo's finished tournament, entered through the real service.

The taker is the player with the most trumps, the contract follows his trumps, the bouts are
those his camp holds (his hand, plus the chien when it counts for him) and the points land
around what he needs: enough to give a ranking worth reading, nothing the checks refuse.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from scoring.rules import cards
from scoring.rules.engine import THRESHOLDS, points_range

from .models import Round, TableRound, Tournament
from .services.preparation import donne_from_row
from .services.results import (
    ResultInput,
    ResultNeedsConfirmation,
    result_save,
    round_open,
    round_still_played_before,
)


def demo_result(deal: cards.Donne, rng: random.Random) -> ResultInput:
    trumps = {p: cards.trump_count(deal.hand(p)) for p in cards.POSITIONS}
    taker = max(cards.POSITIONS, key=lambda p: (trumps[p], rng.random()))
    if trumps[taker] < 6:
        return ResultInput(status="all_passed")
    contract = "prise" if trumps[taker] < 8 else ("garde" if trumps[taker] < 11 else "garde_sans")
    camp = set(deal.hand(taker)) | set(deal.chien)
    bouts = cards.bouts_in(camp)
    low, high = points_range(bouts)
    points = min(max(THRESHOLDS[bouts] + rng.randint(-12, 14), low), high)
    return ResultInput(
        status="played",
        taker=taker,
        contract=contract,
        bouts=bouts,
        points=Decimal(str(float(points))),
    )


def play_demo_results(tournament: Tournament, arbiter, seed: int = 2026) -> int:
    """Enter a result for every table and donne not yet entered; returns how many."""
    rng = random.Random(seed)
    entered = 0
    table_rounds = TableRound.objects.filter(round__tournament=tournament).select_related(
        "table", "etui_set", "round__tournament"
    )
    done = set(tournament.results.values_list("table_id", "donne_id"))
    for table_round in table_rounds.order_by("round__number", "table__number"):
        _open_if_needed(table_round.round, arbiter)
        for donne in table_round.etui_set.donnes.order_by("number"):
            if (table_round.table_id, donne.pk) in done:
                continue
            data = demo_result(donne_from_row(donne), rng)
            save = {"tournament": tournament, "table": table_round.table, "donne": donne}
            save.update(data=data, user=arbiter, expected_version=None)
            try:
                result_save(**save)
            except ResultNeedsConfirmation as warning:
                result_save(**save, confirmed=list(warning.warnings))
            entered += 1
    return entered


def _open_if_needed(round_: Round, arbiter: Any) -> None:
    """Open a later round as the arbiter does while an earlier one is not closed (a result
    alone opens only the earliest round not closed)."""
    round_.refresh_from_db(fields=["state"])
    if round_.state == Round.State.PENDING and round_still_played_before(round_):
        round_open(round_=round_, user=arbiter)
