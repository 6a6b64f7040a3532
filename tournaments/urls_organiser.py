"""URLs of the organiser screens: the sign-up, a new club and its accounts, the club's players,
tournaments, registrations and check-in, generation of the seating and donnes, the seating
plan; the page where a new account sets its password."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from .views import club_players, clubs
from .views import organiser as views

urlpatterns: list[URLPattern | URLResolver] = [
    path("organiser/", views.organiser_home, name="organiser_home"),
    path("signup/", clubs.signup_view, name="signup"),
    path("clubs/new/", clubs.club_create_view, name="organiser_club_create"),
    path(
        "organiser/clubs/<int:club_pk>/accounts/",
        clubs.club_accounts_view,
        name="organiser_club_accounts",
    ),
    path(
        "account/set-password/<uidb64>/<token>/",
        clubs.SetPasswordView.as_view(),
        name="account_set_password",
    ),
    path(
        "organiser/clubs/<int:club_pk>/players/",
        views.club_players,
        name="organiser_club_players",
    ),
    path(
        "organiser/clubs/<int:club_pk>/players.csv",
        club_players.club_players_csv,
        name="organiser_club_players_csv",
    ),
    path(
        "organiser/clubs/<int:club_pk>/players/<int:pk>/link/",
        club_players.player_link_issue_view,
        name="organiser_player_link_issue",
    ),
    path(
        "organiser/clubs/<int:club_pk>/players/<int:pk>/link/revoke/",
        club_players.player_link_revoke_view,
        name="organiser_player_link_revoke",
    ),
    path(
        "organiser/clubs/<int:club_pk>/rating/",
        club_players.club_rating_view,
        name="organiser_club_rating",
    ),
    path(
        "organiser/clubs/<int:club_pk>/players/new/",
        views.player_create_view,
        name="organiser_player_create",
    ),
    path(
        "organiser/clubs/<int:club_pk>/players/<int:pk>/edit/",
        views.player_edit_view,
        name="organiser_player_edit",
    ),
    path(
        "organiser/clubs/<int:club_pk>/players/import/",
        views.players_import_view,
        name="organiser_players_import",
    ),
    path(
        "organiser/tournaments/new/",
        views.tournament_create_view,
        name="organiser_tournament_create",
    ),
    path("t/<int:pk>/edit/", views.tournament_edit_view, name="organiser_tournament_edit"),
    path("t/<int:pk>/status/", views.tournament_status_view, name="organiser_tournament_status"),
    path("t/<int:pk>/registrations/", views.registrations_view, name="organiser_registrations"),
    path(
        "t/<int:pk>/registrations/search/",
        views.registration_search_view,
        name="organiser_registration_search",
    ),
    path(
        "t/<int:pk>/registrations/add/",
        views.registration_add_view,
        name="organiser_registration_add",
    ),
    path(
        "t/<int:pk>/registrations/add-many/",
        views.registration_add_many_view,
        name="organiser_registration_add_many",
    ),
    path(
        "t/<int:pk>/registrations/check-in-all/",
        views.registration_check_in_all_view,
        name="organiser_registration_check_in_all",
    ),
    path(
        "t/<int:pk>/registrations/<int:player_pk>/remove/",
        views.registration_remove_view,
        name="organiser_registration_remove",
    ),
    path(
        "t/<int:pk>/registrations/<int:player_pk>/check-in/",
        views.registration_check_in_view,
        name="organiser_registration_check_in",
    ),
    path(
        "t/<int:pk>/registrations/<int:player_pk>/check-out/",
        views.registration_check_out_view,
        name="organiser_registration_check_out",
    ),
    path("t/<int:pk>/prepare/", views.prepare_view, name="organiser_prepare"),
    path(
        "t/<int:pk>/prepare/generate/",
        views.prepare_generate_view,
        name="organiser_prepare_generate",
    ),
    path(
        "t/<int:pk>/prepare/reveal/",
        views.prepare_reveal_view,
        name="organiser_prepare_reveal",
    ),
    path("t/<int:pk>/seating/", views.seating_plan_view, name="organiser_seating_plan"),
    path("t/<int:pk>/seating/swap/", views.seating_swap_view, name="organiser_seating_swap"),
    path("t/<int:pk>/seating/set/", views.seating_set_view, name="organiser_seating_set"),
]
