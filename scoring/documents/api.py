"""The API's documents (/api/v1/tournaments/<id>/documents/…): ask for a build, follow its
progress, download the PDF. The rules of who may ask for and read which document are
scoring.documents.services' (the documents page uses the same); builds run in Celery
(in-process without a broker).

They live with the documents, on the API's shared parts (`tournaments.api`: base view,
permissions, errors, schema); `urlpatterns` is included under /api/v1/ by tarot_club/urls.py,
beside `tournaments.api.urls`.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import FileResponse
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from scoring.documents.fingerprint import Inputs
from scoring.documents.models import Document
from scoring.documents.services import (
    DocumentAccess,
    DocumentError,
    document_filename,
    document_is_out_of_date,
    document_request,
    document_request_all,
)
from tarot_club.kit.api.errors import ApiError, refused
from tournaments.api import permissions as rules
from tournaments.api.converters import TOURNAMENT
from tournaments.api.schema import IDEMPOTENCY_KEY, READ, WRITE, errors
from tournaments.api.serializers import MAX_INT
from tournaments.api.views.base import TournamentView

# --- serializers -------------------------------------------------------------------------------


def _languages() -> list[tuple[str, Any]]:
    return list(settings.LANGUAGES)


# Choice sets named in SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] (one schema enum each).
DOCUMENT_KINDS = list(Document.Kind.choices)
DOCUMENT_STATUSES = list(Document.Status.choices)


class DocumentSerializer(serializers.Serializer):
    """A document's build: follow `status` and `progress`; download once `done`."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=DOCUMENT_KINDS)
    part = serializers.IntegerField(
        help_text="0: the whole tournament; hand records and étui sets: the set's number; "
        "score cards: the player's id."
    )
    language = serializers.CharField()
    status = serializers.ChoiceField(choices=DOCUMENT_STATUSES)
    progress = serializers.IntegerField(help_text="Percent, while it is built.")
    pages = serializers.IntegerField()
    results_version = serializers.IntegerField(help_text="The results version the document shows.")
    out_of_date = serializers.BooleanField(
        help_text="Something it prints changed since it was built (a name, the venue, the "
        "seating, a result…): ask for it again."
    )
    error = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    download = serializers.CharField(
        allow_null=True, help_text="Where to download it, once done and if you may."
    )


class DocumentRequestSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=DOCUMENT_KINDS)
    language = serializers.ChoiceField(choices=_languages(), default="fr")
    part = serializers.IntegerField(min_value=0, max_value=MAX_INT, default=0)
    force = serializers.BooleanField(
        default=False, help_text="Build it again even if it is up to date."
    )


class DocumentSetRequestSerializer(serializers.Serializer):
    language = serializers.ChoiceField(choices=_languages(), default="fr")
    force = serializers.BooleanField(
        default=False, help_text="Build every document again, even those up to date."
    )


# --- views ---------------------------------------------------------------------------------------

TAG = "documents"
IN_PROGRESS = (Document.Status.PENDING, Document.Status.RUNNING)
DOCUMENT_EXAMPLE = {
    "id": 9,
    "kind": "ranking",
    "part": 0,
    "language": "fr",
    "status": "running",
    "progress": 40,
    "pages": 0,
    "results_version": 0,
    "out_of_date": False,
    "error": "",
    "created_at": "2026-12-05T18:02:00+01:00",
    "finished_at": None,
    "download": None,
}
DONE_EXAMPLE = {
    **DOCUMENT_EXAMPLE,
    "status": "done",
    "progress": 100,
    "pages": 2,
    "results_version": 31,
    "finished_at": "2026-12-05T18:02:03+01:00",
    "download": "/api/v1/tournaments/3/documents/9/download/",
}


