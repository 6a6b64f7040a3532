"""The API of the player's own pages (issue 35): his events (`/players/<id>/history/`) and
his report of one event (`/players/<id>/events/<tournament>/report/`), under the pages' rules
(`scoring.rankings.player_views`):

- history: the player himself and his club's organisers;
- report: the player himself and the event's arbiters and organisers, once every donne of
  the event is complete and no simultaneous embargo holds it (403 `report_not_open`).

Anonymous callers get 401, others 403, unknown ids 404; no answer holds a licence.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from scoring.rankings.player_history import HistoryLine, history_lines
from scoring.rankings.player_report import (
    EMBARGO,
    NOT_STARTED,
    OPEN,
    DonneLine,
    EventReport,
    event_report,
    report_state,
)
from scoring.rankings.rating import RatingLine, RatingSummary, rating_summary, with_rating
from tarot_club.kit.api.access import deny
from tarot_club.kit.api.errors import ApiError
from tarot_club.kit.api.views import ApiView
from tournaments.api.converters import TOURNAMENT  # noqa: F401 — registers <id:…>
from tournaments.api.schema import READ, errors
from tournaments.api.serializers import fraction_text
from tournaments.models import Player, Tournament
from tournaments.permissions import can_manage_tournament, is_club_organiser


def _player(pk: int) -> Player:
    return get_object_or_404(Player.objects.select_related("club"), pk=pk)


def player_brief(player: Player) -> dict[str, Any]:
    """A player as these answers name him: no licence."""
    return {"id": player.pk, "name": player.full_name, "club": player.club_id}


def rating_line_data(line: RatingLine | None) -> dict[str, Any] | None:
    """The player's rating around one event (None: not counted, or the rating not shown)."""
    if line is None:
        return None
    return {
        "before": line.rating_before,
        "after": line.rating_after,
        "change": round(line.change, 2),
        "expected_percentage": line.expected,
        "achieved_percentage": line.achieved,
        "games": line.games,
    }


def history_line_data(line: HistoryLine, rating: RatingSummary | None = None) -> dict[str, Any]:
    """One event of the history as the API gives it (exact numbers as "n/d" text), with the
    player's rating around it when `rating` shows one."""
    t = line.tournament
    by_tournament = rating.by_tournament if rating is not None and rating.shown else {}
    return {
        "tournament": {
            "id": t.pk,
            "name": t.name,
            "date": t.date.isoformat(),
            "club": {"id": t.club_id, "name": t.club.name},
            "method": t.method,
        },
        "rank": line.rank,
        "field_size": line.field_size,
        "total": fraction_text(line.total),
        "percentage": fraction_text(line.percentage),
        "field_share": fraction_text(line.field_share),
        "donnes_played": line.donnes_played,
        "penalty_points": line.penalty_points,
        "live": line.live,
        "is_current": line.is_current,
        "rating": rating_line_data(by_tournament.get(t.pk)),
    }


HISTORY_EXAMPLE = {
    "player": {"id": 12, "name": "Camille Arnaud", "club": 1},
    "events": [
        {
            "tournament": {
                "id": 31,
                "name": "Tournoi du samedi",
                "date": "2026-12-05",
                "club": {"id": 1, "name": "Club de Lyon"},
                "method": "matchpoints",
            },
            "rank": 2,
            "field_size": 28,
            "total": "1147/20",
            "percentage": "1147/20",
            "field_share": "2500/27",
            "donnes_played": 24,
            "penalty_points": 0,
            "live": False,
            "is_current": True,
            "rating": {
                "before": 1521.4,
                "after": 1563.21,
                "change": 41.81,
                "expected_percentage": 52.3,
                "achieved_percentage": 60.42,
                "games": 96,
            },
        }
    ],
    "rating": {"shown": True, "rating": 1563.21, "deviation": 84.1},
}


class PlayerHistoryView(ApiView):
    @extend_schema(
        operation_id="player_history",
        summary="A player's events, newest first (Mon tarot)",
        description="Every started event of the player: rank and field, total under the "
        "event's method (`percentage` under match points), `field_share` the share of the "
        "field the player finished ahead of (0–100, the chart's measure). While an event runs "
        "(`live`), its line counts complete donnes only, as the room's ranking. For the "
        "player (their own account) and the organisers of their club. `rating` (each event's, "
        "and the player's current one) is the software's own indice (docs/RATING.md): null for "
        "an event it does not count (not published yet), and `shown: false` when the club or "
        "the site switched it off.",
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT, examples=[OpenApiExample("History", value=HISTORY_EXAMPLE)]
            ),
            **errors(*READ),
        },
        tags=["players"],
    )
    def get(self, request: Request, player: int) -> Response:
        players = with_rating(Player.objects.select_related("club"))
        target = get_object_or_404(players, pk=player)
        user = request.user
        if not (user.is_authenticated and target.user_id == user.pk) and not is_club_organiser(
            user, target.club
        ):
            raise deny(
                user,
                _("Only the players themselves and their club's organisers read their events."),
            )
        rating = rating_summary(target)
        return Response(
            {
                "player": player_brief(target),
                "events": [history_line_data(line, rating) for line in history_lines(target)],
                "rating": {
                    "shown": rating.shown,
                    "rating": rating.rating,
                    "deviation": rating.deviation,
                },
            }
        )


