"""Site-wide middleware."""

from __future__ import annotations

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
# The API's interactive documentation (Swagger UI, Redoc) starts itself with inline scripts
# and runs Redoc's search in a blob: worker.
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
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
