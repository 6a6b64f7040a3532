"""Results, annulments, penalties and the ledger: every write goes through
tournaments.services.results / penalties, the one service behind the arbiter's form too."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.kit.api.errors import ApiError
from tournaments.models import Donne, LedgerEntry, Penalty, Player, Result, Table, TableRound
from tournaments.selectors import complete_donnes
from tournaments.services.penalties import penalty_record, penalty_withdraw
from tournaments.services.results import (
    ResultContext,
    result_annul,
    result_cell,
    result_preview,
    result_save,
)

from .. import permissions as rules
from ..schema import IDEMPOTENCY_KEY, IF_MATCH, READ, WRITE, error_examples, errors
from ..serializers import (
    AnnulSerializer,
    LedgerEntrySerializer,
    PenaltySerializer,
    PenaltyWriteSerializer,
    ResultCreateSerializer,
    ResultPreviewRequestSerializer,
    ResultPreviewSerializer,
    ResultSerializer,
    ResultWriteSerializer,
    WithdrawSerializer,
    result_data,
)
from .base import TournamentView, filter_by_params

RESULT_EXAMPLE = {
    "id": 41,
    "table": 1,
    "donne": 1,
    "round": 1,
    "status": "played",
    "taker": "N",
    "contract": "garde",
    "bouts": 2,
    "points": 50.0,
    "petit_au_bout": "",
    "poignees": {},
    "chelem": "",
    "scores": {"N": 204, "E": -68, "S": -68, "W": -68},
    "holders": {"N": 12, "E": 15, "S": 13, "W": 14},
    "sitter": None,
    "confirmed_warnings": [],
    "annul_reason": "",
    "version": 1,
    "updated_by": "arbitre",
    "created_at": "2026-12-05T14:31:00+01:00",
    "updated_at": "2026-12-05T14:31:00+01:00",
}
ENTRY_EXAMPLE = {"taker": "N", "contract": "garde", "bouts": 2, "points": 50}
CONFLICT_EXAMPLE = OpenApiExample(
    "Conflict",
    value={
        "code": "conflict",
        "message": "Another arbiter saved this result while you were entering yours (version "
        "2). Nothing was saved: compare with their entry, then save again if yours is right.",
        "details": {},
        "version": 2,
        "current": {**RESULT_EXAMPLE, "version": 2},
    },
    status_codes=["409", "412"],
    response_only=True,
)
CONFIRM_EXAMPLE = OpenApiExample(
    "Needs confirmation",
    value={
        "code": "needs_confirmation",
        "message": "This result is possible but unlikely. Check it, then send it again with the "
        "codes of the warnings you confirm in the 'confirm' list.",
        "details": {"confirm": ["The attack counts 2 bouts, but the 21 was held by East …"]},
        "warnings": {
            "bouts_held_by_defence": "The attack counts 2 bouts, but the 21 was held by East …"
        },
    },
    status_codes=["422"],
    response_only=True,
)
RESULT_ERRORS = (*WRITE, 409, 412)


def _version(view: TournamentView, body_version: int | None) -> int | None:
    """The version being changed: If-Match or the body's ``version`` (they must agree)."""
    header = view.if_match()
    if header is not None and body_version is not None and header != body_version:
        raise ApiError(
            status_code=400,
            code="invalid",
            message=_("If-Match and the version field disagree: send one version."),
            details={
                "version": [
                    _("If-Match says %(a)s, the body says %(b)s.")
                    % {"a": header, "b": body_version}
                ]
            },
        )
    return header if header is not None else body_version


def _loaded(result: Result) -> bool:
    """Whether the result carries what its serializer reads (a result just written does)."""
    fields = Result._meta
    return all(fields.get_field(name).is_cached(result) for name in _RELATED) and (
        TableRound._meta.get_field("round").is_cached(result.table_round)
    )


_RELATED = ("table", "donne", "table_round", "updated_by")


def _result_response(result: Result, status: int = 200, *, hide_users: bool = False) -> Response:
    if not _loaded(result):
        result = Result.objects.select_related(
            "table", "donne", "table_round__round", "updated_by"
        ).get(pk=result.pk)
    response = Response(result_data(result, hide_users=hide_users), status=status)
    response["ETag"] = f'"{result.version}"'
    return response


