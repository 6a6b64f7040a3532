"""URLs of the tournaments app: public pages, then one module per audience."""

from __future__ import annotations

from django.urls import include, path

from .views import claims, public

urlpatterns = [
    path("clubs/", public.club_list, name="club_list"),
    path("clubs/<int:pk>/", public.club_detail, name="club_detail"),
    path("players/", public.player_search, name="player_search"),
    path("players/<int:pk>/", public.player_detail, name="player_detail"),
    path("t/<int:pk>/", public.tournament_detail, name="tournament_detail"),
    path("t/<int:pk>/verify/", public.tournament_verify_page, name="tournament_verify"),
    path("t/<int:pk>/seats/", public.tournament_seats, name="tournament_seats"),
    path("t/<int:pk>/claim/", claims.player_claim, name="tournament_claim"),
    path("t/<int:pk>/claims-window/", claims.claims_window_line, name="claims_window_line"),
    path("account/", public.account, name="account"),
    path("", include("tournaments.urls_organiser")),
    path("", include("tournaments.urls_arbiter")),
    path("", include("tournaments.urls_table")),
    path("", include("tournaments.urls_room")),
]
