"""Accent- and case-blind search of people, the same on PostgreSQL and SQLite.

French names carry accents that people rarely type on a phone ("helene" for Hélène, "lefevre"
for Lefèvre). Neither database folds accents the same way without an extension, so each
player stores a folded copy of his names (`Player.search_name`, kept up to date on save and
by the bulk paths of the CSV import); a query is folded the same way and matched with a plain
`contains` on that column.

One normalisation (`fold`) and one order of names (`name_order`, `name_ordering`) serve every
list and search: a sort column (`Player.sort_name`, folded last name then first name) compared
code point by code point, in Python and in SQL alike, so that a paginated list, a sorted list
and a printed document file "Çelik", "Ébrard" and "Œuvray" where a French reader looks for them.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.db.models import F, Func, Q, QuerySet

# Letters that Unicode does not decompose into a base letter and an accent.
_LIGATURES = str.maketrans({"œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae", "ø": "o", "Ø": "o"})


# Apostrophes vanish ("N'Diaye", "N’Diaye" typed on a phone and "NDiaye" are one name);
# hyphens and dashes separate words ("Le-Gall" and "Le Gall").
_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("'’‘ʼʻ`´′", ""),
        **dict.fromkeys("-‐‑‒–—", " "),
    }
)
# Between the folded last and first names in the sort column: below any character `fold`
# leaves (it splits on whitespace), so "Dupont, Zoé" comes before "Dupontel, Anne".
SORT_SEPARATOR = "\t"


def fold(text: str) -> str:
    """The one normalisation of names for search and sorting: lower case, without accents,
    ligatures spelt out, apostrophes dropped, hyphens as spaces, spaces collapsed:
    "  Hélène  LEFÈVRE" -> "helene lefevre", "N’Diaye" -> "ndiaye", "Œuvray" -> "oeuvray".
    ASCII text has no accent nor ligature to undo: folded without the Unicode passes (the
    same result, `_fold_unicode`; a season's 12,000 names in a few milliseconds)."""
    if text.isascii():  # _PUNCTUATION's ASCII characters: ' and ` dropped, - a space
        return " ".join(text.replace("'", "").replace("`", "").replace("-", " ").lower().split())
    return _fold_unicode(text)


def _fold_unicode(text: str) -> str:
    """`fold` for any text: decomposed, accents and ligatures undone."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_LIGATURES))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.translate(_PUNCTUATION).casefold().split())


def player_sort_name(*, first_name: str, last_name: str) -> str:
    """The stored sort column (`Player.sort_name`): folded last name, SORT_SEPARATOR, folded
    first name."""
    return f"{fold(last_name)}{SORT_SEPARATOR}{fold(first_name)}"


def name_order(player: Any) -> tuple[str, int]:
    """The one order of people, as a French reader expects it: accents, ligatures, case,
    apostrophes and particles' capitals ignored ("Ébrard" before "Roussel", "de La Tour"
    under D), by last name, then first name, then creation. For lists sorted in Python:
    ``sorted(players, key=name_order)``; in SQL ``order_by(*name_ordering())`` gives the same.
    """
    key = getattr(player, "sort_name", "") or player_sort_name(
        first_name=player.first_name, last_name=player.last_name
    )  # the stored column when the row has it (a Player: kept by save and bulk writes)
    return (key, player.pk)


class CodePoints(Func):
    """A text column compared code point by code point, as Python compares strings, whatever
    the database's own collation: ``COLLATE "C"`` on PostgreSQL (UTF-8 bytes sort as code
    points), SQLite's default BINARY elsewhere."""

    template = "%(expressions)s"

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, template='%(expressions)s COLLATE "C"', **extra)


def name_ordering(prefix: str = "") -> list[Any]:
    """``order_by`` arguments for `name_order` in SQL: rows that are players, or reach one
    through ``prefix`` (e.g. "player__")."""
    return [CodePoints(F(f"{prefix}sort_name")), f"{prefix}pk"]


def player_search_name(*, first_name: str, last_name: str) -> str:
    """The stored search column; each word of a query is looked for anywhere in it."""
    return fold(f"{first_name} {last_name}")


def players_matching(
    players: QuerySet, query: str, *, prefix: str = "", licences: bool = True
) -> QuerySet:
    """Filter `players` (or rows reaching a player through `prefix`, e.g. "player__") so that
    every word of `query` is in the names (folded alike, `fold`) or, with `licences`, starts
    the licence (public searches pass False: a match would tell whose licence it is). Words
    that fold to nothing (a lone apostrophe or hyphen) are left out."""
    for word in query.split():
        if not fold(word):
            continue
        names = Q(**{f"{prefix}search_name__contains": fold(word)})
        if licences:
            names |= Q(**{f"{prefix}licence__startswith": word})
        players = players.filter(names)
    return players
