"""Site-wide middleware."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse


class HealthzAnyHostMiddleware:
    """Lets a load balancer probe /healthz by IP address: a Host that ALLOWED_HOSTS refuses
    gets the public answer (healthy or not, no details) instead of 400. First in MIDDLEWARE,
    before anything reads the host."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info == "/healthz" and request.method in ("GET", "HEAD"):
            try:
                request.get_host()
            except DisallowedHost:
                from .views import healthz

                return healthz(request)
        return self.get_response(request)


CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
# The API's interactive documentation (Swagger UI, Redoc) runs no inline script either
# (Swagger UI's start-up script is served as a file) but runs Redoc's search in a blob: worker.
DOCS_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
DOCS_PATHS = ("/api/docs/", "/api/redoc/")
PERMISSIONS_POLICY = (
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), "
    "interest-cohort=(), browsing-topics=()"
)


class SecurityHeadersMiddleware:
    """Content-Security-Policy (no inline scripts: JavaScript comes from static files) and
    Permissions-Policy (the site uses no camera, microphone, location or payment)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = (
            DOCS_POLICY if request.path_info.startswith(DOCS_PATHS) else CONTENT_SECURITY_POLICY
        )
        response.headers.setdefault("Content-Security-Policy", policy)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response


class BadInputMiddleware:
    """Input that must never reach the views (where it would end in a 500): NUL bytes in the
    query string or in a form, multipart or JSON body (PostgreSQL refuses them in text), and bodies
    over DATA_UPLOAD_MAX_MEMORY_SIZE that are not file uploads. Answers 400 / 413, as JSON
    under /api/ and as the site's error page elsewhere."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from urllib.parse import unquote_to_bytes

        from django.conf import settings

        query = request.META.get("QUERY_STRING", "")
        if b"\x00" in unquote_to_bytes(query.replace("+", " ")) or "\x00" in request.path:
            return refuse(request, 400, "invalid_characters")
        content_type = request.META.get("CONTENT_TYPE", "")
        if request.path_info in SELF_CHECKED_PATHS:
            pass
        elif request.method in ("POST", "PUT", "PATCH") and not content_type.startswith(
            "multipart/"
        ):
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            if limit is not None and length > limit:
                return refuse(request, 413, "too_large")
            body = request.body
            form = content_type.startswith("application/x-www-form-urlencoded")
            if b"\x00" in body or b"\\u0000" in body or (form and b"%00" in body):
                return refuse(request, 400, "invalid_characters")
            if "json" in content_type and json_depth(body) > MAX_JSON_DEPTH:
                return refuse(request, 400, "too_deep")
            if "json" in content_type and lone_surrogate_in_json(body):
                return refuse(request, 400, "invalid_characters", surrogate=True)
        elif (
            request.method == "POST"
            and content_type.startswith("multipart/")
            and not request.path_info.startswith("/api/")  # JSON only: 415 there
            and _nul_in_fields(request)
        ):
            return refuse(request, 400, "invalid_characters")
        return self.get_response(request)


# Views that check their body themselves (same limits and codes) to log what they refuse:
# a club's upload to a simultaneous event's hub, refused in the organiser's upload log.
SELF_CHECKED_PATHS = frozenset({"/api/v1/simultaneous/club/uploads/"})


def _nul_in_fields(request: HttpRequest) -> bool:
    """Whether a field of a multipart form (not a file's content) holds a NUL byte. A body
    that cannot be parsed is left to the view, which answers it as it always has."""
    try:
        fields = request.POST
    except Exception:
        return False
    return any("\x00" in value for _name, values in fields.lists() for value in values)


MAX_JSON_DEPTH = 32
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def json_depth(body: bytes) -> int:
    """How deeply a JSON body nests arrays and objects (strings skipped), without parsing it:
    Python's parser would hit its recursion limit, a 500, on a body nested 50,000 deep."""
    brackets = _JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for byte in brackets:
        depth += 1 if byte in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def lone_surrogate_in_json(body: bytes) -> bool:
    """Whether a JSON body holds a string with a lone UTF-16 surrogate (``"\ud800"``):
    Python's parser accepts it, but the text cannot be encoded (nor stored, nor answered),
    a 500 wherever it goes. Only a body with such an escape is parsed (its depth is already
    bounded); one that does not parse is left to the view, which refuses it as it always has.
    """
    if not _SURROGATE_ESCAPE.search(body):
        return False
    try:
        data = json.loads(body)
    except ValueError:
        return False
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def refuse(
    request: HttpRequest, status: int, code: str, *, surrogate: bool = False
) -> HttpResponse:
    """A 400 / 413 in the API's error shape, or the site's page for that status, in the
    language the request asks for (this middleware runs before the locale's)."""
    from django.utils import translation

    with translation.override(translation.get_language_from_request(request)):
        return _refusal(request, status, code, surrogate=surrogate)


def _refusal(request: HttpRequest, status: int, code: str, *, surrogate: bool) -> HttpResponse:
    from django.http import JsonResponse
    from django.utils.translation import gettext as _

    from .errors import error_response

    if status == 413:
        message = _("The request is too large.")
    elif code == "too_deep":
        message = _("The JSON body nests arrays or objects too deeply: send flatter data.")
    elif surrogate:
        message = _(
            "The request contains a character that is not allowed: a lone UTF-16 surrogate "
            "(an escape such as \\ud800 without its pair). Send the text as valid Unicode."
        )
    else:
        message = _("The request contains a character that is not allowed (a NUL byte).")
    if request.path_info.startswith("/api/"):
        # "detail" too: the clubs' side of a simultaneous event reads it (docs/API.md).
        body = {"code": code, "message": message, "details": {}, "detail": message}
        return JsonResponse(body, status=status)
    return error_response(request, status, message)


class RankingPollMiddleware:
    """A live ranking's poll, for a tournament whose results are public, answered here when
    the answer is the same for every reader (a 204, or the fragment of the latest snapshot
    already rendered: `scoring.rankings.views.public_poll_answer`), before the session,
    locale, CSRF, authentication and messages middleware: it is what nearly every phone of
    a hall asks every few seconds. Anything else goes on to the view as usual."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "GET" and "since" in request.GET and request.GET.get("partial") == "1":
            from scoring.rankings.views import public_poll_answer

            answer = public_poll_answer(request)
            if answer is not None:
                return answer
        return self.get_response(request)


class DatabaseOutageMiddleware:
    """A database that does not answer is the site's 503 page with Retry-After, not a 500:
    the room's phones retry, and nobody sees a traceback. (The API answers its own JSON 503.)"""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from django.db import InterfaceError, OperationalError

        from tarot_club.errors import error_response

        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        if request.path_info.startswith("/api/"):
            return None
        response = error_response(request, 503)
        response["Retry-After"] = "5"
        return response
