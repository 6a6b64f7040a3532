"""The hub's reading pages, exports and booklet of an event (`pages`, `exports`, `booklet`),
under /simultanes/<public id>/ beside the organiser's pages (`urls`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from . import booklet, exports, pages

E = "<str:public_id>/"

urlpatterns: list[URLPattern] = [
    path(E + "classement/", pages.overall_ranking, name="simultaneous_ranking"),
    path(E + "clubs/<str:invitation_id>/", pages.club_ranking, name="simultaneous_field_club"),
    path(E + "joueurs/<str:licence>/", pages.player_card, name="simultaneous_player"),
    path(E + "donnes/", pages.donne_list, name="simultaneous_donnes"),
    path(E + "donnes/<int:number>/", pages.donne_traveller, name="simultaneous_traveller"),
    path(E + "classement.csv", exports.ranking_csv_download, name="simultaneous_ranking_csv"),
    path(E + "resultats.csv", exports.results_csv_download, name="simultaneous_results_csv"),
    path(E + "livret.pdf", booklet.booklet_download, name="simultaneous_booklet"),
]
