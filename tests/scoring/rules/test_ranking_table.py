"""compute_ranking_table gives exactly compute_ranking's ranking, as plain values, and rejects
the same input with the same error."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.rules.errors import ScoringError
from scoring.rules.ranking import (
    Penalty,
    Play,
    Ranking,
    RankingTable,
    compute_ranking,
    compute_ranking_table,
    exact_value,
)

PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow],
)
METHODS = st.sampled_from(["average", "pairwise", "matchpoints"])
RATES = st.sampled_from([Fraction(1, 10), Fraction(1, 4), 0, "0.3"])
SCORES = st.one_of(
    st.sampled_from([-204, -126, -68, 0, 42, 68, 204, 270]),
    st.integers(-3000, 3000),
    st.fractions(min_value=-500, max_value=500, max_denominator=6),
)


def plain(value: Any) -> Any:
    """What a Ranking's exact numbers become in the table (None stays None)."""
    return None if value is None else exact_value(value)


def as_table(ranking: Ranking) -> tuple[Any, ...]:
    """compute_ranking's result written as compute_ranking_table writes it."""
    rows = [
        (
            row.player,
            [
                row.rank,
                plain(row.total),
                plain(row.differential_total),
                row.penalty_points,
                row.donnes_played,
                row.donnes_compared,
            ],
        )
        for row in ranking.rows
    ]
    lines = {
        row.player: [
            [
                donne,
                line.position,
                line.table,
                plain(line.score),
                plain(line.differential),
                plain(line.percentage),
                line.status.value,
                line.group_size,
            ]
            for donne, line in row.per_donne.items()
        ]
        for row in ranking.rows
    }
    return ranking.method, ranking.matchpoint_penalty_rate, rows, lines


def table_tuple(table: RankingTable) -> tuple[Any, ...]:
    lines = {player: table.lines[player] for player, _values in table.rows}
    return table.method, table.matchpoint_penalty_rate, table.rows, lines


@st.composite
def tournaments(draw: st.DrawFn) -> dict[str, Any]:
    """Tables of four or five (the fifth player sits out a donne in turn), donnes not played
    everywhere, any exact scores, annulled tables, penalties, players who only sit out."""
    sizes = draw(st.lists(st.sampled_from([4, 4, 5]), min_size=1, max_size=5))
    donnes = draw(st.integers(1, 4))
    plays: list[Play] = []
    annulled: list[tuple[int, int]] = []
    sit_outs: list[tuple[int, int]] = []
    first = 0
    for table, size in enumerate(sizes):
        seated = list(range(first, first + size))
        first += size
        for donne in range(donnes):
            if table and not draw(st.booleans()):
                continue
            holders = list(seated)
            if size == 5:
                sit_outs.append((holders.pop(donne % 5), donne))
            for position, player in zip("NESW", holders, strict=True):
                plays.append(Play(player, donne, position, table, draw(SCORES)))
            if draw(st.integers(0, 7)) == 0:
                annulled.append((donne, table))
    penalties = draw(
        st.lists(
            st.builds(Penalty, st.integers(0, first + 2), st.sampled_from([0, 10, 100])),
            max_size=3,
        )
    )
    return {"plays": plays, "annulled": annulled, "sit_outs": sit_outs, "penalties": penalties}


@PROPERTY
@given(tournaments(), METHODS, RATES, st.booleans())
def test_table_equals_compute_ranking(
    tournament: dict[str, Any], method: str, rate: Any, as_tuples: bool
) -> None:
    expected = as_table(compute_ranking(method=method, matchpoint_penalty_rate=rate, **tournament))
    plays = [tuple(p) for p in tournament["plays"]] if as_tuples else tournament["plays"]
    table = compute_ranking_table(
        plays,
        method=method,
        matchpoint_penalty_rate=rate,
        annulled=tournament["annulled"],
        sit_outs=tournament["sit_outs"],
        penalties=tournament["penalties"],
    )
    assert table_tuple(table) == expected


