"""The hub's pages under /simultanes/."""

from __future__ import annotations

from django.urls import URLPattern, include, path

from . import views

E = "simultanes/<str:public_id>/"

urlpatterns: list[URLPattern] = [
    path("simultanes/", views.event_list, name="simultaneous_events"),
    path("simultanes/nouveau/", views.event_create_view, name="simultaneous_event_create"),
    path(E, views.event_detail, name="simultaneous_event"),
    path(E + "inviter/", views.invitation_create_view, name="simultaneous_invite"),
    path(E + "envoi/", views.upload_view, name="simultaneous_upload"),
    path(
        E + "invitations/<str:invitation_id>/revoquer/",
        views.invitation_revoke_view,
        name="simultaneous_revoke",
    ),
    path(E + "clore/", views.event_close_view, name="simultaneous_close"),
    path("simultanes/", include("tournaments.simultaneous.hub.page_urls")),  # type: ignore[list-item]
]
