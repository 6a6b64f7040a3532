"""Claims of the claims window (issue 34 §4): filing one, settling it, closing the window early,
and making the ranking final.

A player files a claim about a result of their table (from the table's page with their code,
or their own page), or the arbiter records one for them, while the window is open
(`claims_window`); a late one is refused with the time the window closed. A claim about an
irregularity of play needs a call to the arbiter recorded from that table during that donne
(`call_recorded_for`): "ne pas appeler l'arbitre au moment où la faute est découverte
interdit ipso facto toute contestation ultérieure"; the arbiter may take one anyway with a
written reason. The arbiter settles a claim once: rejected, or accepted, linked to the
correction of the result the arbiter made through the results' service (the latest change of that
result since the claim) and to the penalty given with it through the penalties' service.
Every step writes a ledger line. The ranking becomes final (`claims_finalize`) once the
window has passed and no claim is open: the window's task, the workers' sweep, the settling
of the last claim, or the organiser closing the window early.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from ..models import (
    Claim,
    Donne,
    LedgerEntry,
    Player,
    Result,
    Seat,
    Table,
    TableAccess,
    Tournament,
)
from ..models_claims import MAX_REASON, MAX_TEXT
from ..permissions import can_manage_tournament, can_write_results
from ..selectors import call_recorded_for
from ..signals import results_changed_on_commit
from ..validators import validate_free_text
from .claims_window import claims_window
from .penalties import penalty_record
from .results import ResultInvalid
from .table_entry import TableAccessDenied, Voucher, table_donne, table_player_vouched

__all__ = [
    "NO_CALL_RULE",
    "ClaimAlreadySettled",
    "ClaimInvalid",
    "PenaltyAsked",
    "claim_file",
    "claim_file_at_table",
    "claim_settle",
    "claims_close_early",
    "claims_finalize",
    "claims_sweep",
    "player_claim_cells",
    "table_claim_access",
    "table_claim_players",
]

State = Claim.State
Kind = Claim.Kind
# The rule a claim about an irregularity without a call is refused with.
NO_CALL_RULE = (
    "Ne pas appeler l’arbitre au moment où la faute est découverte interdit ipso facto toute "
    "contestation ultérieure."
)
CORRECTIONS = (
    LedgerEntry.Action.RESULT_CREATED,
    LedgerEntry.Action.RESULT_CHANGED,
    LedgerEntry.Action.RESULT_ANNULLED,
)


class ClaimInvalid(ResultInvalid):
    """A claim that cannot be filed or settled as asked; ``errors`` name the field."""


class ClaimAlreadySettled(ValueError):
    """The claim was settled before (by someone else, or this is a second click): 409."""

    def __init__(self, claim: Claim) -> None:
        self.claim = claim
        super().__init__(
            _("This claim was already settled (%(state)s): nothing was changed.")
            % {"state": claim.get_state_display().lower()}
        )


@dataclass(frozen=True)
class PenaltyAsked:
    """A penalty the arbiter gives in accepting a claim (`penalty_record` checks it)."""

    player: Player
    kind: str
    points: int | None = None
    reason: str = ""


def _when(moment: datetime.datetime) -> str:
    return date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def _text(errors: dict[str, list[str]], field: str, value: str, limit: int, empty: str) -> str:
    value = (value or "").strip()
    if not value:
        if empty:
            errors[field] = [empty]
        return value
    if len(value) > limit:
        errors[field] = [_("Keep it under %(max)s characters.") % {"max": limit}]
        return value
    try:
        validate_free_text(value)
    except ValidationError as exc:
        errors[field] = list(exc.messages)
    return value


def _window_error(tournament: Tournament, now: datetime.datetime) -> str:
    """Why a claim filed at ``now`` is late or early ("" when on time)."""
    window = claims_window(tournament)
    if window.accepts_claims(now):
        return ""
    if window.closes_at is None:
        return _(
            "Claims are filed once the last round has closed. During play, call the arbiter "
            "to the table."
        )
    closed = min(window.closes_at, window.final_at or window.closes_at)
    return _(
        "The claims window closed at %(time)s: no claim can be filed any more. The ranking is "
        "final."
    ) % {"time": _when(closed)}


def _seated(table: Table, donne: Donne, player: Player) -> bool:
    return Seat.objects.filter(
        table_round__table=table, table_round__etui_set_id=donne.etui_set_id, player=player
    ).exists()


def _check_cell(
    tournament: Tournament, table: Table, donne: Donne, player: Player | None
) -> dict[str, list[str]]:
    if table.tournament_id != tournament.pk or donne.tournament_id != tournament.pk:
        return {"donne": [_("This table or donne belongs to another tournament.")]}
    plays = tournament.donnes.filter(pk=donne.pk, etui_set__table_rounds__table=table).exists()
    if not plays:
        return {
            "donne": [
                _("Table %(table)s does not play donne %(donne)s.")
                % {"table": table.number, "donne": donne.number}
            ]
        }
    if player is not None and not _seated(table, donne, player):
        return {"player": [_("Only a player of the table may file a claim about its donne.")]}
    return {}


def claim_file(
    *,
    tournament: Tournament,
    table: Table,
    donne: Donne,
    kind: str,
    text: str,
    player: Player | None = None,
    user: Any = None,
    without_call: str = "",
    table_access: TableAccess | None = None,
    now: datetime.datetime | None = None,
) -> Claim:
    """File a claim about ``table``'s result on ``donne``: by ``player`` (who proved who they
    are: the caller checked their code) or recorded by ``user``, one of the tournament's
    arbiters or organisers. Raises ClaimInvalid naming the field (a late or early claim, a
    table that does not play the donne, a player not of the table, an irregularity without a
    call and without the arbiter's written reason), PermissionDenied for a user who may not
    record claims. Writes the claim and its ledger line, or nothing."""
    if user is not None and not can_write_results(user, tournament):
        raise PermissionDenied(_("Only the tournament's arbiters may record a claim."))
    if user is None and player is None:
        raise ClaimInvalid({"player": [_("Say who files the claim.")]})
    errors: dict[str, list[str]] = {}
    if kind not in Kind.values:
        errors["kind"] = [_("Choose what the claim is about: a result, or an irregularity.")]
    text = _text(errors, "text", text, MAX_TEXT, _("Write what the claim is about."))
    without_call = _text(errors, "without_call", without_call, MAX_REASON, "")
    errors.update(_check_cell(tournament, table, donne, player))
    if kind == Kind.IRREGULARITY and not errors:
        if not call_recorded_for(tournament.pk, table.pk, donne.pk):
            if user is None or not without_call:
                errors["kind"] = [
                    _(
                        "No call to the arbiter was recorded from this table during donne "
                        "%(donne)s: the claim about an irregularity is refused. %(rule)s"
                    )
                    % {"donne": donne.number, "rule": NO_CALL_RULE}
                ]
        else:
            without_call = ""
    if errors:
        raise ClaimInvalid(errors)
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        late = _window_error(locked, now or timezone.now())
        if late:
            raise ClaimInvalid({"__all__": [late]})
        claim = Claim.objects.create(
            tournament=locked,
            table=table,
            donne=donne,
            result=Result.objects.filter(table=table, donne=donne).first(),
            kind=kind,
            text=text,
            filed_by=player,
            recorded_by=user if user is not None else None,
            without_call=without_call,
        )
        LedgerEntry.objects.create(
            tournament=locked,
            result=claim.result,
            action=LedgerEntry.Action.CLAIM_FILED,
            actor=user,
            player=player,
            by_player=player if user is None else None,
            table_access=table_access,
            reason=(without_call or text)[:300],
            after=_claim_snapshot(claim),
        )
    return claim


def _claim_snapshot(claim: Claim) -> dict[str, Any]:
    return {
        "claim": claim.pk,
        "claim_kind": claim.kind,
        "table_number": claim.table.number,
        "donne_number": claim.donne.number,
        "claim_state": claim.state,
    }


def _correction(claim: Claim) -> LedgerEntry | None:
    """The latest change of the claim's result made since the claim was filed."""
    return (
        LedgerEntry.objects.filter(
            tournament_id=claim.tournament_id,
            result__table_id=claim.table_id,
            result__donne_id=claim.donne_id,
            action__in=CORRECTIONS,
            at__gte=claim.filed_at,
        )
        .order_by("-at", "-pk")
        .first()
    )


def claim_settle(
    *,
    claim: Claim,
    user: Any,
    state: str,
    reason: str,
    penalty: PenaltyAsked | None = None,
) -> Claim:
    """Settle an open claim: ``rejected`` or ``accepted``, with the written ``reason``.
    Accepting links the latest correction of the result since the claim (made beforehand
    through the results' service) and gives ``penalty`` through the penalties' service, in
    the same transaction. Raises ClaimInvalid, ClaimAlreadySettled (nothing changes), or
    PermissionDenied for anyone but the tournament's arbiters and organisers. The last open
    claim settled after the window makes the ranking final."""
    tournament = claim.tournament
    if not can_write_results(user, tournament):
        raise PermissionDenied(_("Only the tournament's arbiters may settle a claim."))
    errors: dict[str, list[str]] = {}
    if state not in (State.REJECTED, State.ACCEPTED):
        errors["state"] = [_("Settle the claim as rejected or accepted.")]
    reason = _text(errors, "reason", reason, MAX_REASON, _("Write the reason for the decision."))
    if penalty is not None and state != State.ACCEPTED:
        errors["penalty"] = [_("A penalty goes with an accepted claim only.")]
    if errors:
        raise ClaimInvalid(errors)
    with transaction.atomic():
        Tournament.objects.select_for_update().only("pk").get(pk=tournament.pk)
        locked = Claim.objects.select_for_update().get(pk=claim.pk)
        if not locked.is_open:
            raise ClaimAlreadySettled(locked)
        if penalty is not None:
            locked.penalty = penalty_record(
                tournament=tournament,
                player=penalty.player,
                kind=penalty.kind,
                user=user,
                points=penalty.points,
                reason=penalty.reason or reason,
                donne=locked.donne,
            ).penalty
        if state == State.ACCEPTED:
            locked.correction = _correction(locked)
        locked.state = state
        locked.reason = reason
        locked.settled_by = user
        locked.settled_at = timezone.now()
        locked.save()
        LedgerEntry.objects.create(
            tournament=tournament,
            result=locked.result,
            action=LedgerEntry.Action.CLAIM_SETTLED,
            actor=user,
            player=locked.filed_by,
            reason=reason,
            before={"claim": locked.pk, "claim_state": State.OPEN},
            after=_claim_snapshot(locked),
        )
        _finalize_locked(tournament.pk, timezone.now())
    return locked


def claims_close_early(*, tournament: Tournament, user: Any) -> Tournament:
    """The organiser closes the window now: no claim is accepted any more, and the ranking is
    final at once when no claim is open (else once the last one is settled)."""
    if not can_manage_tournament(user, tournament):
        raise PermissionDenied(
            _(
                "Only the club's organisers and the tournament's arbiters may close the claims "
                "window."
            )
        )
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        now = timezone.now()
        if not claims_window(locked).accepts_claims(now):
            raise ClaimInvalid({"__all__": [_("The claims window is not open: nothing to close.")]})
        before = locked.claims_close_at
        locked.claims_close_at = now
        locked.save(update_fields=["claims_close_at"])
        LedgerEntry.objects.create(
            tournament=locked,
            action=LedgerEntry.Action.TOURNAMENT_EDITED,
            actor=user,
            before={"claims_close_at": before.isoformat()},
            after={"claims_close_at": now.isoformat()},
        )
        _finalize_locked(locked.pk, now)
    tournament.refresh_from_db()
    return tournament


def _finalize_locked(tournament_id: int, now: datetime.datetime) -> bool:
    """Make the ranking final if the window has passed and no claim is open (the caller
    holds the tournament's lock). Writes the ledger line and tells the parts (the PDFs)."""
    made = (
        Tournament.objects.filter(pk=tournament_id, claims_close_at__lte=now, final_at__isnull=True)
        .exclude(claims__state=State.OPEN)
        .update(final_at=now)
    )
    if made:
        LedgerEntry.objects.create(
            tournament_id=tournament_id,
            action=LedgerEntry.Action.RANKING_FINAL,
            actor=None,
            after={"final_at": now.isoformat()},
        )
        results_changed_on_commit(tournament_id)
    return bool(made)


def claims_finalize(*, tournament_id: int, now: datetime.datetime | None = None) -> bool:
    """Make the tournament's ranking final if its window has passed and no claim is open;
    returns whether it did (False: not yet, already final, or a claim still open). What the
    window's task and the sweep call."""
    with transaction.atomic():
        locked = (
            Tournament.objects.select_for_update()
            .filter(pk=tournament_id, final_at__isnull=True, claims_close_at__isnull=False)
            .values_list("pk", flat=True)
            .first()
        )
        if locked is None:
            return False
        return _finalize_locked(tournament_id, now or timezone.now())


def claims_sweep() -> list[int]:
    """The workers' sweep: make final every ranking whose window has passed with no claim
    open (the window's task lost with Redis, a worker down at the time); returns their ids."""
    now = timezone.now()
    due = list(
        Tournament.objects.filter(claims_close_at__lte=now, final_at__isnull=True)
        .exclude(claims__state=State.OPEN)
        .values_list("pk", flat=True)
    )
    return [pk for pk in due if claims_finalize(tournament_id=pk, now=now)]


# --- from the table's page --------------------------------------------------------------------


def table_claim_access(*, secret: str) -> TableAccess:
    """The table page of ``secret`` for filing a claim: its round may be closed (claims come
    after the last round), but a page the arbiter replaced or an unknown one is refused
    (TableAccessDenied). Whether the window is open is `claim_file`'s to say."""
    access = (
        TableAccess.objects.select_related(
            "tournament", "table_round__round", "table_round__table", "table_round__etui_set"
        )
        .filter(secret=secret)
        .first()
    )
    if access is None:
        raise TableAccessDenied(
            _("This table page does not exist. Scan the QR code of your score sheet again.")
        )
    if access.revoked_at is not None:
        raise TableAccessDenied(
            _("This table page was replaced by the arbiter. Ask the arbiter for the new one.")
        )
    return access


def table_claim_players(access: TableAccess) -> list[Player]:
    """The players seated at the access's table in its round, by position."""
    return [
        seat.player
        for seat in Seat.objects.filter(table_round=access.table_round)
        .select_related("player")
        .order_by("position")
    ]


def claim_file_at_table(
    *, access: TableAccess, donne_number: int, kind: str, text: str, voucher: Voucher
) -> Claim:
    """A claim filed from the table's page by a player of the table who proves who they are
    (their personal code or bound phone), about a donne the table played in that round."""
    tournament = access.tournament
    late = _window_error(tournament, timezone.now())
    if late:  # said before the code is checked: a late claim costs no guess
        raise ClaimInvalid({"__all__": [late]})
    donne = table_donne(access, donne_number)
    player = table_player_vouched(access=access, voucher=voucher)
    return claim_file(
        tournament=tournament,
        table=access.table_round.table,
        donne=donne,
        kind=kind,
        text=text,
        player=player,
        table_access=access,
    )


# --- from the player's own page ---------------------------------------------------------------


def player_claim_cells(*, tournament: Tournament, player: Player) -> list[tuple[Table, Donne]]:
    """The (table, donne) cells the player played or sat out at in the tournament, by donne:
    what they may file a claim about. Two queries."""
    seats = Seat.objects.filter(round__tournament=tournament, player=player).select_related(
        "table_round__table"
    )
    by_set = {s.table_round.etui_set_id: s.table_round.table for s in seats}
    donnes = Donne.objects.filter(tournament=tournament, etui_set_id__in=list(by_set)).order_by(
        "number"
    )
    return [(by_set[d.etui_set_id], d) for d in donnes]