class ResultsView(TournamentView):
    read_rule = rules.SEE_RESULTS
    write_rule = rules.WRITE_RESULTS

    def cell(self, table: int, donne: int) -> tuple[Table, Donne]:
        return (
            get_object_or_404(Table, tournament=self.tournament, number=table),
            get_object_or_404(Donne, tournament=self.tournament, number=donne),
        )

    def context(self, table: int, donne: int, version: int | None) -> ResultContext | None:
        """The cell with its seats (and the result being corrected) in one or two queries, or None:
        then `cell` and the service find out what is wrong and say it."""
        return result_cell(
            tournament=self.tournament,
            table_number=table,
            donne_number=donne,
            correcting=version is not None,
        )

    def save(self, table: int, donne: int, serializer: Any, status: int) -> Response:
        data = serializer.validated_data
        version = _version(self, data.get("version"))
        ctx = self.context(table, donne, version)
        table_obj, donne_obj = (ctx.table, ctx.donne) if ctx else self.cell(table, donne)
        result = result_save(
            tournament=self.tournament,
            table=table_obj,
            donne=donne_obj,
            data=serializer.to_input(),
            user=self.request.user,
            expected_version=version,
            reason=data.get("reason") or "",
            confirmed=data.get("confirm") or (),
            context=ctx,
        )
        return _result_response(result, status)


