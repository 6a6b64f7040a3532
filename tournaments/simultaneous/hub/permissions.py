"""Who may do what on the hub (RULES §6.3): organise an event, manage one, see its field.

Plain predicates on the user and the event, importing only the hub's models, so that every
layer of the hub (services, the readers' access, views and the API) may ask them.
`tournaments.simultaneous.hub.services` hands them on under their names.
"""

from __future__ import annotations

from typing import Any

from .models import SimultaneousEvent


def can_create_event(user: Any) -> bool:
    """Superusers and the organisers of a club may organise a simultaneous event."""
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_superuser or user.organised_clubs.exists())


def is_event_organiser(user: Any, event: SimultaneousEvent) -> bool:
    """An organiser of this event (or a superuser)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_superuser or event.organisers.filter(pk=user.pk).exists())


def can_see_field(user: Any, event: SimultaneousEvent) -> bool:
    """Hands, travellers and the overall ranking: the event's organisers at any time, everyone
    once the embargo is over (RULES §6.3)."""
    return event.embargo_over or is_event_organiser(user, event)
