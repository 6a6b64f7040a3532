"""The API's path converter `<id:…>` (registered on import) and the tournament's prefix, shared
by every module that declares API routes (`tournaments.api.urls`, and the rankings' and
documents' API modules of `scoring`)."""

from __future__ import annotations

from django.urls import register_converter


class IdConverter:
    """A database id or a number: 1 to 9 digits, so nothing overflows a column."""

    regex = "[0-9]{1,9}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

TOURNAMENT = "tournaments/<id:tournament>/"
"""The path of a tournament's routes under /api/v1/."""
