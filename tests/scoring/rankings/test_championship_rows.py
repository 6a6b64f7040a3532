"""A championship's stored lines (`scoring.rankings.rows`): everyone's lines once and each
série's as references to them, each number written once per object, a snapshot's rows read
as a championship counts them; each shortcut against the plain encoding it replaces."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from scoring.rankings.rows import (
    championship_everyone_rows,
    championship_lines_decode,
    championship_lines_encode,
    championship_standings_decode,
    championship_standings_encode,
    exact_number,
    row_encode,
    rows_decode,
    rows_results,
)
from scoring.rules.championship import Line, championship_scopes, championship_standings
from tests.scoring.rules.test_championship import rule, season, series_of


def plain_encode(lines: list[Line]) -> list[list[Any]]:
    """Every number written on its own, as the lines were stored before."""
    return [
        [
            line.player,
            line.rank,
            int(line.classified),
            exact_number(line.points),
            exact_number(line.handicap),
            line.counted,
            [[e.event, exact_number(e.points), int(e.counted)] for e in line.events],
        ]
        for line in lines
    ]


def stored(value: dict[str, Any]) -> dict[str, Any]:
    """What a jsonb column gives back: JSON texts as strings, tuples as lists."""
    import json

    return json.loads(json.dumps(value))


@given(rule(), season(), series_of)
def test_stored_standings_give_back_every_scope(rule, events, series):
    standings = championship_standings(rule, events, series)
    data = stored(championship_standings_encode(standings))
    assert set(data) == {"lines", "series"} and isinstance(data["lines"], str)
    decoded = championship_standings_decode(data)
    for scope, lines in championship_scopes(rule, events, series).items():
        assert decoded.scope(scope) == lines
    assert championship_everyone_rows(data["lines"]) == plain_encode(list(standings.lines))


@given(rule(), season(), series_of)
def test_lines_are_written_as_each_number_on_its_own(rule, events, series):
    lines = championship_scopes(rule, events, series)[""]
    assert championship_lines_encode(lines) == plain_encode(lines)
    assert championship_lines_decode(plain_encode(lines)) == lines


@given(rule(), season(), series_of)
def test_standings_stored_before_with_each_serie_written_out_are_read(rule, events, series):
    scopes = championship_scopes(rule, events, series)
    before = stored({"lines": {scope: plain_encode(lines) for scope, lines in scopes.items()}})
    decoded = championship_standings_decode(before)
    for scope, lines in scopes.items():
        assert decoded.scope(scope) == lines
    assert championship_everyone_rows(before["lines"]) == plain_encode(scopes[""])


exact = st.fractions(min_value=-500, max_value=500, max_denominator=8)


@given(st.dictionaries(st.integers(1, 10_000), st.tuples(st.integers(1, 50), exact, exact)))
def test_a_snapshots_rows_are_read_as_rows_decode_reads_them(rows):
    encoded = {
        f"p{pk}": row_encode(rank, total, diff, 0, 24, 20)
        for pk, (rank, total, diff) in rows.items()
    }
    results = rows_results(encoded)
    assert results == {
        pk: (row.rank, row.total, row.donnes_compared) for pk, row in rows_decode(encoded).items()
    }
    assert all(type(total) is Fraction for _rank, total, _compared in results.values())
