"""The arbiter's view of a running tournament: every (round, table, donne) cell and its state.

Read-only. Built in a fixed number of queries whatever the size of the tournament (rounds,
table rounds, donnes, results), because the arbiter reloads it after every entry.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

from scoring.rules.unusual import Line, Unusual, unusual_results

from ..models import Donne, EntryStatus, Result, Round, Table, TableRound, Tournament

__all__ = [
    "CELL_STATES",
    "Cell",
    "Dashboard",
    "RoundBlock",
    "TableRow",
    "dashboard_build",
]

MISSING = "missing"
ENTERED = "entered"
FLAGGED = "flagged"
ANNULLED = "annulled"
# Entered at a table and not counting yet (tournaments.services.table_entry).
AWAITING = "awaiting"
CONTESTED = "contested"
NEEDS_ARBITER = "needs_arbiter"
CELL_STATES = {
    MISSING: _("Missing"),
    ENTERED: _("Entered"),
    FLAGGED: _("Flagged"),
    ANNULLED: _("Annulled"),
    AWAITING: _("Awaiting confirmation"),
    CONTESTED: _("Contested"),
    NEEDS_ARBITER: _("Needs the arbiter"),
}
NOT_COUNTING = (AWAITING, CONTESTED, NEEDS_ARBITER)
# Why a cell keeps its round from closing, said on screen and by the API.
MISSING_REASONS = {
    MISSING: _("no result entered"),
    AWAITING: _("entered at the table, waiting for an opponent's confirmation"),
    CONTESTED: _("contested at the table: the arbiter must settle it"),
    NEEDS_ARBITER: _("entered at the table with a warning: the arbiter must check it"),
}
NEEDS_HIM = (CONTESTED, NEEDS_ARBITER)
ROUND_STATES = {
    "pending": _("Not started"),
    "open": _("Open"),
    "complete": _("Complete"),
    "closed": _("Closed"),
}


@dataclass
class Cell:
    """One table's result (or its absence) on one donne."""

    round_number: int
    table: Table
    donne: Donne
    state: str = MISSING
    all_passed: bool = False
    version: int | None = None
    warnings: tuple[str, ...] = ()
    entry_status: str = ""  # who stands behind the result (Result.entry_status)
    contest_note: str = ""
    unusual: Unusual | None = None
    # What the cards say against a table's entry that the arbiter has not settled yet.
    card_flags: tuple[str, ...] = ()

    @property
    def entry_label(self) -> str:
        return str(EntryStatus(self.entry_status).label) if self.entry_status else ""

    @property
    def label(self) -> str:
        return str(CELL_STATES[self.state])

    @property
    def key(self) -> tuple[int, int]:
        return (self.table.number, self.donne.number)

    @property
    def missing_reason(self) -> str:
        """Why the cell keeps the round from closing; empty when it does not."""
        reason = MISSING_REASONS.get(self.state)
        return str(reason) if reason is not None else ""


@dataclass
class TableRow:
    table_round: TableRound
    cells: list[Cell]

    @property
    def table(self) -> Table:
        return self.table_round.table


@dataclass
class RoundBlock:
    round: Round
    rows: list[TableRow]
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def done(self) -> int:
        """Cells whose result counts (entered at a table and awaiting: not yet)."""
        waiting = sum(self.counts.get(s, 0) for s in NOT_COUNTING)
        return self.total - self.counts.get(MISSING, 0) - waiting

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.done == self.total

    @property
    def missing(self) -> list[Cell]:
        """The cells that keep the round from closing (no result, or one not counting yet)."""
        return [cell for row in self.rows for cell in row.cells if cell.missing_reason]

    @property
    def state(self) -> str:
        """pending, open, complete (derived: every cell has a result or an annulment), closed."""
        if self.round.state == Round.State.CLOSED:
            return "closed"
        if self.complete:
            return "complete"
        if self.round.state == Round.State.OPEN or self.done:
            return "open"
        return "pending"

    @property
    def state_label(self) -> str:
        return str(ROUND_STATES[self.state])

    @property
    def columns(self) -> int:
        return max((len(row.cells) for row in self.rows), default=0)


