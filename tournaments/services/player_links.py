"""A player's personal link to "Mon tarot" (`tournaments.models.PlayerLink`): issued and
revoked by an organiser of the player's club, looked up by the pages.

The token is 256 random bits (URL-safe), unique; one live link per player (a new one revokes
the previous one, in the same transaction; the database's partial unique constraint holds it
under a race). A lookup tells an unknown token from a revoked one, so the page can say which.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from ..models import Player, PlayerLink
from ..permissions import is_club_organiser

__all__ = [
    "LinkLookup",
    "live_links",
    "player_link_issue",
    "player_link_lookup",
    "player_link_revoke",
]

TOKEN_BYTES = 32


def _require_organiser(user: Any, player: Player) -> None:
    if not is_club_organiser(user, player.club):
        raise PermissionDenied


def player_link_issue(*, player: Player, user: Any) -> PlayerLink:
    """A new live link for the player, the previous one revoked; organisers of his club only
    (PermissionDenied otherwise)."""
    _require_organiser(user, player)
    with transaction.atomic():
        Player.objects.select_for_update().filter(pk=player.pk).first()
        PlayerLink.objects.filter(player=player, revoked_at__isnull=True).update(
            revoked_at=timezone.now(), revoked_by=user
        )
        return PlayerLink.objects.create(
            player=player, token=secrets.token_urlsafe(TOKEN_BYTES), created_by=user
        )


def player_link_revoke(*, player: Player, user: Any) -> int:
    """Revoke the player's live link (organisers of his club only); the number revoked (0
    when there was none)."""
    _require_organiser(user, player)
    return PlayerLink.objects.filter(player=player, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_by=user
    )


@dataclass(frozen=True)
class LinkLookup:
    """What a token opens: the player (with his club) when live; `revoked` when it was his
    link once; neither for a token nobody was given."""

    player: Player | None
    revoked: bool


def player_link_lookup(token: str) -> LinkLookup:
    """The player a token opens, in one query."""
    if not token or len(token) > 64:
        return LinkLookup(None, False)
    link = PlayerLink.objects.select_related("player__club").filter(token=token).first()
    if link is None:
        return LinkLookup(None, False)
    if link.revoked_at is not None:
        return LinkLookup(None, True)
    return LinkLookup(link.player, False)


def live_links(players: list[int]) -> dict[int, str]:
    """The live tokens of the given players, by player id (one query)."""
    return dict(
        PlayerLink.objects.filter(player_id__in=players, revoked_at__isnull=True).values_list(
            "player_id", "token"
        )
    )
