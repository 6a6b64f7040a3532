"""Pages of the printed documents: the list with each document's state, asking for
a build (one or the whole set), the status fragment htmx polls while a build runs, and the
permission-checked download.

Who may do what is decided in scoring.documents.services (can_request_document,
can_download_document), built on tournaments.permissions.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from scoring.documents.data import donne_range, load_donnes
from scoring.documents.models import Document
from scoring.documents.services import (
    PART_IS_SET,
    PUBLIC_KINDS,
    WHOLE_SET,
    DocumentError,
    DocumentRow,
    can_download_document,
    document_filename,
    document_request,
    document_request_all,
    document_rows,
    etui_sheet_pdf,
    languages,
    player_report_pdf,
)
from scoring.rankings.player_views import (
    ReportReader,
    link_report_reader,
    not_in_tournament,
    report_closed,
    signed_in_report_reader,
)
from tournaments.models import ArbiterCall, Player, Seat, Tournament
from tournaments.params import id_param
from tournaments.permissions import can_manage_tournament, can_see_tournament

Kind = Document.Kind


def _tournament(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_see_tournament(request.user, tournament):
        raise PermissionDenied
    return tournament


def _language(request: HttpRequest, value: str | None = None) -> str:
    """The documents' language: asked for, else the page's, else French."""
    available = languages()
    for candidate in (value, request.GET.get("lang"), get_language()):
        if candidate and candidate[:2] in available:
            return candidate[:2]
    return "fr"


def _own_player(request: HttpRequest, tournament: Tournament) -> Player | None:
    """The logged-in user's player, if he plays in this tournament."""
    if not request.user.is_authenticated:
        return None
    player = getattr(request.user, "player", None)
    if player is None:
        return None
    if not Seat.objects.filter(round__tournament=tournament, player=player).exists():
        return None
    return player


def _part_labels(tournament: Tournament) -> dict[int, str]:
    sets: dict[int, list] = {}
    for donne in load_donnes(tournament):
        sets.setdefault(donne.etui_set.number, []).append(donne)
    labels = {}
    for number, donnes in sorted(sets.items()):
        first, last = donne_range(donnes)
        labels[number] = _("Étui set %(number)s (donnes %(first)s to %(last)s)") % {
            "number": number,
            "first": first,
            "last": last,
        }
    return labels


def _rows(
    request: HttpRequest, tournament: Tournament, language: str
) -> tuple[list[DocumentRow], list[DocumentRow], list[DocumentRow]]:
    """The page's three lists: the whole tournament, per étui set, the player's own."""
    manage = can_manage_tournament(request.user, tournament)
    wanted: list[tuple[str, int]] = [(kind, 0) for kind in (WHOLE_SET if manage else PUBLIC_KINDS)]
    set_labels = _part_labels(tournament) if manage else {}
    for number in set_labels:
        wanted += [(Kind.HAND_RECORDS, number), (Kind.ETUI_SETS, number)]
    own = _own_player(request, tournament)
    if own is not None:
        wanted += [(Kind.SCORE_CARDS, own.pk), (Kind.PLAYER_REPORT, own.pk)]
    labels = {(kind, n): label for n, label in set_labels.items() for kind in PART_IS_SET}
    if own is not None:
        labels[(Kind.SCORE_CARDS, own.pk)] = own.full_name
        labels[(Kind.PLAYER_REPORT, own.pk)] = own.full_name
    rows = document_rows(
        tournament=tournament,
        user=request.user,
        language=language,
        wanted=wanted,
        part_labels=labels,
    )
    whole = [r for r in rows if r.part == 0]
    per_set = [r for r in rows if r.part and r.kind in PART_IS_SET]
    mine = [r for r in rows if r.part and r.kind not in PART_IS_SET]
    return whole, per_set, mine


@require_GET
def documents_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The tournament's documents in one language, with their state and actions."""
    tournament = _tournament(request, pk)
    language = _language(request)
    whole, per_set, mine = _rows(request, tournament, language)
    if not (whole or per_set or mine) and not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    context = {
        "tournament": tournament,
        "language": language,
        "languages": languages(),
        "whole": whole,
        "per_set": per_set,
        "mine": mine,
        "can_manage": can_manage_tournament(request.user, tournament),
        "building": any(r.building for r in [*whole, *per_set, *mine]),
    }
    return render(request, "scoring/documents/documents.html", context)


def _back(tournament: Tournament, language: str) -> str:
    return f"{reverse('documents', args=[tournament.pk])}?lang={language}"


def _row_response(
    request: HttpRequest, tournament: Tournament, kind: str, part: int, language: str
) -> HttpResponse:
    rows = document_rows(
        tournament=tournament,
        user=request.user,
        language=language,
        wanted=[(kind, part)],
        part_labels=_labels_for(request, tournament, kind, part),
    )
    if not rows:
        raise PermissionDenied
    return render(
        request,
        "scoring/documents/_row.html",
        {
            "tournament": tournament,
            "row": rows[0],
            "language": language,
            "can_manage": can_manage_tournament(request.user, tournament),
        },
    )


def _labels_for(
    request: HttpRequest, tournament: Tournament, kind: str, part: int
) -> dict[tuple[str, int], str]:
    if not part:
        return {}
    if kind in PART_IS_SET:
        return {(kind, part): _part_labels(tournament).get(part, "")}
    own = _own_player(request, tournament)
    return {(kind, part): own.full_name} if own is not None and own.pk == part else {}


