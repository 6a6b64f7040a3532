"""The arbiter's penalties (RULES.md §8): given from a catalogue, withdrawn but never deleted.

Each change writes a LedgerEntry and calls ``results_changed`` in the same transaction, since
a penalty counts in the ranking.

Recording is idempotent (RULES §8): a penalty identical to one given to the same player, not
withdrawn, less than ``PENALTY_REPEAT_SECONDS`` ago is the same penalty sent twice (a double
click, a retry without ``Idempotency-Key``), so the earlier one is answered and nothing is
written. The check runs under a lock of the tournament row (the row ``results_changed`` updates
at the end anyway; taken first, as the status and preparation services do, so locks are taken in
one order), so two copies arriving at the same moment on PostgreSQL record one penalty; SQLite
serialises writers on its own.
"""

from __future__ import annotations

import datetime
from typing import Any, NamedTuple

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..models import Donne, LedgerEntry, Penalty, Player, Tournament
from .events import results_changed
from .results import NON_FIELD, ResultInvalid, _require_write

__all__ = [
    "PenaltyInvalid",
    "PenaltyRecorded",
    "penalty_give",
    "penalty_record",
    "penalty_repeat_window",
    "penalty_snapshot",
    "penalty_withdraw",
]

MAX_POINTS = 10000
MAX_REASON = 300


class PenaltyInvalid(ResultInvalid):
    """A penalty that cannot be given or withdrawn as asked; ``errors`` say what to fix."""


class PenaltyRecorded(NamedTuple):
    """What ``penalty_record`` did: ``created`` is False when ``penalty`` was already there."""

    penalty: Penalty
    created: bool


def penalty_repeat_window() -> datetime.timedelta:
    """How long an identical penalty counts as the same one sent again (0: never)."""
    return datetime.timedelta(seconds=max(0.0, float(settings.PENALTY_REPEAT_SECONDS)))


def penalty_snapshot(penalty: Penalty) -> dict[str, Any]:
    """A JSON copy of a penalty for the ledger."""
    return {
        "player": penalty.player_id,
        "player_name": str(penalty.player),
        "kind": penalty.kind,
        "points": penalty.points,
        "reason": penalty.reason,
        "donne": penalty.donne.number if penalty.donne_id else None,
        "withdrawn": penalty.withdrawn_at is not None,
        "withdrawal_reason": penalty.withdrawal_reason,
    }


def player_donne_numbers(*, tournament: Tournament, player: Player) -> list[int]:
    """Numbers of the donnes at the player's tables: those he played or sat out there."""
    return sorted(
        set(
            Donne.objects.filter(
                tournament=tournament,
                etui_set__table_rounds__seats__player=player,
                etui_set__table_rounds__round__tournament=tournament,
            ).values_list("number", flat=True)
        )
    )


def penalty_donne_error(*, tournament: Tournament, player: Player, donne: Donne) -> str:
    """Why a penalty of ``player`` cannot be tied to ``donne`` (RULES.md §8), or ""."""
    numbers = player_donne_numbers(tournament=tournament, player=player)
    if donne.number in numbers:
        return ""
    if not numbers:
        return _(
            "%(player)s has no seat yet, so no donne: leave the donne empty for this penalty."
        ) % {"player": player}
    return _(
        "%(player)s does not play donne %(donne)s: the tables of that player play donnes "
        "%(numbers)s. Choose "
        "one of them, or leave the donne empty."
    ) % {"player": player, "donne": donne.number, "numbers": _ranges(numbers)}


