"""Rounds as the arbiter runs them: what a round still misses and why, closing it by annulling
what is missing in one step, and opening a round while an earlier one is still open.

Opening and closing themselves are `round_open` and `round_close` (results.py); this module
adds the steps around them that the dashboard and the API offer. Closing with annulment is
all or nothing: every missing cell is annulled with the reason given and the round closed in
one transaction, or nothing changes.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..models import COUNTED_ENTRY_STATUSES, Donne, Result, Round, TableRound
from ..permissions import can_write_results
from .dashboard import MISSING_REASONS
from .results import (
    ResultInvalid,
    lock_round,
    result_annul,
    round_close,
    round_open,
    round_still_played_before,
)

__all__ = [
    "MissingCell",
    "RoundOpenNeedsConfirmation",
    "round_close_annulling",
    "round_missing_cells",
    "round_open_checked",
]

MISSING = "missing"


@dataclass(frozen=True)
class MissingCell:
    """A (table, donne) of the round without a counted result or annulment, and why."""

    table: int
    donne: int
    state: str  # MISSING, or the entry status of a table's entry that does not count yet
    version: int | None  # the uncounted entry's version (None: no row)

    @property
    def reason(self) -> str:
        return str(MISSING_REASONS.get(self.state, MISSING_REASONS[MISSING]))


class RoundOpenNeedsConfirmation(ValueError):
    """An earlier round is still open: open this one only once the arbiter confirms;
    ``open_rounds`` lists the numbers of the rounds still open."""

    def __init__(self, number: int, open_rounds: list[int]) -> None:
        self.open_rounds = open_rounds
        self.message = ngettext(
            "Round %(rounds)s is still open. Close it first (the dashboard lists what it "
            "misses), or confirm to open round %(number)s all the same.",
            "Rounds %(rounds)s are still open. Close them first (the dashboard lists what "
            "they miss), or confirm to open round %(number)s all the same.",
            len(open_rounds),
        ) % {"rounds": ", ".join(str(n) for n in open_rounds), "number": number}
        super().__init__(self.message)


def _require_write(user: Any, round_: Round) -> None:
    if not can_write_results(user, round_.tournament):
        raise PermissionDenied(
            _("Only the tournament's arbiters and the club's organisers may change results.")
        )


def round_missing_cells(*, round_: Round) -> list[MissingCell]:
    """Every cell of the round that keeps it from closing, by table then donne: no result,
    or a table's entry that does not count yet (awaiting, contested, needing the arbiter)."""
    table_rounds = list(
        TableRound.objects.filter(round=round_).select_related("table").order_by("table__number")
    )
    donnes: dict[int, list[Donne]] = defaultdict(list)
    for donne in Donne.objects.filter(
        etui_set_id__in=[tr.etui_set_id for tr in table_rounds]
    ).order_by("number"):
        donnes[donne.etui_set_id].append(donne)
    results = {
        (row["table_id"], row["donne_id"]): row
        for row in Result.objects.filter(table_round__round=round_).values(
            "table_id", "donne_id", "entry_status", "version"
        )
    }
    counting = set(COUNTED_ENTRY_STATUSES)
    missing = []
    for tr in table_rounds:
        for donne in donnes[tr.etui_set_id]:
            row = results.get((tr.table_id, donne.pk))
            if row is None:
                missing.append(MissingCell(tr.table.number, donne.number, MISSING, None))
            elif row["entry_status"] not in counting:
                missing.append(
                    MissingCell(tr.table.number, donne.number, row["entry_status"], row["version"])
                )
    return missing


def round_open_checked(*, round_: Round, user: Any, confirm_open: bool = False) -> Round:
    """Open ``round_`` as `round_open` does; while an earlier round is not closed, only with
    ``confirm_open`` (else RoundOpenNeedsConfirmation says which). Reopening an earlier round
    while a later one is played needs no confirmation."""
    _require_write(user, round_)
    if round_.state != Round.State.OPEN and not confirm_open:
        earlier = round_still_played_before(round_)
        if earlier:
            raise RoundOpenNeedsConfirmation(round_.number, earlier)
    return round_open(round_=round_, user=user)


def round_close_annulling(*, round_: Round, user: Any, reason: str) -> tuple[Round, int]:
    """Annul every missing cell of the round with ``reason``, then close it; returns the round
    and how many cells were annulled. A table's entry that does not count yet is annulled
    too (the ledger keeps what it said). All or nothing."""
    _require_write(user, round_)
    reason = (reason or "").strip()
    if not reason:
        raise ResultInvalid(
            {
                "reason": [
                    _(
                        "Give the reason for annulling the missing donnes (for example: the "
                        "table ran out of time)."
                    )
                ]
            }
        )
    tournament = round_.tournament
    with transaction.atomic():
        lock_round(round_)  # first, in the one order: a result written meanwhile waits
        cells = round_missing_cells(round_=round_)
        tables = {t.number: t for t in tournament.tables.all()}
        donnes = {d.number: d for d in tournament.donnes.all()}
        for cell in cells:
            result_annul(
                tournament=tournament,
                table=tables[cell.table],
                donne=donnes[cell.donne],
                user=user,
                reason=reason,
                expected_version=cell.version,
            )
        round_close(round_=round_, user=user)
    return round_, len(cells)
