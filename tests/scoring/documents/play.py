"""Plausible results for a staged tournament, entered through the real results service.

Used by the documents tests, the documents benchmark and by hand: each table's entry is drawn
from a seeded generator (contract, taker, bouts, points), so the rankings differ between
players and a test can look for known scores in the PDFs.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

from tests.fixtures.tournaments import open_round_for
from tournaments.models import Result, TableRound, Tournament
from tournaments.services.results import (
    ResultInput,
    ResultInvalid,
    ResultNeedsConfirmation,
    result_save,
)

CONTRACTS = ("prise", "prise", "garde", "garde", "garde", "garde_sans", "garde_contre")


def entry(rng: random.Random) -> ResultInput:
    """A valid-looking score sheet line (whole points: no half point at four players)."""
    if rng.random() < 0.05:
        return ResultInput(status="all_passed")
    bouts = rng.choice((0, 1, 1, 2, 2, 3))
    low = int(4.5 * bouts) + 1
    high = int(91 - 4.5 * (3 - bouts))
    return ResultInput(
        status="played",
        taker=rng.choice("NESW"),
        contract=rng.choice(CONTRACTS),
        bouts=bouts,
        points=Decimal(rng.randint(low, high)),
    )


def play_results(
    tournament: Tournament, user: Any, *, seed: int = 7, rounds: set[int] | None = None
) -> list[Result]:
    """Enter a result at every table for every donne of the given rounds (default: all)."""
    rng = random.Random(seed)
    saved: list[Result] = []
    table_rounds = (
        TableRound.objects.filter(round__tournament=tournament)
        .select_related("round", "table", "etui_set")
        .order_by("round__number", "table__number")
    )
    for tr in table_rounds:
        if rounds is not None and tr.round.number not in rounds:
            continue
        for donne in tr.etui_set.donnes.order_by("number"):
            for _attempt in range(20):
                data = entry(rng)
                try:
                    result = save(tournament, tr, donne, data, user)
                except ResultInvalid:
                    continue  # the cards contradict this entry: draw another
                saved.append(result)
                break
            else:  # pragma: no cover - every donne has some valid entry
                raise AssertionError(f"no valid entry found for donne {donne.number}")
    return saved


def save(
    tournament: Tournament, tr: TableRound, donne: Any, data: ResultInput, user: Any
) -> Result:
    open_round_for(tr.table, donne, user)
    try:
        return result_save(
            tournament=tournament,
            table=tr.table,
            donne=donne,
            data=data,
            user=user,
            expected_version=None,
        )
    except ResultNeedsConfirmation as exc:
        return result_save(
            tournament=tournament,
            table=tr.table,
            donne=donne,
            data=data,
            user=user,
            expected_version=None,
            confirmed=list(exc.warnings),
        )
