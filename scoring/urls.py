"""URLs of the computed outputs (rankings, score cards, documents)."""

from __future__ import annotations

from django.urls import path  # noqa: F401

urlpatterns: list = []
