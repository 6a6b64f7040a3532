"""A ranking snapshot's row, typed, encoded and decoded here only.

A snapshot (`scoring.rankings.models.RankingSnapshot`) keeps one row per player under
`data["rows"]` (and the room's under `data["room"]["rows"]`), keyed "p<player id>" (jsonb keeps
no key order, and a numeric key would be read as an array index). The stored row is a JSON
list in the order of `SnapshotRow`'s fields, numbers exact (an int, or a Fraction as "n/d"):
the order `scoring.rules.ranking.compute_ranking_table` gives its rows' values in, so a
computed table's rows are stored as they come (`rows_encode`), and a `Ranking`'s rows go
through `row_encode`. Every reader goes through `row_decode` / `rows_decode`: nobody reads a
row by position elsewhere.

A club season's stored line (`scoring.rankings.models.ClubSeason.rows`) is a JSON list in the
order of `scoring.rules.season.SeasonRow`'s fields, encoded and decoded here too
(`season_rows_encode` / `season_rows_decode`), and so is a championship's stored line
(`scoring.rules.championship.Line`: `championship_lines_encode` / `championship_lines_decode`).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

import msgspec

from scoring.rules.championship import EventScore, Line, Standings
from scoring.rules.ranking import exact_value
from scoring.rules.season import EventRow, SeasonRow


class SnapshotRow(NamedTuple):
    """One player's row of a ranking snapshot."""

    rank: int
    total: Fraction
    differential_total: Fraction
    penalty_points: int
    donnes_played: int
    donnes_compared: int


def row_key(player: Hashable) -> str:
    """The key of a player's row (and score card) in a snapshot."""
    return f"p{player}"


def key_player(key: str) -> int:
    """The player id of a row's key."""
    return int(key[1:])


def exact_number(value: Fraction | int | None) -> int | str | None:
    """An exact number for JSON: an int when whole, else a Fraction string ("45/2")."""
    if value is None or type(value) is int:
        return value
    if isinstance(value, int):
        return int(value)
    return exact_value(value)


def row_encode(
    rank: int,
    total: Fraction | int,
    differential_total: Fraction | int,
    penalty_points: int,
    donnes_played: int,
    donnes_compared: int,
) -> list[Any]:
    """A row as stored."""
    return [
        rank,
        exact_number(total),
        exact_number(differential_total),
        penalty_points,
        donnes_played,
        donnes_compared,
    ]


def rows_encode(rows: Iterable[tuple[Hashable, list[Any]]]) -> dict[str, list[Any]]:
    """A table's (player, stored row) pairs keyed as stored; the rows are kept as they are
    (`compute_ranking_table` gives them in the stored layout, exact numbers written)."""
    return {f"p{player}": values for player, values in rows}


def row_decode(values: Sequence[Any]) -> SnapshotRow:
    """A stored row, typed (exact numbers as Fractions)."""
    rank, total, differential, penalty_points, played, compared = values
    return SnapshotRow(
        rank, Fraction(total), Fraction(differential), penalty_points, played, compared
    )


def rows_decode(rows: Mapping[str, Sequence[Any]]) -> dict[int, SnapshotRow]:
    """Stored rows keyed "p<id>" as typed rows keyed by player id."""
    return {int(key[1:]): row_decode(values) for key, values in rows.items()}


def event_rows(rows: Mapping[str, Sequence[Any]]) -> list[EventRow]:
    """A snapshot's stored rows as the season's input rows."""
    return [
        EventRow(player, row.total, row.differential_total, row.donnes_played, row.donnes_compared)
        for player, row in rows_decode(rows).items()
    ]


def season_rows_encode(rows: Iterable[SeasonRow]) -> list[list[Any]]:
    """A season's lines as stored (exact numbers written)."""
    return [
        [
            row.player,
            row.rank,
            exact_number(row.total),
            row.tournaments,
            row.donnes,
            exact_number(row.compared_sum),
            row.compared,
        ]
        for row in rows
    ]


def season_rows_decode(rows: Iterable[Sequence[Any]]) -> list[SeasonRow]:
    """A season's stored lines, typed."""
    return [
        SeasonRow(player, rank, Fraction(total), tournaments, donnes, Fraction(summed), compared)
        for player, rank, total, tournaments, donnes, summed, compared in rows
    ]


