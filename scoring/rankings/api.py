"""The API's reads of the rankings (/api/v1/tournaments/<id>/…): the ranking (with its
snapshot's version and whether it is current), score cards and travellers, read through
`scoring.rankings.selectors` as the pages are (after `scoring.rankings.catch_up`), and the
ranking and the results donne by donne as CSV files for a spreadsheet: the same bytes as the
ranking page's downloads (`scoring.rankings.exports`), under the same rule as the ranking
(SEE_RESULTS).

They live with the rankings, on the API's shared parts (`tournaments.api`: base view,
permissions, errors, schema, serializers); `urlpatterns` is included under /api/v1/ by
tarot_club/urls.py, beside `tournaments.api.urls`.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from scoring.rankings.catch_up import ranking_snapshot_caught_up
from scoring.rankings.export_views import csv_response, viewer_player_id
from scoring.rankings.exports import ranking_csv, score_cards_csv
from scoring.rankings.player_api import urlpatterns as player_urlpatterns
from scoring.rankings.selectors import (
    ranking_audience,
    ranking_view,
    score_cards_from_snapshot,
    snapshot_cached,
    snapshot_complete,
    traveller,
)
from tarot_club.kit.api.errors import ApiError
from tournaments.api import permissions as rules
from tournaments.api.converters import TOURNAMENT
from tournaments.api.schema import READ, errors
from tournaments.api.serializers import (
    RankingSerializer,
    ScoreCardSerializer,
    TravellerSerializer,
    fraction_float,
    fraction_text,
)
from tournaments.api.views.base import TournamentView
from tournaments.models import POSITIONS, Donne, Player
from tournaments.permissions import LicenceReader
from tournaments.selectors import donne_is_complete


def person(player: Player | None, reader: LicenceReader | None = None) -> dict[str, Any] | None:
    """A player in an answer: his licence only for a `reader` who may read it (null else)."""
    if player is None:
        return None
    return {
        "id": player.pk,
        "name": player.full_name,
        "licence": reader.licence(player) if reader is not None else None,
        "club": player.club_id,
    }


def with_licences(rows: list[dict[str, Any]], reader: LicenceReader) -> list[dict[str, Any]]:
    """Ranking rows (built once for every reader, without licences) with the licences this
    reader may read; one query when there is any, none for the public."""
    if not (reader.everyone or reader.user_id is not None):
        return rows
    ids = [row["player"]["id"] for row in rows if row.get("player")]
    players = Player.objects.filter(pk__in=ids).only("pk", "licence", "user_id", "club_id")
    licences = {p.pk: reader.licence(p) for p in players}
    return [
        {**row, "player": {**row["player"], "licence": licences.get(row["player"]["id"])}}
        if row.get("player")
        else row
        for row in rows
    ]


PERSON_EXAMPLE = {"id": 12, "name": "Camille Arnaud", "licence": "0100012", "club": 1}

VIEW = OpenApiParameter(
    "view",
    OpenApiTypes.STR,
    enum=["room", "provisional"],
    description="Arbiters and organisers, during play: `room` for the room's ranking "
    "(complete donnes only); by default theirs, `provisional`. Ignored for anyone else.",
)


def ranking_rows(
    tournament: Any, snapshot: Any, current: bool, audience: str
) -> list[dict[str, Any]]:
    """The API's ranking rows of one snapshot for the audience (players in one query)."""
    view = ranking_view(tournament, snapshot, current, audience=audience)
    return [
        {
            "rank": line.rank,
            "tied": line.tied,
            "player": person(line.player),
            "total": fraction_float(line.total),
            "total_exact": fraction_text(line.total),
            "differential_total": fraction_text(line.differential_total),
            "penalty_points": line.penalty_points,
            "donnes_played": line.donnes_played,
            "donnes_compared": line.donnes_compared,
        }
        for line in view.rows
    ]


