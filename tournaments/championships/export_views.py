"""The championship's downloads: its ranking as a PDF and as CSV (everyone, or one série with
``?serie=``) and its qualifiers as CSV. Everyone may read them, as the championship's page:
a championship counts only final, public events. An unknown championship or série is a 404."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from .documents import championship_pdf
from .exports import CONTENT_TYPE, ChampionshipCsv, qualifiers_csv, ranking_csv
from .models import Championship, SeasonSerie


def _championship(pk: int) -> Championship:
    return get_object_or_404(Championship.objects.select_related("club"), pk=pk)


def _serie(request: HttpRequest, championship: Championship) -> str | None:
    """The série asked for (``?serie=``), None for everyone; a série the championship does
    not know is a 404."""
    serie = (request.GET.get("serie") or "").strip()
    if not serie:
        return None
    known = (
        serie in (championship.series or [])
        or SeasonSerie.objects.filter(championship=championship, serie=serie).exists()
    )
    if not known:
        raise Http404(serie)
    return serie


def _download(content: bytes, content_type: str, filename: str, provisional: bool) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Provisional"] = "1" if provisional else "0"
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


def _csv(made: ChampionshipCsv) -> HttpResponse:
    return _download(made.content, CONTENT_TYPE, made.filename, made.provisional)


@require_GET
def ranking_pdf_download(request: HttpRequest, pk: int) -> HttpResponse:
    """The ranking (``?serie=``: one série's) as a PDF in the reader's language."""
    championship = _championship(pk)
    name, content, provisional = championship_pdf(
        championship, get_language() or "fr", _serie(request, championship)
    )
    response = _download(content, "application/pdf", name, provisional)
    response["Content-Disposition"] = f'inline; filename="{name}"'
    return response


@require_GET
def ranking_csv_download(request: HttpRequest, pk: int) -> HttpResponse:
    """The ranking (``?serie=``: one série's) as CSV in the reader's language."""
    championship = _championship(pk)
    return _csv(ranking_csv(championship, get_language() or "fr", _serie(request, championship)))


@require_GET
def qualifiers_csv_download(request: HttpRequest, pk: int) -> HttpResponse:
    """The qualified players with licences and clubs as CSV in the reader's language."""
    return _csv(qualifiers_csv(_championship(pk), get_language() or "fr"))
