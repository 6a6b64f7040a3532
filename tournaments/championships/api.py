"""The championships' API under /api/v1/championships/ (docs/API.md, "Championships").

Anyone reads a championship, its ranking (everyone or one série, `?serie=`, a search `?q=`,
paged by `?limit=&offset=`) and its qualifiers: it counts only final, public events. Its
organisers create it with its rule, edit it (a rule change once a counted event is final is
refused, naming the field), add and remove events, set séries; an event's own organiser
agrees that it counts. Every refusal is the API's one error shape, translated, naming the
field, with nothing saved.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from scoring.rankings.rows import exact_number
from scoring.rules.championship import TIE_BREAKS
from tarot_club.kit.api.access import deny
from tarot_club.kit.api.views import ApiView
from tournaments.api.schema import errors
from tournaments.models import Club, Tournament
from tournaments.simultaneous.hub.models import SimultaneousEvent

from . import services
from .errors import ChampionshipInvalid
from .models import Championship, ChampionshipEvent, SeasonSerie
from .permissions import can_create_championship, can_manage_championship, owns_event
from .ranking import ShownLine, Standing, championship_caught_up, event_is_final

TAGS = ["championships"]
ID = OpenApiParameter("championship", int, OpenApiParameter.PATH, description="Its id.")
EVENT = OpenApiParameter("event", int, OpenApiParameter.PATH, description="The entry's id.")
RULE_EXAMPLE = {
    "name": "Championnat 2026-2027",
    "season_start": "2026-09-01",
    "season_end": "2027-08-31",
    "club": 1,
    "kind": "places",
    "places": [25, 20, 16, 13, 11, 10, 9],
    "places_beyond": 1,
    "best_of": 8,
    "planned_events": 10,
    "minimum_events": 3,
    "tie_breaks": ["events", "best"],
}


class ChampionshipWriteSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=160)
    season_start = serializers.DateField()
    season_end = serializers.DateField()
    club = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    hub_scope = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Over simultaneous events: true exactly when no club is named (may be left out).",
    )
    kind = serializers.ChoiceField(choices=Championship.Kind.choices)
    places = serializers.ListField(
        child=serializers.IntegerField(min_value=-100000, max_value=100000),
        required=False,
        max_length=500,
        help_text="Points for place 1, 2, … (kind places): none negative, never increasing.",
    )
    places_beyond = serializers.IntegerField(required=False, min_value=0, max_value=100000)
    scale_by_field = serializers.BooleanField(required=False)
    best_of = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=500)
    planned_events = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=500
    )
    minimum_events = serializers.IntegerField(required=False, min_value=0, max_value=500)
    tie_breaks = serializers.ListField(
        child=serializers.ChoiceField(choices=TIE_BREAKS), required=False, max_length=3
    )
    series = serializers.ListField(
        child=serializers.CharField(max_length=40), required=False, max_length=30
    )
    handicaps = serializers.DictField(
        child=serializers.RegexField(r"^-?[0-9]{1,4}(/[1-9][0-9]{0,3})?$"),
        required=False,
        help_text='Série -> points added per counted event ("2", "1/2").',
    )
    final_name = serializers.CharField(max_length=160, required=False, allow_blank=True)
    qualify_top = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=100000
    )
    qualify_top_per_serie = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=100000
    )


class ChampionshipEventSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    key = serializers.CharField()
    name = serializers.SerializerMethodField()
    date = serializers.SerializerMethodField()
    agreed = serializers.BooleanField()
    final = serializers.SerializerMethodField()

    def get_name(self, entry: ChampionshipEvent) -> str:
        return services.event_name(entry)

    def get_date(self, entry: ChampionshipEvent) -> str:
        return services.event_date(entry).isoformat()

    def get_final(self, entry: ChampionshipEvent) -> bool:
        return event_is_final(entry)


class ChampionshipSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    season_start = serializers.DateField()
    season_end = serializers.DateField()
    club = serializers.IntegerField(source="club_id", allow_null=True)
    hub_scope = serializers.BooleanField()
    kind = serializers.CharField()
    places = serializers.ListField(child=serializers.IntegerField())
    places_beyond = serializers.IntegerField()
    scale_by_field = serializers.BooleanField()
    best_of = serializers.IntegerField(allow_null=True)
    planned_events = serializers.IntegerField(allow_null=True)
    minimum_events = serializers.IntegerField()
    tie_breaks = serializers.ListField(child=serializers.CharField())
    series = serializers.ListField(child=serializers.CharField())
    handicaps = serializers.DictField(child=serializers.CharField())
    final_name = serializers.CharField()
    qualify_top = serializers.IntegerField(allow_null=True)
    qualify_top_per_serie = serializers.IntegerField(allow_null=True)
    frozen_at = serializers.DateTimeField(allow_null=True)
    events = serializers.SerializerMethodField()

    def get_events(self, championship: Championship) -> list[dict[str, Any]]:
        entries = championship.events.select_related("tournament", "simultaneous_event")
        return ChampionshipEventSerializer(entries.order_by("pk"), many=True).data


class EventAddSerializer(serializers.Serializer):
    tournament = serializers.IntegerField(required=False, min_value=1, max_value=2**62)
    simultaneous_event = serializers.RegexField(r"^[0-9a-z-]{1,40}$", required=False)


class SerieSerializer(serializers.Serializer):
    licence = serializers.CharField(max_length=20)
    serie = serializers.CharField(max_length=40, allow_blank=True)


class SeriesWriteSerializer(serializers.Serializer):
    series = SerieSerializer(many=True, max_length=20000)


class EventScoreSerializer(serializers.Serializer):
    event = serializers.CharField()
    points = serializers.CharField(help_text='Exact: an integer or a fraction "p/q".')
    counted = serializers.BooleanField(help_text="False: dropped by best_of (still shown).")


class RankingLineSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="None: non classé.")
    classified = serializers.BooleanField()
    licence = serializers.CharField()
    first_name = serializers.CharField()
    last_name = serializers.CharField()
    club = serializers.CharField()
    points = serializers.CharField()
    handicap = serializers.CharField()
    counted = serializers.IntegerField()
    qualified = serializers.BooleanField()
    events = EventScoreSerializer(many=True)


def line_data(shown: ShownLine) -> dict[str, Any]:
    """A shown line as the API writes it (exact numbers as text)."""
    line = shown.line
    return {
        "rank": line.rank,
        "classified": line.classified,
        "licence": shown.licence,
        "first_name": shown.first_name,
        "last_name": shown.last_name,
        "club": shown.club,
        "points": str(exact_number(line.points)),
        "handicap": str(exact_number(line.handicap)),
        "counted": line.counted,
        "qualified": shown.qualified,
        "events": [
            {"event": e.event, "points": str(exact_number(e.points)), "counted": e.counted}
            for e in line.events
        ],
    }


class ChampionshipView(ApiView):
    """Base of the championships' views."""

    def championship(self, *, manage: bool = False) -> Championship:
        """The championship of the URL; with `manage`, only for its organisers. Who asks is
        checked first: anonymous 401, someone who could organise none 403 whether it exists
        or not."""
        user = self.request.user
        if manage and not user.is_authenticated:
            raise deny(user, "")
        if manage and not can_create_championship(user):
            raise deny(user, _("Only the championship’s organisers may do this."))
        found = Championship.objects.filter(pk=self.kwargs["championship"]).first()
        if found is None:
            raise Http404
        if manage and not can_manage_championship(user, found):
            raise deny(user, _("Only the championship’s organisers may do this."))
        return found

    def entry(self, championship: Championship) -> ChampionshipEvent:
        entry = (
            championship.events.select_related("tournament", "simultaneous_event", "championship")
            .filter(pk=self.kwargs["event"])
            .first()
        )
        if entry is None:
            raise Http404
        return entry