def _int(value: str | None) -> int:
    """The posted part: 0 when absent, -1 (matches nothing) when not a small number."""
    if not value:
        return 0
    number = id_param(value)
    return -1 if number is None else number


def _force(request: HttpRequest) -> bool:
    """The organiser asked to build it again even if nothing changed."""
    return request.POST.get("force", "") in ("1", "true", "on")


@require_POST
def document_request_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask for one document (kind, part, language); htmx gets the row back, others the page."""
    tournament = _tournament(request, pk)
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("documents", args=[tournament.pk]))
    kind = request.POST.get("kind", "")
    part = _int(request.POST.get("part"))
    language = _language(request, request.POST.get("language"))
    if part < 0:
        messages.error(request, _("The part of the document must be a whole number."))
        return HttpResponseRedirect(_back(tournament, language))
    try:
        document_request(
            tournament=tournament,
            kind=kind,
            language=language,
            user=request.user,
            part=part,
            force=_force(request),
        )
    except DocumentError as err:
        if request.htmx:
            return HttpResponse(str(err), status=400)
        messages.error(request, str(err))
        return HttpResponseRedirect(_back(tournament, language))
    if request.htmx:
        return _row_response(request, tournament, kind, part, language)
    return HttpResponseRedirect(_back(tournament, language))


@require_POST
def document_request_all_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask for the whole set of documents of the tournament."""
    tournament = _tournament(request, pk)
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("documents", args=[tournament.pk]))
    language = _language(request, request.POST.get("language"))
    try:
        document_request_all(
            tournament=tournament, language=language, user=request.user, force=_force(request)
        )
    except DocumentError as err:
        messages.error(request, str(err))
    else:
        messages.success(request, _("The documents are being built; each appears when ready."))
    return HttpResponseRedirect(_back(tournament, language))


def _document(request: HttpRequest, pk: int, document_id: int) -> tuple[Tournament, Document]:
    tournament = _tournament(request, pk)
    document = Document.objects.filter(pk=document_id, tournament=tournament).first()
    if document is None:
        raise Http404(_("This document no longer exists: a newer one replaced it."))
    return tournament, document


@require_GET
def document_status(request: HttpRequest, pk: int, document_id: int) -> HttpResponse:
    """The row of a document being built (htmx polls it until the build ends)."""
    tournament, document = _document(request, pk, document_id)
    return _row_response(request, tournament, document.kind, document.part, document.language)


@require_GET
def document_download(request: HttpRequest, pk: int, document_id: int) -> HttpResponse:
    """Stream a finished document to whoever may read it."""
    tournament, document = _document(request, pk, document_id)
    if not can_download_document(request.user, document, tournament):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise PermissionDenied
    if document.status != Document.Status.DONE or not document.file:
        raise Http404(_("This document is not ready yet."))
    try:
        handle = document.file.open("rb")
    except FileNotFoundError:
        raise Http404(_("The file of this document is missing; build it again.")) from None
    return FileResponse(
        handle, content_type="application/pdf", filename=document_filename(document)
    )


@require_GET
def call_etui_pdf(request: HttpRequest, pk: int, call_id: int) -> HttpResponse:
    """The étui put right for a call to the arbiter (issue 34 §3): its donne's hands as dealt,
    one page, rendered on request in the page's language. The tournament's arbiters only
    (anonymous users to the login page, others 403): it shows hands."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_manage_tournament(request.user, tournament):
        raise PermissionDenied
    call = get_object_or_404(
        ArbiterCall.objects.select_related("donne"), pk=call_id, tournament=tournament
    )
    filename, mimetype, data = etui_sheet_pdf(
        tournament, donne_number=call.donne.number, language=_language(request)
    )
    response = HttpResponse(data, content_type=mimetype)
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


def _report_pdf(request: HttpRequest, reader: ReportReader, *, token: str | None) -> HttpResponse:
    """A player's event report as a PDF in `?lang=` (else the page's language), under the
    report page's rules: 403 until it opens, 404 when he played none of it."""
    if isinstance(reader, HttpResponse):
        return reader
    tournament, player = reader
    closed = report_closed(request, tournament, player, token=token)
    if closed is not None:
        return closed
    if not Seat.objects.filter(round__tournament=tournament, player=player).exists():
        return not_in_tournament(request, tournament, player)
    filename, mimetype, data = player_report_pdf(
        tournament, player_id=player.pk, language=_language(request)
    )
    response = HttpResponse(data, content_type=mimetype)
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["Cache-Control"] = "private, no-store"
    return response


@require_GET
def player_event_report_pdf(request: HttpRequest, pk: int, tournament_pk: int) -> HttpResponse:
    """The report PDF of a signed-in reader: his own, or anyone's for the event's managers."""
    reader = signed_in_report_reader(request, pk, tournament_pk)
    return _report_pdf(request, reader, token=None)


@require_GET
def mine_link_report_pdf(request: HttpRequest, token: str, tournament_pk: int) -> HttpResponse:
    """The report PDF through a player's personal link: his own report, nobody else's."""
    reader = link_report_reader(request, token, tournament_pk)
    return _report_pdf(request, reader, token=token)