class DocumentsView(TournamentView):
    """Documents of a tournament one may see (its public page's rule), filtered per document
    by the documents' own rules."""

    read_rule = rules.SEE_TOURNAMENT
    write_rule = rules.SEE_TOURNAMENT  # who may ask for which document: the service says
    serializer_class = DocumentSerializer

    def access(self) -> DocumentAccess:
        return DocumentAccess.of(self.request.user, self.tournament)

    def data(self, documents: list[Document]) -> list[dict[str, Any]]:
        access = self.access()
        inputs = Inputs(self.tournament)
        out = []
        for doc in documents:
            may_download = access.may_download_document(doc)
            done = doc.status == Document.Status.DONE and bool(doc.file)
            out.append(
                {
                    "id": doc.pk,
                    "kind": doc.kind,
                    "part": doc.part,
                    "language": doc.language,
                    "status": doc.status,
                    "progress": doc.progress,
                    "pages": doc.pages,
                    "results_version": doc.results_version,
                    "out_of_date": document_is_out_of_date(
                        doc, current=inputs.fingerprint(doc.kind, doc.language)
                    ),
                    "error": doc.error,
                    "created_at": doc.created_at,
                    "finished_at": doc.finished_at,
                    "download": reverse("api_document_download", args=[self.tournament.pk, doc.pk])
                    if done and may_download
                    else None,
                }
            )
        return out

    def visible(self, doc: Document, access: DocumentAccess) -> bool:
        return access.may_download(doc.kind, doc.part) or access.may_request(doc.kind, doc.part)

    def document(self, document: int) -> Document:
        doc = get_object_or_404(Document, pk=document, tournament=self.tournament)
        if not self.visible(doc, self.access()):
            raise rules.deny(self.request.user, _("You may not read this document."))
        return doc


