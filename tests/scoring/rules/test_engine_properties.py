"""Property tests: zero-sum tables, monotone scores, zero-sum differentials, stable rankings."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scoring.rules.duplicate import differentials, matchpoints
from scoring.rules.engine import CARD_TOTAL, THRESHOLDS, deal_errors, score_deal
from scoring.rules.errors import ScoringError
from scoring.rules.ranking import Penalty, Play, compute_ranking

# Deterministic and quick: the same examples on every run, no example database, no deadline.
PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)

CONTRACTS = st.sampled_from(["prise", "garde", "garde_sans", "garde_contre"])
PETITS = st.sampled_from([None, "attack", "defence"])
SIZES = st.sampled_from(["simple", "double", "triple"])


def _half_points(bouts: int) -> st.SearchStrategy[int]:
    """Half points possible for the attack with that many bouts (RULES §1)."""
    return st.integers(9 * bouts, 2 * CARD_TOTAL - 9 * (3 - bouts))


def _as_points(half: int) -> int | float:
    return half // 2 if half % 2 == 0 else half / 2


def possible_per_rules(
    contract: str, bouts: int, half: int, petit: str | None, chelem: str | None
) -> bool:
    """The first table of RULES §5.1, written out independently of the engine."""
    made = chelem in ("announced_made", "unannounced_made")
    if petit == "attack" and (bouts == 0 or chelem == "defence"):
        return False
    if petit == "defence" and (bouts == 3 or made):
        return False
    if made and contract != "garde_contre" and (bouts < 2 or half < 173):
        return False
    return not (chelem == "defence" and contract != "garde_sans" and (bouts > 1 or half > 47))


@st.composite
def valid_deals(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.sampled_from([3, 4, 5]))
    bouts = draw(st.integers(0, 3))
    half = draw(_half_points(bouts))
    won = half >= 2 * THRESHOLDS[bouts]
    chelems = [None, "announced_failed"] + (
        ["announced_made", "unannounced_made"] if won else ["defence"]
    )
    deal = {
        "players": players,
        "contract": draw(CONTRACTS),
        "bouts": bouts,
        "points": _as_points(half),
        "petit_au_bout": draw(PETITS),
        "poignees": draw(st.lists(SIZES, max_size=players)),
        "chelem": draw(st.sampled_from(chelems)),
        "called_self": players == 5 and draw(st.booleans()),
    }
    assume(possible_per_rules(deal["contract"], bouts, half, deal["petit_au_bout"], deal["chelem"]))
    return deal


@PROPERTY
@given(valid_deals())
def test_table_scores_sum_to_zero(deal: dict[str, Any]) -> None:
    score = score_deal(**deal)
    seats = score.seat_scores()
    assert len(seats) == deal["players"]
    assert sum(seats) == 0
    assert score.unit == (
        score.contract_part + score.petit_au_bout_part + score.poignees_part + score.chelem_part
    )
    assert (score.partner is not None) == (deal["players"] == 5 and not deal["called_self"])


@PROPERTY
@given(
    st.sampled_from([3, 4, 5]),
    CONTRACTS,
    st.integers(0, 3),
    st.data(),
    PETITS,
    st.lists(SIZES, max_size=3),
    st.sampled_from([None, "announced_failed"]),
)
def test_more_points_never_score_less(
    players: int,
    contract: str,
    bouts: int,
    data: st.DataObject,
    petit: str | None,
    poignees: list[str],
    chelem: str | None,
) -> None:
    assume(possible_per_rules(contract, bouts, 0, petit, chelem))
    low = data.draw(_half_points(bouts))
    high = data.draw(st.integers(low, 2 * CARD_TOTAL - 9 * (3 - bouts)))
    common = {
        "players": players,
        "contract": contract,
        "bouts": bouts,
        "petit_au_bout": petit,
        "poignees": poignees,
        "chelem": chelem,
    }
    worse = score_deal(points=Fraction(low, 2), **common)
    better = score_deal(points=Fraction(high, 2), **common)
    assert worse.unit <= better.unit
    assert worse.taker <= better.taker


@PROPERTY
@given(st.data())
def test_more_points_never_score_less_with_a_chelem_made(data: st.DataObject) -> None:
    contract = data.draw(CONTRACTS)
    # A chelem made owns every card but possibly the Excuse, except under garde contre (§5.1).
    low = data.draw(st.integers(2 * 36 if contract == "garde_contre" else 173, 2 * CARD_TOTAL))
    high = data.draw(st.integers(low, 2 * CARD_TOTAL))
    common = {"players": 4, "contract": contract, "bouts": 3}
    common["chelem"] = data.draw(st.sampled_from(["announced_made", "unannounced_made"]))
    assert score_deal(points=low / 2, **common).unit <= score_deal(points=high / 2, **common).unit


SCORES = st.one_of(
    st.integers(-3000, 3000),
    st.fractions(min_value=-3000, max_value=3000, max_denominator=12),
)


@PROPERTY
@given(st.lists(SCORES, min_size=1, max_size=12))
def test_average_and_pairwise_sum_to_zero(scores: list[int | Fraction]) -> None:
    for method in ("average", "pairwise"):
        result = differentials(scores, method=method)
        assert len(result) == len(scores)
        assert sum(result) == 0
        assert all(isinstance(d, Fraction) for d in result)


@PROPERTY
@given(st.lists(SCORES, min_size=2, max_size=12))
def test_matchpoints_share_two_per_pair(scores: list[int | Fraction]) -> None:
    n = len(scores)
    result = differentials(scores, method="matchpoints")
    assert sum(result) == n * (n - 1)
    assert all(0 <= mp <= 2 * (n - 1) for mp in result)
    assert [int(mp) for mp in result] == matchpoints(scores)


@PROPERTY
@given(SCORES, SCORES)
def test_pairwise_with_two_tables_is_the_difference(a: int | Fraction, b: int | Fraction) -> None:
    assert differentials([a, b], method="pairwise") == [a - b, b - a]


@st.composite
def tournaments(draw: st.DrawFn) -> dict[str, Any]:
    """A small tournament: tables of four keep their positions and play some of the donnes."""
    tables = draw(st.integers(1, 5))
    donnes = draw(st.integers(1, 4))
    plays: list[Play] = []
    annulled: list[tuple[int, int]] = []
    for donne in range(donnes):
        for table in range(tables):
            if not draw(st.booleans()) and table:  # some donnes not yet played at some tables
                continue
            score = draw(st.sampled_from([-204, -126, -68, 0, 42, 68, 204, 270]))
            for seat, position in enumerate("NESW"):
                player = table * 4 + seat
                sign = 3 if seat == 0 else -1
                plays.append(Play(player, donne, position, table, sign * score))
            if draw(st.integers(0, 9)) == 0:
                annulled.append((donne, table))
    penalties = draw(
        st.lists(
            st.builds(Penalty, st.integers(0, 4 * tables - 1), st.sampled_from([0, 10, 100])),
            max_size=3,
        )
    )
    return {"plays": plays, "annulled": annulled, "penalties": penalties}


METHODS = st.sampled_from(["average", "pairwise", "matchpoints"])


@PROPERTY
@given(tournaments(), METHODS, st.randoms(use_true_random=False))
def test_ranking_is_invariant_to_input_order(
    tournament: dict[str, Any], method: str, rnd: random.Random
) -> None:
    first = compute_ranking(tournament["plays"], method=method, **_extras(tournament))
    shuffled = list(tournament["plays"])
    rnd.shuffle(shuffled)
    annulled = list(reversed(tournament["annulled"]))
    penalties = list(reversed(tournament["penalties"]))
    second = compute_ranking(shuffled, method=method, annulled=annulled, penalties=penalties)
    assert first == second
    assert [row.rank for row in first.rows] == sorted(row.rank for row in first.rows)


def _extras(tournament: dict[str, Any]) -> dict[str, Any]:
    return {"annulled": tournament["annulled"], "penalties": tournament["penalties"]}


@PROPERTY
@given(tournaments(), METHODS, st.integers(1, 200))
def test_penalties_only_affect_the_penalised_player(
    tournament: dict[str, Any], method: str, points: int
) -> None:
    plays = tournament["plays"]
    before = compute_ranking(plays, method=method, **_extras(tournament))
    target = plays[0].player
    penalties = [*tournament["penalties"], Penalty(target, points)]
    after = compute_ranking(
        plays, method=method, annulled=tournament["annulled"], penalties=penalties
    )
    rate = Fraction(1, 10) if method == "matchpoints" else 1
    for row in before.rows:
        new = after.by_player[row.player]
        assert new.per_donne == row.per_donne
        assert new.differential_total == row.differential_total
        if row.player == target:
            assert new.penalty_points == row.penalty_points + points
            assert new.total == row.total - points * rate
        else:
            assert new.total == row.total
            assert new.penalty_points == row.penalty_points


@PROPERTY
@given(tournaments(), st.sampled_from(["average", "pairwise"]))
def test_ranking_differentials_sum_to_zero(tournament: dict[str, Any], method: str) -> None:
    ranking = compute_ranking(tournament["plays"], method=method, annulled=tournament["annulled"])
    assert sum(row.differential_total for row in ranking.rows) == 0


@PROPERTY
@given(
    st.sampled_from([3, 4, 5]),
    CONTRACTS,
    st.integers(0, 3),
    st.integers(0, 2 * CARD_TOTAL),
    PETITS,
    st.sampled_from([None, "announced_made", "unannounced_made", "announced_failed", "defence"]),
)
def test_every_accepted_deal_respects_the_bounds_of_a_chelem_and_petit_au_bout(
    players: int, contract: str, bouts: int, half: int, petit: str | None, chelem: str | None
) -> None:
    """RULES §1, §4 and §5.1: accepted exactly when possible, refused naming a field."""
    low, high = 9 * bouts, 2 * CARD_TOTAL - 9 * (3 - bouts)
    won = half >= 2 * THRESHOLDS[bouts]
    consistent = not (chelem in ("announced_made", "unannounced_made") and not won) and not (
        chelem == "defence" and won
    )
    possible = (
        low <= half <= high
        and consistent
        and possible_per_rules(contract, bouts, half, petit, chelem)
    )
    deal = {
        "players": players,
        "contract": contract,
        "bouts": bouts,
        "points": _as_points(half),
        "petit_au_bout": petit,
        "chelem": chelem,
    }
    found = deal_errors(**deal)
    try:
        score = score_deal(**deal)
    except ScoringError as err:
        assert not possible
        assert found and found[0].code == err.code
        assert err.field in {"points", "petit_au_bout", "chelem"}
        if low <= half <= high and consistent:
            # Refused for a §5.1 reason only: the message names the field it is about.
            assert err.field in {"petit_au_bout", "chelem"}
    else:
        assert possible, deal
        assert found == []
        assert score.bouts == bouts and score.points * 2 == half
