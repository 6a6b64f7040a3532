"""Sitting out shared (RULES §7): the generator's sit-out orders and the validator's rules."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules.movement import (
    FIFTH,
    Movement,
    _generate,
    copies_needed,
    donnes_of_set,
    generate_movement,
    least_sit_out_spread,
    opponent_stats,
    sit_out_counts,
    sit_out_spread,
    validate,
)
from scoring.rules.movement_algebra import stage_design

SIZES = [n for n in range(8, 201) if n != 11]
# The suite checks a large sample; bench/bench_movement.py sweeps every n × 1..8 rounds.
SAMPLE = [(n, r) for n in SIZES for r in range(1, 9) if (n + r) % 8 == 0 or n <= 24]


def sat_out_by_donne(m: Movement) -> Counter[tuple[int, int]]:
    """(player, donne) -> times he sits it out, read donne by donne."""
    out: Counter[tuple[int, int]] = Counter()
    for rnd in m.rounds:
        for s in rnd.sittings:
            for k, donne in enumerate(donnes_of_set(s.set_no), start=1):
                who = s.donne_seating(k).sitting_out
                if who is not None:
                    out[(who, donne)] += 1
    return out


def check(m: Movement) -> int:
    assert validate(m) == [], (m.players, len(m.rounds))
    spread = sit_out_spread(m)
    # A spread above one is declared exactly, so the seating plan can say so.
    assert m.sit_out_allowance == max(1, spread)
    if not m.five_tables:
        assert spread == 0 and set(sit_out_counts(m).values()) <= {0}
    return spread


def test_large_sample_of_field_sizes():
    for n, r in SAMPLE:
        spread = check(generate_movement(n, r))
        # within one, or the smallest spread any movement can reach (proved exhaustively)
        assert spread <= 1 or spread == least_sit_out_spread(n, r), (n, r, spread)


@pytest.mark.parametrize("rounds", [5, 7])
def test_nine_players_mix_the_two_tables(rounds):
    """9 players over 5 or 7 rounds: stages of two tables keep the table of four's players
    together (spread 2 over 5 rounds); groups that mix across the rounds share within one."""
    m = generate_movement(9, rounds)
    assert check(m) == 1 and m.sets == rounds
    assert set(copies_needed(m).values()) == {1}
    four_tables = {frozenset(rnd.sittings[0].players) for rnd in m.rounds}
    assert len(four_tables) == 2  # two groups of four take turns at the table of four
    assert all(sit_out_counts(m)[p] >= 1 for p in range(1, 10))


# The last fields the greedy sharing left at a spread of two (issue 31): a search over who sits
# where, with the same tables and étui sets, shares them within one.
LAST_CASES = [(22, 3), (67, 6), (75, 6), (62, 8), (91, 8), (95, 8), (103, 8)]


@pytest.mark.parametrize(("n", "rounds"), LAST_CASES)
def test_the_last_cases_share_within_one(n, rounds):
    m = generate_movement(n, rounds)
    assert check(m) == 1 and m.sit_out_allowance == 1
    counts = Counter(sit_out_counts(m).values())
    total = 4 * rounds * len(m.five_tables)
    low = total // n
    assert set(counts) <= {low, low + 1} and sum(k * c for k, c in counts.items()) == total
    # the search changes who sits where, never the tables nor the sets: one copy of each set
    # per round, the tables of five numbered last, every set at several tables
    assert set(copies_needed(m).values()) == {1}
    assert m.five_tables == tuple(range(m.tables - len(m.five_tables) + 1, m.tables + 1))
    # a player who is the fifth player in some rounds keeps one position in the others
    for player in range(1, n + 1):
        roles = {s.role_of(player) for rnd in m.rounds for s in rnd.sittings} - {None, FIFTH}
        assert len(roles) <= 1
    # and no two players share a table in more than half of the rounds (the generator's aim)
    assert opponent_stats(m).max_together <= math.ceil(rounds / 2)


def test_search_is_deterministic():
    assert generate_movement(22, 3).to_dict() == _generate.__wrapped__(22, 3, None, 40).to_dict()


def _spreads_by_brute_force(players: int, rounds: int) -> set[int]:
    """Every spread reachable on two tables playing different sets each round, player by
    player (not by groups of players as least_sit_out_spread counts them): a second proof."""
    reachable: set[int] = set()
    for schedule in itertools.product(itertools.permutations(range(rounds), 2), repeat=rounds):
        if min(Counter(x for pair in schedule for x in pair).values()) < 2:
            continue
        paths = [
            p
            for p in itertools.product((0, 1), repeat=rounds)
            if len({schedule[r][p[r]] for r in range(rounds)}) == rounds
        ]
        for seated in itertools.combinations_with_replacement(paths, players):
            sizes = [sum(p[r] for p in seated) for r in range(rounds)]
            if any(size not in (4, 5) for size in sizes):
                continue
            fives = [
                [i for i, p in enumerate(seated) if p[r] == (1 if sizes[r] == 5 else 0)]
                for r in range(rounds)
            ]
            for holders in itertools.product(*fives):
                counts = [
                    sum(i in fives[r] and i != holders[r] for r in range(rounds))
                    for i in range(players)
                ]
                reachable.add(max(counts) - min(counts))
    return reachable


@pytest.mark.parametrize(("rounds", "least"), [(2, 2), (3, 3)])
def test_nine_players_cannot_share_within_one(rounds, least):
    """9 players over 2 or 3 rounds: every movement with one copy of each set per round keeps
    the table of four's players together all session (a player changing table would replay a
    set), so they never sit out while the five others share 8 or 12 sit-outs."""
    assert least_sit_out_spread(9, rounds) == least
    assert min(_spreads_by_brute_force(9, rounds)) == least
    m = generate_movement(9, rounds)
    assert check(m) == least and m.sit_out_allowance == least
    four_table = set(m.rounds[0].sittings[0].players)
    assert all(set(rnd.sittings[0].players) == four_table for rnd in m.rounds)
    assert all(sit_out_counts(m)[p] == 0 for p in four_table)


def test_the_proof_is_only_claimed_where_it_was_made():
    assert least_sit_out_spread(9, 4) is None and least_sit_out_spread(9, 1) is None
    assert least_sit_out_spread(22, 3) is None and least_sit_out_spread(10, 2) is None


def test_one_round_always_within_one():
    for n in SIZES:
        assert check(generate_movement(n, 1)) <= 1, n


def test_twenty_one_players_two_rounds():
    m = generate_movement(21, 2)
    counts = sit_out_counts(m)
    assert sorted(counts.values()) == [0] * 13 + [1] * 8
    per_donne = sat_out_by_donne(m)
    assert len(per_donne) == 8 and set(per_donne.values()) == {1}
    assert len({p for p, _d in per_donne}) == 8
    assert m.sit_out_allowance == 1 and validate(m) == []


def test_twenty_three_players_three_rounds():
    m = generate_movement(23, 3)
    counts = sit_out_counts(m)
    assert sum(counts.values()) == 3 * 3 * 4  # three tables of five, three relais of 4
    # was 3 donnes for four players and none for five others: now 13 sit out two, 10 one
    assert sorted(Counter(counts.values()).items()) == [(1, 10), (2, 13)]
    assert m.sit_out_allowance == 1 and validate(m) == []


def test_shorter_stages_when_the_fifth_seat_cannot_pass_within_a_long_one():
    """In one long stage the fifth player could only hand his seat to someone who would then
    replay a set, so he sat out all session (29 players, 6 rounds: spread 3; 33 players, 8
    rounds: 4). A new stage brings fresh sets: with two stages the seat passes on."""
    for n, rounds in ((29, 6), (33, 8), (30, 7), (37, 6)):
        m = generate_movement(n, rounds)
        assert check(m) <= 1, (n, rounds)
        assert m.sit_out_allowance == 1
        assert "stages of" in m.scheme and "+" in m.scheme, m.scheme
        visits = Counter(
            p for rnd in m.rounds for s in rnd.sittings if s.is_five for p in s.players
        )
        assert max(visits.values()) < rounds, (n, rounds)


def test_the_fifth_seat_passes_from_player_to_player():
    for n, rounds in [(21, 8), (29, 6), (47, 8), (101, 8)]:
        m = generate_movement(n, rounds)
        fifth = [s.player(FIFTH) for rnd in m.rounds for s in rnd.sittings if s.is_five]
        # without passing it on, the fifth player would sit out every other relais
        assert len(set(fifth)) > len(m.five_tables), (n, rounds)
        assert max(Counter(fifth).values()) < rounds, (n, rounds)
        # a player who is the fifth player in some rounds keeps one position in the others
        for player in set(fifth):
            roles = {s.role_of(player) for rnd in m.rounds for s in rnd.sittings} - {None}
            assert len(roles - {FIFTH}) <= 1


def test_holder_sits_out_at_his_next_table_of_five():
    for n, r in [(9, 6), (13, 5), (21, 8), (23, 3), (29, 7), (47, 8)]:
        m = generate_movement(n, r)
        held: set[int] = set()
        for rnd in m.rounds:
            for s in rnd.sittings:
                if not s.is_five:
                    continue
                roles = [role for role, _p in s.seats if role not in s.sit_out]
                assert len(roles) == 1
                holder = s.player(roles[0])
                assert holder not in held, (n, r, rnd.number)
                held -= set(s.players)
                held.add(holder)


@settings(max_examples=25, deadline=None)
@given(st.integers(8, 120).filter(lambda n: n != 11), st.integers(1, 6))
def test_generated_movements_declare_their_spread(n, rounds):
    check(generate_movement(n, rounds))


def test_mobile_strides_keep_every_position_moving():
    # five tables, one of five: six movers for five field elements, so two share a stride;
    # the usual design lets a position share the fifth players' (it then stays put)
    usual = stage_design(5, 3, True)
    mobile = stage_design(5, 3, True, True)
    assert usual is not None and mobile is not None
    assert any(usual.stride(p) == usual.stride("F") for p in "NESW")
    assert all(mobile.stride(p) != mobile.stride("F") for p in "NESW")
    assert all(mobile.stride(m) != mobile.stride("sets") for m in "NESWF")


# --- the validator ------------------------------------------------------------------------------


def edited(n: int, rounds: int, edit: Any) -> Movement:
    data = generate_movement(n, rounds).to_dict()
    edit(data)
    return Movement.from_dict(data)


def five_table(data: dict[str, Any], rnd: int) -> dict[str, Any]:
    return next(t for t in data["rounds"][rnd - 1]["tables"] if "F" in t["seats"])


def test_breach_holder_holds_twice_running():
    m = generate_movement(9, 2)
    first = m.rounds[0].sitting(2)
    assert first is not None
    holder_role = next(r for r, _p in first.seats if r not in first.sit_out)
    holder = first.player(holder_role)

    def edit(d):
        second = five_table(d, 2)
        role = next(r for r, p in second["seats"].items() if p == holder)
        second["sit_out"] = [r for r in "NESWF" if r != role]

    breaches = [b for b in validate(edited(9, 2, edit)) if b.rule == "sit_out_turn"]
    assert len(breaches) == 1
    assert breaches[0].player == holder and breaches[0].round == 2
    assert "holds the whole relais again" in breaches[0].message


def test_breach_spread_beyond_the_allowance():
    # 10 players, two tables of five: the player F of table 1 made to hold both relais sits
    # out nothing, while others sit out two donnes
    m = generate_movement(10, 2)
    assert sit_out_spread(m) == 1 and m.sit_out_allowance == 1
    player = m.rounds[0].sitting(1).player("F")

    def edit(d):
        for rnd in (1, 2):
            for table in d["rounds"][rnd - 1]["tables"]:
                role = next((r for r, p in table["seats"].items() if p == player), None)
                if role is not None:
                    table["sit_out"] = [r for r in "NESWF" if r != role]

    m2 = edited(10, 2, edit)
    assert sit_out_counts(m2)[player] == 0 and max(sit_out_counts(m2).values()) == 2
    spread = [b for b in validate(m2) if b.rule == "sit_out_spread"]
    assert len(spread) == 1
    assert "only 0" in spread[0].message and "differ by 1 at most" in spread[0].message
    declared = Movement.from_dict({**m2.to_dict(), "sit_out_allowance": 2})
    assert {b.rule for b in validate(declared)} == {"sit_out_turn"}


def test_allowance_survives_plain_data():
    m = generate_movement(23, 3)
    again = Movement.from_dict(m.to_dict())
    assert again == m and again.sit_out_allowance == m.sit_out_allowance
    assert Movement.from_dict({k: v for k, v in m.to_dict().items() if k != "sit_out_allowance"})
