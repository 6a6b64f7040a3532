"""Site-wide views: home page and health check."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache

from .health import health_report


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers (the site can take results); details for the rest."""
    report = health_report()
    return JsonResponse(report, status=200 if report["database"]["ok"] else 503)


@login_required
def landing(request: HttpRequest) -> HttpResponse:
    """After login: where this user works today (tournaments/services/landing.py)."""
    from tournaments.services.landing import landing_url

    return redirect(landing_url(user=request.user))


def home(request: HttpRequest) -> HttpResponse:
    from tournaments.selectors import home_tournaments

    return render(request, "home.html", {"tournaments": home_tournaments(request.user)})
