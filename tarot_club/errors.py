"""The site's error pages (400, 403, 404, 413, 500, 503), in the site's layout and language.

With DEBUG off Django calls the handlers named in tarot_club/urls.py; middleware that refuses a
request itself (too large, too many, service down) answers with `error_response`. A 500 page
must not fail in turn: when the layout cannot render (the database is down, a template
breaks), a plain page in the same words is sent instead.
"""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)


def _texts(status: int) -> tuple[str, str]:
    texts = {
        400: (
            _("This request could not be understood"),
            _("The page received something it cannot read. Go back and try again."),
        ),
        403: (
            _("This page is not for you"),
            _(
                "You are not allowed to see this page. If you run this tournament, log in with "
                "your organiser's or arbiter's account."
            ),
        ),
        404: (
            _("Page not found"),
            _("There is no page at this address. Check it, or start again from the tournaments."),
        ),
        413: (
            _("Too much at once"),
            _("What you sent is too large for the site. Send a smaller file or fewer lines."),
        ),
        500: (
            _("Something went wrong on our side"),
            _(
                "The site met an unexpected error; nothing half-done was saved. Try again in a "
                "moment, and tell the arbiter if it happens again."
            ),
        ),
        503: (
            _("The site is busy or resting"),
            _("The site cannot answer right now. Wait a few seconds and reload the page."),
        ),
    }
    return texts[status]


def error_response(request: HttpRequest, status: int, detail: str = "") -> HttpResponse:
    """The styled page for `status` (one of 400, 403, 404, 413, 500, 503).

    `detail`, when given, replaces the status's general text: the precise reason (what to fix).
    """
    title, text = _texts(status)
    text = detail or text
    context = {"error_status": status, "error_title": title, "error_text": text}
    try:
        body = render_to_string(f"{status}.html", context, request=request)
    except Exception:  # the layout itself failed: still answer, in plain words
        logger.exception("The %s page could not be rendered", status)
        body = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{text}</p>"
    return HttpResponse(body, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, 404)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, 500)
