"""Clubs and players: public reads (as the public pages); writes by the club's organisers.
Any signed-in user may create a club (he becomes its organiser); its organisers create the
accounts of its organisers and arbiters."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.kit.api.errors import ApiError
from tarot_club.kit.api.views import ApiView
from tournaments.models import Club, Player, Tournament
from tournaments.permissions import LicenceReader, can_see_licence
from tournaments.search import name_ordering, players_matching
from tournaments.services.clubs import club_account_create, club_create
from tournaments.services.players import (
    PlayerImportError,
    player_create,
    player_update,
    players_import_csv,
)

from ..permissions import require_club_organiser, require_login, require_organiser_of_body_club
from ..schema import IDEMPOTENCY_KEY, READ, WRITE, errors
from ..serializers import (
    AccountCreatedSerializer,
    AccountWriteSerializer,
    ClubSerializer,
    ClubWriteSerializer,
    ImportReportSerializer,
    PlayerSerializer,
    PlayersImportSerializer,
    PlayerUpdateSerializer,
    PlayerWriteSerializer,
)
from .base import filter_by_params

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

    @extend_schema(
        operation_id="clubs_create",
        summary="Create a club",
        description="Any signed-in user; they become the club's organiser. The federation "
        "number is unique.",
        request=ClubWriteSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: ClubSerializer, **errors(*WRITE)},
        tags=["clubs and players"],
        examples=[
            OpenApiExample(
                "New club",
                value={"name": "Tarot Club de Lyon", "federation_number": "0101", "city": "Lyon"},
                request_only=True,
            ),
            OpenApiExample("Created", value=CLUB_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request: Request) -> Response:
        require_login(request.user)
        data = self.valid(ClubWriteSerializer).validated_data
        club = club_create(user=request.user, **data)
        return Response(ClubSerializer(club).data, status=201)


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


class ClubAccountsView(ApiView):
    serializer_class = AccountCreatedSerializer

    @extend_schema(
        operation_id="clubs_accounts_create",
        summary="Create an organiser or arbiter account for the club",
        description="For the club's organisers. The account has no password: the answer "
        "holds a one-time link (`set_password_url`) where its owner chooses it; it is shown "
        "only here. An arbiter is named arbiter of the club's `tournaments` given (others "
        "later, in each tournament).",
        request=AccountWriteSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: AccountCreatedSerializer, **errors(*WRITE)},
        tags=["clubs and players"],
        examples=[
            OpenApiExample(
                "Arbiter",
                value={"username": "arbitre2", "role": "arbiter", "tournaments": [3]},
                request_only=True,
            ),
            OpenApiExample(
                "Created",
                value={
                    "username": "arbitre2",
                    "role": "arbiter",
                    "tournaments": [3],
                    "set_password_url": "https://club.example/account/set-password/Mw/cf1…/",
                },
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request, club: int) -> Response:
        club_obj = get_object_or_404(Club, pk=club)
        require_club_organiser(request.user, club_obj)
        data = self.valid(AccountWriteSerializer).validated_data
        ids = data.pop("tournaments")
        tournaments = list(Tournament.objects.filter(pk__in=ids))
        if len(tournaments) != len(set(ids)) or any(t.club_id != club_obj.pk for t in tournaments):
            raise ApiError(
                status_code=400,
                code="invalid",
                message=_("Choose tournaments of this club."),
                details={"tournaments": [_("Choose tournaments of this club.")]},
            )
        created = club_account_create(
            club=club_obj, by=request.user, tournaments=tournaments, **data
        )
        return Response(
            {
                "username": created.user.username,
                "role": created.role,
                "tournaments": sorted(t.pk for t in tournaments),
                "set_password_url": request.build_absolute_uri(created.set_password_path),
            },
            status=201,
        )


def player_data(user: Any, player: Player) -> dict[str, Any]:
    """A player as the API gives him: his licence for whom `can_see_licence` lets read it (the
    player, staff, the organisers and arbiters of his club or of a tournament he plays),
    null for anyone else."""
    reader = LicenceReader(user.pk, can_see_licence(user, player), frozenset())
    return PlayerSerializer(player, context={"licences": reader}).data


class PlayerListView(ApiView):
    serializer_class = PlayerSerializer

    @extend_schema(
        operation_id="players_list",
        summary="Search the players",
        description="Every player (public, like the players page), optionally of one club or "
        "matching words of a name or (for a caller who reads licences: an organiser or arbiter "
        "of a club, staff) the start of a licence. `licence` is null unless the caller is the "
        "player, an organiser or arbiter of the player's club, or staff.",
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
        players = Player.objects.select_related("club").order_by(*name_ordering())
        players = filter_by_params(players, request, {"club": "club_id"})
        query = request.query_params.get("search", "").strip()[:200]
        reader = LicenceReader.of(request.user)
        players = players_matching(players, query, licences=reader.searches_licences)
        return self.paginated(players, PlayerSerializer, licences=reader)

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
        return Response(player_data(request.user, player), status=201)


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
        return Response(player_data(request.user, self._player(player)))

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
        return Response(player_data(request.user, obj))