def _donne_data(line: DonneLine) -> dict[str, Any]:
    comparison = line.comparison
    return {
        "donne": line.number,
        "table": line.table_number,
        "position": line.position,
        "status": line.status,
        "outcome": line.outcome,
        "score": line.score,
        "differential": fraction_text(line.differential),
        "percentage": fraction_text(line.percentage),
        "matchpoints": comparison.matchpoints if comparison else None,
        "top": comparison.top if comparison else None,
        "tables": comparison.tables if comparison else 0,
        "hands": {hand.position: hand.raw for hand in line.hands},
        "chien": line.chien.raw if line.chien else None,
        "field": [
            {"outcome": o.key, "score": fraction_text(o.score), "tables": o.tables}
            for o in line.outcomes
        ],
        "best_third": (
            {
                "tables": line.best.tables,
                "mean": fraction_text(line.best.mean),
                "outcomes": [
                    {"outcome": o.key, "score": fraction_text(o.score), "tables": o.tables}
                    for o in line.best.outcomes
                ],
            }
            if line.best
            else None
        ),
    }


def report_data(report: EventReport) -> dict[str, Any]:
    """The report as the API gives it."""
    t = report.tournament
    return {
        "player": player_brief(report.player),
        "tournament": {"id": t.pk, "name": t.name, "date": t.date.isoformat(), "method": t.method},
        "differential_total": fraction_text(report.differential_total),
        "matchpoint_share": fraction_text(report.matchpoint_share),
        "donnes": [_donne_data(line) for line in report.lines],
        "gained": [line.number for line in report.gained],
        "lost": [line.number for line in report.lost],
    }


def closed_message(state: str) -> str:
    if state == EMBARGO:
        return _(
            "This event is part of a simultaneous event: its hands and results stay hidden "
            "until every club has played."
        )
    if state == NOT_STARTED:
        return _("This event has not started: there is no report yet.")
    return _("The report opens once every table has played every donne of the event.")


REPORT_EXAMPLE = {
    "player": {"id": 12, "name": "Camille Arnaud", "club": 1},
    "tournament": {
        "id": 31,
        "name": "Tournoi du samedi",
        "date": "2026-12-05",
        "method": "average",
    },
    "differential_total": "273/2",
    "matchpoint_share": "1147/20",
    "donnes": [
        {
            "donne": 1,
            "table": 3,
            "position": "N",
            "status": "played",
            "outcome": "Garde by North",
            "score": 204,
            "differential": "136",
            "percentage": "100",
            "matchpoints": 4,
            "top": 4,
            "tables": 3,
            "hands": {"N": "S:R D 7 …", "E": "…", "S": "…", "W": "…"},
            "chien": "…",
            "field": [
                {"outcome": "Garde by North", "score": "204", "tables": 1},
                {"outcome": "Prise by North", "score": "-42", "tables": 2},
            ],
            "best_third": {
                "tables": 1,
                "mean": "204",
                "outcomes": [{"outcome": "Garde by North", "score": "204", "tables": 1}],
            },
        }
    ],
    "gained": [1],
    "lost": [],
}


class PlayerReportView(ApiView):
    @extend_schema(
        operation_id="player_event_report",
        summary="A player's report of one event",
        description="Each donne the player played against the field at that position: the hands (the "
        "donne notation of docs/formats.md), the table's outcome and the player's score, differential "
        "under the event's method (exact, \"n/d\"), the match points out of `top`, the field's "
        "outcomes with how many tables, what the best third of the field did; then the "
        "donnes (numbers) that gained and lost most. For the player (their own account) and the event's "
        "arbiters and organisers; 403 `report_not_open` until every donne of the event is "
        "complete (and, for a simultaneous event, the embargo ended); 404 when the player did not "
        "play it.",
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT, examples=[OpenApiExample("Report", value=REPORT_EXAMPLE)]
            ),
            **errors(*READ),
        },
        tags=["players"],
    )
    def get(self, request: Request, player: int, tournament: int) -> Response:
        target = _player(player)
        event = get_object_or_404(Tournament.objects.select_related("club"), pk=tournament)
        user = request.user
        own = user.is_authenticated and target.user_id == user.pk
        if not own and not can_manage_tournament(user, event):
            raise deny(user, _("A player's report is for that player and the event's arbiters."))
        state = report_state(event)
        if state != OPEN:
            raise ApiError(status_code=403, code="report_not_open", message=closed_message(state))
        report = event_report(event, target)
        if report is None:
            raise ApiError(
                status_code=404,
                code="not_found",
                message=_("%(player)s does not play in %(tournament)s.")
                % {"player": target.full_name, "tournament": event.name},
            )
        return Response(report_data(report))


urlpatterns: list[URLPattern] = [
    path("players/<id:player>/history/", PlayerHistoryView.as_view(), name="api_player_history"),
    path(
        "players/<id:player>/events/<id:tournament>/report/",
        PlayerReportView.as_view(),
        name="api_player_report",
    ),
]
