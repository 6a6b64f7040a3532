"""Calls to the arbiter (issue 34): a player of a table calls, the arbiter takes the call and
rules it.

A call is made from the table's page (or the API) by a player of the table who proves who he
is like any write there (`table_entry.table_player`: his code or his bound phone), about a
donne of the table's relais in this round, with the irregularity, optionally the trick, and a
note ("autre" needs one). The phone's time is kept (a call queued offline arrives later), the
server's is added. A second call from the same table on the same donne while one is open joins
it (the database holds one open call per table and donne). A call sent twice (the same
``client_ref``, the phone's id for it) is one call.

Only the tournament's arbiters (and its club's organisers) take and rule calls. A ruling goes
through the existing services: a warning or a penalty through `penalties.penalty_record`, an
annulment through `results.result_annul`, a score through `results.result_save`; "no
irregularity" writes a ledger line of its own. The call keeps the penalty, the result and the
ledger entry its ruling made, in the same transaction: nothing is half-saved. Nothing here
reads or answers the hands (RULES.md §6.2).
"""

from __future__ import annotations

import datetime
import hashlib
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from ..models import (
    ArbiterCall,
    Donne,
    Irregularity,
    LedgerEntry,
    Penalty,
    Player,
    Result,
    Seat,
    TableAccess,
    Tournament,
)
from ..models_calls import MAX_TRICK
from ..permissions import can_write_results
from ..validators import validate_free_text
from .penalties import penalty_record
from .results import NON_FIELD, ResultInput, ResultInvalid, result_annul, result_save
from .table_entry import CodeLocked, Voucher, table_player

__all__ = [
    "CallAlreadyRuled",
    "CallInput",
    "CallInvalid",
    "CallRuling",
    "CallsSummary",
    "call_make",
    "call_rule",
    "call_take",
    "calls_of_table",
    "calls_open",
    "calls_summaries",
    "calls_summary",
    "calls_tag",
]

MAX_NOTE = 300
# A phone's clock is believed within these bounds of the server's (a call queued offline for
# longer than a session is not a call made "at the moment the fault is discovered").
PHONE_TIME_PAST = datetime.timedelta(hours=6)
PHONE_TIME_FUTURE = datetime.timedelta(minutes=2)
OPEN_STATES = (ArbiterCall.State.OPEN, ArbiterCall.State.EN_ROUTE)


class CallInvalid(ResultInvalid):
    """A call or a ruling refused: ``errors`` names each field and what to fix (400)."""


class CallAlreadyRuled(CallInvalid):
    """The call was ruled already (409): nothing was changed."""


@dataclass(frozen=True)
class CallInput:
    """What a table's page (or the API) sends to call the arbiter."""

    donne_number: int | None
    irregularity: str
    trick: int | None = None
    note: str = ""
    phone_time: datetime.datetime | None = None
    client_ref: str = ""


@dataclass(frozen=True)
class CallRuling:
    """The arbiter's ruling: ``ruling`` (ArbiterCall.Ruling), the named ``player`` for a
    warning or a penalty, the penalty's ``kind`` and ``points`` (the catalogue's when empty),
    the result he sets (``data``, with the ``confirmed`` warnings) for a score, and his
    ``note`` (the reason written in the ledger: needed for an annulment and "other")."""

    ruling: str
    note: str = ""
    player: Player | None = None
    kind: str = ""
    points: int | None = None
    data: ResultInput | None = None
    confirmed: Collection[str] = field(default_factory=tuple)


# --- the table calls --------------------------------------------------------------------------


def _note_errors(note: str, *, required: bool) -> list[str]:
    if required and not note:
        return [_("Say in a few words what happened: a call for “other” needs a note.")]
    if len(note) > MAX_NOTE:
        return [_("Keep the note under %(max)s characters.") % {"max": MAX_NOTE}]
    try:
        validate_free_text(note)
    except ValidationError as exc:
        return list(exc.messages)
    return []


def _call_donne(access: TableAccess, number: int | None) -> Donne:
    donne = None
    if number is not None:
        donne = Donne.objects.filter(
            tournament_id=access.tournament_id,
            etui_set_id=access.table_round.etui_set_id,
            number=number,
        ).first()
    if donne is None:
        message = (
            _("Donne %(number)s is not played at this table in this round.") % {"number": number}
            if number is not None
            else _("Choose the donne the call is about.")
        )
        raise CallInvalid({"donne": [message]})
    return donne


