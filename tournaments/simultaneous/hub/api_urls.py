"""/api/v1/simultaneous/: the hub's API (tournaments.simultaneous.hub.api)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.urls import URLPattern, path, re_path, register_converter
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from . import api


class PublicIdConverter:
    """An event's public id: lowercase letters, digits and hyphens, at most 40."""

    regex = "[0-9a-z-]{1,40}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PublicIdConverter, "public_id")


@csrf_exempt
def not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Any other path under /api/v1/simultaneous/ (a newline too) answers the API's JSON 404."""
    message = _("There is no API endpoint at this address. See /api/docs/.")
    return JsonResponse(
        {"code": "not_found", "message": message, "detail": message, "details": {}}, status=404
    )


E = "events/<public_id:event>/"

urlpatterns: list[URLPattern] = [
    path("events/", api.EventListView.as_view(), name="api_simultaneous_events"),
    path(E, api.EventDetailView.as_view(), name="api_simultaneous_event"),
    path(
        E + "invitations/",
        api.InvitationCreateView.as_view(),
        name="api_simultaneous_invitations",
    ),
    path(
        E + "invitations/<public_id:invitation>/revoke/",
        api.InvitationRevokeView.as_view(),
        name="api_simultaneous_invitation_revoke",
    ),
    path(E + "conflicts/", api.EventConflictsView.as_view(), name="api_simultaneous_conflicts"),
    path(E + "close/", api.EventCloseView.as_view(), name="api_simultaneous_close"),
    path(E + "uploads/", api.EventUploadsView.as_view(), name="api_simultaneous_uploads"),
    path(E + "ranking/", api.EventRankingView.as_view(), name="api_simultaneous_ranking"),
    path("club/event/", api.ClubEventView.as_view(), name="api_simultaneous_club_event"),
    path("club/uploads/", api.ClubUploadView.as_view(), name="api_simultaneous_club_upload"),
    re_path(r"^(?P<rest>(?s:.*))$", not_found),
]
