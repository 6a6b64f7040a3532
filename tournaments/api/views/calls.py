"""/api/v1/tournaments/<id>/calls/: the calls to the arbiter (issue 34). The tournament's
arbiters list them, take them and rule them; a player of a table calls, proving who he is in
the body as on the table's page (his ``player`` id and ``code``, or his phone's ``binding``).
Everything goes through tournaments.services.calls. No answer carries a hand."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.kit.api.errors import ApiError
from tarot_club.kit.throttling import client_address
from tournaments.models import (
    ArbiterCall,
    Donne,
    Irregularity,
    Player,
    Round,
    TableRound,
)
from tournaments.services.calls import (
    CallInput,
    CallRuling,
    call_make,
    call_rule,
    call_take,
)
from tournaments.services.table_entry import Voucher, code_source, table_access_issue
from tournaments.validators import validate_free_text

from .. import permissions as rules
from ..schema import IDEMPOTENCY_KEY, READ, WRITE, errors
from ..serializers import MAX_INT, ResultEntrySerializer
from .base import TournamentView, filter_by_params

CALL_EXAMPLE = {
    "id": 7,
    "round": 1,
    "table": 3,
    "donne": 10,
    "trick": 5,
    "irregularity": "renonce",
    "note": "",
    "called_by": 12,
    "phone_time": "2026-12-06T15:02:10+01:00",
    "received_at": "2026-12-06T15:02:11+01:00",
    "joins": 0,
    "state": "ruled",
    "taken_by": "arbitre",
    "taken_at": "2026-12-06T15:03:00+01:00",
    "ruling": "penalty",
    "ruled_by": "arbitre",
    "ruled_at": "2026-12-06T15:06:30+01:00",
    "ruling_note": "",
    "penalty": 4,
    "result": None,
    "ledger_entry": 88,
    "seconds_to_arbiter": 50.0,
}


class CallSerializer(serializers.ModelSerializer):
    """A call as the arbiter sees it: numbers for the round, table and donne, ids for the
    caller, the penalty, the result and the ledger entry its ruling made."""

    round = serializers.IntegerField(source="round.number")
    table = serializers.IntegerField(source="table.number")
    donne = serializers.IntegerField(source="donne.number")
    taken_by = serializers.StringRelatedField()
    ruled_by = serializers.StringRelatedField()
    seconds_to_arbiter = serializers.FloatField(allow_null=True)

    class Meta:
        model = ArbiterCall
        fields = [
            "id",
            "round",
            "table",
            "donne",
            "trick",
            "irregularity",
            "note",
            "called_by",
            "phone_time",
            "received_at",
            "joins",
            "state",
            "taken_by",
            "taken_at",
            "ruling",
            "ruled_by",
            "ruled_at",
            "ruling_note",
            "penalty",
            "result",
            "ledger_entry",
            "seconds_to_arbiter",
        ]


class CallCreateSerializer(serializers.Serializer):
    """A call from a table: which table and donne, what, and who calls with his proof. The
    irregularity is checked by the service (an unknown one is a 400 naming it)."""

    table = serializers.IntegerField(min_value=1, max_value=MAX_INT)
    donne = serializers.IntegerField(min_value=1, max_value=MAX_INT)
    irregularity = serializers.CharField(max_length=40, help_text=", ".join(Irregularity.values))
    trick = serializers.IntegerField(min_value=0, max_value=99, required=False, allow_null=True)
    note = serializers.CharField(
        max_length=300, required=False, allow_blank=True, validators=[validate_free_text]
    )
    phone_time = serializers.DateTimeField(
        required=False, allow_null=True, help_text="When the player called, by the phone's clock."
    )
    ref = serializers.CharField(
        max_length=40, required=False, allow_blank=True, help_text="The phone's id of the call."
    )
    player = serializers.IntegerField(min_value=1, max_value=MAX_INT, required=False)
    code = serializers.CharField(max_length=20, required=False, allow_blank=True)
    binding = serializers.CharField(max_length=500, required=False, allow_blank=True)


class CallCreatedSerializer(CallSerializer):
    joined = serializers.BooleanField(help_text="It joined a call already open on the donne.")

    class Meta(CallSerializer.Meta):
        fields = [*CallSerializer.Meta.fields, "joined"]


class CallRuleSerializer(serializers.Serializer):
    """A ruling: ``none``, ``warning`` or ``penalty`` on ``player`` (``kind``: early_pickup,
    or other with ``points``), ``annulment`` (``note`` is its reason), or ``score`` with the
    ``result`` the arbiter sets (the results API's fields)."""

    ruling = serializers.CharField(max_length=20)
    note = serializers.CharField(
        max_length=300, required=False, allow_blank=True, validators=[validate_free_text]
    )
    player = serializers.IntegerField(min_value=1, max_value=MAX_INT, required=False)
    kind = serializers.CharField(max_length=20, required=False, allow_blank=True)
    points = serializers.IntegerField(min_value=0, max_value=10000, required=False)
    result = ResultEntrySerializer(required=False)


class CallView(TournamentView):
    read_rule = rules.WRITE_RESULTS
    write_rule = rules.WRITE_RESULTS
    serializer_class = CallSerializer

    def queryset(self) -> Any:
        return ArbiterCall.objects.filter(tournament=self.tournament).select_related(
            "round", "table", "donne", "taken_by", "ruled_by"
        )

    def call(self, call_id: int) -> ArbiterCall:
        return get_object_or_404(self.queryset(), pk=call_id)


def _invalid(field: str, message: str) -> ApiError:
    return ApiError(status_code=400, code="invalid", message=message, details={field: [message]})


class CallListView(CallView):
    # A player of the table calls (his proof is in the body): any caller who sees the
    # tournament may send it; only the arbiters list the calls.
    write_rule = rules.SEE_TOURNAMENT

    @extend_schema(
        operation_id="calls_list",
        summary="The calls to the arbiter, oldest first",
        description="`?state=open|en_route|ruled`, `?table=`, `?donne=` (numbers).",
        responses={200: CallSerializer(many=True), **errors(*READ)},
        tags=["calls"],
        examples=[OpenApiExample("Ruled", value=CALL_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int) -> Response:
        qs = filter_by_params(
            self.queryset(), request, {"table": "table__number", "donne": "donne__number"}
        )
        state = request.query_params.get("state")
        if state:
            qs = qs.filter(state=state) if state in ArbiterCall.State.values else qs.none()
        return self.paginated(qs.order_by("received_at", "pk"), CallSerializer)

    def _access(self, table: int, donne: int) -> Any:
        """The live page of the table in the round where it plays ``donne``, if that round is
        open; else a 400 naming the donne."""
        found = Donne.objects.filter(tournament=self.tournament, number=donne).first()
        table_round = (
            TableRound.objects.select_related("round", "table", "etui_set")
            .filter(round__tournament=self.tournament, table__number=table)
            .filter(etui_set_id=found.etui_set_id if found else None)
            .first()
        )
        if table_round is None or table_round.round.state != Round.State.OPEN:
            raise _invalid(
                "donne",
                _("Donne %(donne)s is not played at table %(table)s in an open round.")
                % {"donne": donne, "table": table},
            )
        return table_access_issue(table_round=table_round)

    @extend_schema(
        operation_id="calls_create",
        summary="Call the arbiter from a table",
        description="By a player of the table, proven as on the table's page: `player` and "
        "`code`, or `binding`. A second call on a donne whose call is still open joins it "
        "(200, `joined`); a new call is a 201. 400 names a donne the table does not play in "
        "an open round, an unknown irregularity, a missing note for `autre`.",
        request=CallCreateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: CallCreatedSerializer, 200: CallCreatedSerializer, **errors(*WRITE)},
        tags=["calls"],
        examples=[
            OpenApiExample(
                "A revoke at trick 5",
                value={
                    "table": 3,
                    "donne": 10,
                    "irregularity": "renonce",
                    "trick": 5,
                    "player": 12,
                    "code": "4821",
                    "phone_time": "2026-12-06T15:02:10+01:00",
                },
                request_only=True,
            ),
            OpenApiExample(
                "Called",
                value={**CALL_EXAMPLE, "state": "open", "taken_by": None, "joined": False},
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        data = self.valid(CallCreateSerializer).validated_data
        access = self._access(data["table"], data["donne"])
        voucher = Voucher(
            player_id=data.get("player"),
            code=data.get("code") or "",
            binding=data.get("binding") or "",
            source=code_source(phone="", address=client_address(request)),
        )
        made, joined = call_make(
            access=access,
            voucher=voucher,
            data=CallInput(
                donne_number=data["donne"],
                irregularity=data["irregularity"],
                trick=data.get("trick"),
                note=data.get("note") or "",
                phone_time=data.get("phone_time"),
                client_ref=data.get("ref") or "",
            ),
        )
        body = {**CallSerializer(self.queryset().get(pk=made.pk)).data, "joined": joined}
        return Response(body, status=200 if joined else 201)


class CallTakeView(CallView):
    @extend_schema(
        operation_id="calls_take",
        summary="The arbiter is on the way (en route)",
        request=None,
        responses={200: CallSerializer, **errors(*WRITE, 409)},
        tags=["calls"],
        examples=[
            OpenApiExample("Taken", value={**CALL_EXAMPLE, "state": "en_route"}, response_only=True)
        ],
    )
    def post(self, request: Request, tournament: int, call: int) -> Response:
        taken = call_take(call=self.call(call), user=request.user)
        return Response(CallSerializer(self.queryset().get(pk=taken.pk)).data)


class CallRuleView(CallView):
    @extend_schema(
        operation_id="calls_rule",
        summary="Rule a call",
        description="Through the existing services: a warning or a penalty (the catalogue's "
        "points, `other` with `points` and `note`), an annulment of the table's donne (its "
        "reason in `note`), or the score the arbiter sets (`result`, as the results API); "
        "`none` for no irregularity. The ruling, its penalty or result and its ledger entry "
        "are linked to the call. 409 when the call was ruled already; 422 when the score "
        "needs its warnings confirmed (`result.confirm`).",
        request=CallRuleSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: CallSerializer, **errors(*WRITE, 409)},
        tags=["calls"],
        examples=[
            OpenApiExample(
                "Early pickup",
                value={"ruling": "penalty", "player": 12, "kind": "early_pickup"},
                request_only=True,
            ),
            OpenApiExample(
                "Annulment",
                value={"ruling": "annulment", "note": "Étui mal replacé, jeux mélangés"},
                request_only=True,
            ),
            OpenApiExample(
                "Score set",
                value={
                    "ruling": "score",
                    "note": "Renonce",
                    "result": {"taker": "N", "contract": "garde", "bouts": 2, "points": 50},
                },
                request_only=True,
            ),
            OpenApiExample("Ruled", value=CALL_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request: Request, tournament: int, call: int) -> Response:
        data = self.valid(CallRuleSerializer).validated_data
        player = None
        if data.get("player") is not None:
            player = Player.objects.filter(pk=data["player"]).first()
            if player is None:
                raise _invalid("player", _("There is no player with this id."))
        result = None
        confirmed: list[str] = []
        if data.get("result") is not None:
            entry = ResultEntrySerializer(data=request.data["result"])
            entry.is_valid(raise_exception=True)
            result = entry.to_input()
            confirmed = list(entry.validated_data.get("confirm") or [])
        ruled = call_rule(
            call=self.call(call),
            user=request.user,
            ruling=CallRuling(
                ruling=data["ruling"],
                note=data.get("note") or "",
                player=player,
                kind=data.get("kind") or "",
                points=data.get("points"),
                data=result,
                confirmed=confirmed,
            ),
        )
        return Response(CallSerializer(self.queryset().get(pk=ruled.pk)).data)


__all__ = ["CallListView", "CallRuleView", "CallTakeView"]
