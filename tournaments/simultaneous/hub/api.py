"""The hub's API under /api/v1/simultaneous/ (docs/API.md, "Simultaneous events").

Organisers (session or `Authorization: Token <key>`, as the rest of the API) create events,
invite clubs (the token is in the answer once), close events, upload a club's file by hand,
read the uploads' log and the overall ranking. Clubs authenticate with
`Authorization: Bearer <invitation token>`; an upload also carries
`X-Simultaneous-Signature: sha256=<HMAC-SHA256 of the body, keyed with the token>`.

Errors have the API's one shape (`code`, `message`, `details`) plus `detail` (= message), the
key the clubs' side reads.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Q
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.kit.api.access import deny
from tarot_club.kit.api.errors import ApiError, api_exception_handler
from tarot_club.kit.api.views import ApiView
from tarot_club.kit.cached_read import ReadKey, etag, not_modified, tagged
from tournaments.api.schema import errors
from tournaments.models import Method
from tournaments.search import fold

from . import services
from .models import Invitation, OverallRankingRow, OverallRankingState, SimultaneousEvent, UploadLog

TAGS = ["simultaneous events"]
EVENT_ID = OpenApiParameter(
    "event",
    {"type": "string", "pattern": "^[0-9a-z-]{1,40}$"},
    OpenApiParameter.PATH,
    description="The event's public id.",
)
SIGNATURE = OpenApiParameter(
    services.SIGNATURE_HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=True,
    description="sha256=<hex HMAC-SHA256 of the raw body, keyed with the invitation token>.",
)
UPLOAD_EXAMPLE = {
    "upload": 42,
    "results": {"new": 12, "replaced": 1, "unchanged": 947, "removed": 0},
    "penalties": {"new": 0, "replaced": 0, "unchanged": 1, "removed": 0},
    "final": False,
}
REFUSED_EXAMPLE = {
    "code": "commitment_mismatch",
    "message": "Donne 5 is not the event's donne of that number: its hands differ.",
    "detail": "Donne 5 is not the event's donne of that number: its hands differ.",
    "details": {},
    "donnes": [5],
}


# --- serializers ----------------------------------------------------------------------------


def session_time_check(value: Any) -> None:
    """A session's time is in this era: a year like 0085 would be answered in the local mean
    time of the site's zone (an offset with seconds), which is no RFC 3339 time."""
    if value is not None and not 2000 <= value.year <= 2999:
        raise serializers.ValidationError(
            _("Give a date and time between the years 2000 and 2999.")
        )


class SimultaneousEventWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=160)
    date = serializers.DateField()
    rounds = serializers.IntegerField(min_value=1, max_value=30)
    sets = serializers.IntegerField(
        min_value=1, max_value=60, help_text="The most étui sets a club may use (4 donnes each)."
    )
    method = serializers.ChoiceField(choices=Method.choices, default=Method.AVERAGE)
    matchpoint_penalty_rate = serializers.DecimalField(
        max_digits=6, decimal_places=3, min_value=0, default="0.1"
    )
    session_starts_at = serializers.DateTimeField(
        required=False, allow_null=True, validators=[session_time_check]
    )
    session_ends_at = serializers.DateTimeField(
        required=False, allow_null=True, validators=[session_time_check]
    )
    claims_window_minutes = serializers.IntegerField(
        min_value=0,
        max_value=1440,
        default=30,
        help_text="Minutes after the embargo ends during which the clubs' corrections are "
        "taken; then the event closes by itself.",
    )


class SimultaneousInvitationWriteSerializer(serializers.Serializer):
    club_name = serializers.CharField(max_length=120)
    federation_number = serializers.RegexField(
        r"^[0-9]{4,7}$", required=False, allow_blank=True, default=""
    )


class SimultaneousInvitationSerializer(serializers.Serializer):
    invitation = serializers.CharField(source="public_id")
    club_name = serializers.CharField()
    federation_number = serializers.CharField()
    active = serializers.BooleanField()
    last_sequence = serializers.IntegerField(allow_null=True)
    last_upload_at = serializers.DateTimeField(allow_null=True)
    final_received_at = serializers.DateTimeField(allow_null=True)
    session_ended_at = serializers.DateTimeField(allow_null=True)


