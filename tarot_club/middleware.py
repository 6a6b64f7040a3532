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
