"""The hub's services: create an event (dealt as a tournament is), invite clubs, apply their
uploads, close the event and lift the embargo (RULES.md §6.3). Views, the API and tasks call
these; nothing else writes the hub's tables.

An upload is the club's whole current state. It is applied in one transaction, the club's
invitation row locked, so two uploads of one club never interleave: players, results (keyed
by table and donne; a higher version replaces, an equal one is unchanged, an older one is
ignored; a result absent from the upload is removed) and penalties (keyed by ref). Every
upload received is logged (`UploadLog`), refused ones with their code and reason, in a
transaction of their own so the refusal's rollback keeps the log.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from scoring.rules import dealing
from scoring.rules.cards import format_hand

from .models import (
    FieldPenalty,
    FieldPlayer,
    FieldResult,
    Invitation,
    LateCorrection,
    SimultaneousEvent,
    UploadLog,
)
from .permissions import can_create_event, can_see_field, is_event_organiser
from .ranking import schedule_overall_ranking
from .wire import POSITIONS, Upload, UploadInvalid, WireResult, parse_upload_bytes

__all__ = [
    "LicenceConflict",
    "UploadOutcome",
    "UploadRefused",
    "can_create_event",
    "can_see_field",
    "event_close",
    "event_create",
    "event_donnes",
    "event_window_close",
    "event_window_schedule",
    "event_window_wire",
    "events_window_sweep",
    "invitation_create",
    "invitation_for_token",
    "invitation_revoke",
    "is_event_organiser",
    "licence_conflicts",
    "signature_of",
    "upload_receive",
]

SIGNATURE_HEADER = "X-Simultaneous-Signature"
# The task that closes an event at the end of its claims window (tasks.py), queued by name:
# the task module imports this one.
WINDOW_END_TASK = "simultaneous_hub.event_window_end"

logger = logging.getLogger(__name__)


# --- the event --------------------------------------------------------------------------------


def event_create(
    *,
    user: Any,
    name: str,
    date: date,
    rounds: int,
    sets: int,
    method: str = "average",
    matchpoint_penalty_rate: Decimal | str = Decimal("0.1"),
    session_starts_at: datetime | None = None,
    session_ends_at: datetime | None = None,
    claims_window_minutes: int = 30,
) -> SimultaneousEvent:
    """Create an event and deal it: a fresh secret seed, the identity
    "simultaneous:<public id>" and the commitment published from now on. Raises Django's
    ValidationError for a field out of bounds."""
    event = SimultaneousEvent(
        name=name,
        date=date,
        rounds=rounds,
        sets=sets,
        method=method,
        matchpoint_penalty_rate=Decimal(str(matchpoint_penalty_rate)),
        session_starts_at=session_starts_at,
        session_ends_at=session_ends_at,
        claims_window_minutes=claims_window_minutes,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    event.identity = f"simultaneous:{event.public_id}"
    event.seed = dealing.new_seed()
    event.commitment = dealing.commitment(event.seed, event.identity)
    event.full_clean()
    with transaction.atomic():
        event.save()
        if event.created_by is not None:
            event.organisers.add(event.created_by)
    return event


@lru_cache(maxsize=64)
def _dealt(seed: str, identity: str, count: int) -> tuple[dealing.Donne, ...]:
    return tuple(dealing.generate_donnes(seed, identity, count))


def event_donnes(event: SimultaneousEvent, *, redraws: bool = False) -> list[dict[str, Any]]:
    """The event's donnes 1 … 4·sets in the upload's shape; with ``redraws`` (the club API)
    each also carries the generator's redraws, which a club's check of the revealed seed
    compares too (an upload's donnes have no such key)."""
    donnes = []
    for d in _dealt(event.seed, event.identity, event.donne_count):
        row: dict[str, Any] = {
            "number": d.number,
            "dealer": d.dealer,
            "hands": {p: format_hand(d.hand(p)) for p in POSITIONS},
            "chien": format_hand(d.chien),
        }
        if redraws:
            row["redraws"] = d.redraws
        donnes.append(row)
    return donnes


def event_close(*, event: SimultaneousEvent, user: Any) -> SimultaneousEvent:
    """Close the event: no upload is accepted any more, and the embargo ends. The final
    recompute is asked for on commit (a no-op when the stored ranking is current); after it
    the worker builds the published booklet. Closing during the claims window ends it now."""
    now = timezone.now()
    transaction.on_commit(lambda: schedule_overall_ranking(event.pk))
    SimultaneousEvent.objects.filter(pk=event.pk, closed_at__isnull=True).update(
        state=SimultaneousEvent.State.CLOSED, closed_at=now
    )
    SimultaneousEvent.objects.filter(pk=event.pk, embargo_lifted_at__isnull=True).update(
        embargo_lifted_at=now
    )
    SimultaneousEvent.objects.filter(
        Q(claims_close_at__isnull=True) | Q(claims_close_at__gt=now), pk=event.pk
    ).update(claims_close_at=now)
    event.refresh_from_db()
    return event


def _embargo_check(event_id: int) -> None:
    """Lift the embargo once every active invitation has sent its final upload; then ask on
    commit for the final recompute (after which the worker builds the published booklet).
    The claims window opens with it: the event closes itself at its end (`event_window_close`)."""
    invitations = Invitation.objects.filter(event_id=event_id, revoked_at__isnull=True)
    if invitations.exists() and not invitations.filter(final_received_at__isnull=True).exists():
        now = timezone.now()
        lifted = SimultaneousEvent.objects.filter(
            pk=event_id, embargo_lifted_at__isnull=True
        ).update(embargo_lifted_at=now)
        if lifted:
            _window_open(event_id, now)
            transaction.on_commit(lambda: schedule_overall_ranking(event_id))


# --- the claims window (issue 34 §5) ----------------------------------------------------------


def _window_open(event_id: int, now: datetime) -> None:
    """Open the claims window as the embargo ends (in the caller's transaction); queue its end
    once committed."""
    minutes = (
        SimultaneousEvent.objects.filter(pk=event_id)
        .values_list("claims_window_minutes", flat=True)
        .first()
    )
    closes_at = now + timedelta(minutes=minutes or 0)
    SimultaneousEvent.objects.filter(pk=event_id, claims_close_at__isnull=True).update(
        claims_close_at=closes_at
    )
    transaction.on_commit(lambda: event_window_schedule(event_id, closes_at))


def event_window_schedule(event_id: int, closes_at: datetime) -> None:
    """Queue the task that closes the event at ``closes_at`` (eta); without a broker it runs
    now and finds the window passed or not. Never raises: the sweep closes it otherwise."""
    task = current_app.tasks.get(WINDOW_END_TASK)
    if task is None:
        return
    try:
        if task.app.conf.task_always_eager:
            task.apply(args=(event_id,), throw=False)
        else:
            task.apply_async((event_id,), eta=closes_at, retry=True)
    except Exception:
        logger.warning(
            "could not queue the end of event %s's claims window", event_id, exc_info=True
        )


def event_window_close(*, event_id: int, now: datetime | None = None) -> bool:
    """Close the event once its claims window has passed: uploads end and its ranking is
    final (the final recompute, then the booklet, are asked for on commit). Returns whether it
    closed it now (False: not yet, or closed before)."""
    now = now or timezone.now()
    with transaction.atomic():
        closed = SimultaneousEvent.objects.filter(
            pk=event_id,
            state=SimultaneousEvent.State.OPEN,
            claims_close_at__isnull=False,
            claims_close_at__lte=now,
        ).update(state=SimultaneousEvent.State.CLOSED, closed_at=now)
        if closed:
            transaction.on_commit(lambda: schedule_overall_ranking(event_id))
    return bool(closed)


def events_window_sweep() -> list[int]:
    """The workers' sweep: close the events whose claims window has passed (a task lost with
    Redis, a worker down at the time); returns their ids."""
    due = SimultaneousEvent.objects.filter(
        state=SimultaneousEvent.State.OPEN, claims_close_at__lte=timezone.now()
    ).values_list("pk", flat=True)
    return [pk for pk in list(due) if event_window_close(event_id=pk)]


def event_window_wire(event: SimultaneousEvent) -> dict[str, str | None]:
    """When the event becomes final, for the clubs (on the wire): ``claims_until`` the end of
    the claims window (None before the embargo ends), ``final_at`` when it closed (None while
    open)."""
    return {
        "claims_until": event.claims_close_at.isoformat() if event.claims_close_at else None,
        "final_at": event.closed_at.isoformat() if event.closed_at else None,
    }


# --- invitations ------------------------------------------------------------------------------


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def invitation_create(
    *, event: SimultaneousEvent, user: Any, club_name: str, federation_number: str = ""
) -> tuple[Invitation, str]:
    """Invite a club; return the invitation and its token, which is never shown again (only
    its SHA-256 is kept). Raises ValidationError for a bad club name or number."""
    token = secrets.token_urlsafe(32)
    invitation = Invitation(
        event=event,
        club_name=club_name.strip(),
        federation_number=(federation_number or "").strip(),
        token_sha256=_token_hash(token),
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    invitation.full_clean()
    invitation.save()
    return invitation, token


def invitation_for_token(token: str | None) -> Invitation | None:
    """The invitation a club's token opens (revoked ones too: the caller refuses them)."""
    if not token:
        return None
    return (
        Invitation.objects.select_related("event").filter(token_sha256=_token_hash(token)).first()
    )


def invitation_revoke(*, invitation: Invitation) -> Invitation:
    """Withdraw a club from the event (its organiser's decision, e.g. a club that claimed
    another's players): the token opens nothing any more, and the club's players, results
    and penalties leave the field, so its licences are free for the club they belong to.
    The overall ranking is recomputed on commit; the embargo ends if every club still
    invited has sent its final upload. Revoking again changes nothing."""
    with transaction.atomic():
        locked = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if locked.revoked_at is None:
            locked.revoked_at = timezone.now()
            locked.save(update_fields=["revoked_at"])
        removed = FieldResult.objects.filter(invitation=locked).delete()[0]
        if removed:
            Invitation.objects.filter(pk=locked.pk).update(results_serial=F("results_serial") + 1)
        removed += FieldPenalty.objects.filter(invitation=locked).delete()[0]
        FieldPlayer.objects.filter(invitation=locked).delete()
        if removed:
            SimultaneousEvent.objects.filter(pk=locked.event_id).update(
                results_version=F("results_version") + 1
            )
            event_id = locked.event_id
            transaction.on_commit(lambda: schedule_overall_ranking(event_id))
        _embargo_check(locked.event_id)
    return locked


@dataclass(frozen=True)
class Claim:
    """One club's claim on a licence: the invitation and the name it gives the player."""

    invitation: Invitation
    first_name: str
    last_name: str
    at: datetime | None


@dataclass(frozen=True)
class LicenceConflict:
    """A licence two clubs claim: the one holding it in the field and the one refused."""

    licence: str
    holder: Claim
    claimant: Claim


def licence_conflicts(event: SimultaneousEvent) -> list[LicenceConflict]:
    """The licences an invited club's latest upload claimed but another club holds (its last
    refusal was `licence_elsewhere` and no upload of it was applied since), with both claims,
    for the event's organiser to settle (revoking one of the invitations). A conflict ends
    when the holder lets the licence go or either invitation is revoked."""
    latest: dict[int, UploadLog] = {}
    for log in (
        UploadLog.objects.filter(event=event, invitation__revoked_at__isnull=True)
        .exclude(outcome=UploadLog.Outcome.STALE)
        .select_related("invitation")
        .order_by("-pk")
    ):
        latest.setdefault(log.invitation_id, log)
    refused = [log for log in latest.values() if log.code == "licence_elsewhere" and log.claims]
    wanted = {claim["licence"] for log in refused for claim in log.claims}
    held = {
        p.licence: p
        for p in FieldPlayer.objects.filter(
            event=event, licence__in=wanted, invitation__revoked_at__isnull=True
        ).select_related("invitation")
    }
    conflicts = []
    for log in refused:
        for claim in log.claims:
            holder = held.get(claim["licence"])
            if holder is None or holder.invitation_id == log.invitation_id:
                continue
            conflicts.append(
                LicenceConflict(
                    licence=claim["licence"],
                    holder=Claim(
                        holder.invitation,
                        holder.first_name,
                        holder.last_name,
                        holder.invitation.last_upload_at,
                    ),
                    claimant=Claim(
                        log.invitation,
                        str(claim.get("first_name", "")),
                        str(claim.get("last_name", "")),
                        log.received_at,
                    ),
                )
            )
    return sorted(conflicts, key=lambda c: (c.licence, c.claimant.invitation.club_name))


def signature_of(token: str, body: bytes) -> str:
    """The value of the X-Simultaneous-Signature header for `body`."""
    return "sha256=" + hmac.new(token.encode("utf-8"), body, hashlib.sha256).hexdigest()


# --- uploads ----------------------------------------------------------------------------------


class UploadRefused(Exception):
    """An upload the hub does not apply: `code` (machine), `status` (HTTP), translated
    `message`, and `extra` keys for the answer (the licences, the JSON paths)."""

    def __init__(
        self,
        code: str,
        status: int,
        message: str,
        extra: dict[str, Any] | None = None,
        *,
        invitation: Invitation | None = None,
        claims: list[dict[str, str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        self.extra = extra or {}
        # For the log only, never in the answer: whose token it was, and the players a
        # licence_elsewhere refusal claimed (the organiser settles the conflict with them).
        self.invitation = invitation
        self.claims = claims or []


@dataclass
class UploadOutcome:
    """What an applied (or stale) upload changed."""

    upload: int
    results: dict[str, int] = field(default_factory=dict)
    penalties: dict[str, int] = field(default_factory=dict)
    final: bool = False
    stale: bool = False
    last_sequence: int | None = None  # a stale upload: the sequence the hub holds
    # When the event becomes final (`event_window_wire`): the clubs' pages say it.
    window: dict[str, str | None] | None = None

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "upload": self.upload,
            "results": self.results,
            "penalties": self.penalties,
            "final": self.final,
        }
        if self.window is not None:
            body["window"] = self.window
        if self.stale:
            body["stale"] = True
            body["last_sequence"] = self.last_sequence
        return body


def upload_receive(
    *,
    body: bytes,
    token: str | None = None,
    signature: str | None = None,
    event: SimultaneousEvent | None = None,
    user: Any = None,
) -> UploadOutcome:
    """Authenticate, parse, check and apply one upload; log it whatever happens.

    A club's request gives its `token` and `signature`; an organiser's manual upload gives the
    `event` (whose organiser `user` is) and no token: the file's "club" names the invitation.
    Raises UploadRefused (logged) for anything not applied; a stale upload is not an error.
    """
    started = time.perf_counter()
    meta = {
        "body_sha256": hashlib.sha256(body).hexdigest(),
        "size": len(body),
        "source": UploadLog.Source.API if event is None else UploadLog.Source.MANUAL,
        "by_user": user if getattr(user, "is_authenticated", False) else None,
    }
    invitation: Invitation | None = None
    upload: Upload | None = None
    try:
        if event is None:
            invitation = _authenticate(token, signature, body)
            event = invitation.event
        upload = _parse(body)
        if invitation is None:
            invitation = _invitation_named(event, upload.club)
        try:
            with transaction.atomic():
                outcome = _apply(event, invitation, upload, meta, started)
        except IntegrityError:  # another club took a licence meanwhile (unique constraint)
            _check_licences(event, invitation, upload)
            raise
    except UploadRefused as refused:
        invitation = invitation or refused.invitation
        UploadLog.objects.create(
            event=event or (invitation.event if invitation else None),
            invitation=invitation,
            outcome=UploadLog.Outcome.REFUSED,
            code=refused.code,
            reason=refused.message[:2000],
            claims=refused.claims,
            sequence=upload.sequence if upload else None,
            final=bool(upload and upload.final),
            duration_ms=int((time.perf_counter() - started) * 1000),
            **meta,
        )
        raise
    if outcome.results_changed:
        transaction.on_commit(lambda: schedule_overall_ranking(event.pk))
    return outcome.outcome


def upload_refused_unread(*, token: str | None, code: str, status: int, size: int) -> UploadRefused:
    """A club's upload refused before its body is read (too large, a NUL character, nested
    too deeply; `BODY_CODES`): logged in the organiser's log when the token opens an
    invitation; the refusal to raise. An unknown token is `not_invited` (logged without an
    event, as any unknown token)."""
    invitation = invitation_for_token(token)
    refused = (
        UploadRefused(code, status, BODY_CODES[code](), invitation=invitation)
        if invitation is not None
        else UploadRefused(
            "not_invited", 401, _("This token opens no invitation to a simultaneous event.")
        )
    )
    UploadLog.objects.create(
        event=invitation.event if invitation else None,
        invitation=invitation,
        outcome=UploadLog.Outcome.REFUSED,
        code=refused.code,
        reason=refused.message[:2000],
        size=min(size, 2**31 - 1),
        source=UploadLog.Source.API,
    )
    return refused


BODY_CODES = {
    "too_large": lambda: (
        _(
            "The upload is larger than the hub takes (%(limit)s bytes): send the club's state "
            "without anything else, or ask the event's organiser."
        )
        % {"limit": settings.DATA_UPLOAD_MAX_MEMORY_SIZE}
    ),
    "invalid_characters": lambda: _(
        "The upload contains a NUL character, which no name or field may hold: "
        "correct the name on the club's site and send again."
    ),
    "too_deep": lambda: _("The upload nests arrays or objects too deeply: it is not the format."),
}


def _authenticate(token: str | None, signature: str | None, body: bytes) -> Invitation:
    invitation = invitation_for_token(token)
    if invitation is None:
        raise UploadRefused(
            "not_invited", 401, _("This token opens no invitation to a simultaneous event.")
        )
    expected = signature_of(token or "", body)
    if not signature or not hmac.compare_digest(signature.strip(), expected):
        raise UploadRefused(
            "bad_signature",
            401,
            _(
                "The upload's signature (%(header)s) is missing or wrong: it must be the "
                "HMAC-SHA256 of the body with the club's token."
            )
            % {"header": SIGNATURE_HEADER},
            invitation=invitation,
        )
    if not invitation.active:
        raise UploadRefused(
            "not_invited",
            403,
            _("This club's invitation to the event was revoked."),
            invitation=invitation,
        )
    return invitation


def _parse(body: bytes) -> Upload:
    try:
        return parse_upload_bytes(body)
    except UploadInvalid as exc:
        errors = exc.details
        first = next(iter(errors.items()))
        message = (
            f"{first[0]}: {first[1][0]}"
            if len(exc.errors) == 1
            else _(
                "The upload does not follow the format: %(count)s faults, first %(path)s: %(message)s"
            )
            % {"count": len(exc.errors), "path": first[0], "message": first[1][0]}
        )
        raise UploadRefused("invalid", 400, message, {"details": errors}) from None


def _invitation_named(event: SimultaneousEvent, public_id: str) -> Invitation:
    invitation = Invitation.objects.filter(event=event, public_id=public_id).first()
    if invitation is None:
        raise UploadRefused(
            "not_invited",
            403,
            _("The file names invitation %(club)s, which is not one of this event's.")
            % {"club": public_id},
        )
    if not invitation.active:
        raise UploadRefused(
            "not_invited", 403, _("This club's invitation to the event was revoked.")
        )
    return invitation


@dataclass
class _Applied:
    outcome: UploadOutcome
    results_changed: bool


def _check_event(event: SimultaneousEvent, invitation: Invitation, upload: Upload) -> None:
    """The upload is for this event and club, which is open, and its donnes are the event's."""
    if upload.event != event.public_id or upload.club != invitation.public_id:
        raise UploadRefused(
            "not_invited",
            403,
            _(
                "The upload is for event %(event)s and club %(club)s; this invitation is to "
                "event %(ours)s for club %(our_club)s."
            )
            % {
                "event": upload.event,
                "club": upload.club,
                "ours": event.public_id,
                "our_club": invitation.public_id,
            },
        )
    if not event.is_open:
        raise UploadRefused(
            "closed",
            409,
            _("The event is closed: the organiser no longer accepts uploads."),
        )
    if upload.identity != event.identity or upload.commitment != event.commitment:
        raise UploadRefused(
            "commitment_mismatch",
            422,
            _(
                "The upload's identity and commitment are not the event's: the club's "
                "tournament was not dealt from this event's donnes."
            ),
        )
    expected = {d["number"]: d for d in event_donnes(event)}
    wrong = []
    for donne in upload.donnes:
        mine = expected.get(donne.number)
        if (
            mine is None
            or mine["dealer"] != donne.dealer
            or mine["hands"] != donne.hands
            or mine["chien"] != donne.chien
        ):
            wrong.append(donne.number)
    if wrong:
        raise UploadRefused(
            "commitment_mismatch",
            422,
            ngettext(
                "Donne %(donnes)s is not the event's donne of that number: its hands differ.",
                "Donnes %(donnes)s are not the event's donnes of those numbers: their hands differ.",
                len(wrong),
            )
            % {"donnes": ", ".join(str(n) for n in wrong)},
            {"donnes": wrong},
        )


def _check_licences(event: SimultaneousEvent, invitation: Invitation, upload: Upload) -> None:
    """Refuse licences that already play in another club of the event."""
    players = {p.licence: p for p in upload.players}
    taken = sorted(
        FieldPlayer.objects.filter(event=event, licence__in=list(players))
        .exclude(invitation=invitation)
        .values_list("licence", flat=True)
    )
    if taken:
        # The answer names only the club's own licences: neither the other club nor the
        # names it gave; the organiser sees both claims (licence_conflicts) and settles.
        raise UploadRefused(
            "licence_elsewhere",
            409,
            ngettext(
                "Licence %(licences)s already plays in another club of the event. The "
                "event's organiser sees both claims and settles it; send again once it is settled.",
                "Licences %(licences)s already play in another club of the event. The "
                "event's organiser sees both claims and settles it; send again once it is settled.",
                len(taken),
            )
            % {"licences": ", ".join(taken)},
            {"licences": taken},
            claims=[
                {
                    "licence": licence,
                    "first_name": players[licence].first_name,
                    "last_name": players[licence].last_name,
                }
                for licence in taken
            ],
        )


def _apply(
    event: SimultaneousEvent,
    invitation: Invitation,
    upload: Upload,
    meta: dict[str, Any],
    started: float,
) -> _Applied:
    """Apply a checked upload inside the caller's transaction (the invitation row locked)."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    event = SimultaneousEvent.objects.get(pk=event.pk)
    if not invitation.active:
        raise UploadRefused(
            "not_invited", 403, _("This club's invitation to the event was revoked.")
        )
    _check_event(event, invitation, upload)
    log = UploadLog(
        event=event, invitation=invitation, sequence=upload.sequence, final=upload.final, **meta
    )
    if invitation.last_sequence is not None and upload.sequence < invitation.last_sequence:
        log.outcome = UploadLog.Outcome.STALE
        log.results_unchanged = len(upload.results)
        log.penalties_unchanged = len(upload.penalties)
        log.duration_ms = int((time.perf_counter() - started) * 1000)
        log.save()
        outcome = _outcome(log, stale=True)
        outcome.last_sequence = invitation.last_sequence
        return _Applied(outcome, results_changed=False)
    _check_licences(event, invitation, upload)
    _apply_players(event, invitation, upload)
    results = _apply_results(event, invitation, upload.results)
    penalties = _apply_penalties(event, invitation, upload)
    changed = bool(results["new"] or results["replaced"] or results["removed"]) or bool(
        penalties["new"] or penalties["replaced"] or penalties["removed"]
    )
    now = timezone.now()
    updates: dict[str, Any] = {"last_sequence": upload.sequence, "last_upload_at": now}
    if results["new"] or results["replaced"] or results["removed"]:
        updates["results_serial"] = F("results_serial") + 1  # its ranked copy is out of date
    if upload.final:
        updates["final_received_at"] = now
        updates["session_ended_at"] = upload.generated_at
    Invitation.objects.filter(pk=invitation.pk).update(**updates)
    if changed:
        SimultaneousEvent.objects.filter(pk=event.pk).update(
            results_version=F("results_version") + 1
        )
    if upload.final:
        _embargo_check(event.pk)
    log.outcome = UploadLog.Outcome.APPLIED
    for key, value in results.items():
        setattr(log, f"results_{key}", value)
    for key, value in penalties.items():
        setattr(log, f"penalties_{key}", value)
    log.duration_ms = int((time.perf_counter() - started) * 1000)
    log.save()
    outcome = _outcome(log)
    outcome.window = event_window_wire(
        SimultaneousEvent.objects.only("claims_close_at", "closed_at").get(pk=event.pk)
    )
    return _Applied(outcome, results_changed=changed)


def _outcome(log: UploadLog, *, stale: bool = False) -> UploadOutcome:
    return UploadOutcome(
        upload=log.pk,
        results={
            "new": log.results_new,
            "replaced": log.results_replaced,
            "unchanged": log.results_unchanged,
            "removed": log.results_removed,
        },
        penalties={
            "new": log.penalties_new,
            "replaced": log.penalties_replaced,
            "unchanged": log.penalties_unchanged,
            "removed": log.penalties_removed,
        },
        final=log.final,
        stale=stale,
    )


def _apply_players(event: SimultaneousEvent, invitation: Invitation, upload: Upload) -> None:
    """The club's players become the upload's: new ones added, names kept up to date, those no
    longer listed removed (so their licence is free for another club)."""
    existing = {
        licence: (pk, first, last)
        for pk, licence, first, last in FieldPlayer.objects.filter(
            invitation=invitation
        ).values_list("pk", "licence", "first_name", "last_name")
    }
    wanted = {p.licence: p for p in upload.players}
    gone = [pk for licence, (pk, _f, _l) in existing.items() if licence not in wanted]
    if gone:
        FieldPlayer.objects.filter(pk__in=gone).delete()
    new, renamed = [], []
    for licence, player in wanted.items():
        row = existing.get(licence)
        if row is None:
            new.append(
                FieldPlayer(
                    event=event,
                    invitation=invitation,
                    licence=licence,
                    first_name=player.first_name,
                    last_name=player.last_name,
                )
            )
        elif (row[1], row[2]) != (player.first_name, player.last_name):
            renamed.append(
                FieldPlayer(pk=row[0], first_name=player.first_name, last_name=player.last_name)
            )
    if new:
        FieldPlayer.objects.bulk_create(new, batch_size=1000)
    if renamed:
        FieldPlayer.objects.bulk_update(renamed, ["first_name", "last_name"], batch_size=500)


def _result_row(event: SimultaneousEvent, invitation: Invitation, r: WireResult) -> FieldResult:
    return FieldResult(
        event=event,
        invitation=invitation,
        table=r.table,
        donne=r.donne,
        version=r.version,
        status=r.status,
        holders=r.holders,
        sitter=r.sitter or "",
        taker=r.taker,
        contract=r.contract,
        bouts=r.bouts,
        points=r.points,
        petit_au_bout=r.petit_au_bout,
        poignees=r.poignees,
        chelem=r.chelem,
        scores=r.scores,
    )


def _apply_results(
    event: SimultaneousEvent, invitation: Invitation, results: tuple[WireResult, ...]
) -> dict[str, int]:
    """Keyed replacement by version; results absent from the upload are removed. After the
    embargo, each change is kept as a `LateCorrection` for the public pages to mark."""
    existing = {
        (table, donne): (pk, version, holders)
        for pk, table, donne, version, holders in FieldResult.objects.filter(
            invitation=invitation
        ).values_list("pk", "table", "donne", "version", "holders")
    }
    late: list[LateCorrection] = []

    def mark(key: tuple[int, int], change: str, holders: dict[str, str]) -> None:
        if event.embargo_over:
            late.append(
                LateCorrection(
                    event=event,
                    invitation=invitation,
                    table=key[0],
                    donne=key[1],
                    change=change,
                    holders=dict(holders or {}),
                )
            )

    counts = {"new": 0, "replaced": 0, "unchanged": 0, "removed": 0}
    seen: set[tuple[int, int]] = set()
    delete: list[int] = []
    create: list[FieldResult] = []
    for result in results:
        key = (result.table, result.donne)
        seen.add(key)
        row = existing.get(key)
        if row is None:
            counts["new"] += 1
            create.append(_result_row(event, invitation, result))
            mark(key, LateCorrection.Change.NEW, result.holders)
        elif result.version > row[1]:
            counts["replaced"] += 1
            delete.append(row[0])
            create.append(_result_row(event, invitation, result))
            mark(key, LateCorrection.Change.REPLACED, result.holders)
        else:
            counts["unchanged"] += 1
    for key, (pk, _version, holders) in existing.items():
        if key not in seen:
            counts["removed"] += 1
            delete.append(pk)
            mark(key, LateCorrection.Change.REMOVED, holders)
    if late:
        LateCorrection.objects.bulk_create(late)
    if delete:
        FieldResult.objects.filter(pk__in=delete).delete()
    if create:
        FieldResult.objects.bulk_create(create, batch_size=1000)
    return counts


def _apply_penalties(
    event: SimultaneousEvent, invitation: Invitation, upload: Upload
) -> dict[str, int]:
    """Penalties keyed by ref: changed ones replaced, absent ones removed."""
    existing = {
        ref: (pk, (licence, points, donne, withdrawn))
        for pk, ref, licence, points, donne, withdrawn in FieldPenalty.objects.filter(
            invitation=invitation
        ).values_list("pk", "ref", "licence", "points", "donne", "withdrawn")
    }
    counts = {"new": 0, "replaced": 0, "unchanged": 0, "removed": 0}
    delete: list[int] = []
    create: list[FieldPenalty] = []
    refs = set()
    for p in upload.penalties:
        refs.add(p.ref)
        row = existing.get(p.ref)
        values = (p.licence, p.points, p.donne, p.withdrawn)
        if row is not None and row[1] == values:
            counts["unchanged"] += 1
            continue
        if row is None:
            counts["new"] += 1
        else:
            counts["replaced"] += 1
            delete.append(row[0])
        create.append(
            FieldPenalty(
                event=event,
                invitation=invitation,
                ref=p.ref,
                licence=p.licence,
                points=p.points,
                donne=p.donne,
                withdrawn=p.withdrawn,
            )
        )
    for ref, (pk, _values) in existing.items():
        if ref not in refs:
            counts["removed"] += 1
            delete.append(pk)
    if delete:
        FieldPenalty.objects.filter(pk__in=delete).delete()
    if create:
        FieldPenalty.objects.bulk_create(create)
    return counts
