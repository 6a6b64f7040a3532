"""Entering, correcting and annulling a table's result on a donne (RULES.md §3-§6).

This module is the only writer of Result rows. Every change checks the permission,
validates against the rules (scoring.rules.engine) and the cards (tournaments.services.checks),
then, in one transaction, writes the row with optimistic concurrency enforced by the
database (unique (table, donne) on creation, ``UPDATE ... WHERE version = expected`` on
change), appends a LedgerEntry and bumps the tournament's results version so the ranking
follows. The checks read before the transaction; what may change since is caught by the
database in the writes themselves: a concurrent change of the same result by the constraint
and the version, a round closed (or a tournament set back before its start) by the version's
bump, which is refused then (``results_changed_in_open_round``) and the write rolled back.

The REST API, the arbiter's screens and the tables' pages (through
tournaments.services.table_entry, with an ``EntrySource``) all call these functions.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from scoring.rules import engine

from ..models import (
    POSITIONS,
    Contract,
    Donne,
    EntryStatus,
    LedgerEntry,
    Player,
    Result,
    Round,
    Seat,
    Table,
    TableRound,
    Tournament,
)
from ..permissions import can_write_results
from ..sql import columns, in_atomic_block, result_cell_statements, run
from . import checks
from .claims_window import claims_window_open_if_last
from .errors import translate_error
from .events import results_changed_in_open_round

__all__ = [
    "PLAYERS_PER_DONNE",
    "EntrySource",
    "ResultConflict",
    "ResultContext",
    "ResultInput",
    "ResultInvalid",
    "ResultNeedsConfirmation",
    "ResultPreview",
    "lock_round",
    "result_annul",
    "result_cell",
    "result_context",
    "result_input_from_result",
    "result_preview",
    "result_save",
    "result_snapshot",
    "round_close",
    "round_open",
    "round_still_played_before",
]

# Duplicate tables play every donne four-handed; at a table of five one player sits out.
PLAYERS_PER_DONNE = 4
ALL_PASSED = Result.Status.ALL_PASSED
PLAYED = Result.Status.PLAYED
ANNULLED = Result.Status.ANNULLED
NON_FIELD = "__all__"


class ResultInvalid(ValueError):
    """The entry breaks a rule or contradicts the cards; nothing was saved.

    ``errors`` maps a field of ResultInput ("taker", "points", "poignees.N", "reason"...;
    "__all__" for the entry as a whole) to translated messages saying what to fix.
    """

    def __init__(
        self, errors: Mapping[str, list[str]], hand_errors: frozenset[str] = frozenset()
    ) -> None:
        self.errors: dict[str, list[str]] = {k: list(v) for k, v in errors.items()}
        # The messages among ``errors`` that the donne's hands decided (checks.card_checks).
        self.hand_errors = hand_errors
        super().__init__("; ".join(m for msgs in self.errors.values() for m in msgs))


class ResultNeedsConfirmation(ValueError):
    """The entry is possible but unlikely; save again with these codes in ``confirmed``."""

    def __init__(self, warnings: Mapping[str, str]) -> None:
        self.warnings: dict[str, str] = dict(warnings)
        super().__init__("; ".join(self.warnings.values()))


class ResultConflict(Exception):
    """Someone saved this result since the form was loaded; ``current`` is their version.

    Met inside a transaction that must be rolled back first (an insert that lost a race, in a
    block without a savepoint of its own), it names the cell and reads ``current`` when first
    asked, after the rollback.
    """

    def __init__(self, current: Result | None = None, *, cell: tuple[Any, Any] | None = None):
        super().__init__()
        self._current = current
        self._cell = cell

    @property
    def current(self) -> Result:
        if self._current is None:
            assert self._cell is not None
            table, donne = self._cell
            self._current = Result.objects.filter(table=table, donne=donne).first()
            if self._current is None:  # the insert failed on another constraint
                raise IntegrityError(f"no result at table {table.pk} for donne {donne.pk}")
        return self._current

    def __str__(self) -> str:
        return _(
            "Another arbiter saved this result while you were entering yours (version "
            "%(version)s). Nothing was saved: compare with their entry, then save again "
            "if yours is right."
        ) % {"version": self.current.version}


@dataclass(frozen=True)
class ResultInput:
    """What the score sheet says about one donne at one table."""

    status: str  # "played" | "all_passed"
    taker: str = ""  # "N"|"E"|"S"|"W"
    contract: str = ""
    bouts: int | None = None
    points: Decimal | None = None
    petit_au_bout: str = ""  # "" | "attack" | "defence"
    poignees: Mapping[str, str] = field(default_factory=dict)  # {position: size}
    chelem: str = ""


@dataclass(frozen=True)
class ResultContext:
    """Where a result belongs: the table's round, the seating and the hands of the donne."""

    tournament: Tournament
    table: Table
    donne: Donne
    table_round: TableRound
    round: Round
    index: int  # 0-based place of the donne in its étui set
    seats: dict[str, Player]  # who holds each hand on this donne
    sitter: Player | None  # at a table of five, who sits out this donne
    # The saved result of this cell, when it was read with the context (result_cell).
    current: Result | None = None
    current_loaded: bool = False