def championship_lines_encode(lines: Sequence[Line]) -> list[list[Any]]:
    """A championship's lines as stored: [player, rank, classified, points, handicap,
    counted, [[event, points, counted], ...]], exact numbers written, booleans as 0/1. Each
    number is written once per object (the lines share them: a place's share, a total, equal
    points) and looked up by identity: the lines keep the objects alive while this runs."""
    values = {id(v): v for line in lines for v in (line.points, line.handicap)}
    values.update((id(p), p) for line in lines for _key, p, _counted in line.events)
    written = {ident: exact_number(value) for ident, value in values.items()}
    return [
        [
            line.player,
            line.rank,
            1 if line.classified else 0,
            written[id(line.points)],
            written[id(line.handicap)],
            line.counted,
            [[key, written[id(p)], 1 if counted else 0] for key, p, counted in line.events],
        ]
        for line in lines
    ]


def championship_lines_decode(rows: Iterable[Sequence[Any]]) -> list[Line]:
    """A championship's stored lines, typed (one Fraction per distinct stored number)."""
    exact: dict[int | str, Fraction] = {}

    def value(number: int | str) -> Fraction:
        made = exact.get(number)
        if made is None:
            made = exact[number] = Fraction(number)
        return made

    return [
        Line(
            player=player,
            rank=rank,
            classified=bool(classified),
            points=value(points),
            handicap=value(handicap),
            events=tuple(EventScore(key, value(p), bool(c)) for key, p, c in events),
            counted=counted,
        )
        for player, rank, classified, points, handicap, counted, events in rows
    ]


def championship_standings_encode(standings: Standings) -> dict[str, str]:
    """A championship's standings as stored: {"lines": everyone's lines
    (`championship_lines_encode`), "series": {série: [[index of the player's line among
    everyone's, his rank in the série], ...]}}, each as one JSON text: a série's lines refer
    to everyone's instead of repeating them, and jsonb keeps a text as one string, where
    PostgreSQL would parse a season's nested arrays in more time than the rest of the
    computation takes (as `fields.CardLinesField`'s score cards)."""
    return {
        "lines": _json_text(championship_lines_encode(standings.lines)),
        "series": _json_text(standings.series),
    }


def championship_everyone_rows(stored: Any) -> list[list[Any]]:
    """Everyone's stored lines (as `championship_lines_encode` writes them) from the stored
    data's "lines": a JSON text, or (stored before) {scope: lines} whose "" is everyone's."""
    if isinstance(stored, str):
        return msgspec.json.decode(stored)
    return (stored or {}).get("", [])


def championship_standings_decode(data: Mapping[str, Any]) -> Standings:
    """Stored standings, typed. Those stored before the séries referred to everyone's lines
    ({"lines": {"": [...], série: [...]}}, each série's lines written out) are read too."""
    stored = data.get("lines")
    lines = championship_lines_decode(championship_everyone_rows(stored))
    if isinstance(stored, str):
        series = {
            serie: [(index, rank) for index, rank in members]
            for serie, members in msgspec.json.decode(data.get("series") or "{}").items()
        }
    else:  # each série's lines written out
        index = {line.player: n for n, line in enumerate(lines)}
        series = {
            serie: [(index[row[0]], row[1]) for row in rows]
            for serie, rows in (stored or {}).items()
            if serie
        }
    return Standings(lines, series)


def _json_text(value: Any) -> str:
    """Plain values as JSON text (msgspec: several times json.dumps' speed)."""
    return msgspec.json.encode(value).decode()


def rows_results(rows: Mapping[str, Sequence[Any]]) -> dict[int, tuple[int, Fraction, int]]:
    """A snapshot's stored rows as what a championship counts of them, keyed by player id:
    (rank, total, donnes compared), the same values as `rows_decode`'s rows; one Fraction
    per distinct stored total (totals repeat), the other numbers not read."""
    exact: dict[int | str, Fraction] = {}
    results = {}
    for key, (rank, total, _differential, _penalty, _played, compared) in rows.items():
        value = exact.get(total)
        if value is None:
            value = exact[total] = Fraction(total)
        results[int(key[1:])] = (rank, value, compared)
    return results
