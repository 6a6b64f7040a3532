"""The answer of the hub's field pages, exports and booklet to a reader who may not read them
yet (RULES §6.3, the embargo): who may is `permissions.can_see_field` (the event's organisers at
any time, everybody once the embargo is over); the others get what the site answers for an
unpublished tournament's results (`scoring.rankings.views`): the login page when anonymous,
403 when logged in; an unknown event is 404.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from .models import SimultaneousEvent
from .permissions import can_see_field


def readable_event(
    request: HttpRequest, public_id: str
) -> tuple[SimultaneousEvent, HttpResponse | None]:
    """The event (with its stored ranking's state, read in the same query: `reads.freshness`
    then asks nothing), or the answer for a reader who may not see its field yet."""
    event = get_object_or_404(
        SimultaneousEvent.objects.select_related("ranking_state"), public_id=public_id
    )
    if can_see_field(request.user, event):
        return event, None
    if not request.user.is_authenticated:
        return event, redirect_to_login(request.get_full_path())
    raise PermissionDenied
