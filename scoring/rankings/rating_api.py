"""The API of the players' rating ("indice", docs/RATING.md; docs/API.md):

- `GET /api/v1/players/{id}/rating/`: a player's rating and its history event by event, for
  those who see the player's own pages (the player, the organisers and arbiters of the
  player's club: `tournaments.permissions.can_see_player`); 404 when it is off for the club or the
  site.
- `PUT /api/v1/clubs/{id}/rating/`: the club's switch, for its organisers.

`urlpatterns` is included under /api/v1/ by tarot_club/urls.py.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from scoring.rankings.rating import (
    RatingLine,
    club_enabled,
    club_rating_switch,
    player_rating,
    site_enabled,
)
from tarot_club.kit.api.access import deny
from tarot_club.kit.api.errors import ApiError
from tarot_club.kit.api.views import ApiView
from tournaments.api import converters  # noqa: F401 (registers the <id:…> converter)
from tournaments.api.permissions import require_club_organiser
from tournaments.api.schema import IDEMPOTENCY_KEY, READ, WRITE, errors
from tournaments.models import Club, Player, Tournament
from tournaments.permissions import can_see_player


class RatingEventSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    name = serializers.CharField()
    date = serializers.DateField()
    club = serializers.IntegerField()
    rating_before = serializers.FloatField()
    rating_after = serializers.FloatField()
    change = serializers.FloatField()
    deviation_before = serializers.FloatField()
    deviation_after = serializers.FloatField()
    games = serializers.IntegerField()
    expected_percentage = serializers.FloatField()
    achieved_percentage = serializers.FloatField()


class RatingPlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    licence = serializers.CharField()
    club = serializers.IntegerField()


class PlayerRatingSerializer(serializers.Serializer):
    player = RatingPlayerSerializer()
    label = serializers.CharField()
    rated = serializers.BooleanField()
    rating = serializers.FloatField(allow_null=True)
    deviation = serializers.FloatField(allow_null=True)
    events = serializers.IntegerField()
    games = serializers.IntegerField()
    last_date = serializers.DateField(allow_null=True)
    updating = serializers.BooleanField()
    history = RatingEventSerializer(many=True)


class ClubRatingSerializer(serializers.Serializer):
    enabled = serializers.BooleanField(help_text="false switches the rating off for the club")


RATING_EXAMPLE = {
    "player": {"id": 12, "name": "Camille Arnaud", "licence": "0100012", "club": 1},
    "label": "Indice tarot_club: the software's own rating, not the federation's ranking",
    "rated": True,
    "rating": 1563.21,
    "deviation": 84.1,
    "events": 2,
    "games": 96,
    "last_date": "2026-11-28",
    "updating": False,
    "history": [
        {
            "tournament": 31,
            "name": "Tournoi du jeudi",
            "date": "2026-11-28",
            "club": 1,
            "rating_before": 1521.4,
            "rating_after": 1563.21,
            "change": 41.81,
            "deviation_before": 120.3,
            "deviation_after": 84.1,
            "games": 48,
            "expected_percentage": 52.3,
            "achieved_percentage": 60.42,
        }
    ],
}


def rating_off() -> ApiError:
    """The answer when the rating is switched off for the player's club or the site."""
    return ApiError(
        status_code=404,
        code="rating_off",
        message=_("The rating is switched off for this player's club."),
    )


def history_payload(history: list[RatingLine]) -> list[dict[str, Any]]:
    """The history lines with their tournaments' names, newest first; one query."""
    ids = [line.tournament for line in history]
    tournaments = Tournament.objects.filter(pk__in=ids).only("name", "date", "club_id")
    known = {t.pk: t for t in tournaments}
    payload = []
    for line in reversed(history):
        tournament = known.get(line.tournament)
        if tournament is None:  # deleted since the last computation
            continue
        payload.append(
            {
                "tournament": line.tournament,
                "name": tournament.name,
                "date": tournament.date,
                "club": tournament.club_id,
                "rating_before": line.rating_before,
                "rating_after": line.rating_after,
                "change": round(line.change, 2),
                "deviation_before": line.deviation_before,
                "deviation_after": line.deviation_after,
                "games": line.games,
                "expected_percentage": line.expected,
                "achieved_percentage": line.achieved,
            }
        )
    return payload


class PlayerRatingView(ApiView):
    serializer_class = PlayerRatingSerializer

    @extend_schema(
        operation_id="player_rating",
        summary="A player's rating (indice) and its history",
        description="The software's own rating (Glicko-2 over every comparison with a player "
        "who held the same cards; docs/RATING.md), not the federation's ranking. For the "
        "player (the account linked to the player) and the organisers and arbiters of the "
        "player's club. `rated` is false until the player has a game in a published "
        "tournament; `history` is newest first, with per event "
        "the rating before and after, the games, and the percentage expected from the field's "
        "ratings against the one scored. `updating`: a saved change is not in it yet. 404 "
        "`rating_off` when the rating is switched off for the player's club or the site.",
        responses={200: PlayerRatingSerializer, **errors(*READ)},
        tags=["clubs and players"],
        examples=[OpenApiExample("A rated player", value=RATING_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, player: int) -> Response:
        obj = get_object_or_404(Player, pk=player)
        if not can_see_player(request.user, obj):
            raise deny(
                request.user,
                _(
                    "Only the player and the organisers and arbiters of the player's club see this rating."
                ),
            )
        if not club_enabled(obj.club_id):
            raise rating_off()
        read = player_rating(obj.pk)
        rating = read.rating
        body = {
            "player": {
                "id": obj.pk,
                "name": obj.full_name,
                "licence": obj.licence,
                "club": obj.club_id,
            },
            "label": _(
                "Indice tarot_club: the software's own rating, not the federation's ranking"
            ),
            "rated": rating is not None,
            "rating": rating.rating if rating else None,
            "deviation": rating.deviation if rating else None,
            "events": rating.events if rating else 0,
            "games": rating.games if rating else 0,
            "last_date": rating.last_date if rating else None,
            "updating": read.updating,
            "history": history_payload(read.history),
        }
        return Response(PlayerRatingSerializer(body).data)


class ClubRatingView(ApiView):
    serializer_class = ClubRatingSerializer

    @extend_schema(
        operation_id="club_rating_switch",
        summary="Switch the rating on or off for a club",
        description="For the club's organisers. Off, the club's tournaments are not counted "
        "and its players' ratings are shown nowhere; the rating is computed again.",
        request=ClubRatingSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ClubRatingSerializer, **errors(*WRITE, 409)},
        tags=["clubs and players"],
        examples=[OpenApiExample("Off", value={"enabled": False})],
    )
    def put(self, request: Request, club: int) -> Response:
        obj = get_object_or_404(Club, pk=club)
        require_club_organiser(request.user, obj)
        enabled = self.valid(ClubRatingSerializer).validated_data["enabled"]
        if not site_enabled():
            raise ApiError(
                status_code=409,
                code="rating_off",
                message=_("The rating is switched off for this whole site (RATING_ENABLED)."),
            )
        club_rating_switch(club_id=obj.pk, enabled=enabled)
        return Response({"enabled": enabled})


urlpatterns: list[URLPattern] = [
    path("players/<id:player>/rating/", PlayerRatingView.as_view(), name="api_player_rating"),
    path("clubs/<id:club>/rating/", ClubRatingView.as_view(), name="api_club_rating"),
]
