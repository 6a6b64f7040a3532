"""The championships' pages; their downloads (PDF, CSV) in `export_urls`."""

from __future__ import annotations

from django.urls import include, path

from . import views

urlpatterns = [
    path("championships/", views.championship_list, name="championship_list"),
    path("championships/new/", views.championship_create, name="championship_create"),
    path("championships/<int:pk>/", views.championship_detail, name="championship_detail"),
    path("championships/<int:pk>/manage/", views.championship_manage, name="championship_manage"),
    path(
        "championships/<int:pk>/events/<int:event>/<str:action>/",
        views.championship_event_action,
        name="championship_event_action",
    ),
    path("championships/<int:pk>/series/", views.championship_series, name="championship_series"),
    path(
        "championships/<int:pk>/qualifiers/",
        views.championship_qualifiers,
        name="championship_qualifiers",
    ),
    path("championships/", include("tournaments.championships.export_urls")),
]