class SimultaneousInvitationCreatedSerializer(serializers.Serializer):
    invitation = serializers.CharField()
    club_name = serializers.CharField()
    token = serializers.CharField(help_text="Shown once: only its SHA-256 is kept.")


class SimultaneousEventSerializer(serializers.Serializer):
    event = serializers.CharField(source="public_id")
    name = serializers.CharField()
    date = serializers.DateField()
    session_starts_at = serializers.DateTimeField(allow_null=True)
    session_ends_at = serializers.DateTimeField(allow_null=True)
    rounds = serializers.IntegerField()
    donnes_per_relais = serializers.IntegerField()
    sets = serializers.IntegerField()
    method = serializers.CharField()
    matchpoint_penalty_rate = serializers.DecimalField(max_digits=6, decimal_places=3)
    identity = serializers.CharField()
    commitment = serializers.CharField()
    seed = serializers.SerializerMethodField()
    state = serializers.CharField()
    embargo_over = serializers.BooleanField()
    claims_window_minutes = serializers.IntegerField()
    claims_close_at = serializers.DateTimeField(allow_null=True)
    closed_at = serializers.DateTimeField(allow_null=True)
    results_version = serializers.IntegerField()
    invitations = serializers.SerializerMethodField()

    def get_seed(self, event: SimultaneousEvent) -> str | None:
        return event.seed if event.embargo_over else None

    @extend_schema_field(SimultaneousInvitationSerializer(many=True))
    def get_invitations(self, event: SimultaneousEvent) -> list[dict[str, Any]]:
        return SimultaneousInvitationSerializer(
            event.invitations.order_by("club_name", "pk"), many=True
        ).data


class SimultaneousUploadOutcomeSerializer(serializers.Serializer):
    upload = serializers.IntegerField()
    results = serializers.DictField(child=serializers.IntegerField())
    penalties = serializers.DictField(child=serializers.IntegerField())
    final = serializers.BooleanField()
    stale = serializers.BooleanField(
        required=False,
        help_text="Present (true) when the upload is older than one applied: nothing changed.",
    )
    last_sequence = serializers.IntegerField(
        required=False, help_text="With stale: the sequence of the upload the hub holds."
    )


class SimultaneousUploadLogSerializer(serializers.Serializer):
    upload = serializers.IntegerField(source="pk")
    received_at = serializers.DateTimeField()
    invitation = serializers.CharField(source="invitation.public_id", allow_null=True)
    club_name = serializers.CharField(source="invitation.club_name", allow_null=True)
    source = serializers.CharField()
    outcome = serializers.CharField()
    code = serializers.CharField()
    reason = serializers.CharField()
    sequence = serializers.IntegerField(allow_null=True)
    final = serializers.BooleanField()
    results_new = serializers.IntegerField()
    results_replaced = serializers.IntegerField()
    results_unchanged = serializers.IntegerField()
    results_removed = serializers.IntegerField()


class SimultaneousRankingRowSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    rank = serializers.IntegerField()
    licence = serializers.CharField()
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    club = serializers.CharField(source="club_name")
    invitation = serializers.CharField(source="invitation.public_id", allow_null=True)
    total = serializers.CharField(help_text='Exact: an integer or a fraction "p/q".')
    differential_total = serializers.CharField()
    penalty_points = serializers.IntegerField()
    donnes_played = serializers.IntegerField()
    donnes_compared = serializers.IntegerField()


class SimultaneousClubDonneSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    dealer = serializers.CharField()
    hands = serializers.DictField(child=serializers.CharField())
    chien = serializers.CharField()
    redraws = serializers.IntegerField(
        help_text="How many times the generator dealt this donne again (RULES §2); checked "
        "with the revealed seed."
    )


class SimultaneousClubEventSerializer(serializers.Serializer):
    event = serializers.CharField()
    name = serializers.CharField()
    date = serializers.DateField()
    rounds = serializers.IntegerField()
    donnes_per_relais = serializers.IntegerField()
    sets = serializers.IntegerField()
    method = serializers.CharField()
    matchpoint_penalty_rate = serializers.CharField()
    identity = serializers.CharField()
    commitment = serializers.CharField()
    seed = serializers.CharField(allow_null=True)
    state = serializers.CharField()
    club = serializers.DictField(child=serializers.CharField())
    donnes = SimultaneousClubDonneSerializer(many=True)


