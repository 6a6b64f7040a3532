"""The rule of results unlike the others on a donne (scoring.rules.unusual), without a database."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scoring.rules.unusual import FAR, OPPOSITE, Line, unusual_results


def line(key, taker="N", contract="garde", taker_score=204) -> Line:
    each = -taker_score // 3
    scores = {p: (taker_score if p == taker else each) for p in "NESW"}
    return Line(key, contract, taker, scores)


def test_a_swapped_sign_among_agreeing_tables_is_flagged():
    lines = [line(1), line(2), line(3, taker_score=-204)]
    [hit] = unusual_results(lines)
    assert hit.key == 3 and hit.reason == OPPOSITE and hit.position == "N"


def test_two_tables_of_opposite_signs_are_both_flagged():
    assert [u.key for u in unusual_results([line(1), line(2, taker_score=-204)])] == [1, 2]


def test_a_different_taker_or_contract_is_not_compared_for_the_sign():
    lines = [
        line(1),
        line(2, taker="E", taker_score=-204),
        line(3, contract="prise", taker_score=-75),
    ]
    assert unusual_results(lines) == []


def test_a_score_far_from_the_others_is_flagged_with_the_others_median():
    lines = [line(1, taker_score=204), line(2, taker_score=210), line(3, taker_score=198)]
    lines.append(line(4, taker="E", taker_score=-600))  # a wrong taker and a garde contre
    hits = unusual_results(lines)
    assert [(u.key, u.reason) for u in hits] == [(4, FAR)]
    assert hits[0].position == "E" and hits[0].others == -68


def test_close_scores_are_not_flagged():
    lines = [line(k, taker_score=s) for k, s in enumerate([204, 216, 192, 228, 180])]
    assert unusual_results(lines) == []


def test_all_passed_and_few_tables_are_left_alone():
    passed = Line(1, "", "", {p: 0 for p in "NESW"})
    assert unusual_results([passed, line(2)]) == []
    assert unusual_results([line(1), line(2, taker_score=600)]) == []  # fewer than 3 others


scores = st.integers(min_value=-3, max_value=3).map(lambda k: 68 * k)
results = st.lists(
    st.tuples(st.sampled_from("NESW"), st.sampled_from(["prise", "garde"]), scores),
    min_size=1,
    max_size=8,
)


@given(results, st.randoms(use_true_random=False))
def test_the_rule_does_not_depend_on_the_order_of_the_tables(rows, rnd):
    lines = [line(k, taker=t, contract=c, taker_score=s) for k, (t, c, s) in enumerate(rows)]
    shuffled = list(lines)
    rnd.shuffle(shuffled)
    assert {(u.key, u.reason) for u in unusual_results(lines)} == {
        (u.key, u.reason) for u in unusual_results(shuffled)
    }


@given(st.sampled_from("NESW"), st.sampled_from(["prise", "garde"]), scores, st.integers(1, 8))
def test_identical_results_are_never_unusual(taker, contract, score, n):
    lines = [line(k, taker=taker, contract=contract, taker_score=score) for k in range(n)]
    assert unusual_results(lines) == []


@given(st.sampled_from("NESW"), st.integers(1, 6).map(lambda k: 68 * k), st.integers(2, 8))
def test_one_flipped_sign_among_identical_results_is_always_caught(taker, score, n):
    lines = [line(k, taker=taker, taker_score=score) for k in range(n)]
    lines.append(line("odd", taker=taker, taker_score=-score))
    hits = unusual_results(lines)
    assert [u.key for u in hits] == ["odd"]


def test_the_rule_in_the_docs_states_the_thresholds_the_code_uses():
    """docs/rules.md §6.4 is what arbiters read: its numbers are those of scoring.rules.unusual."""
    from pathlib import Path

    from scoring.rules.unusual import MIN_GAP, MIN_OTHERS, SPREAD

    text = (Path(__file__).resolve().parents[3] / "docs" / "rules.md").read_text()
    section = text.split("### 6.4 Results unlike the others")[1].split("\n## ")[0]
    section = " ".join(section.split())
    assert f"at least {MIN_OTHERS} other results" in section
    assert f"{SPREAD} × their median absolute deviation" in section
    assert f"more than {MIN_GAP} points" in section
    assert "Opposite sign" in section and "same contract and the same taker position" in section
