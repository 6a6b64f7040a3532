"""The ranking as a CSV file for a spreadsheet: the same bytes as the ranking page's
download (scoring.exports), under the same rule as the ranking (SEE_RESULTS)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from scoring.exports import ranking_csv
from scoring.views.exports import csv_response

from .. import permissions as rules
from ..exceptions import ApiError
from ..schema import READ, errors
from .base import TournamentView

LANGUAGES = ("fr", "en")

FRENCH_EXAMPLE = (
    "\ufeffRang;Nom;Prénom;Licence;Club;Score;Pénalités;Total;Donnes jouées;Donnes comparées\r\n"
    "1;Arnaud;Camille;0100012;Club de Lyon;136,5;0;136,5;8;8\r\n"
    "2=;Bernard;Louis;0100013;Club de Lyon;-12,25;0;-12,25;8;8\r\n"
)


class CSVRenderer(BaseRenderer):
    """Lets a client ask for ``Accept: text/csv``; the file is sent as built."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"
    render_style = "binary"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):
        return data


class RankingCsvView(TournamentView):
    read_rule = rules.SEE_RESULTS
    renderer_classes = [JSONRenderer, CSVRenderer]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any):
        if isinstance(response, Response):  # errors stay JSON whatever was accepted
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = "application/json"
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        operation_id="ranking_csv",
        summary="The tournament's ranking as CSV (spreadsheet)",
        description="The ranking of the latest snapshot as a CSV file, as the ranking page "
        "downloads it. `language=fr`: `;` between cells, decimal comma; "
        "`language=en`: `,` and a decimal point. UTF-8 with a byte-order mark (spreadsheets "
        "then read the accents), CRLF line ends. Tied players read `1=`; a name or club "
        "starting with = + - @ is prefixed with an apostrophe (never run as a formula). The "
        "header `X-Ranking-Current: 0` says a saved change is not in the file yet; "
        "`X-Ranking-Version` is the results version it was computed from.",
        parameters=[
            OpenApiParameter(
                "language",
                OpenApiTypes.STR,
                enum=list(LANGUAGES),
                description="fr or en; by default the request's language (Accept-Language).",
            )
        ],
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR,
                description="The CSV file.",
                examples=[OpenApiExample("French", value=FRENCH_EXAMPLE)],
            ),
            **errors(400, *READ),
        },
        tags=["rankings"],
    )
    def get(self, request: Request, tournament: int) -> HttpResponse:
        language = request.query_params.get("language") or get_language() or "fr"
        if language.lower() not in LANGUAGES and request.query_params.get("language"):
            raise ApiError(
                status_code=400,
                code="invalid",
                message=_("Choose the language of the file: fr or en."),
                details={"language": [_("Not a language: %(value)s") % {"value": language[:20]}]},
            )
        return csv_response(ranking_csv(self.tournament, language))
