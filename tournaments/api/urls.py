"""/api/: the versioned API (v1), its OpenAPI schema, Swagger UI and Redoc (served by the app:
drf-spectacular-sidecar, no CDN). Unknown /api/ paths answer a JSON 404.

The rankings' and documents' routes under /api/v1/ live with those parts
(`scoring.rankings.api`, `scoring.documents.api`): tarot_club/urls.py includes them before
this module, so that tournaments imports nothing of theirs but their services."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.urls import URLPattern, URLResolver, include, path, re_path
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from .converters import TOURNAMENT
from .views import auth, calls, claims, clubs, results, tournaments

T = TOURNAMENT
R = T + "results/<id:table>/<id:donne>/"

v1: list[URLPattern | URLResolver] = [
    path("auth/token/", auth.TokenView.as_view(), name="api_token"),
    path("me/", auth.MeView.as_view(), name="api_me"),
    path("clubs/", clubs.ClubListView.as_view(), name="api_clubs"),
    path("clubs/<id:club>/", clubs.ClubDetailView.as_view(), name="api_club"),
    path(
        "clubs/<id:club>/accounts/",
        clubs.ClubAccountsView.as_view(),
        name="api_club_accounts",
    ),
    path(
        "clubs/<id:club>/players/import/",
        clubs.ClubPlayersImportView.as_view(),
        name="api_club_players_import",
    ),
    path("players/", clubs.PlayerListView.as_view(), name="api_players"),
    path("players/<id:player>/", clubs.PlayerDetailView.as_view(), name="api_player"),
    path("tournaments/", tournaments.TournamentListView.as_view(), name="api_tournaments"),
    path(T, tournaments.TournamentDetailView.as_view(), name="api_tournament"),
    path(T + "status/", tournaments.TournamentStatusView.as_view(), name="api_tournament_status"),
    path(
        T + "generate/",
        tournaments.TournamentGenerateView.as_view(),
        name="api_tournament_generate",
    ),
    path(
        T + "reveal-seed/",
        tournaments.TournamentRevealSeedView.as_view(),
        name="api_tournament_reveal_seed",
    ),
    path(
        T + "registrations/",
        tournaments.RegistrationListView.as_view(),
        name="api_registrations",
    ),
    path(
        T + "registrations/check-in-all/",
        tournaments.RegistrationCheckInAllView.as_view(),
        name="api_registrations_check_in_all",
    ),
    path(
        T + "registrations/<id:player>/",
        tournaments.RegistrationDetailView.as_view(),
        name="api_registration",
    ),
    path(
        T + "registrations/<id:player>/check-in/",
        tournaments.RegistrationCheckInView.as_view(),
        name="api_registration_check_in",
    ),
    path(
        T + "registrations/<id:player>/check-out/",
        tournaments.RegistrationCheckOutView.as_view(),
        name="api_registration_check_out",
    ),
    path(T + "rounds/", tournaments.RoundListView.as_view(), name="api_rounds"),
    path(T + "rounds/<id:number>/", tournaments.RoundDetailView.as_view(), name="api_round"),
    path(
        T + "rounds/<id:number>/open/", tournaments.RoundOpenView.as_view(), name="api_round_open"
    ),
    path(
        T + "rounds/<id:number>/close/",
        tournaments.RoundCloseView.as_view(),
        name="api_round_close",
    ),
    path(T + "tables/", tournaments.TableListView.as_view(), name="api_tables"),
    path(T + "tables/<id:number>/", tournaments.TableDetailView.as_view(), name="api_table"),
    path(T + "seats/", tournaments.SeatListView.as_view(), name="api_seats"),
    path(T + "etuis/", tournaments.EtuiSetListView.as_view(), name="api_etuis"),
    path(T + "donnes/", tournaments.DonneListView.as_view(), name="api_donnes"),
    path(T + "donnes/<id:number>/", tournaments.DonneDetailView.as_view(), name="api_donne"),
    path(T + "results/", results.ResultListView.as_view(), name="api_results"),
    path(T + "results/preview/", results.ResultPreviewView.as_view(), name="api_result_preview"),
    path(R, results.ResultDetailView.as_view(), name="api_result"),
    path(R + "annul/", results.ResultAnnulView.as_view(), name="api_result_annul"),
    path(T + "penalties/", results.PenaltyListView.as_view(), name="api_penalties"),
    path(T + "penalties/<id:penalty>/", results.PenaltyDetailView.as_view(), name="api_penalty"),
    path(
        T + "penalties/<id:penalty>/withdraw/",
        results.PenaltyWithdrawView.as_view(),
        name="api_penalty_withdraw",
    ),
    path(T + "ledger/", results.LedgerView.as_view(), name="api_ledger"),
    path(T + "calls/", calls.CallListView.as_view(), name="api_calls"),
    path(T + "calls/<id:call>/take/", calls.CallTakeView.as_view(), name="api_call_take"),
    path(T + "calls/<id:call>/rule/", calls.CallRuleView.as_view(), name="api_call_rule"),
    path(T + "claims/", claims.ClaimListView.as_view(), name="api_claims"),
    path(
        T + "claims/<id:claim>/settle/", claims.ClaimSettleView.as_view(), name="api_claim_settle"
    ),
]


@csrf_exempt  # every method, POST too, gets this JSON 404 rather than the CSRF page
def not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Unknown API paths answer in the API's error shape, not with an HTML page."""
    return JsonResponse(
        {
            "code": "not_found",
            "message": _("There is no API endpoint at this address. See /api/docs/."),
            "details": {},
        },
        status=404,
    )


urlpatterns: list[URLPattern | URLResolver] = [
    path("v1/", include(v1)),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    # The split view serves Swagger UI's start-up script as a file (?script), so the page
    # runs no inline script and keeps the site's CSP (tarot_club/middleware.py).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api_schema"), name="api_docs"),
    path(
        "redoc/",
        SpectacularRedocView.as_view(url_name="api_schema", template_name="api/redoc.html"),
        name="api_redoc",
    ),
    re_path(r"^(?P<rest>.*)$", not_found),
]