@dataclass(frozen=True)
class ResultPreview:
    """The scores an entry would give, how they are made, and what is wrong or unlikely."""

    scores: dict[str, int]  # {position: score}; empty while the entry is incomplete or invalid
    parts: dict[str, int]  # contract_part, petit_au_bout_part, poignees_part, chelem_part, unit
    won: bool | None
    errors: dict[str, list[str]]  # every problem, including fields still to fill
    missing: list[str]  # fields not filled yet (their errors are in ``errors`` too)
    warnings: dict[str, str]  # code -> translated message (need a confirmation)
    context: ResultContext | None = None
    hand_errors: frozenset[str] = frozenset()  # the messages of ``errors`` the hands decided

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def problems(self) -> dict[str, list[str]]:
        """Errors other than "still to fill in": what to show while the arbiter types."""
        return {k: v for k, v in self.errors.items() if k not in self.missing}


@dataclass(frozen=True)
class EntrySource:
    """An entry made at the table (not by the arbiter): who typed it, from which page.

    It is saved awaiting an opponent's confirmation, or as needing the arbiter when what was
    typed raises a warning (a half point); what the hands say against it is kept for the
    arbiter (``Result.card_flags``). The table's page has checked the access and who typed.
    """

    entered_by: Player | None
    table_access: Any  # TableAccess
    proof: str = ""  # how the player proved who he is ("code", "binding"), for the ledger


# --- loading --------------------------------------------------------------------------------


def result_context(*, tournament: Tournament, table: Table, donne: Donne) -> ResultContext:
    """Find the round in which ``table`` plays ``donne`` and who holds which hand.

    Raises ResultInvalid when the table or the donne is not of this tournament, or when the
    table does not play that donne (its étui sets do not contain it).
    """
    from .preparation import seats_for_donne

    if table.tournament_id != tournament.pk or donne.tournament_id != tournament.pk:
        raise ResultInvalid(
            {NON_FIELD: [_("This table or this donne belongs to another tournament.")]}
        )
    table_round = (
        TableRound.objects.select_related("round", "etui_set")
        .filter(table=table, etui_set_id=donne.etui_set_id)
        .first()
    )
    if table_round is None:
        raise ResultInvalid(
            {
                NON_FIELD: [
                    _(
                        "Table %(table)s does not play donne %(donne)s: no round gives it the "
                        "étui set of that donne. Check the table and donne numbers."
                    )
                    % {"table": table.number, "donne": donne.number}
                ]
            }
        )
    numbers = list(
        Donne.objects.filter(etui_set_id=donne.etui_set_id)
        .order_by("number")
        .values_list("number", flat=True)
    )
    index = numbers.index(donne.number)
    holding = seats_for_donne(table_round, index)
    seats, sitter = dict(holding.hands), holding.sitter
    return ResultContext(
        tournament=tournament,
        table=table,
        donne=donne,
        table_round=table_round,
        round=table_round.round,
        index=index,
        seats=seats,
        sitter=sitter,
    )


def _cached(instance: Any, name: str, value: Any) -> None:
    """``instance.name = value`` as select_related leaves it (the relation's cache set)."""
    type(instance)._meta.get_field(name).set_cached_value(instance, value)


def result_cell(
    *, tournament: Tournament, table_number: int, donne_number: int, correcting: bool
) -> ResultContext | None:
    """The context of a write named by its table and donne numbers: for a new result in one
    query (the donne with the seats, table round and round of the table that plays it), for
    a correction in two (the saved result with its table, donne and round, then the seats).
    Same answer as `result_context`, with the saved result read
    too (``current``). Plain SQL (tournaments.sql): this is an API write's path.

    Returns None when this short way finds nothing to write on (an unknown table or donne, a
    table that does not play the donne, a result where none is expected or none where one
    is): the caller then loads the table and the donne and calls `result_save` without a
    context, which says precisely what is wrong.
    """
    sql = result_cell_statements()
    d, r, t, tr, rd, s, p = (
        columns(m) for m in (Donne, Result, Table, TableRound, Round, Seat, Player)
    )
    if correcting:
        found = run(sql["correcting"], [tournament.pk, table_number, donne_number]).rows
        if not found:
            return None
        row = found[0]
        at = 0
        current, at = r.load(row, at), at + r.width
        table, at = t.load(row, at), at + t.width
        donne, at = d.load(row, at), at + d.width
        table_round, at = tr.load(row, at), at + tr.width
        round_, at = rd.load(row, at), at + rd.width
        place = row[at]
        if table_round.etui_set_id != donne.etui_set_id:
            return None
        _cached(table_round, "round", round_)
        if table_round.table_id == table.pk:
            _cached(table_round, "table", table)
        _cached(current, "table", table)
        _cached(current, "donne", donne)
        _cached(current, "table_round", table_round)
        seats = []
        for row in run(sql["seats_of_round"], [table_round.pk]).rows:
            seat = s.load(row)
            _cached(seat, "player", p.load(row, s.width))
            _cached(seat, "table_round", table_round)
            seats.append(seat)
    else:
        rows = run(sql["new_cell"], [tournament.pk, donne_number, tournament.pk, table_number]).rows
        if not rows or rows[0][d.width + 1] is not None:
            return None  # no such cell (result_context says why), or a result saved already
        donne, place = d.load(rows[0]), rows[0][d.width]
        current = None
        at = d.width + 2
        of_round = at + s.attnames.index("table_round_id")
        if len({row[of_round] for row in rows}) > 1:
            return None  # the table plays the étui set twice: result_context decides
        at_round = at + s.width + p.width
        table_round = tr.load(rows[0], at_round)
        table = t.load(rows[0], at_round + tr.width)
        round_ = rd.load(rows[0], at_round + tr.width + t.width)
        _cached(table_round, "table", table)
        _cached(table_round, "round", round_)
        seats = []
        for row in rows:
            seat = s.load(row, at)
            _cached(seat, "player", p.load(row, at + s.width))
            _cached(seat, "table_round", table_round)
            seats.append(seat)
    from .preparation import seats_for_donne

    holding = seats_for_donne(table_round, place, seats)
    return ResultContext(
        tournament=tournament,
        table=table,
        donne=donne,
        table_round=table_round,
        round=table_round.round,
        index=place,
        seats=dict(holding.hands),
        sitter=holding.sitter,
        current=current,
        current_loaded=True,
    )