@PROPERTY
@given(tournaments(), METHODS, RATES, st.sets(st.integers(0, 3)))
def test_room_rows_rank_the_complete_donnes_alone(
    tournament: dict[str, Any], method: str, rate: Any, complete: set[int]
) -> None:
    """The room's rows (RULES §6.1) are the ranking of the complete donnes' results alone,
    every player still listed (a 0-point penalty lists a player without changing a total)."""
    players = {p.player for p in tournament["plays"]} | {p for p, _ in tournament["sit_outs"]}
    players |= {p.player for p in tournament["penalties"]}
    expected = compute_ranking_table(
        [p for p in tournament["plays"] if p.donne in complete],
        method=method,
        matchpoint_penalty_rate=rate,
        annulled=[a for a in tournament["annulled"] if a[0] in complete],
        sit_outs=[s for s in tournament["sit_outs"] if s[1] in complete],
        penalties=tournament["penalties"] + [Penalty(p, 0) for p in sorted(players)],
    )
    table = compute_ranking_table(
        tournament["plays"],
        method=method,
        matchpoint_penalty_rate=rate,
        annulled=tournament["annulled"],
        sit_outs=tournament["sit_outs"],
        penalties=tournament["penalties"],
        complete=complete,
    )
    assert table.room_rows == expected.rows
    everything = complete | {p.donne for p in tournament["plays"]}
    whole = compute_ranking_table(
        tournament["plays"],
        method=method,
        matchpoint_penalty_rate=rate,
        annulled=tournament["annulled"],
        sit_outs=tournament["sit_outs"],
        penalties=tournament["penalties"],
        complete=everything,
    )
    assert whole.room_rows is whole.rows  # every donne complete: nothing computed twice


def test_whole_values_are_ints_and_others_fraction_strings() -> None:
    table = compute_ranking_table(
        [(1, 1, "N", 1, 10), (2, 1, "N", 2, 0), (3, 1, "N", 3, 0)], method="average"
    )
    assert table.rows[0] == (1, [1, "20/3", "20/3", 0, 1, 1])
    assert table.lines[2] == [[1, "N", 2, 0, "-10/3", None, "played", 3]]
    assert exact_value(Fraction(-45, 2)) == "-45/2" and exact_value(Fraction(4, 2)) == 2


def _error(call: Any) -> tuple[type[BaseException], str, dict[str, Any]]:
    with pytest.raises(ScoringError) as info:
        call()
    return type(info.value), info.value.code, info.value.params


BASE = [Play("a", 1, "N", 1, 204), Play("b", 1, "N", 2, -126), Play("c", 1, "E", 1, -68)]


# Contradictory inputs and bad arguments, each with the error compute_ranking gives.
CONTRADICTIONS = [
    ([*BASE, Play("a", 1, "E", 3, 0)], {}),  # a plays donne 1 twice
    ([*BASE, Play("z", 1, "N", 1, 0)], {}),  # seat N of table 1 taken
    ([*BASE, Play("z", 1, "N", 1, 0)], {"annulled": [(1, 1)]}),  # taken, table annulled
    (BASE, {"sit_outs": [("b", 1)]}),  # b plays and sits out donne 1
    ([*BASE, Play("d", 1, "E", 2, "lots")], {}),  # not a number
    ([*BASE, Play("d", 1, "E", 2, True)], {}),
    (BASE, {"penalties": [Penalty("a", -5)]}),
    (BASE, {"penalties": [Penalty("a", 2.5)]}),  # type: ignore[arg-type]
    ([*BASE, Play("d", 1, "E", 2, "lots"), Play("a", 1, "S", 4, 0)], {}),  # first error
    (BASE, {"method": "best"}),
    (BASE, {"method": "matchpoints", "matchpoint_penalty_rate": -1}),
]


@pytest.mark.parametrize(("plays", "extra"), CONTRADICTIONS)
def test_table_rejects_what_compute_ranking_rejects(plays: list[Play], extra: dict) -> None:
    expected = _error(lambda: compute_ranking(plays, **extra))
    assert _error(lambda: compute_ranking_table([tuple(p) for p in plays], **extra)) == expected
