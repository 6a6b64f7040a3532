"""Clubs and players: public reads (as the public pages); writes by the club's organisers."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.models import Club, Player
from tournaments.search import players_matching
from tournaments.services.players import (
    PlayerImportError,
    player_create,
    player_update,
    players_import_csv,
)

from ..exceptions import ApiError
from ..permissions import require_club_organiser, require_organiser_of_body_club
from ..schema import IDEMPOTENCY_KEY, READ, WRITE, errors
from ..serializers import (
    ClubSerializer,
    ImportReportSerializer,
    PlayerSerializer,
    PlayersImportSerializer,
    PlayerUpdateSerializer,
    PlayerWriteSerializer,
)
from .base import ApiView, filter_by_params

CLUB_EXAMPLE = {"id": 1, "name": "Tarot Club de Lyon", "federation_number": "0101", "city": "Lyon"}
PLAYER_EXAMPLE = {
    "id": 12,
    "first_name": "Camille",
    "last_name": "Arnaud",
    "licence": "0100012",
    "club": 1,
    "club_name": "Tarot Club de Lyon",
}


class ClubListView(ApiView):
    serializer_class = ClubSerializer
    queryset = Club.objects.all()

    @extend_schema(
        operation_id="clubs_list",
        summary="List the clubs",
        responses={200: ClubSerializer(many=True), **errors(*READ)},
        tags=["clubs and players"],
        examples=[OpenApiExample("A club", value=CLUB_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request) -> Response:
        return self.paginated(Club.objects.order_by("name", "pk"), ClubSerializer)


class ClubDetailView(ApiView):
    serializer_class = ClubSerializer

    @extend_schema(
        operation_id="clubs_retrieve",
        summary="A club",
        responses={200: ClubSerializer, **errors(*READ)},
        tags=["clubs and players"],
        examples=[OpenApiExample("A club", value=CLUB_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, club: int) -> Response:
        return Response(ClubSerializer(get_object_or_404(Club, pk=club)).data)


class ClubPlayersImportView(ApiView):
    serializer_class = ImportReportSerializer

    @extend_schema(
        operation_id="clubs_players_import",
        summary="Import the club's players from CSV",
        description="The same import as the organiser's page: a file with any bad line is "
        "refused as a whole (400, `details` keyed `csv.<line number>`), nothing imported; otherwise new "
        "licences are created and the names of the club's existing ones updated.",
        request=PlayersImportSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ImportReportSerializer, **errors(*WRITE)},
        tags=["clubs and players"],
        examples=[
            OpenApiExample(
                "CSV",
                value={"csv": "licence,last_name,first_name\n0100012,Arnaud,Camille\n"},
                request_only=True,
            ),
            OpenApiExample(
                "Report", value={"created": 1, "updated": 0, "unchanged": 0}, response_only=True
            ),
        ],
    )
    def post(self, request: Request, club: int) -> Response:
        club_obj = get_object_or_404(Club, pk=club)
        require_club_organiser(request.user, club_obj)
        text = self.valid(PlayersImportSerializer).validated_data["csv"]
        try:
            report = players_import_csv(club=club_obj, text=text)
        except PlayerImportError as exc:
            details = {
                f"csv.{line}": [str(r) for r in reasons] for line, reasons in exc.line_errors
            }
            raise ApiError(
                status_code=400,
                code="invalid",
                message=exc.message,
                details=details or {"csv": [exc.message]},
            ) from exc
        return Response(
            {"created": report.created, "updated": report.updated, "unchanged": report.unchanged}
        )


class PlayerListView(ApiView):
    serializer_class = PlayerSerializer

    @extend_schema(
        operation_id="players_list",
        summary="Search the players",
        description="Every player (public, like the players page), optionally of one club or "
        "matching words of a name or the start of a licence.",
        parameters=[
            OpenApiParameter("club", OpenApiTypes.INT, description="Only this club's players."),
            OpenApiParameter(
                "search",
                OpenApiTypes.STR,
                description="Words of the name, or the start of the licence.",
            ),
        ],
        responses={200: PlayerSerializer(many=True), **errors(*READ)},
        tags=["clubs and players"],
        examples=[OpenApiExample("A player", value=PLAYER_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request) -> Response:
        players = Player.objects.select_related("club").order_by("last_name", "first_name", "pk")
        players = filter_by_params(players, request, {"club": "club_id"})
        query = request.query_params.get("search", "").strip()[:200]
        players = players_matching(players, query)
        return self.paginated(players, PlayerSerializer)

    @extend_schema(
        operation_id="players_create",
        summary="Add a player to a club",
        description="For the club's organisers. The licence has 7 digits and is unique.",
        request=PlayerWriteSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: PlayerSerializer, **errors(*WRITE)},
        tags=["clubs and players"],
        examples=[
            OpenApiExample(
                "New player",
                value={
                    "club": 1,
                    "licence": "0100012",
                    "last_name": "Arnaud",
                    "first_name": "Camille",
                },
                request_only=True,
            ),
            OpenApiExample("Created", value=PLAYER_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request: Request) -> Response:
        # Who may add a player, before the body is validated (it would say which licences
        # and clubs exist).
        require_organiser_of_body_club(request.user, request.data)
        data = self.valid(PlayerWriteSerializer).validated_data
        require_club_organiser(request.user, data["club"])
        player = player_create(
            club=data["club"],
            licence=data["licence"],
            last_name=data["last_name"],
            first_name=data["first_name"],
        )
        return Response(PlayerSerializer(player).data, status=201)


class PlayerDetailView(ApiView):
    serializer_class = PlayerSerializer

    def _player(self, player: int) -> Player:
        return get_object_or_404(Player.objects.select_related("club"), pk=player)

    @extend_schema(
        operation_id="players_retrieve",
        summary="A player",
        responses={200: PlayerSerializer, **errors(*READ)},
        tags=["clubs and players"],
        examples=[OpenApiExample("A player", value=PLAYER_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, player: int) -> Response:
        return Response(PlayerSerializer(self._player(player)).data)

    @extend_schema(
        operation_id="players_update",
        summary="Correct a player's names or licence",
        description="For the organisers of the player's club. Only the fields sent change.",
        request=PlayerUpdateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: PlayerSerializer, **errors(*WRITE)},
        tags=["clubs and players"],
        examples=[
            OpenApiExample("New name", value={"last_name": "Arnaud-Roux"}, request_only=True),
            OpenApiExample("Updated", value=PLAYER_EXAMPLE, response_only=True),
        ],
    )
    def patch(self, request: Request, player: int) -> Response:
        obj = self._player(player)
        require_club_organiser(request.user, obj.club)
        data = self.valid(PlayerUpdateSerializer).validated_data
        obj = player_update(
            player=obj,
            licence=data.get("licence", obj.licence),
            last_name=data.get("last_name", obj.last_name),
            first_name=data.get("first_name", obj.first_name),
        )
        return Response(PlayerSerializer(obj).data)
