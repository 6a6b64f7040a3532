"""The frequency sheet of a donne (pure): contracts by taker's position made or failed, and
each position's scores with their count and the value the overall ranking gives them."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from scoring.rules.ranking import Play, compute_ranking
from tournaments.simultaneous.hub.frequencies import FieldResult, contract_made, frequency_sheet

POSITIONS = ("N", "E", "S", "W")


def played(taker: str, contract: str, bouts: int, points: str, taker_score: int) -> FieldResult:
    scores = {p: (3 * taker_score if p == taker else -taker_score) for p in POSITIONS}
    return FieldResult("played", contract, taker, bouts, Fraction(points), scores)


def test_contracts_are_counted_by_taker_made_or_failed():
    results = [
        played("N", "garde", 2, "41", 60),  # made exactly
        played("N", "garde", 2, "40.5", -62),  # failed by half a point
        played("E", "prise", 0, "56", 25),
        played("N", "garde_sans", 3, "36", 100),
        FieldResult("all_passed", "", "", None, None, dict.fromkeys(POSITIONS, 0)),
        FieldResult("annulled", "", "", None, None, {}),
    ]
    sheet = frequency_sheet(results, "average")
    assert (sheet.tables, sheet.annulled, sheet.passed) == (5, 1, 1)
    assert [(c.contract, c.taker, c.tables, c.made, c.failed) for c in sheet.contracts] == [
        ("prise", "E", 1, 1, 0),
        ("garde", "N", 2, 1, 1),
        ("garde_sans", "N", 1, 1, 0),
    ]
    assert not contract_made(results[4])


def test_each_score_is_listed_once_with_its_count_best_first():
    results = [played("N", "garde", 2, "51", 70)] * 3 + [played("N", "garde", 2, "30", -80)]
    north = frequency_sheet(results, "average").scores["N"]
    assert [(s.score, s.tables) for s in north] == [(210, 3), (-240, 1)]
    # the mean is (3 * 210 - 240) / 4 = 97.5
    assert [s.differential for s in north] == [Fraction(225, 2), Fraction(-675, 2)]


SCORES = st.integers(min_value=-20, max_value=20).map(lambda k: 10 * k)


@given(
    taker_scores=st.lists(SCORES, min_size=1, max_size=12),
    method=st.sampled_from(["average", "pairwise", "matchpoints"]),
)
def test_a_scores_value_is_the_one_the_overall_ranking_gives(taker_scores, method):
    """Rank the tables of one donne as the hub ranks the field: each player's line on the
    donne has the differential (or percentage) the sheet gives his score at his position."""
    results = [played("N", "garde", 2, "51", s) for s in taker_scores]
    plays = [
        Play(f"{table}{p}", 1, p, table, r.scores[p])
        for table, r in enumerate(results)
        for p in POSITIONS
    ]
    ranking = compute_ranking(plays, method=method)
    sheet = frequency_sheet(results, method)
    for p in POSITIONS:
        value = {s.score: s for s in sheet.scores[p]}
        for table, r in enumerate(results):
            line = ranking.by_player[f"{table}{p}"].per_donne[1]
            assert value[r.scores[p]].differential == line.differential
            assert value[r.scores[p]].percentage == line.percentage