def _checked(access: TableAccess, data: CallInput) -> tuple[Donne, str]:
    """The donne and the note of a valid call; raises CallInvalid naming every bad field."""
    errors: dict[str, list[str]] = {}
    if data.irregularity not in Irregularity.values:
        errors["irregularity"] = [
            _("Unknown irregularity “%(value)s”: choose one of the list.")
            % {"value": str(data.irregularity)[:40]}
        ]
    if data.trick is not None and not 1 <= data.trick <= MAX_TRICK:
        errors["trick"] = [
            _("The trick is a number from 1 to %(max)s, or empty.") % {"max": MAX_TRICK}
        ]
    note = (data.note or "").strip()
    note_errors = _note_errors(note, required=data.irregularity == Irregularity.AUTRE)
    if note_errors:
        errors["note"] = note_errors
    try:
        donne = _call_donne(access, data.donne_number)
    except CallInvalid as exc:
        errors.update(exc.errors)
    if errors:
        raise CallInvalid(errors)
    return donne, note


def _phone_time(sent: datetime.datetime | None, now: datetime.datetime) -> datetime.datetime | None:
    """The phone's time as kept: None when it is beyond belief (a clock hours off)."""
    if sent is None or not now - PHONE_TIME_PAST <= sent <= now + PHONE_TIME_FUTURE:
        return None
    return min(sent, now)


def _join(call: ArbiterCall, now: datetime.datetime) -> ArbiterCall:
    ArbiterCall.objects.filter(pk=call.pk).update(joins=F("joins") + 1, last_joined_at=now)
    call.joins += 1
    call.last_joined_at = now
    return call


def _proof_errors(access: TableAccess, voucher: Voucher) -> dict[str, list[str]]:
    """What is wrong with who calls, said along with a call's bad fields: the player at the
    table fixes everything at once. A locked code is raised as is (CodeLocked)."""
    try:
        table_player(access=access, voucher=voucher)
    except CodeLocked:
        raise
    except ResultInvalid as exc:
        return dict(exc.errors)
    return {}


def call_make(
    *, access: TableAccess, voucher: Voucher, data: CallInput
) -> tuple[ArbiterCall, bool]:
    """Call the arbiter from the access's table: returns the call and whether it joined one
    already open on that donne (or was the same call sent again). Raises CallInvalid (a bad
    field, the donne not played at this table in this round), ResultInvalid or CodeLocked (who
    calls did not prove he is a player of the table)."""
    try:
        donne, note = _checked(access, data)
    except CallInvalid as exc:
        raise CallInvalid({**exc.errors, **_proof_errors(access, voucher)}) from None
    player, _proof = table_player(access=access, voucher=voucher)
    table_round = access.table_round
    ref = (data.client_ref or "")[:40]
    now = timezone.now()
    for _attempt in range(2):
        try:
            with transaction.atomic():
                if ref:
                    sent = ArbiterCall.objects.filter(
                        tournament_id=access.tournament_id, client_ref=ref
                    ).first()
                    if sent is not None and sent.table_round_id == table_round.pk:
                        return sent, True
                    if sent is not None:  # another table's id: never its call, a new one
                        ref = ""
                open_call = (
                    ArbiterCall.objects.select_for_update()
                    .filter(table_id=table_round.table_id, donne=donne, state__in=OPEN_STATES)
                    .first()
                )
                if open_call is not None:
                    return _join(open_call, now), True
                call = ArbiterCall.objects.create(
                    tournament_id=access.tournament_id,
                    round_id=table_round.round_id,
                    table_id=table_round.table_id,
                    table_round=table_round,
                    donne=donne,
                    trick=data.trick,
                    irregularity=data.irregularity,
                    note=note,
                    called_by=player,
                    table_access=access,
                    phone_time=_phone_time(data.phone_time, now),
                    received_at=now,
                    client_ref=ref,
                )
                return call, False
        except IntegrityError:  # another phone of the table called at the same moment
            continue
    raise CallInvalid({NON_FIELD: [_("The call could not be recorded: send it again.")]})


# --- the arbiter takes and rules -------------------------------------------------------------


def _require_arbiter(user: Any, tournament: Tournament) -> None:
    if not can_write_results(user, tournament):
        raise PermissionDenied(_("Only the tournament's arbiters take and rule its calls."))


def _locked(call: ArbiterCall) -> ArbiterCall:
    """The call read again under a row lock; refused if it was ruled meanwhile."""
    row = (
        ArbiterCall.objects.select_for_update(of=("self",))
        .select_related("table", "donne", "round", "tournament", "ruled_by")
        .get(pk=call.pk)
    )
    if row.state == ArbiterCall.State.RULED:
        when = timezone.localtime(row.ruled_at) if row.ruled_at else None
        raise CallAlreadyRuled(
            {
                "call": [
                    _(
                        "Call %(id)s (table %(table)s, donne %(donne)s) was already ruled "
                        "at %(time)s: %(ruling)s. Nothing was changed."
                    )
                    % {
                        "id": row.pk,
                        "table": row.table.number,
                        "donne": row.donne.number,
                        "time": date_format(when, "TIME_FORMAT") if when else "—",
                        "ruling": row.get_ruling_display(),
                    }
                ]
            }
        )
    return row


