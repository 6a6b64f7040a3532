"""Who may read an event's field pages, travellers, hands, overall ranking, exports and booklet
(RULES §6.3, the embargo): its organisers at any time, everybody once the embargo is over.

Before then a stranger gets what the site answers for an unpublished tournament's results
(`scoring.rankings.views`): the login page when anonymous, 403 when logged in.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from .models import SimultaneousEvent


def is_event_organiser(user: Any, event: SimultaneousEvent) -> bool:
    """An organiser of the event (or a superuser); one query for a signed-in user."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser:
        return True
    return event.organisers.filter(pk=user.pk).exists()


def can_read_field(user: Any, event: SimultaneousEvent) -> bool:
    """The event's field pages are readable by `user`: public after the embargo."""
    return event.embargo_over or is_event_organiser(user, event)


def readable_event(
    request: HttpRequest, public_id: str
) -> tuple[SimultaneousEvent, HttpResponse | None]:
    """The event, or the answer for a reader who may not see its field yet: the login page
    for an anonymous visitor, 403 for a logged-in one; 404 for an unknown event."""
    event = get_object_or_404(SimultaneousEvent, public_id=public_id)
    if can_read_field(request.user, event):
        return event, None
    if not request.user.is_authenticated:
        return event, redirect_to_login(request.get_full_path())
    raise PermissionDenied
