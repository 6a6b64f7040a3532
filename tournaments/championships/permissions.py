"""Who may do what with a championship: plain predicates on the user, importing only models.

- create one: a club's organiser (for his club), an organiser of a simultaneous event (a
  championship over simultaneous events), or a superuser;
- manage one (rule, dates, events, séries, qualifiers): its organisers, the organisers of its
  club, superusers;
- agree that an event counts: the event's own organisers (a tournament's club's organisers,
  a simultaneous event's organisers), superusers.
Everyone reads a championship: it counts only final, public events.
"""

from __future__ import annotations

from typing import Any

from tournaments.models import Club, Tournament
from tournaments.simultaneous.hub.models import SimultaneousEvent

from .models import Championship


def _signed_in(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False))


def can_create_championship(user: Any) -> bool:
    """A club's organiser, a simultaneous event's organiser, or a superuser."""
    if not _signed_in(user):
        return False
    return bool(
        user.is_superuser
        or user.organised_clubs.exists()
        or SimultaneousEvent.objects.filter(organisers=user).exists()
    )


def organises_simultaneous_events(user: Any) -> bool:
    """An organiser of at least one simultaneous event (or a superuser)."""
    if not _signed_in(user):
        return False
    return bool(user.is_superuser or SimultaneousEvent.objects.filter(organisers=user).exists())


def organises_club(user: Any, club: Club) -> bool:
    """An organiser of `club` (or a superuser)."""
    if not _signed_in(user):
        return False
    return bool(user.is_superuser or club.organisers.filter(pk=user.pk).exists())


def can_manage_championship(user: Any, championship: Championship) -> bool:
    """One of the championship's organisers, of its club's organisers, or a superuser."""
    if not _signed_in(user):
        return False
    if user.is_superuser or championship.organisers.filter(pk=user.pk).exists():
        return True
    return (
        championship.club_id is not None
        and Club.objects.filter(pk=championship.club_id, organisers=user).exists()
    )


def owns_event(user: Any, event: Tournament | SimultaneousEvent) -> bool:
    """Whether `user` may agree that `event` counts: the tournament's club's organisers, the
    simultaneous event's organisers, superusers."""
    if not _signed_in(user):
        return False
    if user.is_superuser:
        return True
    if isinstance(event, Tournament):
        return Club.objects.filter(pk=event.club_id, organisers=user).exists()
    return event.organisers.filter(pk=user.pk).exists()