class ResultListView(ResultsView):
    serializer_class = ResultSerializer

    @extend_schema(
        operation_id="results_list",
        summary="The results entered",
        description="Arbiters and organisers see every result; players (while it runs) and "
        "everyone (once published) see the results of the donnes every table has played, as "
        "on the traveller pages.",
        parameters=[
            OpenApiParameter("table", OpenApiTypes.INT, description="Only this table."),
            OpenApiParameter("donne", OpenApiTypes.INT, description="Only this donne."),
            OpenApiParameter("round", OpenApiTypes.INT, description="Only this round."),
        ],
        responses={200: ResultSerializer(many=True), **errors(*READ)},
        tags=["results"],
        examples=[OpenApiExample("Garde made", value=RESULT_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int) -> Response:
        qs = Result.objects.filter(tournament=self.tournament).select_related(
            "table", "donne", "table_round__round", "updated_by"
        )
        if not self.can_manage:
            qs = qs.filter(donne_id__in=complete_donnes(self.tournament))
        qs = filter_by_params(
            qs,
            request,
            {
                "table": "table__number",
                "donne": "donne__number",
                "round": "table_round__round__number",
            },
        )
        return self.paginated(
            qs.order_by("donne__number", "table__number"),
            ResultSerializer,
            hide_users=not self.can_manage,
        )

    @extend_schema(
        operation_id="results_create",
        summary="Enter a table's result on a donne",
        description="The same validation and checks against the cards as the arbiter's form "
        "(one service behind both); answers the saved result with its computed scores. "
        "Unlikely entries answer 422 with `warnings`: send again with their codes in "
        "`confirm`. A result that already exists answers 409 with the current one (correct it "
        "with PUT and its version).",
        request=ResultCreateSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: ResultSerializer, **errors(*RESULT_ERRORS)},
        tags=["results"],
        examples=[
            OpenApiExample(
                "Garde made", value={"table": 1, "donne": 1, **ENTRY_EXAMPLE}, request_only=True
            ),
            OpenApiExample(
                "All passed",
                value={"table": 2, "donne": 1, "status": "all_passed"},
                request_only=True,
            ),
            OpenApiExample("Saved", value=RESULT_EXAMPLE, response_only=True, status_codes=["201"]),
            CONFLICT_EXAMPLE,
            CONFIRM_EXAMPLE,
            *error_examples(400),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        serializer = self.valid(ResultCreateSerializer)
        data = serializer.validated_data
        return self.save(data["table"], data["donne"], serializer, status=201)


class ResultPreviewView(ResultsView):
    serializer_class = ResultPreviewSerializer

    @extend_schema(
        operation_id="results_preview",
        summary="Compute the scores of an entry without saving it",
        description="What the arbiter's form shows while typing: the scores and how they are "
        "made, every error (including fields still to fill) and the warnings. Never writes.",
        request=ResultPreviewRequestSerializer,
        responses={200: ResultPreviewSerializer, **errors(400, 401, 403, 404, 429)},
        tags=["results"],
        examples=[
            OpenApiExample(
                "Entry", value={"table": 1, "donne": 1, **ENTRY_EXAMPLE}, request_only=True
            ),
            OpenApiExample(
                "Scores",
                value={
                    "ok": True,
                    "scores": {"N": 204, "E": -68, "S": -68, "W": -68},
                    "parts": {
                        "contract_part": 68,
                        "petit_au_bout_part": 0,
                        "poignees_part": 0,
                        "chelem_part": 0,
                        "unit": 68,
                        "coefficient": 2,
                        "gap": 9,
                        "threshold": 41,
                    },
                    "won": True,
                    "errors": {},
                    "missing": [],
                    "warnings": {},
                },
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        serializer = self.valid(ResultPreviewRequestSerializer)
        table, donne = self.cell(
            serializer.validated_data["table"], serializer.validated_data["donne"]
        )
        preview = result_preview(
            tournament=self.tournament, table=table, donne=donne, data=serializer.to_input()
        )
        return Response(
            {
                "ok": preview.ok,
                "scores": preview.scores,
                "parts": {k: int(v) for k, v in preview.parts.items()},
                "won": preview.won,
                "errors": preview.errors,
                "missing": preview.missing,
                "warnings": preview.warnings,
            }
        )


class ResultDetailView(ResultsView):
    serializer_class = ResultSerializer

    @extend_schema(
        operation_id="results_retrieve",
        summary="The result of a table on a donne",
        description="Its ETag is its version: send it back in If-Match to correct it.",
        responses={200: ResultSerializer, **errors(*READ)},
        tags=["results"],
        examples=[OpenApiExample("Garde made", value=RESULT_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int, table: int, donne: int) -> Response:
        table_obj, donne_obj = self.cell(table, donne)
        result = get_object_or_404(Result, table=table_obj, donne=donne_obj)
        if not self.can_manage and donne_obj.pk not in complete_donnes(self.tournament):
            raise ApiError(
                status_code=403,
                code="permission_denied",
                message=_("This donne's results are shown once every table has played it."),
            )
        return _result_response(result, hide_users=not self.can_manage)

    @extend_schema(
        operation_id="results_save",
        summary="Enter or correct a table's result on a donne",
        description="Without a version: a new result (409 if one exists). With the version "
        'you read (`If-Match: "2"` or `version: 2`) and a `reason`: a correction, refused '
        "with 412 (If-Match) or 409 (version field) and the current result if someone changed "
        "it first — never a silent overwrite. Same validation as the arbiter's form.",
        request=ResultWriteSerializer,
        parameters=[IDEMPOTENCY_KEY, IF_MATCH],
        responses={200: ResultSerializer, **errors(*RESULT_ERRORS)},
        tags=["results"],
        examples=[
            OpenApiExample(
                "Correction",
                value={
                    **ENTRY_EXAMPLE,
                    "points": 52,
                    "version": 1,
                    "reason": "Score sheet misread",
                },
                request_only=True,
            ),
            OpenApiExample(
                "Saved",
                value={**RESULT_EXAMPLE, "version": 2},
                response_only=True,
                status_codes=["200"],
            ),
            CONFLICT_EXAMPLE,
            CONFIRM_EXAMPLE,
        ],
    )
    def put(self, request: Request, tournament: int, table: int, donne: int) -> Response:
        serializer = self.valid(ResultWriteSerializer)
        return self.save(table, donne, serializer, status=200)


class ResultAnnulView(ResultsView):
    serializer_class = ResultSerializer

    @extend_schema(
        operation_id="results_annul",
        summary="Annul a donne at a table",
        description="Fouled étui, mixed hands (RULES §6): the four players get no score and a "
        "differential of 0; the table leaves the comparison. A reason is required; give the "
        "version when a result exists.",
        request=AnnulSerializer,
        parameters=[IDEMPOTENCY_KEY, IF_MATCH],
        responses={200: ResultSerializer, **errors(*RESULT_ERRORS)},
        tags=["results"],
        examples=[
            OpenApiExample(
                "Annul",
                value={"reason": "Cards of two étuis mixed", "version": 1},
                request_only=True,
            ),
            OpenApiExample(
                "Annulled",
                value={
                    **RESULT_EXAMPLE,
                    "status": "annulled",
                    "taker": "",
                    "contract": "",
                    "bouts": None,
                    "points": None,
                    "scores": {},
                    "annul_reason": "Cards of two étuis mixed",
                    "version": 2,
                },
                response_only=True,
            ),
            CONFLICT_EXAMPLE,
        ],
    )
    def post(self, request: Request, tournament: int, table: int, donne: int) -> Response:
        data = self.valid(AnnulSerializer).validated_data
        version = _version(self, data.get("version"))
        ctx = self.context(table, donne, version)
        table_obj, donne_obj = (ctx.table, ctx.donne) if ctx else self.cell(table, donne)
        result = result_annul(
            tournament=self.tournament,
            table=table_obj,
            donne=donne_obj,
            user=request.user,
            reason=data.get("reason") or "",
            expected_version=version,
            context=ctx,
        )
        return _result_response(result)


# --- penalties --------------------------------------------------------------------------------

PENALTY_EXAMPLE = {
    "id": 5,
    "player": {"id": 12, "name": "Camille Arnaud", "licence": "0100012", "club": 1},
    "donne": 3,
    "kind": "early_pickup",
    "points": 100,
    "reason": "",
    "active": True,
    "given_by": "arbitre",
    "given_at": "2026-12-05T15:02:00+01:00",
    "withdrawn_at": None,
    "withdrawn_by": None,
    "withdrawal_reason": "",
}


class PenaltyView(TournamentView):
    read_rule = rules.WRITE_RESULTS
    write_rule = rules.WRITE_RESULTS
    serializer_class = PenaltySerializer

    def queryset(self) -> Any:
        return Penalty.objects.filter(tournament=self.tournament).select_related(
            "player", "donne", "given_by", "withdrawn_by"
        )


class PenaltyListView(PenaltyView):
    @extend_schema(
        operation_id="penalties_list",
        summary="The penalties given (withdrawn ones included)",
        responses={200: PenaltySerializer(many=True), **errors(*READ)},
        tags=["penalties"],
        examples=[OpenApiExample("Early pickup", value=PENALTY_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int) -> Response:
        return self.paginated(self.queryset().order_by("given_at", "pk"), PenaltySerializer)

    @extend_schema(
        operation_id="penalties_create",
        summary="Penalise a player",
        description="From the catalogue (RULES §8): `early_pickup` 100 points, `warning` 0, "
        "`other` with the points and a written reason; optionally tied to a donne (number). "
        "201: recorded. 200: the same penalty (player, kind, points, reason, donne) was "
        "given less than `PENALTY_REPEAT_SECONDS` seconds ago (120 by default) and not "
        "withdrawn: that one is answered and nothing is recorded (a repeat, even without "
        "Idempotency-Key).",
        request=PenaltyWriteSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={201: PenaltySerializer, 200: PenaltySerializer, **errors(*WRITE)},
        tags=["penalties"],
        examples=[
            OpenApiExample(
                "Early pickup",
                value={"player": 12, "kind": "early_pickup", "donne": 3},
                request_only=True,
            ),
            OpenApiExample(
                "Other",
                value={"player": 12, "kind": "other", "points": 50, "reason": "Slow play"},
                request_only=True,
            ),
            OpenApiExample("Given", value=PENALTY_EXAMPLE, response_only=True),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        data = self.valid(PenaltyWriteSerializer).validated_data
        player = Player.objects.filter(pk=data["player"]).first()
        if player is None:
            raise ApiError(
                status_code=400,
                code="invalid",
                message=_("There is no player with this id."),
                details={"player": [_("There is no player with this id.")]},
            )
        donne = None
        if data.get("donne") is not None:
            donne = Donne.objects.filter(tournament=self.tournament, number=data["donne"]).first()
            if donne is None:
                message = _("This tournament has no donne %(number)s.") % {"number": data["donne"]}
                raise ApiError(
                    status_code=400, code="invalid", message=message, details={"donne": [message]}
                )
        penalty, created = penalty_record(
            tournament=self.tournament,
            player=player,
            kind=data["kind"],
            user=request.user,
            points=data.get("points"),
            reason=data.get("reason") or "",
            donne=donne,
        )
        return Response(
            PenaltySerializer(self.queryset().get(pk=penalty.pk)).data,
            status=201 if created else 200,
        )


class PenaltyDetailView(PenaltyView):
    @extend_schema(
        operation_id="penalties_retrieve",
        summary="A penalty",
        responses={200: PenaltySerializer, **errors(*READ)},
        tags=["penalties"],
        examples=[OpenApiExample("Early pickup", value=PENALTY_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int, penalty: int) -> Response:
        return Response(PenaltySerializer(get_object_or_404(self.queryset(), pk=penalty)).data)


class PenaltyWithdrawView(PenaltyView):
    @extend_schema(
        operation_id="penalties_withdraw",
        summary="Withdraw a penalty",
        description="It stays in the list, marked with who withdrew it, when and why.",
        request=WithdrawSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={200: PenaltySerializer, **errors(*WRITE)},
        tags=["penalties"],
        examples=[
            OpenApiExample(
                "Withdraw", value={"reason": "Given to the wrong player"}, request_only=True
            ),
            OpenApiExample(
                "Withdrawn",
                value={
                    **PENALTY_EXAMPLE,
                    "active": False,
                    "withdrawn_by": "arbitre",
                    "withdrawn_at": "2026-12-05T15:10:00+01:00",
                    "withdrawal_reason": "Given to the wrong player",
                },
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request, tournament: int, penalty: int) -> Response:
        reason = self.valid(WithdrawSerializer).validated_data["reason"]
        obj = get_object_or_404(self.queryset().select_related("tournament"), pk=penalty)
        penalty_withdraw(penalty=obj, user=request.user, reason=reason)
        return Response(PenaltySerializer(self.queryset().get(pk=obj.pk)).data)


# --- ledger -----------------------------------------------------------------------------------


class LedgerView(TournamentView):
    read_rule = rules.WRITE_RESULTS
    serializer_class = LedgerEntrySerializer

    @extend_schema(
        operation_id="ledger_list",
        summary="Every change to the tournament",
        description="Append-only: who, when, before, after and why, oldest first — results, "
        "penalties, and the tournament's creation, edits, status, seating generation and "
        "edits, seed reveal, rounds opened and closed, registrations changed once seated.",
        parameters=[
            OpenApiParameter("table", OpenApiTypes.INT, description="Only this table's results."),
            OpenApiParameter("donne", OpenApiTypes.INT, description="Only this donne's."),
            OpenApiParameter(
                "action",
                OpenApiTypes.STR,
                description="Only these kinds (comma-separated, e.g. status_changed).",
            ),
            OpenApiParameter("round", OpenApiTypes.INT, description="Only this round's."),
            OpenApiParameter("player", OpenApiTypes.INT, description="Only about this player."),
        ],
        responses={200: LedgerEntrySerializer(many=True), **errors(*READ)},
        tags=["results"],
        examples=[
            OpenApiExample(
                "Correction",
                value={
                    "id": 17,
                    "at": "2026-12-05T14:40:00+01:00",
                    "action": "result_changed",
                    "action_display": "Result corrected",
                    "actor": "arbitre",
                    "reason": "Score sheet misread",
                    "reason_code": "",
                    "reason_params": None,
                    "reason_display": "Score sheet misread",
                    "result": 41,
                    "penalty": None,
                    "round": 2,
                    "player": None,
                    "by_player": None,
                    "before": {"points": "50.0", "version": 1},
                    "after": {"points": "52.0", "version": 2},
                    "changes": [
                        {
                            "field": "points",
                            "field_display": "Points",
                            "before": "50.0",
                            "before_display": "50",
                            "after": "52.0",
                            "after_display": "52",
                        }
                    ],
                    "summary": "Points: 50 → 52",
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, tournament: int) -> Response:
        qs = LedgerEntry.objects.filter(tournament=self.tournament).select_related(
            "actor", "round", "by_player", "result__entered_by"
        )
        qs = filter_by_params(
            qs,
            request,
            {
                "table": "result__table__number",
                "donne": "result__donne__number",
                "round": "round__number",
                "player": "player_id",
            },
        )
        actions = [a for a in request.query_params.get("action", "").split(",") if a]
        if actions:
            qs = qs.filter(action__in=actions)
        return self.paginated(qs.order_by("at", "pk"), LedgerEntrySerializer)
