"""URLs of the club's simultaneous-event pages."""

from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("simultaneous/join/", views.simultaneous_join, name="simultaneous_join"),
    path("t/<int:pk>/simultaneous/", views.simultaneous_page, name="simultaneous_club"),
    path("t/<int:pk>/simultaneous/send/", views.simultaneous_send, name="simultaneous_club_send"),
    path(
        "t/<int:pk>/simultaneous/refresh/",
        views.simultaneous_refresh,
        name="simultaneous_club_refresh",
    ),
    path(
        "t/<int:pk>/simultaneous/upload.json",
        views.simultaneous_file,
        name="simultaneous_club_file",
    ),
]
