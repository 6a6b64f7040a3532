"""Top-level URL configuration."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from tarot_club.kit.throttling import throttled_login
from tournaments.simultaneous.club.api import JoinView

from . import views

urlpatterns = [
    # First: every API call (a tablet's result write) is resolved without trying the site's
    # hundred patterns; no pattern below matches a path under api/, so nothing else changes.
    # The club's side of a simultaneous event (joining one), before the hub's API and its 404.
    path("api/v1/simultaneous/join/", JoinView.as_view(), name="api_simultaneous_join"),
    path("api/v1/simultaneous/", include("tournaments.simultaneous.hub.api_urls")),
    # The rankings' and documents' API routes live with those parts; unknown /api/ paths
    # fall through to tournaments.api.urls's JSON 404.
    path("api/v1/championships/", include("tournaments.championships.api_urls")),
    path("api/v1/", include("scoring.rankings.api")),
    path("api/v1/", include("scoring.rankings.rating_api")),
    path("api/v1/", include("scoring.documents.api")),
    path("api/", include("tournaments.api.urls")),
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("welcome/", views.landing, name="landing"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    path("login/", throttled_login(auth_views.LoginView.as_view()), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("tournaments.simultaneous.hub.urls")),
    path("", include("tournaments.urls")),
    path("", include("tournaments.simultaneous.club.urls")),
    path("", include("scoring.urls")),
    path("", include("tournaments.championships.urls")),
    path("aide/", include("tarot_club.guide.urls")),
]

# Styled error pages (tarot_club/errors.py), used when DEBUG is off.
handler400 = "tarot_club.errors.bad_request"
handler403 = "tarot_club.errors.permission_denied"
handler404 = "tarot_club.errors.page_not_found"
handler500 = "tarot_club.errors.server_error"
