"""The hub's pages under /simultanes/."""

from __future__ import annotations

from django.urls import URLPattern, path

from . import views

E = "simultanes/<str:public_id>/"

urlpatterns: list[URLPattern] = [
    path("simultanes/", views.event_list, name="simultaneous_events"),
    path("simultanes/nouveau/", views.event_create_view, name="simultaneous_event_create"),
    path(E, views.event_detail, name="simultaneous_event"),
    path(E + "inviter/", views.invitation_create_view, name="simultaneous_invite"),
    path(E + "envoi/", views.upload_view, name="simultaneous_upload"),
    path(E + "clore/", views.event_close_view, name="simultaneous_close"),
]