# --- views ----------------------------------------------------------------------------------


def _handler(exc: Exception, context: Any) -> Response | None:
    """The API's error shape, plus `detail` (the message) for the clubs' side."""
    response = api_exception_handler(exc, context)
    if response is not None and isinstance(response.data, dict) and "message" in response.data:
        response.data.setdefault("detail", response.data["message"])
    return response


def refusal(exc: services.UploadRefused) -> ApiError:
    """An upload's refusal as the API's error."""
    extra = dict(exc.extra)
    details = extra.pop("details", None) or {}
    return ApiError(
        status_code=exc.status,
        code=exc.code,
        message=exc.message,
        details=details,
        extra={"detail": exc.message, **extra},
        headers={"WWW-Authenticate": 'Bearer realm="simultaneous"'} if exc.status == 401 else None,
    )


class HubView(ApiView):
    """Base of the hub's views."""

    def get_exception_handler(self) -> Any:
        return _handler

    def event(self, *, organiser: bool = True) -> SimultaneousEvent:
        """The event of the URL; with `organiser`, only for its organisers. Who asks is checked
        before the event is looked up: anonymous 401, and a caller who could organise no event
        403 whether the event exists or not (no answer tells which events exist)."""
        user = self.request.user
        if organiser and not user.is_authenticated:
            raise deny(user, "")
        event = SimultaneousEvent.objects.filter(public_id=self.kwargs["event"]).first()
        if event is None and organiser and not services.can_create_event(user):
            raise deny(user, _("Only the event's organisers may do this."))
        if event is None:
            raise Http404
        if organiser and not services.is_event_organiser(user, event):
            raise deny(user, _("Only the event's organisers may do this."))
        return event


