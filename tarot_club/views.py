"""Site-wide views: home page and health check."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from .health import health_report


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 "ok" when every part answers, else 503 "degraded" (with Retry-After), for a load
    balancer or a monitor. Only staff see which part and the workers' names."""
    report = health_report()
    healthy = report["status"] == "ok"
    try:
        staff = bool(request.user.is_staff)  # type: ignore[union-attr]
    except Exception:  # no user (probe by IP) or no database to read it from
        staff = False
    body = report if staff else {"status": report["status"]}
    response = JsonResponse(body, status=200 if healthy else 503)
    if not healthy:
        response["Retry-After"] = "5"
    return response


@login_required
def landing(request: HttpRequest) -> HttpResponse:
    """After login: where this user works today (tournaments/services/landing.py)."""
    from tournaments.services.landing import landing_url

    return redirect(landing_url(user=request.user))


def home(request: HttpRequest) -> HttpResponse:
    from tournaments.selectors import home_tournaments

    return render(request, "home.html", {"tournaments": home_tournaments(request.user)})
