"""Downloads of the rankings for a spreadsheet (CSV), under the ranking page's rule: who may
read the ranking (tournaments.permissions.can_see_results) may download it."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from scoring.exports import CONTENT_TYPE, RankingCsv, ranking_csv
from tournaments.models import Tournament
from tournaments.permissions import can_see_results


def csv_response(export: RankingCsv) -> HttpResponse:
    """The file as an attachment; `X-Ranking-Current: 0` while a saved change is not in it."""
    response = HttpResponse(export.content, content_type=CONTENT_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{export.filename}"'
    response["X-Ranking-Current"] = "1" if export.is_current else "0"
    if export.version is not None:
        response["X-Ranking-Version"] = str(export.version)
    return response


@require_GET
def ranking_csv_download(request: HttpRequest, pk: int) -> HttpResponse:
    """The ranking as CSV in the page's language (a French or an English spreadsheet)."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_see_results(request.user, tournament):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise PermissionDenied
    response = csv_response(ranking_csv(tournament, get_language() or "fr"))
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response