def _write_values(data: dict[str, Any]) -> tuple[Club | None, dict[str, Any]]:
    values = dict(data)
    club_id = values.pop("club", None)
    club = None
    if club_id is not None:
        club = Club.objects.filter(pk=club_id).first()
        if club is None:
            raise ChampionshipInvalid({"club": [_("There is no such club.")]})
    return club, values


class ChampionshipListView(ChampionshipView):
    @extend_schema(
        operation_id="championships_list",
        summary="List the championships",
        responses={200: ChampionshipSerializer(many=True), **errors(401)},
        tags=TAGS,
        examples=[OpenApiExample("None yet", value=[], response_only=True)],
    )
    def get(self, request: Request) -> Response:
        return self.paginated(
            Championship.objects.order_by("-season_start", "pk"), ChampionshipSerializer
        )

    @extend_schema(
        operation_id="championships_create",
        summary="Create a championship with its rule",
        request=ChampionshipWriteSerializer,
        responses={201: ChampionshipSerializer, **errors(400, 401, 403, 429)},
        tags=TAGS,
        examples=[OpenApiExample("Points by place", value=RULE_EXAMPLE, request_only=True)],
    )
    def post(self, request: Request) -> Response:
        if not can_create_championship(request.user):
            raise deny(
                request.user,
                _(
                    "Only the organisers of a club or of a simultaneous "
                    "event may create a championship."
                ),
            )
        club, values = _write_values(self.valid(ChampionshipWriteSerializer).validated_data)
        championship = services.championship_create(user=request.user, club=club, **values)
        return Response(ChampionshipSerializer(championship).data, status=201)