class RankingView(TournamentView):
    read_rule = rules.SEE_RESULTS
    serializer_class = RankingSerializer

    @extend_schema(
        operation_id="ranking_retrieve",
        summary="The tournament's ranking",
        description="The latest ranking snapshot, with the results version it was computed "
        "from. `is_current` is false while a saved change is not in it yet (the ranking is "
        "being updated): poll again. Totals are exact fractions (`total_exact`); `total` is "
        "rounded for display. During play (`audience` `room`) the ranking counts only the "
        "`complete_donnes` of the tournament's `donnes`: those every scheduled table has "
        "played. Arbiters and organisers get the `provisional` ranking, with every result "
        "entered, or the room's with `?view=room`. Once the tournament is finished the "
        "ranking is `final` for everyone.",
        parameters=[VIEW],
        responses={200: RankingSerializer, **errors(*READ)},
        tags=["rankings"],
        examples=[
            OpenApiExample(
                "Current",
                value={
                    "method": "average",
                    "matchpoint_penalty_rate": "0.100",
                    "version": 12,
                    "results_version": 12,
                    "is_current": True,
                    "computed_at": "2026-12-05T16:00:02+01:00",
                    "audience": "room",
                    "complete_donnes": 8,
                    "donnes": 12,
                    "rows": [
                        {
                            "rank": 1,
                            "tied": False,
                            "player": PERSON_EXAMPLE,
                            "total": 136.5,
                            "total_exact": "273/2",
                            "differential_total": "273/2",
                            "penalty_points": 0,
                            "donnes_played": 8,
                            "donnes_compared": 8,
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, tournament: int) -> Response:
        audience = ranking_audience(
            self.tournament, can_manage=self.can_manage, asked=request.query_params.get("view")
        )
        snapshot, current = ranking_snapshot_caught_up(self.tournament)
        source = snapshot if snapshot is not None else self.tournament
        # The rows are the same for every reader of the audience: built once per snapshot,
        # audience and language.
        rows = snapshot_cached(
            f"api-rows:{audience}",
            snapshot,
            lambda: ranking_rows(self.tournament, snapshot, current, audience),
        )
        rows = with_licences(rows, LicenceReader.of(request.user, self.tournament))
        complete, donnes = snapshot_complete(snapshot.data if snapshot else {})
        return Response(
            {
                "method": source.method,
                "matchpoint_penalty_rate": f"{Decimal(source.matchpoint_penalty_rate):.3f}",
                "version": snapshot.results_version if snapshot else None,
                "results_version": self.tournament.results_version,
                "is_current": current,
                "computed_at": snapshot.computed_at if snapshot else None,
                "audience": audience,
                "complete_donnes": len(complete),
                "donnes": donnes,
                "rows": rows,
            }
        )


def _text(value: Fraction | int | None) -> str | None:
    return fraction_text(value)


class ScoreCardView(TournamentView):
    read_rule = rules.SEE_RESULTS
    serializer_class = ScoreCardSerializer

    @extend_schema(
        operation_id="score_cards_retrieve",
        summary="A player's score card",
        description="Every donne the player is scheduled for, in the order they are played: "
        "the position, the result at the player's table, the differential and the running total (exact "
        "fractions as text). On another player's card, a donne some tables have still to play "
        "is `hidden` (no contract, scores nor differential), as on the page; the card's owner, "
        "arbiters and organisers see everything. 404 if the player is not in this tournament.",
        responses={200: ScoreCardSerializer, **errors(*READ)},
        tags=["rankings"],
        examples=[
            OpenApiExample(
                "Card",
                value={
                    "player": PERSON_EXAMPLE,
                    "method": "average",
                    "is_current": True,
                    "computed_at": "2026-12-05T16:00:02+01:00",
                    "rank": 1,
                    "field_size": 8,
                    "total": "273/2",
                    "penalty_points": 0,
                    "lines": [
                        {
                            "round": 1,
                            "donne": 1,
                            "table": 1,
                            "position": "N",
                            "status": "played",
                            "taker": "N",
                            "contract": "garde",
                            "all_passed": False,
                            "scores": {"N": 204, "E": -68, "S": -68, "W": -68},
                            "score": "204",
                            "differential": "68",
                            "percentage": None,
                            "group_size": 2,
                            "running_total": "68",
                            "traveller_visible": True,
                            "entered": True,
                            "hidden": False,
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, tournament: int, player: int) -> Response:
        player_obj = get_object_or_404(Player.objects.select_related("club"), pk=player)
        me = getattr(request.user, "player", None) if request.user.is_authenticated else None
        snapshot, current = ranking_snapshot_caught_up(self.tournament)
        card = score_cards_from_snapshot(
            self.tournament,
            [player_obj],
            snapshot=snapshot,
            current=current,
            can_manage=self.can_manage,
            viewer_player_id=me.pk if me is not None else None,
        ).get(player_obj.pk)
        if card is None:
            raise ApiError(
                status_code=404,
                code="not_found",
                message=_("%(player)s does not play in this tournament.")
                % {"player": player_obj.full_name},
            )
        lines = [
            {
                "round": line.round_number,
                "donne": line.donne_number,
                "table": line.table_number,
                "position": line.position,
                "status": line.status,
                "taker": line.taker,
                "contract": line.contract,
                "all_passed": line.all_passed,
                "scores": {s.position: s.score for s in line.scores},
                "score": _text(line.score),
                "differential": _text(line.differential),
                "percentage": _text(line.percentage),
                "group_size": line.group_size,
                "running_total": _text(line.running_total),
                "traveller_visible": line.traveller_visible,
                "entered": line.entered,
                "hidden": line.hidden,
            }
            for line in card.lines
        ]
        return Response(
            {
                "player": person(player_obj, LicenceReader.of(request.user, self.tournament)),
                "method": card.method,
                "is_current": card.is_current,
                "computed_at": card.computed_at,
                "rank": card.row.rank if card.row else None,
                "field_size": card.field_size,
                "total": _text(card.row.total) if card.row else None,
                "penalty_points": card.row.penalty_points if card.row else 0,
                "lines": lines,
            }
        )


class TravellerView(TournamentView):
    read_rule = rules.SEE_RESULTS
    serializer_class = TravellerSerializer

    @extend_schema(
        operation_id="travellers_retrieve",
        summary="A donne's traveller",
        description="Every table's result on the donne side by side with each position's "
        "differential, the hands and the distribution of outcomes. Players get 403 until every "
        "table scheduled to play the donne has a result or an annulment (those still to play "
        "it must not see it); arbiters and organisers always see it.",
        responses={200: TravellerSerializer, **errors(*READ)},
        tags=["rankings"],
        examples=[
            OpenApiExample(
                "Two tables",
                value={
                    "donne": 1,
                    "method": "average",
                    "complete": True,
                    "missing_tables": [],
                    "hands": {"N": "…", "E": "…", "S": "…", "W": "…", "chien": "…"},
                    "rows": [
                        {
                            "table": 1,
                            "status": "played",
                            "taker": "N",
                            "contract": "garde",
                            "sitter": None,
                            "cells": [
                                {
                                    "position": "N",
                                    "player": PERSON_EXAMPLE,
                                    "score": 204,
                                    "differential": "68",
                                    "percentage": None,
                                }
                            ],
                        }
                    ],
                    "distribution": [
                        {
                            "label": "Garde by North",
                            "scores": {"N": 204, "E": -68, "S": -68, "W": -68},
                            "tables": 1,
                            "share": 50,
                        }
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, tournament: int, number: int) -> Response:
        donne = get_object_or_404(Donne, tournament=self.tournament, number=number)
        if not self.can_manage and not donne_is_complete(donne):
            raise ApiError(
                status_code=403,
                code="permission_denied",
                message=_("This donne's results are shown once every table has played it."),
            )
        trav = traveller(self.tournament, donne)
        reader = LicenceReader.of(request.user, self.tournament)
        rows = [
            {
                "table": row.table_number,
                "status": row.status,
                "taker": row.result.taker,
                "contract": row.result.contract,
                "sitter": person(row.sitter, reader),
                "cells": [
                    {
                        "position": position,
                        "player": person(player, reader),
                        "score": score,
                        "differential": _text(diff),
                        "percentage": _text(pct),
                    }
                    for position, player, score, diff, pct in row.cells
                ],
            }
            for row in trav.rows
        ]
        return Response(
            {
                "donne": donne.number,
                "method": trav.method,
                "complete": trav.complete,
                "missing_tables": trav.missing_tables,
                "hands": {**{p: donne.hand(p) for p in POSITIONS}, "chien": donne.chien},
                "rows": rows,
                "distribution": [
                    {"label": o.label, "scores": o.scores, "tables": o.tables, "share": o.share}
                    for o in trav.distribution
                ],
            }
        )


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
    "Arnaud;Camille;0100012;1;2;1;O;Masquée tant que toutes les tables ne l’ont pas jouée;;;;;\r\n"
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
        licences = LicenceReader.of(request.user, self.tournament).everyone
        export = ranking_csv(self.tournament, self.language(), audience, licences=licences)
        return csv_response(export)


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
            licences=LicenceReader.of(request.user, self.tournament).everyone,
        )
        return csv_response(export)


urlpatterns: list[URLPattern] = [
    path(TOURNAMENT + "ranking/", RankingView.as_view(), name="api_ranking"),
    path(TOURNAMENT + "ranking/csv/", RankingCsvView.as_view(), name="api_ranking_csv"),
    path(TOURNAMENT + "score-cards/csv/", ScoreCardsCsvView.as_view(), name="api_score_cards_csv"),
    path(TOURNAMENT + "score-cards/<id:player>/", ScoreCardView.as_view(), name="api_score_card"),
    path(TOURNAMENT + "travellers/<id:number>/", TravellerView.as_view(), name="api_traveller"),
]
urlpatterns += player_urlpatterns  # the player's own pages' API (issue 35)