class EventListView(HubView):
    @extend_schema(
        operation_id="simultaneous_events_list",
        summary="List the simultaneous events you organise",
        responses={200: SimultaneousEventSerializer(many=True), **errors(401)},
        tags=TAGS,
        examples=[OpenApiExample("None yet", value=[], response_only=True)],
    )
    def get(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise deny(request.user, "")
        events = SimultaneousEvent.objects.order_by("-date", "pk")
        if not request.user.is_superuser:
            events = events.filter(organisers=request.user)
        return self.paginated(events, SimultaneousEventSerializer)

    @extend_schema(
        operation_id="simultaneous_events_create",
        summary="Create a simultaneous event (dealt at once, commitment published)",
        request=SimultaneousEventWriteSerializer,
        responses={201: SimultaneousEventSerializer, **errors(400, 401, 403, 429)},
        tags=TAGS,
        examples=[
            OpenApiExample(
                "Winter event",
                value={"name": "Simultané d'hiver", "date": "2027-01-16", "rounds": 3, "sets": 10},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        if not services.can_create_event(request.user):
            raise deny(request.user, _("Only the organisers of a club may organise an event."))
        data = self.valid(SimultaneousEventWriteSerializer).validated_data
        event = services.event_create(user=request.user, **data)
        return Response(SimultaneousEventSerializer(event).data, status=201)


class EventDetailView(HubView):
    @extend_schema(
        operation_id="simultaneous_event",
        summary="An event: its dealing, state and invitations",
        parameters=[EVENT_ID],
        responses={200: SimultaneousEventSerializer, **errors(401, 403, 404)},
        tags=TAGS,
        examples=[
            OpenApiExample(
                "Open",
                value={"event": "3f2a9c1d0b7e4a55", "state": "open", "seed": None},
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, event: str) -> Response:
        return Response(SimultaneousEventSerializer(self.event()).data)


class InvitationCreateView(HubView):
    @extend_schema(
        operation_id="simultaneous_invitations_create",
        summary="Invite a club: the answer holds its token, shown this once",
        parameters=[EVENT_ID],
        request=SimultaneousInvitationWriteSerializer,
        responses={201: SimultaneousInvitationCreatedSerializer, **errors(400, 401, 403, 404, 429)},
        tags=TAGS,
        examples=[
            OpenApiExample("Club", value={"club_name": "Tarot Club de Lyon"}, request_only=True),
            OpenApiExample(
                "Invited",
                value={"invitation": "a1b2c3d4e5f60718", "club_name": "Tarot Club de Lyon",
                       "token": "Vb3…"},
                response_only=True,
            ),
        ],
    )  # fmt: skip
    def post(self, request: Request, event: str) -> Response:
        the_event = self.event()
        data = self.valid(SimultaneousInvitationWriteSerializer).validated_data
        invitation, token = services.invitation_create(event=the_event, user=request.user, **data)
        body = {"invitation": invitation.public_id, "club_name": invitation.club_name}
        return Response({**body, "token": token}, status=201)


INVITATION_ID = OpenApiParameter(
    "invitation",
    {"type": "string", "pattern": "^[0-9a-z-]{1,40}$"},
    OpenApiParameter.PATH,
    description="The invitation's public id.",
)


class InvitationRevokeView(HubView):
    @extend_schema(
        operation_id="simultaneous_invitation_revoke",
        summary="Revoke a club's invitation: its players, results and penalties leave the field",
        parameters=[EVENT_ID, INVITATION_ID],
        request=None,
        responses={200: SimultaneousInvitationSerializer, **errors(400, 401, 403, 404, 429)},
        tags=TAGS,
        examples=[
            OpenApiExample(
                "Revoked",
                value={"invitation": "a1b2c3d4e5f60718", "club_name": "Club B", "active": False},
                response_only=True,
            )
        ],
    )
    def post(self, request: Request, event: str, invitation: str) -> Response:
        the_event = self.event()
        found = Invitation.objects.filter(event=the_event, public_id=invitation).first()
        if found is None:
            raise Http404
        return Response(
            SimultaneousInvitationSerializer(services.invitation_revoke(invitation=found)).data
        )


class SimultaneousClaimSerializer(serializers.Serializer):
    invitation = serializers.CharField(source="invitation.public_id")
    club_name = serializers.CharField(source="invitation.club_name")
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    at = serializers.DateTimeField(allow_null=True)


class SimultaneousConflictSerializer(serializers.Serializer):
    licence = serializers.CharField()
    holder = SimultaneousClaimSerializer(help_text="The club whose players hold the licence.")
    claimant = SimultaneousClaimSerializer(help_text="The club refused with licence_elsewhere.")


class EventConflictsView(HubView):
    @extend_schema(
        operation_id="simultaneous_conflicts",
        summary="Licences two clubs claim, with both claims, for the organiser to settle",
        parameters=[EVENT_ID],
        responses={200: SimultaneousConflictSerializer(many=True), **errors(401, 403, 404)},
        tags=TAGS,
        examples=[OpenApiExample("None", value=[], response_only=True)],
    )
    def get(self, request: Request, event: str) -> Response:
        conflicts = services.licence_conflicts(self.event())
        return Response(SimultaneousConflictSerializer(conflicts, many=True).data)


class EventCloseView(HubView):
    @extend_schema(
        operation_id="simultaneous_event_close",
        summary="Close the event: uploads end, the embargo is lifted",
        parameters=[EVENT_ID],
        request=None,
        responses={200: SimultaneousEventSerializer, **errors(400, 401, 403, 404, 429)},
        tags=TAGS,
        examples=[OpenApiExample("Closed", value={"state": "closed"}, response_only=True)],
    )
    def post(self, request: Request, event: str) -> Response:
        closed = services.event_close(event=self.event(), user=request.user)
        return Response(SimultaneousEventSerializer(closed).data)


class EventUploadsView(HubView):
    parser_classes = [JSONParser, MultiPartParser]

    @extend_schema(
        operation_id="simultaneous_uploads_list",
        summary="The uploads received, applied or refused (newest first)",
        parameters=[EVENT_ID],
        responses={200: SimultaneousUploadLogSerializer(many=True), **errors(401, 403, 404)},
        tags=TAGS,
        examples=[OpenApiExample("None yet", value=[], response_only=True)],
    )
    def get(self, request: Request, event: str) -> Response:
        logs = UploadLog.objects.filter(event=self.event()).select_related("invitation")
        return self.paginated(logs.order_by("-received_at", "-pk"), SimultaneousUploadLogSerializer)

    @extend_schema(
        operation_id="simultaneous_uploads_manual",
        summary="Upload a club's file by hand (same format; its \"club\" names the invitation)",
        parameters=[EVENT_ID],
        request={
            "application/json": OpenApiTypes.OBJECT,
            "multipart/form-data": {
                "type": "object",
                "properties": {"file": {"type": "string", "format": "binary"}},
            },
        },
        responses={
            200: SimultaneousUploadOutcomeSerializer,
            **errors(400, 401, 403, 404, 429),
            409: OpenApiResponse(description="closed, or licence_elsewhere."),
            422: OpenApiResponse(description="commitment_mismatch."),
        },
        tags=TAGS,
        examples=[
            OpenApiExample("Applied", value=UPLOAD_EXAMPLE, response_only=True),
            OpenApiExample("Refused", value=REFUSED_EXAMPLE, response_only=True, status_codes=["422"]),
        ],
    )  # fmt: skip
    def post(self, request: Request, event: str) -> Response:
        the_event = self.event()
        if request.content_type.startswith("multipart/"):
            file = request.FILES.get("file")
            if file is None:
                raise ApiError(
                    status_code=400,
                    code="invalid",
                    message=_("Choose the club's upload file."),
                    details={"file": [_("Choose the club's upload file.")]},
                    extra={"detail": _("Choose the club's upload file.")},
                )
            body = file.read()
        else:
            body = request.body
        try:
            outcome = services.upload_receive(body=body, event=the_event, user=request.user)
        except services.UploadRefused as exc:
            raise refusal(exc) from None
        return Response(outcome.as_json())


class EventRankingView(HubView):
    @extend_schema(
        operation_id="simultaneous_ranking",
        summary="The overall ranking (organisers any time; everyone after the embargo)",
        parameters=[
            EVENT_ID,
            OpenApiParameter("club", OpenApiTypes.STR, description="An invitation id: its players."),
            OpenApiParameter("q", OpenApiTypes.STR, description="Find me: name words or licence."),
        ],
        responses={200: SimultaneousRankingRowSerializer(many=True), **errors(401, 403, 404)},
        tags=TAGS,
        examples=[
            OpenApiExample(
                "First",
                value=[{"place": 1, "rank": 1, "licence": "0123456", "first_name": "Anne",
                        "last_name": "Martin", "club": "Club A", "invitation": "a1b2",
                        "total": "85/2", "differential_total": "85/2", "penalty_points": 0,
                        "donnes_played": 24, "donnes_compared": 24}],
                response_only=True,
            )
        ],
    )  # fmt: skip
    def get(self, request: Request, event: str) -> Response:
        the_event = self.event(organiser=False)
        if not services.can_see_field(request.user, the_event):
            raise deny(
                request.user,
                _("The overall ranking stays with the organisers until the embargo ends."),
            )
        state = OverallRankingState.objects.filter(pk=the_event.pk).first()
        stored = state.results_version if state else None
        computed = state.computed_at.timestamp() if state and state.computed_at else 0
        key = ReadKey(  # what the answer shows: a poll that names it gets a 304
            f"hub-api:{the_event.public_id}",
            f"{the_event.results_version}:{stored}:{computed:.6f}",
            request.META.get("QUERY_STRING", ""),
            "public" if the_event.embargo_over else "embargo",
        )
        tag = etag(key)
        response = not_modified(request, tag)
        if response is None:
            rows = OverallRankingRow.objects.filter(event=the_event).select_related("invitation")
            club = request.query_params.get("club")
            if club:
                rows = rows.filter(invitation__public_id=club)
            for word in request.query_params.get("q", "").split()[:5]:
                rows = rows.filter(
                    Q(search_name__contains=fold(word)) | Q(licence__startswith=word)
                )
            response = tagged(
                self.paginated(rows.order_by("place"), SimultaneousRankingRowSerializer), tag
            )
        response["X-Results-Version"] = str(the_event.results_version)
        response["X-Ranking-Version"] = "" if stored is None else str(stored)
        return response


# --- the clubs' side ------------------------------------------------------------------------


class ClubView(HubView):
    """Authenticated by the invitation's token (Bearer), not by a user."""

    authentication_classes: list[Any] = []

    def token(self) -> str | None:
        header = self.request.META.get("HTTP_AUTHORIZATION", "")
        scheme, _sep, token = header.partition(" ")
        return token.strip() if scheme.lower() == "bearer" and token.strip() else None

    def invitation(self) -> Invitation:
        invitation = services.invitation_for_token(self.token())
        if invitation is None:
            raise refusal(
                services.UploadRefused(
                    "not_invited", 401, _("This token opens no invitation to a simultaneous event.")
                )
            )
        if not invitation.active:
            raise refusal(
                services.UploadRefused(
                    "not_invited", 403, _("This club's invitation to the event was revoked.")
                )
            )
        return invitation


class ClubEventView(ClubView):
    @extend_schema(
        operation_id="simultaneous_club_event",
        summary="The event a club's token opens: its donnes, to deal the étuis",
        responses={200: SimultaneousClubEventSerializer, **errors(401, 403)},
        tags=TAGS,
        examples=[
            OpenApiExample(
                "Event",
                value={"event": "3f2a9c1d0b7e4a55", "rounds": 3, "donnes_per_relais": 4,
                       "sets": 10, "seed": None, "state": "open"},
                response_only=True,
            )
        ],
    )  # fmt: skip
    def get(self, request: Request) -> Response:
        invitation = self.invitation()
        event = invitation.event
        return Response(
            {
                "event": event.public_id,
                "name": event.name,
                "date": event.date.isoformat(),
                "rounds": event.rounds,
                "donnes_per_relais": event.donnes_per_relais,
                "sets": event.sets,
                "method": event.method,
                "matchpoint_penalty_rate": format(event.matchpoint_penalty_rate.normalize(), "f"),
                "identity": event.identity,
                "commitment": event.commitment,
                "seed": event.seed if event.embargo_over else None,
                "state": event.state,
                "window": services.event_window_wire(event),
                "club": {"invitation": invitation.public_id, "name": invitation.club_name},
                "donnes": services.event_donnes(event, redraws=True),
            }
        )


class ClubUploadView(ClubView):
    def checked_body(self) -> bytes:
        """The raw body, once it is known to be one the hub may read: not over
        DATA_UPLOAD_MAX_MEMORY_SIZE (checked before reading it), without a NUL character,
        not nested too deeply. The site's middleware leaves this path to this check
        (tarot_club.middleware.SELF_CHECKED_PATHS) so that a refusal of a valid token is in
        the organiser's log."""
        from tarot_club.middleware import MAX_JSON_DEPTH, json_depth

        request = self.request
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = b""
        code, status = "", 400
        if limit is not None and length > limit:
            code, status = "too_large", 413
        else:
            body = request.body
            if b"\x00" in body or b"\\u0000" in body:
                code = "invalid_characters"
            elif json_depth(body) > MAX_JSON_DEPTH:
                code = "too_deep"
        if code:
            raise refusal(
                services.upload_refused_unread(
                    token=self.token(), code=code, status=status, size=length
                )
            )
        return body

    @extend_schema(
        operation_id="simultaneous_club_upload",
        summary="Send the club's whole current state (docs/simultaneous-upload.schema.json)",
        parameters=[SIGNATURE],
        request={"application/json": OpenApiTypes.OBJECT},
        responses={
            200: SimultaneousUploadOutcomeSerializer,
            **errors(400, 401, 403, 429),
            409: OpenApiResponse(description="closed, or licence_elsewhere (`licences`)."),
            422: OpenApiResponse(description="commitment_mismatch (`donnes`)."),
        },
        tags=TAGS,
        examples=[
            OpenApiExample("Applied", value=UPLOAD_EXAMPLE, response_only=True),
            OpenApiExample("Refused", value=REFUSED_EXAMPLE, response_only=True, status_codes=["422"]),
        ],
    )  # fmt: skip
    def post(self, request: Request) -> Response:
        try:
            outcome = services.upload_receive(
                body=self.checked_body(),
                token=self.token(),
                signature=request.META.get("HTTP_X_SIMULTANEOUS_SIGNATURE"),
            )
        except services.UploadRefused as exc:
            raise refusal(exc) from None
        return Response(outcome.as_json())
