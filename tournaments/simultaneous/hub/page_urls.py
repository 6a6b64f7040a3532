"""The hub's reading pages, exports and booklet of an event (`pages`, `exports`, `booklet`),
under /simultanes/<public id>/ beside the organiser's pages (`urls`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from tarot_club.kit.replicas import replica_reads

from . import booklet, exports, pages

E = "<str:public_id>/"

urlpatterns: list[URLPattern] = [
    path(E + "classement/", replica_reads(pages.overall_ranking), name="simultaneous_ranking"),
    path(
        E + "clubs/<str:invitation_id>/",
        replica_reads(pages.club_ranking),
        name="simultaneous_field_club",
    ),
    path(
        E + "joueurs/<str:licence>/", replica_reads(pages.player_card), name="simultaneous_player"
    ),
    path(E + "donnes/", replica_reads(pages.donne_list), name="simultaneous_donnes"),
    path(
        E + "donnes/<int:number>/",
        replica_reads(pages.donne_traveller),
        name="simultaneous_traveller",
    ),
    path(
        E + "classement.csv",
        replica_reads(exports.ranking_csv_download),
        name="simultaneous_ranking_csv",
    ),
    path(
        E + "resultats.csv",
        replica_reads(exports.results_csv_download),
        name="simultaneous_results_csv",
    ),
    path(E + "livret.pdf", booklet.booklet_download, name="simultaneous_booklet"),
]
