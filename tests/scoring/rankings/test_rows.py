"""A snapshot's rows are encoded and decoded in one place (`scoring.rankings.rows`), in the
layout the pure ranking gives its table's rows in."""

from __future__ import annotations

from fractions import Fraction

from scoring.rankings.rows import (
    SnapshotRow,
    key_player,
    row_decode,
    row_encode,
    row_key,
    rows_decode,
    rows_encode,
)
from scoring.rules.ranking import Play, compute_ranking, compute_ranking_table


def plays() -> list[tuple[int, int, str, int, int]]:
    """Two tables on one donne: players 1-4 and 5-8, different scores."""
    return [
        (1, 1, "N", 1, 150),
        (2, 1, "E", 1, -50),
        (3, 1, "S", 1, -50),
        (4, 1, "W", 1, -50),
        (5, 1, "N", 2, -99),
        (6, 1, "E", 2, 33),
        (7, 1, "S", 2, 33),
        (8, 1, "W", 2, 33),
    ]


def test_a_row_round_trips_with_exact_numbers():
    stored = row_encode(2, Fraction(45, 2), Fraction(-7, 3), 10, 4, 3)
    assert stored == [2, "45/2", "-7/3", 10, 4, 3]
    assert row_decode(stored) == SnapshotRow(2, Fraction(45, 2), Fraction(-7, 3), 10, 4, 3)
    assert row_decode(row_encode(1, 12, 0, 0, 1, 1)).total == 12
    assert key_player(row_key(42)) == 42


def test_the_table_rows_are_stored_as_given_and_decode_as_the_ranking_rows():
    table = compute_ranking_table(plays(), method="average")
    ranking = compute_ranking([Play(*p) for p in plays()], method="average")
    decoded = rows_decode(rows_encode(table.rows))
    assert set(decoded) == set(range(1, 9))
    for row in ranking.rows:
        assert decoded[row.player] == SnapshotRow(
            row.rank,
            row.total,
            row.differential_total,
            row.penalty_points,
            row.donnes_played,
            row.donnes_compared,
        )
        assert (
            row_decode(
                row_encode(
                    row.rank,
                    row.total,
                    row.differential_total,
                    row.penalty_points,
                    row.donnes_played,
                    row.donnes_compared,
                )
            )
            == decoded[row.player]
        )