def call_take(*, call: ArbiterCall, user: Any) -> ArbiterCall:
    """The arbiter is on his way to the table ("en route", seen there). Taking a call taken by
    another arbiter hands it over; the time it was first taken stays (the time to the
    arbiter). Raises PermissionDenied or CallAlreadyRuled."""
    _require_arbiter(user, call.tournament)
    with transaction.atomic():
        row = _locked(call)
        row.state = ArbiterCall.State.EN_ROUTE
        row.taken_by = user
        row.taken_at = row.taken_at or timezone.now()
        row.save(update_fields=["state", "taken_by", "taken_at"])
    return row


def _ruling_errors(row: ArbiterCall, ruling: CallRuling) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if ruling.ruling not in ArbiterCall.Ruling.values:
        errors["ruling"] = [
            _("Unknown ruling “%(value)s”: no irregularity, warning, penalty, annulment or score.")
            % {"value": str(ruling.ruling)[:40]}
        ]
    needs_player = ruling.ruling in (ArbiterCall.Ruling.WARNING, ArbiterCall.Ruling.PENALTY)
    if needs_player and ruling.player is None:
        errors["player"] = [_("Name the player the ruling is about.")]
    elif (
        needs_player
        and not Seat.objects.filter(
            table_round_id=row.table_round_id, player=ruling.player
        ).exists()
    ):
        errors["player"] = [
            _("%(player)s does not play at table %(table)s: name a player of the table.")
            % {"player": ruling.player, "table": row.table.number}
        ]
    if ruling.ruling == ArbiterCall.Ruling.PENALTY and ruling.kind not in (
        Penalty.Kind.EARLY_PICKUP,
        Penalty.Kind.OTHER,
    ):
        errors["kind"] = [_("Choose the penalty: early pickup (100 points) or other.")]
    if ruling.ruling == ArbiterCall.Ruling.SCORE and ruling.data is None:
        errors["result"] = [_("Enter the score you set for this donne.")]
    note_errors = _note_errors(ruling.note.strip(), required=False)
    if note_errors:
        errors["note"] = note_errors
    return errors


def _made(row: ArbiterCall, ruling: CallRuling, user: Any) -> dict[str, Any]:
    """Apply the ruling through the existing services; the call's fields it fills."""
    note = ruling.note.strip()
    tournament, table, donne = row.tournament, row.table, row.donne
    kind = {ArbiterCall.Ruling.WARNING: Penalty.Kind.WARNING}.get(ruling.ruling, ruling.kind)
    if ruling.ruling in (ArbiterCall.Ruling.WARNING, ArbiterCall.Ruling.PENALTY):
        assert ruling.player is not None
        penalty, _created = penalty_record(
            tournament=tournament,
            player=ruling.player,
            kind=kind,
            user=user,
            points=ruling.points,
            reason=note,
            donne=donne,
        )
        entry = LedgerEntry.objects.filter(penalty=penalty).order_by("pk").first()
        return {"penalty": penalty, "ledger_entry": entry}
    if ruling.ruling == ArbiterCall.Ruling.NONE:
        entry = LedgerEntry.objects.create(
            tournament=tournament,
            round=row.round,
            player=row.called_by,
            action=LedgerEntry.Action.CALL_RULED,
            actor=user,
            reason=note,
            after={"irregularity": row.irregularity, "ruling": ArbiterCall.Ruling.NONE},
        )
        return {"ledger_entry": entry}
    current = Result.objects.filter(table=table, donne=donne).first()
    version = current.version if current is not None else None
    if ruling.ruling == ArbiterCall.Ruling.ANNULMENT:
        result = result_annul(
            tournament=tournament,
            table=table,
            donne=donne,
            user=user,
            reason=note,
            expected_version=version,
        )
    else:
        assert ruling.data is not None
        result = result_save(
            tournament=tournament,
            table=table,
            donne=donne,
            data=ruling.data,
            user=user,
            expected_version=version,
            reason=note or row.get_irregularity_display(),
            confirmed=ruling.confirmed,
        )
    entry = LedgerEntry.objects.filter(result=result).order_by("-pk").first()
    return {"result": result, "ledger_entry": entry}


