"""Reads for pages and the API."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from .models import Tournament


def visible_tournaments(user) -> QuerySet[Tournament]:
    """Tournaments a user may see listed: all but drafts, plus the drafts he manages."""
    qs = Tournament.objects.select_related("club")
    if user.is_authenticated and user.is_superuser:
        return qs
    visible = ~Q(status=Tournament.Status.DRAFT)
    if user.is_authenticated:
        visible |= Q(arbiters=user) | Q(club__organisers=user)
    return qs.filter(visible).distinct()


def home_tournaments(user) -> list[Tournament]:
    return list(visible_tournaments(user).order_by("-date", "name")[:50])
