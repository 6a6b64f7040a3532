"""Tournament ranking (RULES §6-§8) on small hand-computed tournaments."""

from __future__ import annotations

import random
import time
from fractions import Fraction

import pytest

from scoring.rules.errors import InvalidMethod, InvalidPenalty, InvalidPlays, InvalidScore
from scoring.rules.ranking import DonneLine, DonneStatus, Penalty, Play, compute_ranking

F = Fraction


def three_tables() -> list[Play]:
    """Donne 1, North, at tables 1-3 (a, b, c); donne 2, North, at tables 1-2 only (a, b)."""
    return [
        Play("a", 1, "N", 1, 204),
        Play("b", 1, "N", 2, -68),
        Play("c", 1, "N", 3, 100),
        Play("a", 2, "N", 1, -126),
        Play("b", 2, "N", 2, 42),
    ]


def totals(ranking_rows: list) -> list[tuple[object, int, Fraction]]:
    return [(row.player, row.rank, row.total) for row in ranking_rows]


def test_average() -> None:
    ranking = compute_ranking(three_tables())
    # donne 1: mean 236/3 -> 376/3, -440/3, 64/3; donne 2: mean -42 -> -84, 84
    assert ranking.method == "average"
    assert totals(ranking.rows) == [("a", 1, F(124, 3)), ("c", 2, F(64, 3)), ("b", 3, F(-188, 3))]
    a = ranking.by_player["a"]
    assert a.differential_total == F(124, 3)
    assert (a.penalty_points, a.donnes_played, a.donnes_compared) == (0, 2, 2)
    assert a.per_donne[1] == DonneLine("N", 1, 204, F(376, 3), None, DonneStatus.PLAYED, 3)
    assert a.per_donne[2] == DonneLine("N", 1, -126, F(-84), None, DonneStatus.PLAYED, 2)


def test_pairwise() -> None:
    ranking = compute_ranking(three_tables(), method="pairwise")
    # donne 1: 188, -220, 32; donne 2: -168, 168
    assert totals(ranking.rows) == [("c", 1, F(32)), ("a", 2, F(20)), ("b", 3, F(-52))]
    assert ranking.by_player["b"].per_donne[2].differential == F(168)


def test_matchpoints_all_tied() -> None:
    ranking = compute_ranking(three_tables(), method="matchpoints")
    # a: 100 % then 0 %; b: 0 % then 100 %; c: 50 % once -> everyone at 50 %
    assert totals(ranking.rows) == [("a", 1, F(50)), ("b", 1, F(50)), ("c", 1, F(50))]
    a = ranking.by_player["a"]
    assert a.per_donne[1].differential == F(4)
    assert a.per_donne[1].percentage == F(100)
    assert a.per_donne[2].percentage == F(0)
    assert ranking.by_player["c"].per_donne[1].percentage == F(50)


def test_ties_share_a_rank() -> None:
    plays = [
        Play(p, 1, "N", t, s) for t, (p, s) in enumerate(zip("wxyz", [10, 5, 5, -20], strict=True))
    ]
    ranking = compute_ranking(plays)
    assert totals(ranking.rows) == [
        ("w", 1, F(10)),
        ("x", 2, F(5)),
        ("y", 2, F(5)),
        ("z", 4, F(-20)),
    ]


def test_annulled_table_is_left_out_of_the_group() -> None:
    ranking = compute_ranking(three_tables()[:3], annulled=[(1, 3), (7, 9)])
    # donne 1 compared between tables 1 and 2 only: mean 68
    assert totals(ranking.rows) == [("a", 1, F(136)), ("c", 2, F(0)), ("b", 3, F(-136))]
    c = ranking.by_player["c"]
    assert c.per_donne[1] == DonneLine("N", 3, None, F(0), None, DonneStatus.ANNULLED, 0)
    assert (c.donnes_played, c.donnes_compared) == (0, 0)
    assert ranking.by_player["a"].per_donne[1].group_size == 2


def test_annulled_plays_may_be_omitted() -> None:
    with_play = compute_ranking(three_tables()[:3], annulled=[(1, 3)])
    without_play = compute_ranking(three_tables()[:2], annulled=[(1, 3)])
    assert with_play.by_player["a"] == without_play.by_player["a"]
    assert "c" not in without_play.by_player


def test_sit_out_gives_zero_and_is_not_played() -> None:
    plays = [*three_tables(), Play("e", 1, "N", 4, 0)]
    ranking = compute_ranking(plays, method="matchpoints", sit_outs=[("e", 2)])
    e = ranking.by_player["e"]
    assert e.per_donne[2] == DonneLine(None, None, None, F(0), None, DonneStatus.SAT_OUT, 0)
    assert (e.donnes_played, e.donnes_compared) == (1, 1)
    # donne 1 group of 4: 204, -68, 100, 0 -> e beats -68 only: 2 of 6
    assert e.total == F(100, 3)
    # a: 6 of 6 on donne 1, 0 % on donne 2 -> 50 %
    assert ranking.by_player["a"].total == F(50)


def test_sit_out_only_player_is_ranked_with_zero() -> None:
    ranking = compute_ranking(three_tables(), sit_outs=[("m", 1)])
    m = ranking.by_player["m"]
    assert (m.total, m.donnes_played) == (F(0), 0)
    assert m.per_donne[1].status == DonneStatus.SAT_OUT


