"""The guide's pages and screenshots, public like the rest of the documentation."""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.views.decorators.http import require_GET

from tarot_club.guide.pages import IMAGE_DIR, IMAGE_NAME, LANGUAGES, PAGES, guide_page, page_url


@require_GET
def guide(request: HttpRequest, slug: str = "index") -> HttpResponse:
    if slug not in PAGES:
        raise Http404
    page = guide_page(slug, get_language())
    contents = [(s, page_url(s), guide_page(s, page.language).title) for s in PAGES]
    return render(request, "guide/page.html", {"page": page, "contents": contents})


@require_GET
def guide_image(request: HttpRequest, language: str, name: str) -> FileResponse:
    if language not in LANGUAGES or not IMAGE_NAME.match(name):
        raise Http404
    path = IMAGE_DIR / language / name
    if not path.is_file():
        raise Http404
    response = FileResponse(path.open("rb"), content_type="image/png")
    response["Cache-Control"] = "public, max-age=3600"
    return response