class ChampionshipDetailView(ChampionshipView):
    @extend_schema(
        operation_id="championship",
        summary="A championship: its rule and events",
        parameters=[ID],
        responses={200: ChampionshipSerializer, **errors(401, 404)},
        tags=TAGS,
        examples=[OpenApiExample("One", value=RULE_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, championship: int) -> Response:
        return Response(ChampionshipSerializer(self.championship()).data)

    @extend_schema(
        operation_id="championship_edit",
        summary="Change a championship (its rule only until a counted event is final)",
        parameters=[ID],
        request=ChampionshipWriteSerializer(partial=True),
        responses={200: ChampionshipSerializer, **errors(400, 401, 403, 404, 429)},
        tags=TAGS,
        examples=[OpenApiExample("Rename", value={"name": "Circuit 2027"}, request_only=True)],
    )
    def patch(self, request: Request, championship: int) -> Response:
        found = self.championship(manage=True)
        data = self.valid(ChampionshipWriteSerializer, partial=True).validated_data
        if "club" in data:
            raise ChampionshipInvalid({"club": [_("A championship’s club cannot change.")]})
        edited = services.championship_edit(found, user=request.user, **data)
        return Response(ChampionshipSerializer(edited).data)


class EventAddView(ChampionshipView):
    @extend_schema(
        operation_id="championship_events_add",
        summary="Count a tournament or a simultaneous event (its organiser agrees)",
        parameters=[ID],
        request=EventAddSerializer,
        responses={201: ChampionshipEventSerializer, **errors(400, 401, 403, 404, 429)},
        tags=TAGS,
        examples=[OpenApiExample("A tournament", value={"tournament": 12}, request_only=True)],
    )
    def post(self, request: Request, championship: int) -> Response:
        found = self.championship(manage=True)
        data = self.valid(EventAddSerializer).validated_data
        tournament = event = None
        if "tournament" in data:
            tournament = Tournament.objects.filter(pk=data["tournament"]).first()
            if tournament is None:
                raise ChampionshipInvalid({"tournament": [_("There is no such tournament.")]})
        elif "simultaneous_event" in data:
            event = SimultaneousEvent.objects.filter(public_id=data["simultaneous_event"]).first()
            if event is None:
                raise ChampionshipInvalid(
                    {"simultaneous_event": [_("There is no such simultaneous event.")]}
                )
        entry = services.event_add(
            found, user=request.user, tournament=tournament, simultaneous_event=event
        )
        return Response(ChampionshipEventSerializer(entry).data, status=201)


class EventDetailView(ChampionshipView):
    @extend_schema(
        operation_id="championship_events_remove",
        summary="Stop counting an event (logged)",
        parameters=[ID, EVENT],
        request=None,
        responses={204: None, **errors(400, 401, 403, 404, 429)},
        tags=TAGS,
    )
    def delete(self, request: Request, championship: int, event: int) -> Response:
        services.event_remove(self.entry(self.championship(manage=True)), user=request.user)
        return Response(status=204)


class EventAgreeView(ChampionshipView):
    @extend_schema(
        operation_id="championship_events_agree",
        summary="As the event's organiser, agree that it counts",
        parameters=[ID, EVENT],
        request=None,
        responses={200: ChampionshipEventSerializer, **errors(400, 401, 403, 404, 429)},
        tags=TAGS,
        examples=[OpenApiExample("Agreed", value={"id": 3, "agreed": True}, response_only=True)],
    )
    def post(self, request: Request, championship: int, event: int) -> Response:
        user = request.user
        if not user.is_authenticated:
            raise deny(user, "")
        if not can_create_championship(user):
            raise deny(user, _("Only the event’s organisers may agree that it counts."))
        entry = self.entry(self.championship())
        if not owns_event(user, services.event_of(entry)):
            raise deny(user, _("Only the event’s organisers may agree that it counts."))
        return Response(ChampionshipEventSerializer(services.event_agree(entry, user=user)).data)


class SeriesView(ChampionshipView):
    @extend_schema(
        operation_id="championship_series",
        summary="The players' séries",
        parameters=[ID],
        responses={200: SerieSerializer(many=True), **errors(401, 404)},
        tags=TAGS,
        examples=[
            OpenApiExample("One", value=[{"licence": "0123456", "serie": "2e"}], response_only=True)
        ],
    )
    def get(self, request: Request, championship: int) -> Response:
        found = self.championship()
        rows = SeasonSerie.objects.filter(championship=found).order_by("licence")
        return self.paginated(rows, SerieSerializer)

    @extend_schema(
        operation_id="championship_series_set",
        summary="Set players' séries by licence (an empty série clears it)",
        parameters=[ID],
        request=SeriesWriteSerializer,
        responses={200: SerieSerializer(many=True), **errors(400, 401, 403, 404, 429)},
        tags=TAGS,
        examples=[
            OpenApiExample(
                "Two",
                value={
                    "series": [
                        {"licence": "0123456", "serie": "2e"},
                        {"licence": "0654321", "serie": "Promotion"},
                    ]
                },
                request_only=True,
            )
        ],
    )
    def post(self, request: Request, championship: int) -> Response:
        found = self.championship(manage=True)
        rows = self.valid(SeriesWriteSerializer).validated_data["series"]
        services.series_set(found, [(r["licence"], r["serie"]) for r in rows], user=request.user)
        return Response(SerieSerializer(rows, many=True).data)


class RankingPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.CharField(allow_null=True)
    previous = serializers.CharField(allow_null=True)
    provisional = serializers.ListField(
        child=serializers.CharField(), help_text="The counted events not final yet."
    )
    results = RankingLineSerializer(many=True)


def _provisional(standing: Standing) -> list[str]:
    return [services.event_name(e) for e in standing.provisional]


class RankingView(ChampionshipView):
    @extend_schema(
        operation_id="championship_ranking",
        summary="The ranking: everyone or one série, paged, searchable",
        parameters=[
            ID,
            OpenApiParameter("serie", str, description="Only this série, ranked apart."),
            OpenApiParameter("q", str, description="Names or licence, accents ignored."),
            OpenApiParameter("limit", int),
            OpenApiParameter("offset", int),
        ],
        responses={200: RankingPageSerializer, **errors(401, 404)},
        tags=TAGS,
        examples=[
            OpenApiExample(
                "Page",
                value={
                    "count": 0,
                    "next": None,
                    "previous": None,
                    "provisional": [],
                    "results": [],
                },
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, championship: int) -> Response:
        standing = championship_caught_up(self.championship())
        serie = request.query_params.get("serie") or None
        query = request.query_params.get("q", "")[:100]
        page = self.paginate_queryset(standing.shown(serie, query))
        response = self.get_paginated_response([line_data(x) for x in page or []])
        response.data["provisional"] = _provisional(standing)
        return response


class QualifiersSerializer(serializers.Serializer):
    final_name = serializers.CharField()
    overall = RankingLineSerializer(many=True)
    per_serie = serializers.DictField(child=RankingLineSerializer(many=True))
    provisional = serializers.ListField(child=serializers.CharField())


class QualifiersView(ChampionshipView):
    @extend_schema(
        operation_id="championship_qualifiers",
        summary="The qualified players: top K overall and top K of each série",
        parameters=[ID],
        responses={200: QualifiersSerializer, **errors(401, 404)},
        tags=TAGS,
        examples=[
            OpenApiExample(
                "None",
                value={"final_name": "", "overall": [], "per_serie": {}, "provisional": []},
                response_only=True,
            )
        ],
    )
    def get(self, request: Request, championship: int) -> Response:
        standing = championship_caught_up(self.championship())
        return Response(qualifiers_data(standing))


def qualifiers_data(standing: Standing) -> dict[str, Any]:
    """The qualifiers overall and per série, and the events still provisional."""
    qualified = standing.qualified()
    overall = [line_data(x) for x in standing.shown(None) if x.line.player in qualified.get("", ())]
    per_serie = {
        serie: [line_data(x) for x in standing.shown(serie) if x.line.player in keys]
        for serie, keys in qualified.items()
        if serie
    }
    return {
        "final_name": standing.championship.final_name,
        "overall": overall,
        "per_serie": per_serie,
        "provisional": _provisional(standing),
    }
