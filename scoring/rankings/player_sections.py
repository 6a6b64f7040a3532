"""What other apps add to a player's own page ("Mon tarot"), without `scoring` importing them.

An app registers a provider in its `ready()` (`register_player_section`); the page asks each
provider, in the order they were registered, for its section about the player: a template and
its context, or None when it has nothing to say. A provider answers with what the player (and
anyone he shows his page to) may read, in a fixed number of queries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tournaments.models import Player


@dataclass(frozen=True)
class PlayerSection:
    """A part of a player's page: `template` rendered with `context`."""

    template: str
    context: dict[str, Any] = field(default_factory=dict)


Provider = Callable[[Player], "PlayerSection | None"]
_providers: list[Provider] = []


def register_player_section(provider: Provider) -> None:
    """Add `provider` to the player's page (once, however often `ready()` runs)."""
    if provider not in _providers:
        _providers.append(provider)


def player_sections(player: Player) -> list[PlayerSection]:
    """The sections the registered providers have for `player`, in registration order."""
    return [section for provider in _providers if (section := provider(player)) is not None]
