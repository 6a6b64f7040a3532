"""URLs of the computed outputs: rankings, score cards, travellers, documents."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include("scoring.rankings.urls")),
    path("", include("scoring.documents.urls")),
]
