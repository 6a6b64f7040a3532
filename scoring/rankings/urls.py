"""URLs of the rankings pages."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from . import export_views, player_views, views

urlpatterns: list[URLPattern | URLResolver] = [
    path("t/<int:pk>/ranking/", views.ranking, name="ranking"),
    path("t/<int:pk>/ranking.csv", export_views.ranking_csv_download, name="ranking_csv"),
    path("t/<int:pk>/donnes.csv", export_views.score_cards_csv_download, name="score_cards_csv"),
    path(
        "t/<int:pk>/ranking/<int:player_pk>/",
        views.player_score_card,
        name="score_card",
    ),
    path("t/<int:pk>/donnes/", views.donne_list, name="donne_list"),
    path("t/<int:pk>/donnes/<int:number>/", views.donne_traveller, name="traveller"),
    path("clubs/<int:pk>/season/", views.club_season_ranking, name="club_season"),
    path("players/<int:pk>/results/", views.player_results, name="player_results"),
]

urlpatterns += [
    path("moi/", player_views.mine, name="mine"),
    path("moi/<str:token>/", player_views.mine_link, name="mine_link"),
    path(
        "moi/<str:token>/events/<int:tournament_pk>/",
        player_views.mine_link_report,
        name="mine_link_report",
    ),
    path("players/<int:pk>/tarot/", player_views.player_tarot, name="player_tarot"),
    path(
        "players/<int:pk>/events/<int:tournament_pk>/report/",
        player_views.player_event_report,
        name="player_event_report",
    ),
]