class DocumentListView(DocumentsView):
    @extend_schema(
        operation_id="documents_list",
        summary="The tournament's documents you may see",
        description="Every build (pending, running, done, failed) of the documents you may "
        "ask for or download: arbiters and organisers all of them; a player their own score "
        "card; everyone the ranking, donne results and score cards once published.",
        responses={200: DocumentSerializer(many=True), **errors(*READ)},
        tags=[TAG],
        examples=[OpenApiExample("Ready", value=DONE_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, tournament: int) -> Response:
        access = self.access()
        docs = [
            d
            for d in Document.objects.filter(tournament=self.tournament).order_by("-created_at")
            if self.visible(d, access)
        ]
        page = self.paginate_queryset(docs)
        return self.get_paginated_response(self.data(page))

    @extend_schema(
        operation_id="documents_create",
        summary="Ask for a document",
        description="Starts a build (202) and answers it; follow it with GET on the document "
        "until `status` is `done`, then download it. Asking again while it is built returns "
        "the same build (never built twice); a finished document still up to date is "
        "answered at once (200); one out of date (any input it prints changed: a name, "
        "the venue, the seating, a result…) is built again. `force` builds it again anyway.",
        request=DocumentRequestSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            200: DocumentSerializer,
            202: DocumentSerializer,
            **errors(*WRITE),
        },
        tags=[TAG],
        examples=[
            OpenApiExample(
                "Ranking", value={"kind": "ranking", "language": "fr"}, request_only=True
            ),
            OpenApiExample(
                "Being built", value=DOCUMENT_EXAMPLE, response_only=True, status_codes=["202"]
            ),
            OpenApiExample("Ready", value=DONE_EXAMPLE, response_only=True, status_codes=["200"]),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        data = self.valid(DocumentRequestSerializer).validated_data
        if not self.access().may_request(data["kind"], data["part"]):
            raise rules.deny(request.user, _("You may not print this document."))
        try:
            doc = document_request(
                tournament=self.tournament,
                kind=data["kind"],
                language=data["language"],
                user=request.user,
                part=data["part"],
                force=data["force"],
            )
        except DocumentError as exc:
            raise refused(str(exc)) from exc
        doc.refresh_from_db()
        status = 202 if doc.status in IN_PROGRESS else 200
        return Response(self.data([doc])[0], status=status)


class DocumentSetView(DocumentsView):
    write_rule = rules.MANAGE
    pagination_class = None  # answers the builds it started, all of them

    @extend_schema(
        operation_id="documents_create_all",
        summary="Ask for every document of the tournament",
        description="Hand records, étui sets, score sheets, route cards, score cards, ranking, "
        "donne results, movement wall chart, table cards, check-in list, étui labels, "
        "arbiter's log and results summary, for the whole tournament, in one language. "
        "Those up to date are answered as they are, unless `force`.",
        request=DocumentSetRequestSerializer,
        parameters=[IDEMPOTENCY_KEY],
        responses={202: DocumentSerializer(many=True), **errors(*WRITE)},
        tags=[TAG],
        examples=[
            OpenApiExample("French", value={"language": "fr"}, request_only=True),
            OpenApiExample("Being built", value=[DOCUMENT_EXAMPLE], response_only=True),
        ],
    )
    def post(self, request: Request, tournament: int) -> Response:
        data = self.valid(DocumentSetRequestSerializer).validated_data
        try:
            docs = document_request_all(
                tournament=self.tournament,
                language=data["language"],
                user=request.user,
                force=data["force"],
            )
        except DocumentError as exc:
            raise refused(str(exc)) from exc
        for doc in docs:
            doc.refresh_from_db()
        return Response(self.data(docs), status=202)


class DocumentDetailView(DocumentsView):
    @extend_schema(
        operation_id="documents_retrieve",
        summary="Follow a document's build",
        description="Poll it: `status` goes pending → running (with `progress`) → done "
        "(with `download`) or failed (with `error`).",
        responses={200: DocumentSerializer, **errors(*READ)},
        tags=[TAG],
        examples=[
            OpenApiExample("Being built", value=DOCUMENT_EXAMPLE, response_only=True),
            OpenApiExample("Ready", value=DONE_EXAMPLE, response_only=True),
        ],
    )
    def get(self, request: Request, tournament: int, document: int) -> Response:
        return Response(self.data([self.document(document)])[0])


class PDFRenderer(BaseRenderer):
    """Lets a client ask for ``Accept: application/pdf``; the file is streamed as is."""

    media_type = "application/pdf"
    format = "pdf"
    charset = None
    render_style = "binary"

    def render(self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None):
        return data


class DocumentDownloadView(DocumentsView):
    renderer_classes = [JSONRenderer, PDFRenderer]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any):
        if isinstance(response, Response):  # errors stay JSON whatever was accepted
            request.accepted_renderer = JSONRenderer()
            request.accepted_media_type = "application/json"
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        operation_id="documents_download",
        summary="Download a finished document (PDF)",
        description="404 while it is not ready.",
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The PDF."),
            **errors(*READ),
        },
        tags=[TAG],
        examples=[
            OpenApiExample(
                "Not ready",
                value={
                    "code": "not_found",
                    "message": "This document is not ready yet.",
                    "details": {},
                },
                response_only=True,
                status_codes=["404"],
            )
        ],
    )
    def get(self, request: Request, tournament: int, document: int) -> Any:
        doc = self.document(document)
        if not self.access().may_download_document(doc):
            raise rules.deny(request.user, _("You may not read this document."))
        if doc.status != Document.Status.DONE or not doc.file:
            raise ApiError(
                status_code=404, code="not_found", message=_("This document is not ready yet.")
            )
        try:
            handle = doc.file.open("rb")
        except FileNotFoundError:
            raise ApiError(
                status_code=404,
                code="not_found",
                message=_("The file of this document is missing; ask for it again."),
            ) from None
        return FileResponse(handle, content_type="application/pdf", filename=document_filename(doc))


urlpatterns: list[URLPattern] = [
    path(TOURNAMENT + "documents/", DocumentListView.as_view(), name="api_documents"),
    path(TOURNAMENT + "documents/all/", DocumentSetView.as_view(), name="api_documents_all"),
    path(
        TOURNAMENT + "documents/<id:document>/",
        DocumentDetailView.as_view(),
        name="api_document",
    ),
    path(
        TOURNAMENT + "documents/<id:document>/download/",
        DocumentDownloadView.as_view(),
        name="api_document_download",
    ),
]