def call_rule(*, call: ArbiterCall, user: Any, ruling: CallRuling) -> ArbiterCall:
    """Rule the call: the ruling is applied through the existing services (a penalty, an
    annulment, the score set: each in the ledger) and linked to the call, all in one
    transaction. Raises PermissionDenied, CallAlreadyRuled (409), CallInvalid or what the
    service refuses (PenaltyInvalid, ResultInvalid, ResultNeedsConfirmation, ResultConflict);
    then nothing is saved."""
    _require_arbiter(user, call.tournament)
    with transaction.atomic():
        row = _locked(call)  # a call ruled already is refused first, whatever the ruling
        errors = _ruling_errors(row, ruling)
        if errors:
            raise CallInvalid(errors)
        made = _made(row, ruling, user)
        now = timezone.now()
        row.state = ArbiterCall.State.RULED
        row.ruling = ruling.ruling
        row.ruling_note = ruling.note.strip()
        row.ruled_by = user
        row.ruled_at = now
        for name, value in made.items():
            setattr(row, name, value)
        row.save()
    return row


# --- reads ----------------------------------------------------------------------------------


def calls_open(*, tournament: Tournament) -> list[ArbiterCall]:
    """The calls waiting for the arbiter or that he took, oldest call first (by when the
    player called: a call queued offline takes its place by the phone's time). One query."""
    rows = list(
        ArbiterCall.objects.filter(tournament=tournament, state__in=OPEN_STATES)
        .select_related("table", "donne", "called_by", "taken_by")
        .order_by("received_at", "pk")
    )
    return sorted(rows, key=lambda c: (c.called_at, c.pk))


def calls_tag(*, tournament: Tournament, rows: Collection[ArbiterCall] | None = None) -> str:
    """A short tag of what the arbiter's live panel shows: the open calls, their state, who
    took them and how many joined. It changes whenever a call is made, joined, taken (or
    handed over) or ruled; the panel answers 204 while it is unchanged. ``rows``: the open
    calls already read (`calls_open`); else one small query."""
    if rows is None:
        found = ArbiterCall.objects.filter(tournament=tournament, state__in=OPEN_STATES)
        keys = sorted(found.values_list("pk", "state", "joins", "taken_by_id"))
    else:
        keys = sorted((c.pk, c.state, c.joins, c.taken_by_id) for c in rows)
    return hashlib.sha256(repr(keys).encode()).hexdigest()[:16]


def calls_of_table(*, table_round_id: int) -> list[dict[str, Any]]:
    """What the table's page shows of its calls in the round: the donne, what was called,
    the state and the ruling. Never hands, nothing of another table. One query."""
    rows = (
        ArbiterCall.objects.filter(table_round_id=table_round_id)
        .select_related("donne", "penalty__player")
        .order_by("received_at", "pk")
    )
    out = []
    for call in rows:
        penalty = call.penalty
        out.append(
            {
                "id": call.pk,
                "donne": call.donne.number,
                "irregularity": call.irregularity,
                "irregularity_label": call.get_irregularity_display(),
                "trick": call.trick,
                "state": call.state,
                "state_label": call.get_state_display(),
                "ruling": call.ruling,
                "ruling_label": call.get_ruling_display() if call.ruling else "",
                "ruling_note": call.ruling_note,
                "penalty": (
                    {"player": str(penalty.player), "points": penalty.points}
                    if penalty is not None
                    else None
                ),
                "joins": call.joins,
            }
        )
    return out


@dataclass(frozen=True)
class CallsSummary:
    """A tournament's calls for the organiser: how many of each kind, and the mean time from
    the call to the arbiter (seconds; None while no call was taken or ruled)."""

    total: int
    by_kind: list[tuple[str, int]]
    mean_seconds: float | None


def _summary(rows: list[ArbiterCall]) -> CallsSummary:
    counts = Counter(call.get_irregularity_display() for call in rows)
    times = [s for s in (call.seconds_to_arbiter for call in rows) if s is not None]
    return CallsSummary(
        total=len(rows),
        by_kind=sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])),
        mean_seconds=sum(times) / len(times) if times else None,
    )


def calls_summaries(*, tournament_ids: Collection[int]) -> dict[int, CallsSummary]:
    """`calls_summary` of each tournament of ``tournament_ids`` (the organiser's page), in
    one query; a tournament without calls is absent."""
    by_tournament: dict[int, list[ArbiterCall]] = {}
    rows = ArbiterCall.objects.filter(tournament_id__in=list(tournament_ids)).only(
        "tournament_id", "irregularity", "phone_time", "received_at", "taken_at", "ruled_at"
    )
    for call in rows:
        by_tournament.setdefault(call.tournament_id, []).append(call)
    return {pk: _summary(calls) for pk, calls in by_tournament.items()}


def calls_summary(*, tournament: Tournament) -> CallsSummary:
    """The calls of ``tournament`` by irregularity (labels, most frequent first) and the
    mean time to the arbiter. One query."""
    return calls_summaries(tournament_ids=[tournament.pk]).get(
        tournament.pk, CallsSummary(total=0, by_kind=[], mean_seconds=None)
    )
