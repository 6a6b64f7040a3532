"""/api/v1/championships/: the championships' API (tournaments.championships.api)."""

from __future__ import annotations

from django.urls import URLPattern, path

from . import api

C = "<int:championship>/"

urlpatterns: list[URLPattern] = [
    path("", api.ChampionshipListView.as_view(), name="api_championships"),
    path(C, api.ChampionshipDetailView.as_view(), name="api_championship"),
    path(C + "events/", api.EventAddView.as_view(), name="api_championship_events"),
    path(C + "events/<int:event>/", api.EventDetailView.as_view(), name="api_championship_event"),
    path(
        C + "events/<int:event>/agree/",
        api.EventAgreeView.as_view(),
        name="api_championship_event_agree",
    ),
    path(C + "series/", api.SeriesView.as_view(), name="api_championship_series"),
    path(C + "ranking/", api.RankingView.as_view(), name="api_championship_ranking"),
    path(C + "qualifiers/", api.QualifiersView.as_view(), name="api_championship_qualifiers"),
]
