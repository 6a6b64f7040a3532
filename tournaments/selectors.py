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


def player_codes(tournament: Tournament) -> dict[int, str]:
    """Each registered player's 4-digit confirmation code ({player id: code}), for the route
    cards; the missing ones are drawn on first read (tournaments.services.table_entry)."""
    from .services.table_entry import player_codes_get

    return player_codes_get(tournament=tournament)
