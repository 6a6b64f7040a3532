"""The slot for a championship's documents (the PDF ranking, the CSV exports, issue 33):
their views' patterns go here, under /championships/<pk>/ (`urls.py` includes this list)."""

from __future__ import annotations

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
