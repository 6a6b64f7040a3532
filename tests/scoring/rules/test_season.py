"""The club season ranking, pure (`scoring.rules.season`): properties over random tournaments."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from scoring.rules.season import EventRow, season_table, shared_ranks

METHODS = st.sampled_from(["average", "matchpoints"])
totals = st.fractions(min_value=-500, max_value=500, max_denominator=12)


@st.composite
def event(draw) -> list[EventRow]:
    """One tournament's rows: distinct players among 8, each with his row."""
    players = draw(st.lists(st.integers(1, 8), unique=True, max_size=8))
    rows = []
    for player in players:
        compared = draw(st.integers(0, 30))
        rows.append(
            EventRow(player, draw(totals), draw(totals), draw(st.integers(compared, 30)), compared)
        )
    return rows


events = st.lists(event(), max_size=6)


def by_player(table) -> dict:
    return {row.player: row for row in table}


@given(events, event(), METHODS)
def test_adding_a_tournament_never_lowers_a_players_count(season, extra, method):
    before = by_player(season_table(season, method))
    after = by_player(season_table([*season, extra], method))
    assert set(before) <= set(after)
    for player, row in before.items():
        assert after[player].tournaments >= row.tournaments
    for row in extra:
        had = before[row.player].tournaments if row.player in before else 0
        assert after[row.player].tournaments == had + 1


@given(events, METHODS)
def test_totals_and_counts_are_the_sums_of_the_tournaments(season, method):
    table = by_player(season_table(season, method))
    for player, line in table.items():
        rows = [row for rows in season for row in rows if row.player == player]
        assert line.total == sum((row.total for row in rows), Fraction(0))
        assert line.tournaments == len(rows)
        assert line.donnes == sum(row.donnes_played for row in rows)
        assert line.compared == sum(row.donnes_compared for row in rows)
        weight = (lambda r: r.donnes_compared) if method == "matchpoints" else (lambda r: 1)
        summed = sum((row.differential_total * weight(row) for row in rows), Fraction(0))
        assert line.compared_sum == summed
    assert set(table) == {row.player for rows in season for row in rows}


@given(events, METHODS)
def test_equal_totals_share_a_rank_and_ranks_follow_totals(season, method):
    table = season_table(season, method)
    assert [row.total for row in table] == sorted((row.total for row in table), reverse=True)
    for index, row in enumerate(table, start=1):
        better = sum(1 for other in table if other.total > row.total)
        assert row.rank == better + 1 <= index
        for other in table:
            assert (other.rank == row.rank) == (other.total == row.total)


@given(events, METHODS, st.randoms())
def test_the_order_of_the_tournaments_does_not_matter(season, method, rnd):
    shuffled = [list(rows) for rows in season]
    rnd.shuffle(shuffled)
    for rows in shuffled:
        rnd.shuffle(rows)
    assert season_table(shuffled, method) == season_table(season, method)


@given(st.lists(st.integers(-5, 5)))
def test_shared_ranks_are_competition_ranks(values):
    ordered = sorted((Fraction(v) for v in values), reverse=True)
    assert shared_ranks(ordered) == [1 + sum(1 for o in ordered if o > v) for v in ordered]


def test_a_tie_is_ordered_by_the_given_order_and_shares_the_rank():
    rows = [
        EventRow(1, Fraction(10), Fraction(0), 4, 4),
        EventRow(2, Fraction(10), Fraction(0), 4, 4),
    ]
    table = season_table([rows, [EventRow(3, Fraction(30), Fraction(1), 2, 2)]], "average")
    assert [(r.player, r.rank) for r in table] == [(3, 1), (1, 2), (2, 2)]
    reverse = season_table([rows], "average", order=lambda player: -player)
    assert [(r.player, r.rank) for r in reverse] == [(2, 1), (1, 1)]
