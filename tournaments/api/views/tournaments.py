"""Tournaments and what shapes them: status, generation, registrations, rounds, tables,
seats, étui sets and donnes. Reads follow the screens: the public page for the tournament,
the organiser's pages for registrations, the results pages for seats and donnes."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.kit.api.errors import ApiError, invalid
from tarot_club.kit.api.views import ApiView
from tournaments.models import (
    Donne,
    EtuiSet,
    Player,
    Registration,
    Round,
    Seat,
    Table,
    TableRound,
)
from tournaments.search import name_ordering
from tournaments.selectors import complete_donnes, visible_tournaments
from tournaments.services.clubs import club_staff_named
from tournaments.services.preparation import tournament_reveal_seed
from tournaments.services.registration import (
    registration_add,
    registration_check_in,
    registration_check_in_all,
    registration_check_out,
    registration_remove,
    registrations_add,
)
from tournaments.services.results import ResultInvalid, round_close
from tournaments.services.rounds import (
    round_close_annulling,
    round_missing_cells,
    round_open_checked,
)
from tournaments.services.tournaments import (
    tournament_create,
    tournament_prepare,
    tournament_set_status,
    tournament_update,
)

from .. import permissions as rules
from ..schema import IDEMPOTENCY_KEY, READ, WRITE, errors
from ..serializers import (
    CountSerializer,
    DonneSerializer,
    EtuiSetSerializer,
    GenerateSerializer,
    RegistrationsCreatedSerializer,
    RegistrationSerializer,
    RegistrationWriteSerializer,
    RoundClosedSerializer,
    RoundCloseSerializer,
    RoundOpenSerializer,
    RoundSerializer,
    SeatSerializer,
    TableSerializer,
    TournamentSerializer,
    TournamentStatusSerializer,
    TournamentUpdateSerializer,
    TournamentWriteSerializer,
)
from .base import TournamentView, filter_by_params

TAG = "tournaments"
TOURNAMENT_EXAMPLE = {
    "id": 3,
    "club": 1,
    "club_name": "Tarot Club de Lyon",
    "name": "Tournoi du samedi",
    "date": "2026-12-05",
    "venue": "Salle des fêtes",
    "rounds": 2,
    "donnes_per_relais": 4,
    "method": "average",
    "matchpoint_penalty_rate": "0.100",
    "status": "running",
    "arbiters": ["arbitre"],
    "identity": "tarot_club/0751234/3/2026-12-05",
    "commitment": "3f1c…",
    "seed": None,
    "seed_revealed_at": None,
    "results_version": 12,
    "created_at": "2026-11-20T18:03:11+01:00",
}


class TournamentListView(ApiView):
    serializer_class = TournamentSerializer

    @extend_schema(
        operation_id="tournaments_list",
        summary="List the tournaments you may see",
        description="Every tournament but drafts, plus the drafts you organise or arbitrate.",
        parameters=[
            OpenApiParameter("club", OpenApiTypes.INT, description="Only this club's."),
            OpenApiParameter(
                "status",
                OpenApiTypes.STR,
                enum=["draft", "registration", "running", "finished", "published"],
            ),
        ],
        responses={200: TournamentSerializer(many=True), **errors(*READ)},
        tags=[TAG],
        examples=[OpenApiExample("A tournament", value=TOURNAMENT_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request) -> Response:
        qs = (
            visible_tournaments(request.user)
            .prefetch_related("arbiters")
            .order_by("-date", "name", "pk")
        )
        qs = filter_by_params(qs, request, {"club": "club_id"})
        status = request.query_params.get("status", "")
        if status:
            qs = qs.filter(status=status)
        return self.paginated(qs, TournamentSerializer)

    @extend_schema(
        operation_id="tournaments_create",
        summary="Create a tournament (draft)",
        description="For the club's organisers. It starts as a draft: register the players, "
        "check them in, generate the seating, then move it to running.",
        request=TournamentWriteSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: TournamentSerializer, **errors(*WRITE)},
        tags=[TAG],
        examples=[
            OpenApiExample(
                "New tournament",
                value={
                    "club": 1,
                    "name": "Tournoi du samedi",
                    "date": "2026-12-05",
                    "venue": "Salle des fêtes",
                    "rounds": 2,
                    "method": "average",
                    "arbiters": ["arbitre"],
                },
                request_only=True,
            ),
            OpenApiExample(
                "Created", value={**TOURNAMENT_EXAMPLE, "status": "draft"}, response_only=True
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        # Who may create, before the body is validated: its errors (an arbiter's user name
        # that does not exist) would tell a stranger which accounts exist.
        rules.require_organiser_of_body_club(request.user, request.data)
        data = dict(self.valid(TournamentWriteSerializer).validated_data)
        rules.require_club_organiser(request.user, data["club"])
        if "arbiters" in data:
            data["arbiters"] = club_staff_named(data["club"], data["arbiters"])
        tournament = tournament_create(**data, user=request.user)
        return Response(
            TournamentSerializer(tournament, context={"request": request}).data, status=201
        )


class TournamentDetailView(TournamentView):
    serializer_class = TournamentSerializer

    @extend_schema(
        operation_id="tournaments_retrieve",
        summary="A tournament",
        responses={200: TournamentSerializer, **errors(*READ)},
        tags=[TAG],
        examples=[OpenApiExample("A tournament", value=TOURNAMENT_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int) -> Response:
        return Response(TournamentSerializer(self.tournament, context={"request": request}).data)

    @extend_schema(
        operation_id="tournaments_update",
        summary="Change a tournament's details",
        description="For its organisers and arbiters. Rounds and donnes per relais change only "
        "before it runs; a new comparison method recomputes the ranking.",
        request=TournamentUpdateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: TournamentSerializer, **errors(*WRITE)},
        tags=[TAG],
        examples=[
            OpenApiExample("Method", value={"method": "matchpoints"}, request_only=True),
            OpenApiExample(
                "Updated", value={**TOURNAMENT_EXAMPLE, "method": "matchpoints"}, response_only=True
            ),
        ],
    )
    def patch(self, request: Request, tournament: int) -> Response:
        data = dict(self.valid(TournamentUpdateSerializer).validated_data)
        arbiters = data.pop("arbiters", None)
        if arbiters is not None:
            arbiters = club_staff_named(
                self.tournament.club, arbiters, kept=self.tournament.arbiters.all()
            )
        updated = tournament_update(
            tournament=self.tournament, arbiters=arbiters, user=request.user, **data
        )
        return Response(TournamentSerializer(updated, context={"request": request}).data)


class TournamentStatusView(TournamentView):
    serializer_class = TournamentSerializer

    @extend_schema(
        operation_id="tournaments_status",
        summary="Move a tournament's status",
        description="draft → registration → running → finished → published, with a few ways "
        "back. Refusals (400, code `refused`) say why: running needs a seating generated for "
        "exactly the checked-in players; published needs finished, and while results are "
        "missing `confirm_missing: true` (else 400, code `needs_confirmation`, with the missing "
        "cells in `missing`).",
        request=TournamentStatusSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: TournamentSerializer, **errors(*WRITE)},
        tags=[TAG],
        examples=[
            OpenApiExample("Start", value={"status": "running"}, request_only=True),
            OpenApiExample("Running", value=TOURNAMENT_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        data = self.valid(TournamentStatusSerializer).validated_data
        updated = tournament_set_status(
            tournament=self.tournament,
            status=data["status"],
            user=request.user,
            confirm_missing=data.get("confirm_missing", False),
        )
        updated.refresh_from_db()
        return Response(TournamentSerializer(updated, context={"request": request}).data)


class TournamentGenerateView(TournamentView):
    serializer_class = TournamentSerializer

    @extend_schema(
        operation_id="tournaments_generate",
        summary="Generate the seating, movement and donnes",
        description="From the checked-in players, before the tournament runs (refused once "
        "results exist). The seed stays secret; its commitment is public.",
        request=GenerateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: TournamentSerializer, **errors(*WRITE)},
        tags=[TAG],
        examples=[
            OpenApiExample("Generate", value={}, request_only=True),
            OpenApiExample(
                "Generated",
                value={**TOURNAMENT_EXAMPLE, "status": "registration"},
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        seed = self.valid(GenerateSerializer).validated_data.get("seed") or None
        updated = tournament_prepare(tournament=self.tournament, seed=seed, user=request.user)
        return Response(TournamentSerializer(updated, context={"request": request}).data)


class TournamentRevealSeedView(TournamentView):
    serializer_class = TournamentSerializer

    @extend_schema(
        operation_id="tournaments_reveal_seed",
        summary="Reveal the seed after the event",
        description="Once finished: anyone can then check every donne against the commitment.",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: TournamentSerializer, **errors(*WRITE)},
        tags=[TAG],
        examples=[
            OpenApiExample(
                "Revealed",
                value={
                    **TOURNAMENT_EXAMPLE,
                    "status": "finished",
                    "seed": "5eed…",
                    "seed_revealed_at": "2026-12-05T19:00:00+01:00",
                },
                response_only=True,
            )
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        tournament_reveal_seed(tournament=self.tournament, user=request.user)
        return Response(TournamentSerializer(self.tournament, context={"request": request}).data)


# --- registrations ---------------------------------------------------------------------------

REGISTRATION_EXAMPLE = {
    "player": {"id": 12, "name": "Camille Arnaud", "licence": "0100012", "club": 1},
    "registered_at": "2026-11-28T10:00:00+01:00",
    "checked_in": True,
    "checked_in_at": "2026-12-05T13:45:00+01:00",
}


class RegistrationListView(TournamentView):
    read_rule = rules.MANAGE
    serializer_class = RegistrationSerializer

    @extend_schema(
        operation_id="registrations_list",
        summary="The registered players",
        description="For the organisers and arbiters (as the registrations page).",
        responses={200: RegistrationSerializer(many=True), **errors(*READ)},
        tags=["registrations"],
        examples=[OpenApiExample("Checked in", value=REGISTRATION_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int) -> Response:
        qs = Registration.objects.filter(tournament=self.tournament).select_related("player")
        return self.paginated(qs.order_by(*name_ordering("player__")), RegistrationSerializer)

    @extend_schema(
        operation_id="registrations_create",
        summary="Register a player, or several in one go",
        description="Before the tournament runs. `player`: one player, answered with their "
        "registration. `players`: a list, all registered or none; the answer counts and lists "
        "them; a refusal (400, code `refused`) names each refused player in `refused` (already "
        "registered, listed twice), an unknown id is named in `details.players`. With "
        "`checked_in`, late arrivals registered at the door (the seating then shows as out of "
        "date: generate it again).",
        request=RegistrationWriteSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            201: PolymorphicProxySerializer(
                component_name="RegistrationCreated",
                serializers=[RegistrationSerializer, RegistrationsCreatedSerializer],
                resource_type_field_name=None,
            ),
            **errors(*WRITE),
        },
        tags=["registrations"],
        examples=[
            OpenApiExample(
                "Register", value={"player": 12, "checked_in": False}, request_only=True
            ),
            OpenApiExample("Register several", value={"players": [12, 13, 14]}, request_only=True),
            OpenApiExample("Registered", value=REGISTRATION_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        data = self.valid(RegistrationWriteSerializer).validated_data
        if "players" in data:
            registrations = registrations_add(
                tournament=self.tournament,
                players=data["players"],
                checked_in=data["checked_in"],
                user=request.user,
            )
            return Response(
                {
                    "count": len(registrations),
                    "registrations": RegistrationSerializer(registrations, many=True).data,
                },
                status=201,
            )
        registration = registration_add(
            tournament=self.tournament,
            player=data["player"],
            checked_in=data["checked_in"],
            user=request.user,
        )
        return Response(RegistrationSerializer(registration).data, status=201)


class RegistrationCheckInAllView(TournamentView):
    serializer_class = CountSerializer

    @extend_schema(
        operation_id="registrations_check_in_all",
        summary="Check in every registered player",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: CountSerializer, **errors(*WRITE)},
        tags=["registrations"],
        examples=[OpenApiExample("Checked in", value={"count": 7}, response_only=True)],
    )
    def post(self, request: Request, tournament: int) -> Response:
        return Response(
            {"count": registration_check_in_all(tournament=self.tournament, user=request.user)}
        )


class RegistrationDetailView(TournamentView):
    read_rule = rules.MANAGE
    serializer_class = RegistrationSerializer

    def _registration(self, player: int) -> Registration:
        return get_object_or_404(
            Registration.objects.select_related("player"),
            tournament=self.tournament,
            player_id=player,
        )

    @extend_schema(
        operation_id="registrations_retrieve",
        summary="One registration",
        responses={200: RegistrationSerializer, **errors(*READ)},
        tags=["registrations"],
        examples=[OpenApiExample("Registered", value=REGISTRATION_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int, player: int) -> Response:
        return Response(RegistrationSerializer(self._registration(player)).data)

    @extend_schema(
        operation_id="registrations_delete",
        summary="Unregister a player",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={204: None, **errors(*WRITE)},
        tags=["registrations"],
    )
    def delete(self, request: Request, tournament: int, player: int) -> Response:
        registration = self._registration(player)
        registration_remove(
            tournament=self.tournament, player=registration.player, user=request.user
        )
        return Response(status=204)


class RegistrationCheckView(TournamentView):
    """check-in (``checked_in=True``) or check-out."""

    serializer_class = RegistrationSerializer
    checked_in = True

    def post(self, request: Request, tournament: int, player: int) -> Response:
        obj = get_object_or_404(Player, pk=player)
        action = registration_check_in if self.checked_in else registration_check_out
        registration = action(tournament=self.tournament, player=obj, user=request.user)
        registration.player = obj
        return Response(RegistrationSerializer(registration).data)


class RegistrationCheckInView(RegistrationCheckView):
    checked_in = True

    @extend_schema(
        operation_id="registrations_check_in",
        summary="Check a player in",
        description="Checking in twice keeps the first time.",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: RegistrationSerializer, **errors(*WRITE)},
        tags=["registrations"],
        examples=[OpenApiExample("Checked in", value=REGISTRATION_EXAMPLE, response_only=True)],
    )
    def post(self, request: Request, tournament: int, player: int) -> Response:
        return super().post(request, tournament, player)


class RegistrationCheckOutView(RegistrationCheckView):
    checked_in = False

    @extend_schema(
        operation_id="registrations_check_out",
        summary="Undo a player's check-in",
        request=None,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: RegistrationSerializer, **errors(*WRITE)},
        tags=["registrations"],
        examples=[
            OpenApiExample(
                "Not checked in",
                value={**REGISTRATION_EXAMPLE, "checked_in": False, "checked_in_at": None},
                response_only=True,
            )
        ],
    )
    def post(self, request: Request, tournament: int, player: int) -> Response:
        return super().post(request, tournament, player)


# --- rounds, tables, seats --------------------------------------------------------------------


class RoundListView(TournamentView):
    serializer_class = RoundSerializer

    @extend_schema(
        operation_id="rounds_list",
        summary="The rounds and their state",
        responses={200: RoundSerializer(many=True), **errors(*READ)},
        tags=["seating"],
        examples=[OpenApiExample("Open", value={"number": 1, "state": "open"}, response_only=True)],
    )
    def get(self, request: Request, tournament: int) -> Response:
        return self.paginated(
            Round.objects.filter(tournament=self.tournament).order_by("number"), RoundSerializer
        )


class RoundDetailView(TournamentView):
    serializer_class = RoundSerializer

    @extend_schema(
        operation_id="rounds_retrieve",
        summary="A round",
        responses={200: RoundSerializer, **errors(*READ)},
        tags=["seating"],
        examples=[OpenApiExample("Open", value={"number": 1, "state": "open"}, response_only=True)],
    )
    def get(self, request: Request, tournament: int, number: int) -> Response:
        return Response(
            RoundSerializer(
                get_object_or_404(Round, tournament=self.tournament, number=number)
            ).data
        )


class RoundStateView(TournamentView):
    write_rule = rules.WRITE_RESULTS
    serializer_class = RoundSerializer

    def round(self, number: int) -> Round:
        return get_object_or_404(
            Round.objects.select_related("tournament"), tournament=self.tournament, number=number
        )


class RoundOpenView(RoundStateView):
    @extend_schema(
        operation_id="rounds_open",
        summary="Open (or reopen) a round",
        description="A closed round must be reopened before its results can be corrected. "
        "While an earlier round is still open, opening this one needs `confirm_open: true` "
        "(else 400, code `needs_confirmation`, the open rounds in `open_rounds`).",
        request=RoundOpenSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: RoundSerializer, **errors(*WRITE)},
        tags=["seating"],
        examples=[
            OpenApiExample("Open", value={"number": 1, "state": "open"}, response_only=True),
            OpenApiExample("Confirmed", value={"confirm_open": True}, request_only=True),
        ],
    )
    def post(self, request: Request, tournament: int, number: int) -> Response:
        data = self.valid(RoundOpenSerializer).validated_data
        round_ = self.round(number)
        round_open_checked(round_=round_, user=request.user, confirm_open=data["confirm_open"])
        return Response(RoundSerializer(round_).data)


class RoundCloseView(RoundStateView):
    serializer_class = RoundClosedSerializer

    @extend_schema(
        operation_id="rounds_close",
        summary="Close a round",
        description="Refused (400) while a table misses a result or an annulment: `missing` "
        "lists each cell (table, donne, reason). With `annul_missing: true` and a `reason`, "
        "every missing donne is annulled with that reason and the round closed, all or "
        "nothing; `annulled` says how many were.",
        request=RoundCloseSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: RoundClosedSerializer, **errors(*WRITE)},
        tags=["seating"],
        examples=[
            OpenApiExample(
                "Annul and close",
                value={"annul_missing": True, "reason": "table 3 ran out of time"},
                request_only=True,
            ),
            OpenApiExample(
                "Closed",
                value={"number": 1, "state": "closed", "annulled": 2},
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request, tournament: int, number: int) -> Response:
        data = self.valid(RoundCloseSerializer).validated_data
        round_ = self.round(number)
        if data["annul_missing"]:
            round_, annulled = round_close_annulling(
                round_=round_, user=request.user, reason=data["reason"]
            )
        else:
            try:
                round_close(round_=round_, user=request.user)
            except ResultInvalid as exc:
                refusal = invalid(exc.errors)
                missing = round_missing_cells(round_=round_)
                raise ApiError(
                    status_code=400,
                    code=refusal.code,
                    message=refusal.message,
                    details=refusal.details,
                    extra={
                        "missing": [
                            {"table": c.table, "donne": c.donne, "reason": c.reason}
                            for c in missing
                        ]
                    },
                ) from exc
            annulled = 0
        return Response({"number": round_.number, "state": round_.state, "annulled": annulled})


# Who sits out at each table, round by round (RULES §7), in one query for every table.
TABLE_ROUNDS = Prefetch(
    "table_rounds", queryset=TableRound.objects.select_related("round", "etui_set").order_by()
)


class TableListView(TournamentView):
    serializer_class = TableSerializer

    @extend_schema(
        operation_id="tables_list",
        summary="The tables",
        responses={200: TableSerializer(many=True), **errors(*READ)},
        tags=["seating"],
        examples=[
            OpenApiExample(
                "Table of five",
                value={
                    "number": 5,
                    "size": 5,
                    "sit_outs": [
                        {"round": 1, "etui_set": 5, "order": "NESW"},
                        {"round": 2, "etui_set": 1, "order": "ESWF"},
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, tournament: int) -> Response:
        return self.paginated(
            Table.objects.filter(tournament=self.tournament)
            .prefetch_related(TABLE_ROUNDS)
            .order_by("number"),
            TableSerializer,
        )


class TableDetailView(TournamentView):
    serializer_class = TableSerializer

    @extend_schema(
        operation_id="tables_retrieve",
        summary="A table",
        responses={200: TableSerializer, **errors(*READ)},
        tags=["seating"],
        examples=[
            OpenApiExample(
                "Table of five",
                value={
                    "number": 5,
                    "size": 5,
                    "sit_outs": [
                        {"round": 1, "etui_set": 5, "order": "NESW"},
                        {"round": 2, "etui_set": 1, "order": "ESWF"},
                    ],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, tournament: int, number: int) -> Response:
        return Response(
            TableSerializer(
                get_object_or_404(
                    Table.objects.prefetch_related(TABLE_ROUNDS),
                    tournament=self.tournament,
                    number=number,
                )
            ).data
        )


class SeatListView(TournamentView):
    read_rule = rules.SEE_RESULTS
    serializer_class = SeatSerializer

    @extend_schema(
        operation_id="seats_list",
        summary="Who sits where in each round",
        description="Shown to whoever may see the results (the score cards show it too). At a "
        "table of five the fifth player is at position `F`; `sit_out_order` names the position "
        "sitting out each donne of the relais and `sits_out` the donnes this player sits out, "
        "so who sits out is known before play.",
        parameters=[
            OpenApiParameter("round", OpenApiTypes.INT, description="Only this round."),
            OpenApiParameter("table", OpenApiTypes.INT, description="Only this table."),
            OpenApiParameter("player", OpenApiTypes.INT, description="Only this player."),
        ],
        responses={200: SeatSerializer(many=True), **errors(*READ)},
        tags=["seating"],
        examples=[
            OpenApiExample(
                "North at table 1",
                value={
                    "round": 1,
                    "table": 1,
                    "etui_set": 1,
                    "position": "N",
                    "player": {"id": 12, "name": "Camille Arnaud", "licence": "0100012", "club": 1},
                    "sit_out_order": "",
                    "sits_out": [],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, tournament: int) -> Response:
        qs = Seat.objects.filter(round__tournament=self.tournament).select_related(
            "round", "player", "table_round__table", "table_round__etui_set"
        )
        qs = filter_by_params(
            qs,
            request,
            {
                "round": "round__number",
                "table": "table_round__table__number",
                "player": "player_id",
            },
        )
        qs = qs.order_by("round__number", "table_round__table__number", "position")
        return self.paginated(qs, SeatSerializer)


# --- étuis and donnes -------------------------------------------------------------------------


class EtuiSetListView(TournamentView):
    read_rule = rules.SEE_RESULTS
    serializer_class = EtuiSetSerializer

    @extend_schema(
        operation_id="etuis_list",
        summary="The étui sets and their donnes",
        description="Each set is the relais a table plays in one round.",
        responses={200: EtuiSetSerializer(many=True), **errors(*READ)},
        tags=["donnes"],
        examples=[
            OpenApiExample("Set 1", value={"number": 1, "donnes": [1, 2, 3, 4]}, response_only=True)
        ],
    )
    def get(self, request: Request, tournament: int) -> Response:
        qs = EtuiSet.objects.filter(tournament=self.tournament).prefetch_related("donnes")
        return self.paginated(qs.order_by("number"), EtuiSetSerializer)


DONNE_EXAMPLE = {
    "number": 1,
    "etui_set": 1,
    "dealer": "N",
    "complete": True,
    "hands_visible": True,
    "hands": {
        "N": "S:R,D,7 H:10,4,1 D:C,8 C:R,V,9,2 T:21,17,12,8,3 EX",
        "E": "…",
        "S": "…",
        "W": "…",
        "chien": "S:3 H:V D:5 C:6 T:9,2",
    },
}


class DonneListView(TournamentView):
    read_rule = rules.SEE_RESULTS
    serializer_class = DonneSerializer

    def context(self) -> dict[str, Any]:
        return {"complete_ids": complete_donnes(self.tournament), "can_manage": self.can_manage}

    @extend_schema(
        operation_id="donnes_list",
        summary="The donnes, with their hands when you may see them",
        description="Hands are hidden (`hands: null`) under the traveller's rule: only the "
        "arbiters and organisers see them until every table scheduled to play the donne has a "
        "result or an annulment.",
        responses={200: DonneSerializer(many=True), **errors(*READ)},
        tags=["donnes"],
        examples=[
            OpenApiExample("Visible", value=DONNE_EXAMPLE, response_only=True),
            OpenApiExample(
                "Hidden",
                value={**DONNE_EXAMPLE, "complete": False, "hands_visible": False, "hands": None},
                response_only=True,
            ),
        ],
    )
    def get(self, request: Request, tournament: int) -> Response:
        qs = Donne.objects.filter(tournament=self.tournament).select_related("etui_set")
        return self.paginated(qs.order_by("number"), DonneSerializer, **self.context())


class DonneDetailView(DonneListView):
    @extend_schema(
        operation_id="donnes_retrieve",
        summary="A donne",
        description="Hands hidden as in the list.",
        responses={200: DonneSerializer, **errors(*READ)},
        tags=["donnes"],
        examples=[OpenApiExample("Visible", value=DONNE_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int, number: int) -> Response:
        donne = get_object_or_404(
            Donne.objects.select_related("etui_set"), tournament=self.tournament, number=number
        )
        return Response(DonneSerializer(donne, context=self.context()).data)
