"""URLs of the room's screen and of the arbiter's clock controls."""

from __future__ import annotations

from django.urls import path

from tarot_club.kit.replicas import replica_reads

from .views import room

urlpatterns = [
    path("t/<int:pk>/screen/", replica_reads(room.screen), name="room_screen"),
    path("t/<int:pk>/screen/clock/", room.screen_clock, name="room_screen_clock"),
    path(
        "t/<int:pk>/screen/ranking/", replica_reads(room.screen_ranking), name="room_screen_ranking"
    ),
    path("t/<int:pk>/arbiter/clock/", room.clock_panel, name="arbiter_clock"),
    path(
        "t/<int:pk>/arbiter/clock/<int:number>/<str:action>/",
        room.clock_action,
        name="arbiter_clock_action",
    ),
    path(
        "t/<int:pk>/arbiter/announcement/",
        room.announcement_save,
        name="arbiter_announcement",
    ),
]
