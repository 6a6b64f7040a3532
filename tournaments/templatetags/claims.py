"""``{% claims_window_of tournament as window %}``: the tournament's claims window (issue 34
§4) for the templates that say whether the ranking is provisional or final."""

from __future__ import annotations

from django import template

from tournaments.models import Tournament
from tournaments.services.claims_window import ClaimsWindow, claims_window

register = template.Library()


@register.simple_tag
def claims_window_of(tournament: Tournament) -> ClaimsWindow:
    """The window as the tournament's row says (no query)."""
    return claims_window(tournament)


@register.simple_tag
def open_claims_count(tournament: Tournament) -> int:
    """How many claims of the tournament are open: one query, none before the window opens."""
    if tournament.claims_close_at is None:
        return 0
    return tournament.claims.filter(state="open").count()