def _with_current(ctx: ResultContext) -> ResultContext:
    """The context with the cell's saved result read (once)."""
    if ctx.current_loaded:
        return ctx
    current = Result.objects.filter(table=ctx.table, donne=ctx.donne).first()
    return replace(ctx, current=current, current_loaded=True)


# --- validation -----------------------------------------------------------------------------


@dataclass
class _Evaluation:
    scores: dict[str, int]
    parts: dict[str, int]
    won: bool | None
    errors: dict[str, list[str]]
    missing: list[str]
    warnings: dict[str, str]
    # What the cards say against the entry when they do not decide (a table's entry).
    card_flags: list[dict[str, str]] = field(default_factory=list)


def _card_part(
    ctx: ResultContext,
    data: ResultInput,
    errors: dict[str, list[str]],
    warnings: dict[str, str],
    *,
    hands_decide: bool,
) -> list[dict[str, str]]:
    """Check the entry against the donne's hands (checks.card_checks).

    With ``hands_decide`` (the arbiter's form, the API) impossible poignées and the like are
    added to ``errors`` and unlikely bouts to ``warnings``. Without it (a table's page,
    RULES.md §6.2) only the warnings of what was typed alone are added
    (`checks.typed_warnings`, computed without the hands); everything the hands decide,
    including a half point they make exact or not, is returned as flags [{"code",
    "message"}] for the arbiter, so that the answer does not depend on the cards.
    """
    card_errors, card_warnings = checks.card_checks(
        hands=ctx.donne.hands,
        chien=ctx.donne.chien,
        taker=data.taker if data.taker in POSITIONS else "",
        contract=data.contract,
        bouts=data.bouts,
        points=data.points,
        poignees={p: s for p, s in data.poignees.items() if p in POSITIONS and s},
        seats=ctx.seats,
        petit_au_bout=data.petit_au_bout,
        chelem=data.chelem,
    )
    if hands_decide:
        for key, message in card_errors.items():
            if message not in errors.get(key, []):
                _add(errors, key, message)
        warnings.update(card_warnings)
        return []
    typed = checks.typed_warnings(data.points, data.chelem)
    warnings.update(typed)
    flags = [{"code": f"refused:{key}", "message": m} for key, m in card_errors.items()]
    flags += [{"code": c, "message": m} for c, m in card_warnings.items() if c not in typed]
    return flags


def _add(errors: dict[str, list[str]], key: str, message: str) -> None:
    errors.setdefault(key, []).append(message)


def _evaluate_all_passed(data: ResultInput) -> _Evaluation:
    """An "all passed" entry: zero for everyone, unless something of a contract was filled."""
    errors: dict[str, list[str]] = {}
    filled = [
        name for name in ("taker", "contract", "petit_au_bout", "chelem") if getattr(data, name)
    ]
    if data.bouts is not None:
        filled.append("bouts")
    if data.points is not None:
        filled.append("points")
    if any(data.poignees.values()):
        filled.append("poignees")
    for name in filled:
        _add(
            errors,
            name,
            _(
                "When all passed nobody took: leave the taker, contract, bouts, points and "
                "announcements empty, or choose a contract."
            ),
        )
    scores = {p: 0 for p in POSITIONS} if not errors else {}
    return _Evaluation(scores, {}, None, errors, [], {})