def _ranges(numbers: list[int]) -> str:
    """1-4, 9-12: consecutive numbers shown as ranges."""
    parts: list[str] = []
    start = prev = numbers[0]
    for n in [*numbers[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)


def penalty_give(
    *,
    tournament: Tournament,
    player: Player,
    kind: str,
    user: Any,
    points: int | None = None,
    reason: str = "",
    donne: Donne | None = None,
) -> Penalty:
    """Penalise a registered player (see ``penalty_record``); answers the penalty, the earlier
    one when this is a repeat."""
    return penalty_record(
        tournament=tournament,
        player=player,
        kind=kind,
        user=user,
        points=points,
        reason=reason,
        donne=donne,
    ).penalty


def penalty_record(
    *,
    tournament: Tournament,
    player: Player,
    kind: str,
    user: Any,
    points: int | None = None,
    reason: str = "",
    donne: Donne | None = None,
) -> PenaltyRecorded:
    """Penalise a registered player: early pickup of the cards 100 points, warning 0, other
    the points the arbiter gives with a written reason; optionally tied to a donne.

    The same penalty sent again within ``penalty_repeat_window()`` of the first (same player,
    kind, points, reason and donne, not withdrawn) is answered with the first one and
    ``created=False``: nothing is written. A deliberate second one is recorded after the window.
    """
    _require_write(user, tournament)
    errors: dict[str, list[str]] = {}
    reason = (reason or "").strip()
    catalogue = Penalty.CATALOGUE_POINTS
    if kind not in Penalty.Kind.values:
        errors["kind"] = [_("Choose the kind of penalty: early pickup, warning or other.")]
    elif kind in catalogue:
        if points is not None and points != catalogue[kind]:
            errors["points"] = [
                _(
                    "The catalogue sets %(points)s points for this penalty. Leave the points "
                    "empty, or choose 'other' to give a different number."
                )
                % {"points": catalogue[kind]}
            ]
        points = catalogue[kind]
    else:
        if points is None:
            errors["points"] = [_("Enter the points of this penalty (a whole number, 0 or more).")]
        elif isinstance(points, bool) or not isinstance(points, int) or points < 0:
            errors["points"] = [_("The points of a penalty are a whole number, 0 or more.")]
        elif points > MAX_POINTS:
            errors["points"] = [_("A penalty cannot exceed %(max)s points.") % {"max": MAX_POINTS}]
        if not reason:
            errors["reason"] = [_("Write the reason for this penalty: what happened.")]
    if len(reason) > MAX_REASON:
        errors["reason"] = [_("Keep the reason under %(max)s characters.") % {"max": MAX_REASON}]
    if not tournament.registrations.filter(player=player).exists():
        errors["player"] = [
            _("%(player)s is not registered in this tournament. Choose one of its players.")
            % {"player": player}
        ]
    if donne is not None and donne.tournament_id != tournament.pk:
        errors["donne"] = [_("This donne belongs to another tournament.")]
    elif donne is not None and "player" not in errors:
        message = penalty_donne_error(tournament=tournament, player=player, donne=donne)
        if message:
            errors["donne"] = [message]
    if errors:
        raise PenaltyInvalid(errors)
    with transaction.atomic():
        # Copies of one request queue here; each sees what the one before it committed.
        Tournament.objects.select_for_update().only("pk").get(pk=tournament.pk)
        window = penalty_repeat_window()
        if window:
            earlier = (
                Penalty.objects.filter(
                    tournament=tournament,
                    player=player,
                    kind=kind,
                    points=points,
                    reason=reason,
                    donne=donne,
                    withdrawn_at__isnull=True,
                    given_at__gte=timezone.now() - window,
                )
                .select_related("player", "donne")
                .order_by("-given_at", "-pk")
                .first()
            )
            if earlier is not None:
                return PenaltyRecorded(earlier, created=False)
        penalty = Penalty.objects.create(
            tournament=tournament,
            player=player,
            donne=donne,
            kind=kind,
            points=points,
            reason=reason,
            given_by=user,
        )
        LedgerEntry.objects.create(
            tournament=tournament,
            penalty=penalty,
            player=player,
            action=LedgerEntry.Action.PENALTY_GIVEN,
            actor=user,
            reason=reason,
            before=None,
            after=penalty_snapshot(penalty),
        )
        results_changed(tournament_id=tournament.pk)
    return PenaltyRecorded(penalty, created=True)


def penalty_withdraw(*, penalty: Penalty, user: Any, reason: str) -> Penalty:
    """Withdraw a penalty: it stays in the list, marked with who withdrew it, when and why."""
    tournament = penalty.tournament
    _require_write(user, tournament)
    reason = (reason or "").strip()
    if not reason:
        raise PenaltyInvalid({"reason": [_("Write why the penalty is withdrawn.")]})
    if len(reason) > MAX_REASON:
        raise PenaltyInvalid(
            {"reason": [_("Keep the reason under %(max)s characters.") % {"max": MAX_REASON}]}
        )
    with transaction.atomic():
        before = penalty_snapshot(
            Penalty.objects.select_related("player", "donne").get(pk=penalty.pk)
        )
        now = timezone.now()
        # Only one withdrawal can win, even if two arbiters click at once.
        changed = Penalty.objects.filter(pk=penalty.pk, withdrawn_at__isnull=True).update(
            withdrawn_at=now, withdrawn_by=user, withdrawal_reason=reason
        )
        if not changed:
            raise PenaltyInvalid({NON_FIELD: [_("This penalty was already withdrawn.")]})
        penalty = Penalty.objects.select_related("player", "donne").get(pk=penalty.pk)
        LedgerEntry.objects.create(
            tournament=tournament,
            penalty=penalty,
            player=penalty.player,
            action=LedgerEntry.Action.PENALTY_WITHDRAWN,
            actor=user,
            reason=reason,
            before=before,
            after=penalty_snapshot(penalty),
        )
        results_changed(tournament_id=tournament.pk)
    return penalty


def penalty_describe(snapshot: dict[str, Any] | None) -> str:
    """One line saying what a ledger snapshot of a penalty holds."""
    if not snapshot:
        return "—"
    kind = snapshot.get("kind")
    label = Penalty.Kind(kind).label if kind in Penalty.Kind.values else kind
    points = snapshot.get("points") or 0
    text = ngettext(
        "%(player)s: %(kind)s, %(points)s point",
        "%(player)s: %(kind)s, %(points)s points",
        int(points),
    ) % {
        "player": snapshot.get("player_name", "?"),
        "kind": label,
        "points": points,
    }
    if snapshot.get("donne"):
        text += " · " + _("donne %(number)s") % {"number": snapshot["donne"]}
    if snapshot.get("reason"):
        text += " · " + snapshot["reason"]
    if snapshot.get("withdrawn"):
        text += " · " + _("withdrawn: %(reason)s") % {"reason": snapshot.get("withdrawal_reason")}
    return text
