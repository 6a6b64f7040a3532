"""The hub's reading pages, exports and booklet of an event (`pages`, `exports`, `booklet`)."""

from __future__ import annotations

from django.urls import path

from . import booklet, exports, pages

urlpatterns = [
    path("<str:public_id>/ranking/", pages.overall_ranking, name="simultaneous_ranking"),
    path(
        "<str:public_id>/clubs/<str:invitation_id>/",
        pages.club_ranking,
        name="simultaneous_club",
    ),
    path("<str:public_id>/players/<str:licence>/", pages.player_card, name="simultaneous_player"),
    path("<str:public_id>/donnes/", pages.donne_list, name="simultaneous_donnes"),
    path(
        "<str:public_id>/donnes/<int:number>/",
        pages.donne_traveller,
        name="simultaneous_traveller",
    ),
    path(
        "<str:public_id>/ranking.csv", exports.ranking_csv_download, name="simultaneous_ranking_csv"
    ),
    path(
        "<str:public_id>/results.csv", exports.results_csv_download, name="simultaneous_results_csv"
    ),
    path("<str:public_id>/booklet.pdf", booklet.booklet_download, name="simultaneous_booklet"),
]