def _evaluate(ctx: ResultContext, data: ResultInput, *, hands_decide: bool = True) -> _Evaluation:
    """Every error and warning of an entry, and its scores when it is valid. Without
    ``hands_decide`` what the hands say is in ``card_flags`` instead (see `_card_part`)."""
    errors: dict[str, list[str]] = {}
    missing: list[str] = []
    warnings: dict[str, str] = {}

    def require(key: str, message: str) -> None:
        missing.append(key)
        _add(errors, key, message)

    if data.status == ALL_PASSED:
        return _evaluate_all_passed(data)
    if data.status != PLAYED:
        _add(
            errors,
            "status",
            _("Choose a contract, or 'all passed' when nobody took."),
        )
        return _Evaluation({}, {}, None, errors, missing, warnings)

    if not data.taker:
        require("taker", _("Choose the taker (the player who won the bidding)."))
    elif data.taker not in POSITIONS:
        _add(errors, "taker", _("The taker must be North, East, South or West."))
    if not data.contract:
        require("contract", _("Choose the contract: prise, garde, garde sans or garde contre."))
    if data.bouts is None:
        require("bouts", _("Enter the attack's bouts: 0, 1, 2 or 3."))
    if data.points is None:
        require("points", _("Enter the attack's points, from 0 to 91 (for example 41 or 40.5)."))
    for position, size in data.poignees.items():
        if position not in POSITIONS:
            _add(
                errors,
                "poignees",
                _("A poignée belongs to North, East, South or West, not %(value)s.")
                % {"value": position},
            )
        elif size and size not in engine.POIGNEE_BONUS:
            _add(
                errors,
                f"poignees.{position}",
                _("A poignée is simple, double or triple; %(value)s is not.") % {"value": size},
            )
    sizes = [s for s in data.poignees.values() if s]

    # The engine's own checks (contract, bouts, points for bouts, petit au bout, chelem).
    engine_errors = engine.deal_errors(
        PLAYERS_PER_DONNE,
        data.contract or engine.Contract.PRISE,
        data.bouts if data.bouts is not None else 0,
        data.points if data.points is not None else Decimal(0),
        data.petit_au_bout or None,
        [s for s in sizes if s in engine.POIGNEE_BONUS],
        data.chelem or None,
    )
    for err in engine_errors:
        key = err.field
        if key in missing:
            continue
        if key == "points" and "bouts" in missing and err.code == "points_impossible_for_bouts":
            continue
        if (
            key in ("chelem", "petit_au_bout")
            and not err.code.endswith("_unknown")
            and ("points" in missing or "bouts" in missing or "contract" in missing)
        ):
            continue  # what the chelem and petit au bout imply is judged once all is filled
        _add(errors, key, translate_error(err))

    card_flags = _card_part(ctx, data, errors, warnings, hands_decide=hands_decide)

    if errors:
        return _Evaluation({}, {}, None, errors, missing, warnings, card_flags)
    deal = engine.score_deal(
        PLAYERS_PER_DONNE,
        data.contract,
        data.bouts,
        data.points,  # the Decimal itself: converting it to a Fraction costs ten times the scoring
        data.petit_au_bout or None,
        tuple(sizes),
        data.chelem or None,
    )
    scores = {p: (deal.taker if p == data.taker else deal.defender) for p in POSITIONS}
    parts = {
        "contract_part": deal.contract_part,
        "petit_au_bout_part": deal.petit_au_bout_part,
        "poignees_part": deal.poignees_part,
        "chelem_part": deal.chelem_part,
        "unit": deal.unit,
        "coefficient": deal.coefficient,
        "gap": deal.gap,
        "threshold": deal.threshold,
    }
    return _Evaluation(scores, parts, deal.won, errors, missing, warnings, card_flags)


def result_preview(
    *,
    tournament: Tournament,
    table: Table,
    donne: Donne,
    data: ResultInput,
    hands_decide: bool = True,
) -> ResultPreview:
    """What saving ``data`` would give (scores, parts, errors, warnings); never writes.
    Without ``hands_decide`` (a table's page) nothing in it depends on the donne's hands."""
    try:
        ctx = result_context(tournament=tournament, table=table, donne=donne)
    except ResultInvalid as exc:
        return ResultPreview({}, {}, None, exc.errors, [], {}, None)
    ev = _evaluate(ctx, data, hands_decide=hands_decide)
    return ResultPreview(ev.scores, ev.parts, ev.won, ev.errors, ev.missing, ev.warnings, ctx)


# --- writing --------------------------------------------------------------------------------


def _require_write(user: Any, tournament: Tournament) -> None:
    if not can_write_results(user, tournament):
        raise PermissionDenied(
            _("Only the tournament's arbiters and the club's organisers may change results.")
        )


def _require_open(tournament: Tournament, round_: Round) -> None:
    """Results are entered while the tournament runs or after it, never into a closed round,
    nor into a round not yet open while an earlier one is not closed (the arbiter opens it
    on purpose: `round_still_played_before`)."""
    status = Tournament.Status
    if tournament.status in (status.DRAFT, status.REGISTRATION):
        raise ResultInvalid(
            {
                NON_FIELD: [
                    _(
                        "The tournament has not started: results can be entered once it is "
                        "running. Start it from the arbiter's dashboard or the preparation page."
                    )
                ]
            }
        )
    if round_.state == Round.State.CLOSED:
        raise _round_closed(round_)
    if round_.state == Round.State.PENDING:
        earlier = round_still_played_before(round_)
        if earlier:
            raise _round_not_started(round_, earlier)


def round_still_played_before(round_: Round) -> list[int]:
    """The numbers of the rounds before ``round_`` that are not closed: while one is, a
    round not yet open has not started and takes no result until the arbiter opens it
    (confirmed, and in the ledger). The earliest round not closed opens with its first
    result."""
    return list(
        Round.objects.filter(tournament_id=round_.tournament_id, number__lt=round_.number)
        .exclude(state=Round.State.CLOSED)
        .order_by("number")
        .values_list("number", flat=True)
    )


def _round_not_started(round_: Round, earlier: list[int]) -> ResultInvalid:
    return ResultInvalid(
        {
            NON_FIELD: [
                ngettext(
                    "Round %(number)s has not started: round %(rounds)s is still being played. "
                    "Close it first, or open round %(number)s from the arbiter's dashboard "
                    "(it asks you to confirm), then enter this result.",
                    "Round %(number)s has not started: rounds %(rounds)s are still being "
                    "played. Close them first, or open round %(number)s from the arbiter's "
                    "dashboard (it asks you to confirm), then enter this result.",
                    len(earlier),
                )
                % {"number": round_.number, "rounds": ", ".join(str(n) for n in earlier)}
            ]
        }
    )


