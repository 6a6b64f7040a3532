"""A player's championships on his own page ("Mon tarot"): every championship whose stored
ranking lists him (by licence), with his rank, points and events counted (one query)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Any

from django.db.models.fields.json import KeyTransform

from scoring.rankings.player_sections import PlayerSection
from scoring.rankings.rows import championship_everyone_rows
from tournaments.models import Player

from .models import Championship

TEMPLATE = "championships/_player_section.html"


@dataclass(frozen=True)
class PlayerChampionshipLine:
    """His line in one championship: rank None when not ranked (fewer events than needed)."""

    pk: int
    name: str
    season_start: date
    season_end: date
    rank: int | None
    classified: int
    points: Fraction
    counted: int
    played: int


def _line(
    pk: int, name: str, start: date, end: date, lines: list[list[Any]], key: str
) -> PlayerChampionshipLine | None:
    """His line among the stored lines of everyone (`[player, rank, classified, points,
    handicap, counted, events]`, `rows.championship_lines_encode`), or None."""
    classified = sum(1 for row in lines if row[2])
    for player, rank, _classified, points, _handicap, counted, events in lines:
        if player == key:
            return PlayerChampionshipLine(
                pk, name, start, end, rank, classified, Fraction(points), counted, len(events)
            )
    return None


def player_championships(player: Player) -> list[PlayerChampionshipLine]:
    """The championships whose stored ranking lists `player`, newest season first."""
    if not player.licence:
        return []
    key = f"L{player.licence}"
    rows = (
        Championship.objects.filter(ranking__data__players__has_key=key)
        .annotate(everyone=KeyTransform("lines", "ranking__data"))
        .order_by("-season_end", "name", "pk")
        .values_list("pk", "name", "season_start", "season_end", "everyone")
    )
    found = (
        _line(pk, name, start, end, championship_everyone_rows(lines), key)
        for pk, name, start, end, lines in rows
    )
    return [line for line in found if line is not None]


def championship_section(player: Player) -> PlayerSection | None:
    """The provider registered for the player's page: nothing when he is in none."""
    lines = player_championships(player)
    return PlayerSection(TEMPLATE, {"championships": lines}) if lines else None
