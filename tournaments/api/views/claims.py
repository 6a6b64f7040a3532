"""Claims of the claims window (issue 34 §4) under /tournaments/<id>/claims/: the list for the
tournament's arbiters and organisers, filing (a player with an account files their own; an
arbiter records one for a player), and settling. Every write goes through
tournaments.services.claims, the service the arbiter's dashboard and the table's page call."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.kit.api.errors import ApiError
from tournaments.models import Claim, Donne, Penalty, Player, Table
from tournaments.models_claims import MAX_REASON, MAX_TEXT
from tournaments.permissions import can_write_results
from tournaments.services.claims import PenaltyAsked, claim_file, claim_settle

from .. import permissions as rules
from ..schema import IDEMPOTENCY_KEY, READ, WRITE, errors
from .base import TournamentView

TAG = "claims"
# How an arbiter settles a claim (the API's ClaimDecisionEnum).
DECISIONS = [(Claim.State.REJECTED, "rejected"), (Claim.State.ACCEPTED, "accepted")]


class ClaimSerializer(serializers.ModelSerializer):
    table = serializers.IntegerField(source="table.number", read_only=True)
    donne = serializers.IntegerField(source="donne.number", read_only=True)
    filed_by_name = serializers.SerializerMethodField()
    recorded_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    settled_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Claim
        fields = [
            "id",
            "table",
            "donne",
            "result",
            "kind",
            "text",
            "filed_by",
            "filed_by_name",
            "recorded_by",
            "without_call",
            "filed_at",
            "state",
            "settled_by",
            "settled_at",
            "reason",
            "penalty",
            "correction",
        ]
        read_only_fields = fields

    def get_filed_by_name(self, obj: Claim) -> str:
        return str(obj.filed_by) if obj.filed_by_id else ""


class ClaimFileSerializer(serializers.Serializer):
    table = serializers.IntegerField(min_value=1, max_value=10**6, help_text="Table number.")
    donne = serializers.IntegerField(min_value=1, max_value=10**6, help_text="Donne number.")
    kind = serializers.ChoiceField(choices=Claim.Kind.choices)
    text = serializers.CharField(max_length=MAX_TEXT)
    player = serializers.IntegerField(
        required=False,
        help_text="The player who files it (an arbiter recording it for them); a player filing "
        "their own leaves it out.",
    )
    without_call = serializers.CharField(
        max_length=MAX_REASON,
        required=False,
        allow_blank=True,
        default="",
        help_text="An arbiter's written reason for taking a claim about an irregularity that "
        "no call to the arbiter during the donne backs.",
    )


class PenaltyAskedSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Penalty.Kind.choices)
    points = serializers.IntegerField(required=False, allow_null=True, min_value=0)
    reason = serializers.CharField(max_length=MAX_REASON, required=False, allow_blank=True)


class ClaimSettleSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=DECISIONS)
    reason = serializers.CharField(max_length=MAX_REASON)
    penalty = PenaltyAskedSerializer(
        required=False, help_text="A penalty given with the acceptance (the penalties' rules)."
    )


CLAIM_EXAMPLE = {
    "id": 3,
    "table": 2,
    "donne": 7,
    "result": 118,
    "kind": "result",
    "text": "La poignée de Nord n'a pas été comptée.",
    "filed_by": 12,
    "filed_by_name": "Camille Arnaud",
    "recorded_by": None,
    "without_call": "",
    "filed_at": "2026-12-05T18:04:00+01:00",
    "state": "open",
    "settled_by": None,
    "settled_at": None,
    "reason": "",
    "penalty": None,
    "correction": None,
}


def _bad(field: str, message: str) -> ApiError:
    return ApiError(status_code=400, code="invalid", message=message, details={field: [message]})


class ClaimView(TournamentView):
    read_rule = rules.WRITE_RESULTS
    write_rule = rules.SEE_TOURNAMENT  # a player files their own; the service checks the rest
    serializer_class = ClaimSerializer

    def queryset(self) -> Any:
        return Claim.objects.filter(tournament=self.tournament).select_related(
            "table", "donne", "filed_by", "recorded_by", "settled_by"
        )


class ClaimListView(ClaimView):
    @extend_schema(
        operation_id="claims_list",
        summary="The claims filed (open and settled)",
        responses={200: ClaimSerializer(many=True), **errors(*READ)},
        tags=[TAG],
        examples=[OpenApiExample("Open", value=CLAIM_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int) -> Response:
        return self.paginated(self.queryset().order_by("filed_at", "pk"), ClaimSerializer)

    @extend_schema(
        operation_id="claims_create",
        summary="File a claim during the claims window",
        description="A registered player with an account files their own (about a donne of their "
        "table); an arbiter records one for `player`. Refused (400) before the last round "
        "closes and after the window (the message gives the time it closed), for a table that "
        "does not play the donne, and for an irregularity without a call to the arbiter "
        "recorded from that table during the donne unless an arbiter gives `without_call`.",
        request=ClaimFileSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: ClaimSerializer, **errors(*WRITE)},
        tags=[TAG],
        examples=[
            OpenApiExample(
                "File",
                value={"table": 2, "donne": 7, "kind": "result", "text": "Poignée oubliée"},
                request_only=True,
            ),
            OpenApiExample("Filed", value=CLAIM_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        data = self.valid(ClaimFileSerializer).validated_data
        t = self.tournament
        table = Table.objects.filter(tournament=t, number=data["table"]).first()
        if table is None:
            raise _bad(
                "table", _("This tournament has no table %(number)s.") % {"number": data["table"]}
            )
        donne = Donne.objects.filter(tournament=t, number=data["donne"]).first()
        if donne is None:
            raise _bad(
                "donne", _("This tournament has no donne %(number)s.") % {"number": data["donne"]}
            )
        if can_write_results(request.user, t):
            player = None
            if data.get("player") is not None:
                player = Player.objects.filter(pk=data["player"]).first()
                if player is None:
                    raise _bad("player", _("There is no player with this id."))
            claim = claim_file(
                tournament=t,
                table=table,
                donne=donne,
                kind=data["kind"],
                text=data["text"],
                player=player,
                user=request.user,
                without_call=data["without_call"],
            )
        else:
            own = Player.objects.filter(user=request.user, registrations__tournament=t).first()
            if own is None:
                raise PermissionDenied(
                    _("Only the tournament's players and arbiters may file a claim.")
                )
            claim = claim_file(
                tournament=t,
                table=table,
                donne=donne,
                kind=data["kind"],
                text=data["text"],
                player=own,
            )
        return Response(ClaimSerializer(self.queryset().get(pk=claim.pk)).data, status=201)


class ClaimSettleView(ClaimView):
    write_rule = rules.WRITE_RESULTS

    @extend_schema(
        operation_id="claims_settle",
        summary="Settle a claim",
        description="`rejected` or `accepted` with the written `reason`. Accepting links the "
        "latest correction of the result made since the claim (correct or annul it first "
        "through the results' endpoints) and gives the optional `penalty`. 409 when the claim "
        "was settled already; nothing changes.",
        request=ClaimSettleSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: ClaimSerializer, **errors(*WRITE, 409)},
        tags=[TAG],
        examples=[
            OpenApiExample(
                "Accept",
                value={"state": "accepted", "reason": "Poignée recomptée, résultat corrigé"},
                request_only=True,
            ),
            OpenApiExample(
                "Settled",
                value={**CLAIM_EXAMPLE, "state": "accepted", "settled_by": "arbitre"},
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request, tournament: int, claim: int) -> Response:
        data = self.valid(ClaimSettleSerializer).validated_data
        obj = get_object_or_404(self.queryset().select_related("tournament"), pk=claim)
        asked = None
        if data.get("penalty"):
            p = data["penalty"]
            player = Player.objects.filter(pk=p["player"]).first()
            if player is None:
                raise _bad("penalty", _("There is no player with this id."))
            asked = PenaltyAsked(
                player=player, kind=p["kind"], points=p.get("points"), reason=p.get("reason", "")
            )
        claim_settle(
            claim=obj, user=request.user, state=data["state"], reason=data["reason"], penalty=asked
        )
        return Response(ClaimSerializer(self.queryset().get(pk=obj.pk)).data)
