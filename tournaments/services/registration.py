"""Registering players for a tournament and checking them in on the day.

All of it happens before the tournament runs: the seating is generated from the checked-in
players, so any change here after the seating was generated makes it out of date (the
organiser sees so and regenerates it; see `tournament_seating_status`).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import LedgerEntry, Player, Registration, Tournament
from .ledger import ledger_record
from .tournaments import PREPARATION_STATUSES


class RegistrationError(ValueError):
    """A registration change the tournament's state refuses; the message is translated."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


def _lock_open(tournament: Tournament) -> Tournament:
    """Lock the tournament row so a status change cannot slip between the check and the write."""
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if locked.status not in PREPARATION_STATUSES:
        raise RegistrationError(
            _(
                "Registrations and check-ins are closed: the tournament is %(status)s. Put it "
                "back to registration to change them (possible while no result has been "
                "entered)."
            )
            % {"status": locked.get_status_display().lower()}
        )
    return locked


def _record(
    locked: Tournament,
    user: Any,
    player: Player | None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> None:
    """Once the seating is generated, a registration change is in the ledger (it makes the
    seating out of date); before that it is ordinary preparation."""
    if locked.movement is None:
        return
    ledger_record(
        tournament=locked,
        action=LedgerEntry.Action.REGISTRATION_CHANGED,
        user=user,
        before=before,
        after=after,
        player=player,
    )


def _state(registration: Registration | None) -> dict[str, Any] | None:
    if registration is None:
        return None
    return {
        "player": str(registration.player),
        "registered": True,
        "checked_in": registration.checked_in_at is not None,
    }


def _registration(tournament: Tournament, player: Player) -> Registration:
    try:
        return Registration.objects.select_for_update().get(tournament=tournament, player=player)
    except Registration.DoesNotExist:
        raise RegistrationError(
            _("%(player)s is not registered for this tournament.") % {"player": player.full_name}
        ) from None


def registration_add(
    *, tournament: Tournament, player: Player, checked_in: bool = False, user: Any = None
) -> Registration:
    """Register `player` (of any club); with `checked_in`, a late arrival registered at the door."""
    with transaction.atomic():
        locked = _lock_open(tournament)
        if Registration.objects.filter(tournament=tournament, player=player).exists():
            raise RegistrationError(
                _("%(player)s is already registered.") % {"player": player.full_name}
            )
        try:
            with transaction.atomic():
                registration = Registration.objects.create(
                    tournament=tournament,
                    player=player,
                    checked_in_at=timezone.now() if checked_in else None,
                )
        except IntegrityError:
            raise RegistrationError(
                _("%(player)s is already registered.") % {"player": player.full_name}
            ) from None
        _record(locked, user, player, None, _state(registration))
        return registration


def registration_remove(*, tournament: Tournament, player: Player, user: Any = None) -> None:
    """Unregister `player`; his seats, if the seating was generated, wait for regeneration."""
    with transaction.atomic():
        locked = _lock_open(tournament)
        registration = _registration(tournament, player)
        before = _state(registration)
        registration.delete()
        _record(locked, user, player, before, None)


def registration_check_in(
    *,
    tournament: Tournament,
    player: Player,
    at: datetime.datetime | None = None,
    user: Any = None,
) -> Registration:
    """Mark `player` present. Checking in twice keeps the first time (a double click is harmless)."""
    with transaction.atomic():
        locked = _lock_open(tournament)
        registration = _registration(tournament, player)
        if registration.checked_in_at is None:
            before = _state(registration)
            registration.checked_in_at = at or timezone.now()
            registration.save(update_fields=["checked_in_at"])
            _record(locked, user, player, before, _state(registration))
        return registration


def registration_check_out(
    *, tournament: Tournament, player: Player, user: Any = None
) -> Registration:
    """Undo a check-in (a player who left, or a mistaken click)."""
    with transaction.atomic():
        locked = _lock_open(tournament)
        registration = _registration(tournament, player)
        if registration.checked_in_at is not None:
            before = _state(registration)
            registration.checked_in_at = None
            registration.save(update_fields=["checked_in_at"])
            _record(locked, user, player, before, _state(registration))
        return registration


def registration_check_in_all(
    *, tournament: Tournament, at: datetime.datetime | None = None, user: Any = None
) -> int:
    """Check in every registered player not yet checked in; returns how many were."""
    with transaction.atomic():
        locked = _lock_open(tournament)
        waiting = list(
            Registration.objects.filter(tournament=tournament, checked_in_at=None).select_related(
                "player"
            )
        )
        count = Registration.objects.filter(pk__in=[r.pk for r in waiting]).update(
            checked_in_at=at or timezone.now()
        )
        for registration in waiting:
            before = _state(registration)
            _record(locked, user, registration.player, before, {**before, "checked_in": True})
        return count