def test_group_of_one() -> None:
    plays = [*three_tables(), Play("a", 3, "N", 1, 500)]
    for method in ("average", "pairwise", "matchpoints"):
        ranking = compute_ranking(plays, method=method)
        a = ranking.by_player["a"]
        assert a.per_donne[3] == DonneLine("N", 1, 500, F(0), None, DonneStatus.PLAYED, 1)
        assert (a.donnes_played, a.donnes_compared) == (3, 2)
        assert a.total == compute_ranking(three_tables(), method=method).by_player["a"].total


def test_matchpoints_with_no_comparison_yet_is_zero() -> None:
    ranking = compute_ranking([Play("a", 1, "N", 1, 80)], method="matchpoints")
    assert totals(ranking.rows) == [("a", 1, F(0))]
    assert ranking.rows[0].per_donne[1].percentage is None


def test_penalties_average() -> None:
    ranking = compute_ranking(
        three_tables(), penalties=[Penalty("a", 100, donne=1), Penalty("a", 0), Penalty("c", 10)]
    )
    a = ranking.by_player["a"]
    assert (a.total, a.differential_total, a.penalty_points) == (F(124, 3) - 100, F(124, 3), 100)
    assert totals(ranking.rows) == [("c", 1, F(34, 3)), ("a", 2, F(-176, 3)), ("b", 3, F(-188, 3))]
    # the deal's score and the others' comparison are untouched
    assert a.per_donne[1].score == 204
    assert ranking.by_player["b"].differential_total == F(-188, 3)


def test_penalties_matchpoints_use_the_rate() -> None:
    ranking = compute_ranking(three_tables(), method="matchpoints", penalties=[Penalty("b", 100)])
    assert ranking.matchpoint_penalty_rate == F(1, 10)
    assert totals(ranking.rows) == [("a", 1, F(50)), ("c", 1, F(50)), ("b", 3, F(40))]
    half = compute_ranking(
        three_tables(),
        method="matchpoints",
        penalties=[Penalty("b", 10)],
        matchpoint_penalty_rate=F(1, 2),
    )
    assert half.by_player["b"].total == F(45)
    assert half.by_player["b"].differential_total == F(50)


def test_penalised_player_without_results_is_listed() -> None:
    ranking = compute_ranking(three_tables(), penalties=[Penalty("z", 100)])
    z = ranking.by_player["z"]
    assert (z.total, z.rank, z.donnes_played) == (F(-100), 4, 0)


def test_player_ids_of_mixed_types_sort_deterministically() -> None:
    plays = [Play(1, 1, "N", 1, 10), Play("1", 1, "N", 2, 10), Play(None, 1, "N", 3, 10)]
    first = compute_ranking(plays)
    second = compute_ranking(list(reversed(plays)))
    assert [row.player for row in first.rows] == [row.player for row in second.rows]
    assert [row.rank for row in first.rows] == [1, 1, 1]


def test_fraction_scores() -> None:
    ranking = compute_ranking([Play("a", 1, "N", 1, F(1, 2)), Play("b", 1, "N", 2, 0)])
    assert ranking.by_player["a"].total == F(1, 4)


def test_contradictory_input_is_refused() -> None:
    with pytest.raises(InvalidPlays) as info:
        compute_ranking([*three_tables(), Play("a", 1, "E", 4, 0)])
    assert info.value.code == "duplicate_play"
    assert "a" in str(info.value)
    with pytest.raises(InvalidPlays) as info:
        compute_ranking([*three_tables(), Play("z", 1, "N", 1, 0)])
    assert info.value.code == "seat_taken"
    with pytest.raises(InvalidPlays) as info:
        compute_ranking(three_tables(), sit_outs=[("b", 2)])
    assert info.value.code == "play_and_sit_out"
    with pytest.raises(InvalidPlays) as info:
        compute_ranking([Play("a", 1, "N", 1, "lots")])
    assert info.value.code == "score_not_a_number"


@pytest.mark.parametrize("points", [-5, 1.5, "10", None])
def test_bad_penalty(points: object) -> None:
    with pytest.raises(InvalidPenalty) as info:
        compute_ranking(three_tables(), penalties=[Penalty("a", points)])  # type: ignore[arg-type]
    assert info.value.field == "penalties"
    assert str(points) in str(info.value)


def test_bad_method_and_rate() -> None:
    with pytest.raises(InvalidMethod):
        compute_ranking(three_tables(), method="best")
    with pytest.raises(InvalidScore) as info:
        compute_ranking(three_tables(), method="matchpoints", matchpoint_penalty_rate=-1)
    assert info.value.code == "penalty_rate_invalid"


def test_large_tournament_is_fast() -> None:
    rnd = random.Random(3)
    plays = [
        Play(table * 4 + seat, donne, position, table, rnd.choice([-204, -68, 42, 68, 156]))
        for donne in range(24)
        for table in range(250)
        for seat, position in enumerate("NESW")
    ]
    start = time.perf_counter()
    ranking = compute_ranking(plays, method="matchpoints")
    elapsed = time.perf_counter() - start
    assert len(ranking.rows) == 1000
    assert elapsed < 5, f"ranking 1,000 players x 24 donnes took {elapsed:.2f} s"