def _round_closed(round_: Round) -> ResultInvalid:
    return ResultInvalid(
        {
            NON_FIELD: [
                _(
                    "Round %(number)s is closed. Reopen it from the arbiter's dashboard to "
                    "change its results."
                )
                % {"number": round_.number}
            ]
        }
    )


def _require_reason(reason: str, message: str) -> str:
    reason = (reason or "").strip()
    if not reason:
        raise ResultInvalid({"reason": [message]})
    if len(reason) > 300:
        raise ResultInvalid(
            {
                "reason": [
                    _("Keep the reason under 300 characters (it has %(n)s).") % {"n": len(reason)}
                ]
            }
        )
    return reason


def result_snapshot(result: Result | None) -> dict[str, Any] | None:
    """A JSON copy of a result for the ledger (before / after)."""
    if result is None:
        return None
    return {
        "status": result.status,
        "taker": result.taker,
        "contract": result.contract,
        "bouts": result.bouts,
        "points": None if result.points is None else str(result.points),
        "petit_au_bout": result.petit_au_bout,
        "poignees": dict(result.poignees or {}),
        "chelem": result.chelem,
        "scores": dict(result.scores or {}),
        "holders": dict(result.holders or {}),
        "sitter": result.sitter_id,
        "confirmed_warnings": list(result.confirmed_warnings or []),
        "annul_reason": result.annul_reason,
        "version": result.version,
        "table": result.table.number if result.table_id else None,
        "donne": result.donne.number if result.donne_id else None,
    }


def result_input_from_result(result: Result) -> ResultInput:
    """The entry that produced a saved result (to fill the form when correcting it)."""
    if result.status == ANNULLED:
        return ResultInput(status=PLAYED)
    return ResultInput(
        status=result.status,
        taker=result.taker,
        contract=result.contract,
        bouts=result.bouts,
        points=result.points,
        petit_au_bout=result.petit_au_bout,
        poignees=dict(result.poignees or {}),
        chelem=result.chelem,
    )


def _fields_for(
    ctx: ResultContext, data: ResultInput, ev: _Evaluation, confirmed: Collection[str]
) -> dict[str, Any]:
    played = data.status == PLAYED
    return {
        "status": data.status,
        "taker": data.taker if played else "",
        "contract": data.contract if played else "",
        "bouts": data.bouts if played else None,
        "points": Decimal(data.points).quantize(Decimal("0.1")) if played else None,
        "petit_au_bout": data.petit_au_bout if played else "",
        "poignees": {p: s for p, s in sorted(data.poignees.items()) if s} if played else {},
        "chelem": data.chelem if played else "",
        "scores": ev.scores,
        "holders": {p: player.pk for p, player in sorted(ctx.seats.items())},
        "sitter": ctx.sitter,
        "confirmed_warnings": sorted(c for c in ev.warnings if c in confirmed),
        "annul_reason": "",
    }


def _same(result: Result, values: Mapping[str, Any]) -> bool:
    for name, value in values.items():
        current = getattr(result, name)
        if name == "sitter":
            if (current.pk if current else None) != (value.pk if value else None):
                return False
        elif current != value:
            return False
    return True


@dataclass(frozen=True)
class LedgerLine:
    """What the ledger says of one change of a result: its action, who made it, and why (what
    a person typed in ``reason``, or the software's ``reason_code`` and its parameters); a
    change made from a table's page names the player and the page."""

    action: str
    actor: Any
    reason: str = ""
    reason_code: str = ""
    reason_params: Mapping[str, Any] | None = None
    by_player: Player | None = None
    table_access: Any = None  # TableAccess

    def fields(self) -> dict[str, Any]:
        """The LedgerEntry fields this line fills."""
        return {
            "action": self.action,
            "actor": self.actor,
            "reason": (self.reason or "").strip()[:300],
            "reason_code": self.reason_code,
            "reason_params": dict(self.reason_params) if self.reason_params else None,
            "by_player": self.by_player,
            "table_access": self.table_access,
        }


def _write(
    *,
    ctx: ResultContext,
    values: dict[str, Any],
    expected_version: int | None,
    line: LedgerLine,
    reason_required_message: str | None,
) -> Result:
    """Create or correct the cell's row, with the database enforcing concurrency, and ledger
    it (``line``, its action for a correction given by the caller too).

    Everything is checked before the writes; they form a transaction without a savepoint of
    its own (one round trip less each way inside an outer transaction, such as the API's
    idempotent writes): a failure in it rolls the whole outer transaction back. The returned
    result carries its table, donne, round and author, read with the context, so that
    answering with it needs no query.
    """
    if expected_version is None:
        if reason_required_message is not None:
            line = replace(line, reason=_require_reason(line.reason, reason_required_message))
        if ctx.current_loaded and ctx.current is not None:
            raise ResultConflict(ctx.current)
        return _create(ctx=ctx, values=values, line=line)
    existing = _with_current(ctx).current
    if existing is None:
        raise ResultInvalid(
            {
                NON_FIELD: [
                    _(
                        "There is no saved result to correct at this table for this donne. "
                        "Reload the page and enter it."
                    )
                ]
            }
        )
    if existing.version != expected_version:
        raise ResultConflict(existing)
    if _same(existing, values):
        return existing  # nothing changed: no new version, no ledger line
    if not line.reason_code:
        message = reason_required_message or _(
            "Give a reason for the correction (for example: score sheet misread)."
        )
        line = replace(line, reason=_require_reason(line.reason, message))
    existing.table, existing.donne = ctx.table, ctx.donne  # for the snapshots, without a query
    if existing.table_round_id == ctx.table_round.pk:
        existing.table_round = ctx.table_round
    return result_row_update(
        result=existing,
        tournament=ctx.tournament,
        round_=ctx.round,
        expected_version=expected_version,
        values=values,
        line=line,
    )


