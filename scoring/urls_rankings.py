"""URLs of the rankings pages."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from scoring.views import exports, rankings

urlpatterns: list[URLPattern | URLResolver] = [
    path("t/<int:pk>/ranking/", rankings.ranking, name="ranking"),
    path("t/<int:pk>/ranking.csv", exports.ranking_csv_download, name="ranking_csv"),
    path("t/<int:pk>/donnes.csv", exports.score_cards_csv_download, name="score_cards_csv"),
    path(
        "t/<int:pk>/ranking/<int:player_pk>/",
        rankings.player_score_card,
        name="score_card",
    ),
    path("t/<int:pk>/donnes/", rankings.donne_list, name="donne_list"),
    path("t/<int:pk>/donnes/<int:number>/", rankings.donne_traveller, name="traveller"),
    path("clubs/<int:pk>/season/", rankings.club_season_ranking, name="club_season"),
    path("players/<int:pk>/results/", rankings.player_results, name="player_results"),
]
