"""Registering players for a tournament and checking them in on the day.

Several players are registered in one go (`registrations_add`: ticked, the players of an
earlier tournament, or lines pasted from the club's sheet and read by `players_from_lines`):
all of them or none, every refusal named.

All of it happens before the tournament runs: the seating is generated from the checked-in
players, so any change here after the seating was generated makes it out of date (the
organiser sees so and regenerates it; see `tournament_seating_status`).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from ..models import LedgerEntry, Player, Registration, Tournament
from ..search import players_matching
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


MAX_LINES = 500
MAX_CANDIDATES_SHOWN = 5
LICENCE = re.compile(r"^[0-9]{7}$")


class RegistrationsRefused(RegistrationError):
    """Some players of a list cannot be registered, so none was; ``refused`` holds each
    player's id, name and the reason."""

    def __init__(self, refused: list[tuple[int | None, str, str]]) -> None:
        self.refused = refused
        # French spaces the ":" and the ";" (no-break spaces).
        names = pgettext("list separator", "; ").join(
            _("%(name)s: %(reason)s") % {"name": name, "reason": reason}
            for _pk, name, reason in refused
        )
        super().__init__(
            ngettext(
                "%(count)d player cannot be registered, so nobody was (%(names)s).",
                "%(count)d players cannot be registered, so nobody was (%(names)s).",
                len(refused),
            )
            % {"count": len(refused), "names": names}
        )


def registrations_add(
    *,
    tournament: Tournament,
    players: Sequence[Player],
    checked_in: bool = False,
    user: Any = None,
) -> list[Registration]:
    """Register every player of ``players`` or none: a player already registered or listed
    twice is refused, and RegistrationsRefused names each refused one."""
    if not players:
        raise RegistrationError(_("Choose at least one player to register."))
    with transaction.atomic():
        locked = _lock_open(tournament)
        already = set(
            Registration.objects.filter(
                tournament=tournament, player__in=[p.pk for p in players]
            ).values_list("player_id", flat=True)
        )
        refused: list[tuple[int | None, str, str]] = []
        seen: set[int] = set()
        for player in players:
            if player.pk in already:
                refused.append((player.pk, player.full_name, _("already registered")))
            elif player.pk in seen:
                refused.append((player.pk, player.full_name, _("listed twice")))
            seen.add(player.pk)
        if refused:
            raise RegistrationsRefused(refused)
        at = timezone.now() if checked_in else None
        try:
            with transaction.atomic():
                registrations = Registration.objects.bulk_create(
                    [
                        Registration(tournament=tournament, player=player, checked_in_at=at)
                        for player in players
                    ]
                )
        except IntegrityError:
            raise RegistrationError(
                _("Someone registered some of these players meanwhile. Reload the page.")
            ) from None
        for registration in registrations:
            _record(locked, user, registration.player, None, _state(registration))
        return registrations


@dataclass(frozen=True)
class LineProblem:
    """A pasted line that names no player, or several."""

    number: int
    text: str
    reason: str


class RegistrationLinesError(RegistrationError):
    """Pasted lines that could not be read as one player each; ``problems`` lists them."""

    def __init__(self, problems: list[LineProblem]) -> None:
        self.problems = problems
        super().__init__(
            ngettext(
                "%(count)d line does not name exactly one player: correct it and paste the "
                "list again. Nobody was registered.",
                "%(count)d lines do not name exactly one player each: correct them and paste "
                "the list again. Nobody was registered.",
                len(problems),
            )
            % {"count": len(problems)}
        )


def _line_player(line: str, club_id: int) -> Player | str:
    """The one player a line names (a licence, or words of his names), or why there is none."""
    words = [w for w in re.split(r"[\s;,\t]+", line) if w]
    licences = [w for w in words if LICENCE.match(w)]
    players = Player.objects.select_related("club")
    if licences:
        found = list(players.filter(licence__in=licences))
        if len(found) == 1:
            return found[0]
        if not found:
            return _("no player has the licence %(licence)s") % {"licence": licences[0]}
        return _("the line holds several licences")
    found = list(players_matching(players, " ".join(words)).order_by("pk")[:50])
    if len(found) > 1:
        of_club = [p for p in found if p.club_id == club_id]
        if len(of_club) == 1:
            return of_club[0]
    if len(found) == 1:
        return found[0]
    if not found:
        return _("no player has this name; check the spelling or give the licence")
    shown = ", ".join(
        f"{p.full_name} ({p.licence}, {p.club.name})" for p in found[:MAX_CANDIDATES_SHOWN]
    )
    if len(found) > MAX_CANDIDATES_SHOWN:
        shown += ", …"
    return _("several players have this name (%(players)s): give the licence") % {"players": shown}


def players_from_lines(*, text: str, tournament: Tournament) -> list[Player]:
    """The players named by ``text``, one per line (a licence, or first and last names, as
    copied from a sheet; blank lines ignored), preferring the tournament's club when a name
    is shared. RegistrationLinesError lists every line that names nobody or several."""
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise RegistrationError(_("Paste at least one line: a licence or a name per line."))
    if len(lines) > MAX_LINES:
        raise RegistrationError(_("Paste at most %(max)d lines at a time.") % {"max": MAX_LINES})
    players: list[Player] = []
    problems: list[LineProblem] = []
    for number, line in lines:
        found = _line_player(line, tournament.club_id)
        if isinstance(found, str):
            problems.append(LineProblem(number, line, found))
        else:
            players.append(found)
    if problems:
        raise RegistrationLinesError(problems)
    return players