def _create(*, ctx: ResultContext, values: dict[str, Any], line: LedgerLine) -> Result:
    """Insert the cell's first row, its ledger line and the results version's bump.

    Creation relies on the unique (table, donne) constraint: a concurrent creation makes the
    insert fail and becomes a conflict. The bump is the write's last check, as for
    `result_row_update`."""
    tournament, table, donne, user = ctx.tournament, ctx.table, ctx.donne, line.actor
    try:
        with transaction.atomic(savepoint=False):
            result = Result(
                tournament=tournament,
                table_round=ctx.table_round,
                table=table,
                donne=donne,
                created_by=user,
                updated_by=user,
                version=1,
                **values,
            )
            entry = LedgerEntry(
                tournament=tournament,
                round=ctx.round,
                before=None,
                after=result_snapshot(result),
                **line.fields(),
            )
            result.save(force_insert=True)
            entry.result = result
            entry.save(force_insert=True)
            _open_round(ctx.round)
            if not results_changed_in_open_round(
                tournament_id=tournament.pk, round_id=ctx.round.pk
            ):
                _refuse_closed(tournament.pk, ctx.round)
    except IntegrityError:
        # Another creation won the race. Inside an outer transaction nothing can be read
        # until it is rolled back: the conflict reads the winner when asked.
        conflict = ResultConflict(cell=(table, donne))
        if not in_atomic_block():
            conflict.current  # noqa: B018 — re-raises the error if it was not the race
        raise conflict from None
    return result


def result_row_update(
    *,
    result: Result,
    tournament: Tournament,
    round_: Round,
    expected_version: int,
    values: Mapping[str, Any],
    line: LedgerLine,
    entry_status_in_ledger: bool = False,
) -> Result:
    """The one writer of a saved Result row (a correction, an annulment, a confirmation, a
    contest): ``UPDATE ... SET values, version + 1 WHERE version = expected_version``, its
    ledger line, and the results version's bump, in the caller's transaction.

    One guard, in the database: a change since ``expected_version`` was read changes no row
    and raises ResultConflict; the bump is refused when the round was closed (or the
    tournament set back before its start) since the caller's checks, and the refusal
    `_require_open` gives is raised (the caller's transaction rolls back). ``result`` is left
    as the UPDATE left it (no read back) and returned; its table and donne name the ledger's
    snapshots. With ``entry_status_in_ledger`` the snapshots also say the entry status.
    """
    before = result_snapshot(result)
    previous_status = result.entry_status
    now = timezone.now()
    with transaction.atomic(savepoint=False):
        updated = Result.objects.filter(pk=result.pk, version=expected_version).update(
            version=F("version") + 1, updated_by=line.actor, updated_at=now, **values
        )
        if updated == 0:
            raise ResultConflict(cell=(result.table, result.donne))
        for name, value in values.items():
            setattr(result, name, value)
        result.version, result.updated_by, result.updated_at = expected_version + 1, line.actor, now
        after = result_snapshot(result)
        if entry_status_in_ledger and before is not None and after is not None:
            before["entry_status"], after["entry_status"] = previous_status, result.entry_status
        LedgerEntry.objects.create(
            tournament=tournament,
            round=round_,
            result=result,
            before=before,
            after=after,
            **line.fields(),
        )
        _open_round(round_)
        if not results_changed_in_open_round(tournament_id=tournament.pk, round_id=round_.pk):
            _refuse_closed(tournament.pk, round_)
    return result


def _open_round(round_: Round) -> None:
    """The first result of the earliest round not closed opens it, as the room plays it:
    `_require_open` refused a result in a later round not yet open, which the arbiter opens
    from the dashboard (confirmed, and in the ledger)."""
    if round_.state == Round.State.PENDING:
        Round.objects.filter(pk=round_.pk, state=Round.State.PENDING).update(state=Round.State.OPEN)