@dataclass
class Dashboard:
    tournament: Tournament
    rounds: list[RoundBlock]
    counts: dict[str, int]
    cells: list[Cell]  # in entry order: round, table, donne

    @property
    def needs_him(self) -> list[Cell]:
        """Cells the arbiter must settle: contested, or entered at a table with a warning."""
        return [c for c in self.cells if c.state in NEEDS_HIM]

    @property
    def awaiting(self) -> list[Cell]:
        return [c for c in self.cells if c.state == AWAITING]

    @property
    def against_cards(self) -> list[Cell]:
        """Table entries the donne's hands contradict, awaiting the arbiter's settling
        (confirm as entered, or correct): never said at the table (RULES.md §6.2)."""
        return [c for c in self.cells if c.card_flags]

    @property
    def unusual(self) -> list[Cell]:
        """Cells whose result is unlike the others on the same donne (scoring.rules.unusual)."""
        return [c for c in self.cells if c.unusual is not None]

    def only_needing(self) -> Dashboard:
        """The same board with only the tables that have a cell needing the arbiter (or one
        awaiting a confirmation, or an unusual result): the dashboard's filter."""
        keep = set(NOT_COUNTING)
        rounds = []
        for block in self.rounds:
            rows = [
                r
                for r in block.rows
                if any(c.state in keep or c.unusual is not None or c.card_flags for c in r.cells)
            ]
            rounds.append(RoundBlock(block.round, rows, block.counts))
        return Dashboard(self.tournament, rounds, self.counts, self.cells)

    def cell(self, table_number: int, donne_number: int) -> Cell | None:
        return next((c for c in self.cells if c.key == (table_number, donne_number)), None)

    @property
    def playable_rounds(self) -> set[int]:
        """The rounds that take results now: the open ones, and the earliest round not closed
        (its first result opens it). A later round takes none until the arbiter opens it."""
        numbers = {b.round.number for b in self.rounds if b.round.state == Round.State.OPEN}
        not_closed = [b.round.number for b in self.rounds if b.round.state != Round.State.CLOSED]
        if not_closed:
            numbers.add(min(not_closed))
        return numbers

    def next_missing(
        self, after: tuple[int, int] | None = None, *, round_number: int | None = None
    ) -> Cell | None:
        """The next cell without a result after ``after`` (table, donne), wrapping around:
        the rest of this table's score sheet, then the next tables. Only in ``round_number``
        when given (the entry chain stops at the end of its round), else in the rounds that
        take results (`playable_rounds`): never into a round not yet open."""
        rounds = {round_number} if round_number is not None else self.playable_rounds
        cells = [c for c in self.cells if c.round_number in rounds]
        start = 0
        if after is not None:
            keys = [c.key for c in cells]
            if after in keys:
                start = keys.index(after) + 1
        ordered = cells[start:] + cells[:start]
        return next(
            (c for c in ordered if c.state == MISSING and c.key != after),
            None,
        )


def dashboard_build(*, tournament: Tournament) -> Dashboard:
    """Every cell of the tournament with its state, and counts per round and overall."""
    rounds = list(Round.objects.filter(tournament=tournament).order_by("number"))
    table_rounds = list(
        TableRound.objects.filter(round__tournament=tournament)
        .select_related("table", "etui_set")
        .order_by("round__number", "table__number")
    )
    donnes_by_set: dict[int, list[Donne]] = defaultdict(list)
    for donne in Donne.objects.filter(tournament=tournament).order_by("number"):
        donnes_by_set[donne.etui_set_id].append(donne)
    results = {
        (row["table_id"], row["donne_id"]): row
        for row in Result.objects.filter(tournament=tournament).values(
            "table_id",
            "donne_id",
            "status",
            "confirmed_warnings",
            "version",
            "entry_status",
            "contest_note",
            "taker",
            "contract",
            "scores",
            "card_flags",
        )
    }
    rows_by_round: dict[int, list[TableRow]] = defaultdict(list)
    round_numbers = {r.pk: r.number for r in rounds}
    for tr in table_rounds:
        cells = []
        for donne in donnes_by_set.get(tr.etui_set_id, []):
            cell = Cell(round_numbers.get(tr.round_id, 0), tr.table, donne)
            found = results.get((tr.table_id, donne.pk))
            if found is not None:
                cell.version = found["version"]
                cell.warnings = tuple(found["confirmed_warnings"] or ())
                if found["status"] == Result.Status.ANNULLED:
                    cell.state = ANNULLED
                else:
                    cell.all_passed = found["status"] == Result.Status.ALL_PASSED
                    cell.state = FLAGGED if cell.warnings else ENTERED
                cell.entry_status = found["entry_status"]
                cell.contest_note = found["contest_note"]
                if found["entry_status"] != EntryStatus.ARBITER:
                    flags = found["card_flags"] or ()
                    cell.card_flags = tuple(str(f.get("message", "")) for f in flags)
                if found["entry_status"] in NOT_COUNTING:
                    cell.state = found["entry_status"]
            cells.append(cell)
        rows_by_round[tr.round_id].append(TableRow(tr, cells))
    blocks: list[RoundBlock] = []
    every: list[Cell] = []
    totals = dict.fromkeys(CELL_STATES, 0)
    _mark_unusual(rows_by_round, results)
    for round_ in rounds:
        rows = rows_by_round.get(round_.pk, [])
        counts = dict.fromkeys(CELL_STATES, 0)
        for row in rows:
            for cell in row.cells:
                counts[cell.state] += 1
                totals[cell.state] += 1
                every.append(cell)
        blocks.append(RoundBlock(round_, rows, counts))
    return Dashboard(tournament, blocks, totals, every)


def _mark_unusual(rows_by_round: dict[int, list[TableRow]], results: dict) -> None:
    """Put on each cell whose result is unlike the others on its donne why it is."""
    by_donne: dict[int, list[tuple[Cell, Line]]] = defaultdict(list)
    for rows in rows_by_round.values():
        for row in rows:
            for cell in row.cells:
                found = results.get((cell.table.pk, cell.donne.pk))
                if found is None or found["status"] == Result.Status.ANNULLED:
                    continue
                line = Line(
                    cell.key, found["contract"], found["taker"], dict(found["scores"] or {})
                )
                by_donne[cell.donne.pk].append((cell, line))
    for pairs in by_donne.values():
        if len(pairs) < 2:
            continue
        cells = {cell.key: cell for cell, _line in pairs}
        for hit in unusual_results([line for _cell, line in pairs]):
            cells[hit.key].unusual = hit
