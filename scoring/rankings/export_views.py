"""Downloads of the rankings for a spreadsheet (CSV), under the ranking page's rule: who may
read the ranking (tournaments.permissions.can_see_results) may download it; the licences'
column for the tournament's managers and the staff only (`LicenceReader`)."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from scoring.rankings.exports import CONTENT_TYPE, RankingCsv, ranking_csv, score_cards_csv
from scoring.rankings.selectors import ranking_audience
from tournaments.models import Tournament
from tournaments.permissions import (
    LicenceReader,
    can_manage_tournament,
    can_see_results,
    with_roles,
)


def csv_response(export: RankingCsv) -> HttpResponse:
    """The file as an attachment; `X-Ranking-Current: 0` while a saved change is not in it."""
    response = HttpResponse(export.content, content_type=CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    response["X-Ranking-Current"] = "1" if export.is_current else "0"
    response["X-Ranking-Audience"] = export.audience
    if export.version is not None:
        response["X-Ranking-Version"] = str(export.version)
    return response


def _readable(request: HttpRequest, pk: int) -> tuple[Tournament, HttpResponse | None]:
    """The tournament, or the answer for a reader who may not see its results: the login
    page for an anonymous visitor, 403 for a logged-in one (as the ranking page)."""
    tournament = get_object_or_404(
        with_roles(Tournament.objects.select_related("club"), request.user), pk=pk
    )
    if can_see_results(request.user, tournament):
        return tournament, None
    if not request.user.is_authenticated:
        return tournament, redirect_to_login(request.get_full_path())
    raise PermissionDenied


def viewer_player_id(user: object) -> int | None:
    """The reader's own player id: his own lines are never hidden from him."""
    if not getattr(user, "is_authenticated", False):
        return None
    player = getattr(user, "player", None)
    return player.pk if player is not None else None


@require_GET
def ranking_csv_download(request: HttpRequest, pk: int) -> HttpResponse:
    """The ranking as CSV in the page's language (a French or an English spreadsheet): the
    ranking the reader sees on the page (``?view=room`` as there)."""
    tournament, denied = _readable(request, pk)
    if denied:
        return denied
    can_manage = can_manage_tournament(request.user, tournament)
    audience = ranking_audience(tournament, can_manage=can_manage, asked=request.GET.get("view"))
    licences = LicenceReader.of(request.user, tournament).everyone
    export = ranking_csv(tournament, get_language() or "fr", audience, licences=licences)
    response = csv_response(export)
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


@require_GET
def score_cards_csv_download(request: HttpRequest, pk: int) -> HttpResponse:
    """Every player's results donne by donne as CSV, hidden lines as on the score cards."""
    tournament, denied = _readable(request, pk)
    if denied:
        return denied
    export = score_cards_csv(
        tournament,
        get_language() or "fr",
        can_manage=can_manage_tournament(request.user, tournament),
        viewer_player_id=viewer_player_id(request.user),
        licences=LicenceReader.of(request.user, tournament).everyone,
    )
    response = csv_response(export)
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response