def _refuse_closed(tournament_id: int, round_: Round) -> None:
    """Raise the refusal `_require_open` gives for the tournament and round as they are now
    (read again: the ones of the checks said they were open)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    current = Round.objects.filter(pk=round_.pk).first()
    if tournament is not None and current is not None:
        _require_open(tournament, current)
    # Reopened (or gone) since the refused statement: it was closed when it mattered.
    raise _round_closed(round_)


def result_save(
    *,
    tournament: Tournament,
    table: Table,
    donne: Donne,
    data: ResultInput,
    user: Any,
    expected_version: int | None,
    reason: str = "",
    confirmed: Collection[str] = (),
    source: EntrySource | None = None,
    context: ResultContext | None = None,
) -> Result:
    """Record (or correct) what ``table`` scored on ``donne``.

    ``expected_version`` is the version the form was loaded with (None: no result yet). A
    correction needs a ``reason``; warnings need their code in ``confirmed``. Raises
    PermissionDenied, ResultInvalid, ResultNeedsConfirmation or ResultConflict; nothing is
    written unless all is valid. With a ``source`` (a table's page) the entry does not count
    until confirmed (``Result.entry_status``); a warning of what was typed (a half point)
    makes it "needs the arbiter" instead of a refusal, and nothing the hands decide refuses
    or delays it: that goes to ``Result.card_flags`` for the arbiter (RULES.md §6.2).
    ``context``: the cell as `result_cell` read it (the API), instead of reading it again.

    The checks read before any write; the writes alone form the transaction (see `_write`).
    """
    if source is None:
        _require_write(user, tournament)
    ctx = context or result_context(tournament=tournament, table=table, donne=donne)
    _require_open(tournament, ctx.round)
    ev = _evaluate(ctx, data, hands_decide=source is None)
    if ev.errors:
        raise ResultInvalid(ev.errors)
    unconfirmed = {c: m for c, m in ev.warnings.items() if c not in confirmed}
    if unconfirmed and source is None:
        raise ResultNeedsConfirmation(unconfirmed)
    if source is None or expected_version is not None:
        ctx = _with_current(ctx)
    values = _fields_for(ctx, data, ev, confirmed)
    values.update(
        _entry_fields(ctx, values, source, needs_arbiter=bool(unconfirmed), flags=ev.card_flags)
    )
    action = LedgerEntry.Action
    line = LedgerLine(
        action=action.RESULT_CREATED if expected_version is None else action.RESULT_CHANGED,
        actor=user,
        reason=reason,
    )
    if source is not None:  # the software says why: entered (or corrected) at the table
        line = replace(
            line,
            reason="",
            reason_code="table_entry",
            reason_params={"proof": source.proof} if source.proof else None,
            by_player=source.entered_by,
            table_access=source.table_access,
        )
    return _write(
        ctx=ctx,
        values=values,
        expected_version=expected_version,
        line=line,
        reason_required_message=None,
    )


def _entry_fields(
    ctx: ResultContext,
    values: Mapping[str, Any],
    source: EntrySource | None,
    *,
    needs_arbiter: bool,
    flags: list[dict[str, str]],
) -> dict[str, Any]:
    """Who stands behind the entry, and what the cards say against a table's entry. The
    arbiter's save counts (it overrides a table's entry, and settles its card flags);
    re-saving a counted result unchanged keeps it as it is."""
    if source is not None:
        return {
            "entry_status": EntryStatus.NEEDS_ARBITER if needs_arbiter else EntryStatus.AWAITING,
            "entered_by": source.entered_by,
            "table_access": source.table_access,
            "confirmed_by": None,
            "confirmed_at": None,
            "contest_note": "",
            "card_flags": flags,
        }
    existing = _with_current(ctx).current
    if existing is not None and existing.entry_status in (EntryStatus.ARBITER,):
        # A correction of what the arbiter settled replaces what the cards said of it.
        return {"card_flags": []} if existing.card_flags and not _same(existing, values) else {}
    if (
        existing is not None
        and existing.entry_status == EntryStatus.CONFIRMED
        and _same(existing, values)
    ):
        return {}
    return {"entry_status": EntryStatus.ARBITER, "contest_note": "", "card_flags": []}


def result_annul(
    *,
    tournament: Tournament,
    table: Table,
    donne: Donne,
    user: Any,
    reason: str,
    expected_version: int | None,
    context: ResultContext | None = None,
) -> Result:
    """Annul ``donne`` at ``table`` (fouled étui, mixed hands: RULES.md §6), with a reason.

    The four players get no score and a differential of 0 for it; the table leaves the
    comparison. The holders stay recorded so the ranking knows who was there. ``context``:
    the cell as `result_cell` read it, as for `result_save`.
    """
    _require_write(user, tournament)
    message = _("Give the reason for the annulment (for example: cards of two étuis mixed).")
    reason = _require_reason(reason, message)
    # The checks, then the writes alone in a transaction (see _write).
    ctx = context or result_context(tournament=tournament, table=table, donne=donne)
    _require_open(tournament, ctx.round)
    ctx = _with_current(ctx)  # a creation meets an existing row here, not in the insert
    if expected_version is not None:
        current = ctx.current
        if current is not None and current.status == ANNULLED:
            if current.version != expected_version:
                raise ResultConflict(current)
            raise ResultInvalid({NON_FIELD: [_("This donne is already annulled here.")]})
    values = {
        "status": ANNULLED,
        "taker": "",
        "contract": "",
        "bouts": None,
        "points": None,
        "petit_au_bout": "",
        "poignees": {},
        "chelem": "",
        "scores": {},
        "holders": {p: player.pk for p, player in sorted(ctx.seats.items())},
        "sitter": ctx.sitter,
        "confirmed_warnings": [],
        "annul_reason": reason,
        "entry_status": EntryStatus.ARBITER,
    }
    return _write(
        ctx=ctx,
        values=values,
        expected_version=expected_version,
        line=LedgerLine(action=LedgerEntry.Action.RESULT_ANNULLED, actor=user, reason=reason),
        reason_required_message=message,
    )


# --- rounds ---------------------------------------------------------------------------------


def round_open(*, round_: Round, user: Any) -> Round:
    """Open a round (or reopen a closed one to correct it); only once the tournament runs."""
    _require_write(user, round_.tournament)
    status = Tournament.Status
    with transaction.atomic():
        # The status is read under the lock status changes take, so none can slip in between.
        tournament_status, before = lock_round(round_)
        if tournament_status in (status.DRAFT, status.REGISTRATION):
            raise ResultInvalid(
                {
                    NON_FIELD: [
                        _(
                            "The tournament has not started: round %(number)s can be opened once "
                            "it is running. Start it from the arbiter's dashboard or the "
                            "preparation page."
                        )
                        % {"number": round_.number}
                    ]
                }
            )
        Round.objects.filter(pk=round_.pk).update(state=Round.State.OPEN)
        if before != Round.State.OPEN:
            _ledger_round(round_, user, before, Round.State.OPEN, LedgerEntry.Action.ROUND_OPENED)
    round_.state = Round.State.OPEN
    return round_


def lock_round(round_: Round) -> tuple[str, str]:
    """Lock the round's tournament, then the round (FOR UPDATE), in the caller's transaction,
    and return the tournament's status and the round's state as locked.

    Every change of a round's state takes its locks in this one order, tournament first (as
    a status change and a result's write, whose inserts key-share the tournament): opening
    a round while someone closes it (or another) never deadlocks, one waits for the other."""
    status = (
        Tournament.objects.select_for_update()
        .filter(pk=round_.tournament_id)
        .values_list("status", flat=True)
        .get()
    )
    state = Round.objects.select_for_update().filter(pk=round_.pk).values_list("state", flat=True)
    return status, state.get()


def _ledger_round(round_: Round, user: Any, before: str, after: str, action: str) -> None:
    from .ledger import ledger_record

    ledger_record(
        tournament=round_.tournament,
        action=action,
        user=user,
        before={"round": round_.number, "state": before},
        after={"round": round_.number, "state": after},
        round_=round_,
    )


def round_close(*, round_: Round, user: Any) -> Round:
    """Close a complete round: its results are then read-only until it is reopened. Closing
    the last one opens the claims window (`claims_window_open_if_last`).

    Refused while a table still misses a result or an annulment for a donne of its set.
    """
    _require_write(user, round_.tournament)
    with transaction.atomic():
        # The round is locked before its results are counted: a result written meanwhile
        # either commits first (and is counted) or waits and then finds the round closed.
        _status, before = lock_round(round_)
        # One cell per (table of the round, donne of the étui set it plays).
        expected = Donne.objects.filter(etui_set__table_rounds__round=round_).count()
        done = Result.objects.counted().filter(table_round__round=round_).count()
        if done < expected:
            raise ResultInvalid(
                {
                    NON_FIELD: [
                        ngettext(
                            "Round %(number)s still misses %(missing)s result. Enter it, or "
                            "annul the donne that could not be played, before closing it.",
                            "Round %(number)s still misses %(missing)s results. Enter them, or "
                            "annul the donnes that could not be played, before closing it.",
                            expected - done,
                        )
                        % {"number": round_.number, "missing": expected - done}
                    ]
                }
            )
        Round.objects.filter(pk=round_.pk).update(state=Round.State.CLOSED)
        if before != Round.State.CLOSED:
            _ledger_round(round_, user, before, Round.State.CLOSED, LedgerEntry.Action.ROUND_CLOSED)
            # The last round closed: the ranking is provisional for the claims window.
            claims_window_open_if_last(tournament_id=round_.tournament_id)
    round_.state = Round.State.CLOSED
    return round_


def contract_label(code: str) -> str:
    """The contract's name on screen."""
    return str(Contract(code).label) if code in Contract.values else code


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value).replace("-", "−")


