"""Accent- and case-blind search of people, the same on PostgreSQL and SQLite.

French names carry accents that people rarely type on a phone ("helene" for Hélène, "lefevre"
for Lefèvre). Neither database folds accents the same way without an extension, so each
player stores a folded copy of his names (`Player.search_name`, kept up to date on save and
by the bulk paths of the CSV import); a query is folded the same way and matched with a plain
`contains` on that column.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.db.models import Q, QuerySet

# Letters that Unicode does not decompose into a base letter and an accent.
_LIGATURES = str.maketrans({"œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae", "ø": "o", "Ø": "o"})


def fold(text: str) -> str:
    """Lower case without accents, spaces collapsed: "  Hélène  LEFÈVRE" -> "helene lefevre"."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_LIGATURES))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


def name_order(player: Any) -> tuple[str, str, int]:
    """Alphabetical order of people as a reader expects it, on any database: accents, case
    and particles' capitals ignored ("Öztürk" under O, "de La Tour" under D), where a binary
    collation files them after "Z". For lists sorted in Python: ``sorted(players,
    key=name_order)``."""
    return (fold(player.last_name), fold(player.first_name), player.pk)


def player_search_name(*, first_name: str, last_name: str) -> str:
    """The stored search column; each word of a query is looked for anywhere in it."""
    return fold(f"{first_name} {last_name}")


def players_matching(players: QuerySet, query: str, *, prefix: str = "") -> QuerySet:
    """Filter `players` (or rows reaching a player through `prefix`, e.g. "player__") so that
    every word of `query` is in the names (accents and case ignored) or starts the licence."""
    for word in query.split():
        players = players.filter(
            Q(**{f"{prefix}search_name__contains": fold(word)})
            | Q(**{f"{prefix}licence__startswith": word})
        )
    return players
