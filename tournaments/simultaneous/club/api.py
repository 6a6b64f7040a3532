"""The club's side of a simultaneous event in the API: joining an event
(`POST /api/v1/simultaneous/join/`), as the pages "Join a simultaneous event" and a
tournament's "Simultaneous event" do, with the same checks (services.join)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.kit.api.access import deny
from tarot_club.kit.api.errors import NON_FIELD, ApiError
from tarot_club.kit.api.views import ApiView
from tournaments.api.schema import IDEMPOTENCY_KEY, WRITE, errors
from tournaments.models import Club, Tournament
from tournaments.permissions import can_manage_tournament

from . import services
from .models import SimultaneousLink


class JoinSerializer(serializers.Serializer):
    hub_url = serializers.CharField(
        max_length=300, help_text="The hub's address, https://… (as the organiser gave it)."
    )
    token = serializers.CharField(max_length=200, help_text="The token of the club's invitation.")
    club = serializers.IntegerField(
        required=False, help_text="A club you organise: a new tournament of it joins."
    )
    tournament = serializers.IntegerField(
        required=False,
        help_text="Or a tournament you manage that has not started: it joins (same rounds "
        "and method as the event).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("club" in attrs) == ("tournament" in attrs):
            message = _("Give either the club (a new tournament) or the tournament that joins.")
            raise serializers.ValidationError({"club": [message]})
        return attrs


class LinkSerializer(serializers.ModelSerializer):
    tournament = serializers.IntegerField(source="tournament_id")
    warnings = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        default=list,
        help_text="What the club must know: e.g. more players registered than the event's "
        "étui sets seat.",
    )
    state = serializers.CharField(
        help_text="joined, acknowledged, pending, failing, refused or stale (the link's page "
        "says what each means)."
    )

    class Meta:
        model = SimultaneousLink
        fields = [
            "tournament",
            "hub_url",
            "event",
            "event_name",
            "invitation",
            "club_name",
            "sets",
            "state",
            "warnings",
        ]


JOINED = {
    "tournament": 12,
    "hub_url": "https://hub.example.org/",
    "event": "3f2a9c1d0b7e4a55",
    "event_name": "Simultané d'hiver",
    "invitation": "a1b2c3d4e5f60718",
    "club_name": "Tarot Club de Lyon",
    "sets": 10,
    "state": "joined",
    "warnings": [],
}


def _joining_clubs(user: Any) -> Any:
    clubs = Club.objects.all()
    return clubs if user.is_superuser else clubs.filter(organisers=user)


class JoinView(ApiView):
    @extend_schema(
        operation_id="simultaneous_join",
        summary="Join a simultaneous event with a new tournament of a club, or a tournament",
        description='The club\'s side (the pages "Join a simultaneous event" and a '
        'tournament\'s "Simultaneous event"): the hub is asked for the event with the token; '
        "the tournament plays its donnes and sends its results there. Refused (400, "
        "`refused`, the reason in `message`): hub unreachable or not a hub, token refused, "
        "rounds or method differ, players without licence, a movement needing more étui sets "
        "than the event deals, the invitation already joined by another tournament.",
        request=JoinSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: LinkSerializer, **errors(*WRITE)},
        tags=["simultaneous events"],
        examples=[
            OpenApiExample(
                "New tournament",
                value={"club": 3, "hub_url": "https://hub.example.org/", "token": "Vb3…"},
                request_only=True,
            ),
            OpenApiExample("Joined", value=JOINED, response_only=True),
        ],
    )
    def post(self, request: Request) -> Response:
        user = request.user
        clubs = _joining_clubs(user) if user.is_authenticated else Club.objects.none()
        if not user.is_authenticated or not clubs.exists():
            raise deny(user, _("Only the organisers of a club may join an event."))
        data = self.valid(JoinSerializer).validated_data
        tournament, club = None, None
        if "tournament" in data:
            tournament = Tournament.objects.select_related("club").filter(pk=data["tournament"])
            tournament = tournament.first()
            if tournament is None or not can_manage_tournament(user, tournament):
                raise deny(user, _("Only the club's organisers and the arbiters may do this."))
        else:
            club = clubs.filter(pk=data["club"]).first()
            if club is None:
                raise deny(user, _("Choose a club you organise."))
        try:
            link = services.join(
                hub_url=data["hub_url"],
                token=data["token"],
                user=user,
                tournament=tournament,
                club=club,
            )
        except services.JoinError as err:
            raise ApiError(
                status_code=400,
                code="refused",
                message=str(err),
                details={NON_FIELD: [str(err)]},
            ) from None
        answer = {**LinkSerializer(link).data, "warnings": services.join_warnings(link)}
        return Response(answer, status=201)