def result_describe(snapshot: Mapping[str, Any] | None) -> str:
    """One line saying what a ledger snapshot of a result holds, for people to read."""
    from django.utils.translation import get_language

    from scoring.rules.display import decimal_text, position_letter

    from ..models import Chelem, PetitAuBout, PoigneeSize, Position

    if not snapshot:
        return "—"
    status = snapshot.get("status")
    if status == ANNULLED:
        return _("Annulled: %(reason)s") % {"reason": snapshot.get("annul_reason") or "—"}
    if status == ALL_PASSED:
        return _("All passed: 0 for the four players")
    parts = [
        ngettext(
            "%(contract)s by %(taker)s, %(bouts)s bout, %(points)s points",
            "%(contract)s by %(taker)s, %(bouts)s bouts, %(points)s points",
            int(snapshot.get("bouts") or 0),
        )
        % {
            "contract": contract_label(snapshot.get("contract") or ""),
            "taker": Position(snapshot["taker"]).label if snapshot.get("taker") else "?",
            "bouts": snapshot.get("bouts"),
            "points": decimal_text(snapshot.get("points"), get_language(), places=1),
        }
    ]
    if snapshot.get("petit_au_bout") in PetitAuBout.values:
        parts.append(
            _("petit au bout: %(camp)s")
            % {"camp": str(PetitAuBout(snapshot["petit_au_bout"]).label).lower()}
        )
    for position, size in sorted((snapshot.get("poignees") or {}).items()):
        if position in POSITIONS and size in PoigneeSize.values:
            parts.append(
                _("%(size)s poignée by %(who)s")
                % {"size": PoigneeSize(size).label, "who": Position(position).label}
            )
    if snapshot.get("chelem") in Chelem.values:
        parts.append(
            _("chelem: %(case)s") % {"case": str(Chelem(snapshot["chelem"]).label).lower()}
        )
    scores = snapshot.get("scores") or {}
    if scores:
        parts.append(
            " ".join(
                f"{position_letter(p, get_language())} {_signed(int(scores[p]))}"
                for p in POSITIONS
                if p in scores
            )
        )
    return pgettext("list separator", "; ").join(str(part) for part in parts)
