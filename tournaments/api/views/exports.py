"""The ranking, and the results donne by donne, as CSV files for a spreadsheet: the same bytes
as the ranking page's downloads (scoring.rankings.exports), under the same rule as the ranking
(SEE_RESULTS)."""

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

from scoring.rankings.export_views import csv_response, viewer_player_id
from scoring.rankings.exports import ranking_csv, score_cards_csv
from scoring.rankings.selectors import ranking_audience

from .. import permissions as rules
from ..exceptions import ApiError
from ..schema import READ, errors
from .base import TournamentView
from .outputs import VIEW

LANGUAGES = ("fr", "en")

FRENCH_EXAMPLE = (
    "\ufeffRang;Nom;Prénom;Licence;Club;Écarts;Points de pénalité;Total;Donnes jouées;"
    "Donnes comparées\r\n"
    "1;Arnaud;Camille;0100012;Club de Lyon;136,5;0;136,5;8;8\r\n"
    "2=;Bernard;Louis;0100013;Club de Lyon;-12,25;0;-12,25;8;8\r\n"
    "2=;Chevalier;Chloé;0100014;Club de Lyon;-12,25;0;-12,25;8;8\r\n"
)


class CSVRenderer(BaseRenderer):
    """Lets a client ask for ``Accept: text/csv``; the file is sent as built."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"
    render_style = "binary"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):
        return data


LANGUAGE = OpenApiParameter(
    "language",
    OpenApiTypes.STR,
    enum=list(LANGUAGES),
    description="fr or en; by default the request's language (Accept-Language).",
)

SCORE_CARDS_EXAMPLE = (
    "\ufeffNom;Prénom;Licence;Tour;Donne;Table;Position;Statut;Contrat;Preneur;Marque;Écarts;"
    "Cumul\r\n"
    "Arnaud;Camille;0100012;1;1;1;O;Jouée;Garde;N;-68;-12,5;-12,5\r\n"
    "Arnaud;Camille;0100012;1;2;1;O;Masquée tant que toutes les tables ne l'ont pas jouée;;;;;\r\n"
)


class CsvView(TournamentView):
    read_rule = rules.SEE_RESULTS
    renderer_classes = [JSONRenderer, CSVRenderer]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any):
        if isinstance(response, Response):  # errors stay JSON whatever was accepted
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = "application/json"
        return super().finalize_response(request, response, *args, **kwargs)

    def language(self) -> str:
        """?language=, else the request's language; 400 for anything but fr or en."""
        asked = self.request.query_params.get("language")
        if asked is None or asked == "":
            return get_language() or "fr"
        if asked.lower() not in LANGUAGES:
            raise ApiError(
                status_code=400,
                code="invalid",
                message=_("Choose the language of the file: fr or en."),
                details={"language": [_("Not a language: %(value)s") % {"value": asked[:20]}]},
            )
        return asked.lower()


class RankingCsvView(CsvView):
    @extend_schema(
        operation_id="ranking_csv",
        summary="The tournament's ranking as CSV (spreadsheet)",
        description="The ranking of the latest snapshot as a CSV file, as the ranking page "
        "downloads it. `language=fr`: `;` between cells, decimal comma; "
        "`language=en`: `,` and a decimal point. UTF-8 with a byte-order mark (spreadsheets "
        "then read the accents), CRLF line ends. Tied players read `1=`; a name or club "
        "starting with = + - @ is prefixed with an apostrophe (never run as a formula). The "
        "header `X-Ranking-Current: 0` says a saved change is not in the file yet; "
        "`X-Ranking-Version` is the results version it was computed from. During play the "
        "file counts complete donnes only (`X-Ranking-Audience: room`), except for arbiters "
        "and organisers, who get the provisional ranking (`provisional`) unless they ask "
        "`view=room`; `final` once the tournament is finished.",
        parameters=[LANGUAGE, VIEW],
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
        audience = ranking_audience(
            self.tournament, can_manage=self.can_manage, asked=request.query_params.get("view")
        )
        return csv_response(ranking_csv(self.tournament, self.language(), audience))


class ScoreCardsCsvView(CsvView):
    @extend_schema(
        operation_id="score_cards_csv",
        summary="Every player's results donne by donne as CSV (spreadsheet)",
        description="One line per player and donne, in the order they are played: round, donne, "
        "table, position (N E S O in French, N E S W in English), what happened (played, sat "
        "out, annulled, all passed, not played yet), contract, taker, the player's score and "
        "differential (match points % by that method) and the running total (average). As "
        "on the score cards, another player's line on a donne some tables have still to play "
        "says it is hidden and gives nothing else; the player's own lines, and everything for the "
        "arbiters and organisers, are complete. Same dialects, byte-order mark, formula guard "
        "and `X-Ranking-Current` header as the ranking's CSV.",
        parameters=[LANGUAGE],
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR,
                description="The CSV file.",
                examples=[OpenApiExample("French", value=SCORE_CARDS_EXAMPLE)],
            ),
            **errors(400, *READ),
        },
        tags=["rankings"],
    )
    def get(self, request: Request, tournament: int) -> HttpResponse:
        export = score_cards_csv(
            self.tournament,
            self.language(),
            can_manage=self.can_manage,
            viewer_player_id=viewer_player_id(request.user),
        )
        return csv_response(export)
