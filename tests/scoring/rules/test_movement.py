"""Movements (scoring/rules/movement.py): every field size, the validator, opponent diversity."""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from typing import Any

import pytest

from scoring.rules.movement import (
    MAX_ROUNDS,
    InvalidMovementData,
    InvalidRounds,
    InvalidSeating,
    Movement,
    copies_needed,
    donnes_of_set,
    generate_movement,
    max_rounds,
    opponent_stats,
    table_layout,
    validate,
)
from scoring.rules.movement_algebra import prime_power_factors, ring, stage_design

SIZES = [n for n in range(8, 201) if n != 11]


def big_prime_power(t: int, fifth: bool) -> int:
    """Largest prime-power factor q of t with q ≥ 5 (≥ 7 with tables of five), else 0."""
    qs = [p**k for p, k in prime_power_factors(t)]
    return max((q for q in qs if q >= (7 if fifth else 5)), default=0)


# --- every field size --------------------------------------------------------------------------


@pytest.mark.parametrize("rounds", [1, 2, 3, 4, 6])
def test_every_field_size_is_valid(rounds):
    for n in SIZES:
        m = generate_movement(n, rounds)
        assert validate(m) == [], (n, rounds)
        four, five = table_layout(n)
        assert (m.players, m.tables, len(m.rounds)) == (n, four + five, rounds)
        assert m.five_tables == tuple(range(four + 1, four + five + 1))
        assert m.donnes == 4 * m.sets
        copies = copies_needed(m)
        assert sorted(copies) == list(range(1, m.sets + 1))
        if rounds == 1:
            assert set(copies.values()) <= {2, 3}
        else:
            assert set(copies.values()) == {1}, (n, rounds)


@pytest.mark.parametrize("rounds", [1, 2, 3, 4, 5, 6, 8])
def test_opponent_guarantees(rounds):
    """The two bounds promised in the module docstring, for every n."""
    for n in SIZES:
        if n % 4 and rounds > 1:
            continue  # with tables of five the bounds give way to sharing the sit-outs (§7)
        m = generate_movement(n, rounds)
        stats = opponent_stats(m)
        t, fifth = m.tables, bool(m.five_tables)
        q = big_prime_power(t, fifth)
        # With tables of five the fifth seat passes from player to player (RULES §7), which
        # may cost a repeated meeting: the bound is promised for tables of four only.
        if rounds == 1 or (q and rounds <= q and not fifth):
            assert stats.all_at_bound, (n, rounds)
            assert stats.max_together == 1, (n, rounds)
        if t >= 3 and rounds >= 4 and not fifth:
            assert stats.max_together <= math.ceil(rounds / 2), (n, rounds)


def test_opponent_examples():
    # 20 players, 5 tables of four (GF(5)): 5 rounds, 15 different opponents each, all of them
    stats = opponent_stats(generate_movement(20, 5))
    assert {(p.distinct, p.possible) for p in stats.players} == {(15, 15)}
    # 32 players (GF(8)): 6 rounds, 18 different opponents each
    stats = opponent_stats(generate_movement(32, 6))
    assert stats.min_distinct == 18 and stats.all_at_bound and stats.shortfall == 0
    # 16 players (GF(4)), 4 rounds: two stages of two rounds, nobody together more than twice
    m = generate_movement(16, 4)
    assert m.sets == 8 and opponent_stats(m).max_together == 2
    # 8 players on 2 tables: the étuis cannot move, players stay for a stage of two rounds
    stats = opponent_stats(generate_movement(8, 2))
    assert stats.min_distinct == 3 and not stats.all_at_bound
    assert opponent_stats(generate_movement(8, 6)).all_at_bound


def test_nobody_plays_a_donne_twice_at_donne_level():
    """At tables of five the fifth player takes the hand of the one sitting out."""
    for n, rounds in [(9, 3), (10, 4), (13, 3), (19, 6), (23, 5), (47, 4)]:
        m = generate_movement(n, rounds)
        played: Counter[tuple[int, int]] = Counter()
        sat_out: Counter[int] = Counter()
        for rnd in m.rounds:
            for s in rnd.sittings:
                for k, donne in enumerate(donnes_of_set(s.set_no), start=1):
                    ds = s.donne_seating(k)
                    assert [pos for pos, _p in ds.hands] == ["N", "E", "S", "W"]
                    assert len({p for _pos, p in ds.hands}) == 4
                    for _pos, p in ds.hands:
                        played[(p, donne)] += 1
                    if s.is_five:
                        assert ds.sitting_out is not None
                        assert ds.sitting_out not in {p for _pos, p in ds.hands}
                        sat_out[ds.sitting_out] += 1
                    else:
                        assert ds.sitting_out is None
        assert max(played.values()) == 1
        # each sitting at a table of five has each of its four positional players sit out once
        assert all(k <= rounds for k in sat_out.values())


def test_fifth_player_substitutes_the_player_sitting_out():
    m = generate_movement(9, 2)
    five = m.rounds[0].sitting(2)
    assert five is not None and five.is_five and len(five.sit_out) == 4
    f = five.player("F")
    for k, role in enumerate(five.sit_out, start=1):
        ds = five.donne_seating(k)
        assert ds.sitting_out == five.player(role)
        if role != "F":
            assert ds.player(role) == f
    four = m.rounds[0].sitting(1)
    assert four is not None and four.donne_seating(1).sitting_out is None
    with pytest.raises(ValueError):
        five.donne_seating(5)


def test_players_are_numbered_by_the_first_round():
    m = generate_movement(13, 3)
    first = m.rounds[0]
    assert [s.players for s in first.sittings] == [(1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12, 13)]
    route = m.route(6)
    assert [step.round for step in route] == [1, 2, 3]
    assert {step.role for step in route} == {"E"}
    assert route[0].table == 2 and route[0].donnes == tuple(donnes_of_set(route[0].set_no))


def test_donnes_of_set():
    assert donnes_of_set(1) == [1, 2, 3, 4]
    assert donnes_of_set(3) == [9, 10, 11, 12]
    with pytest.raises(ValueError):
        donnes_of_set(0)


def test_deterministic():
    assert generate_movement(37, 6) == generate_movement(37, 6)


# --- refusals ----------------------------------------------------------------------------------


def test_eleven_players_are_refused_with_the_way_out():
    with pytest.raises(InvalidSeating, match="11 players cannot be seated") as info:
        generate_movement(11, 3)
    assert "register one more player" in str(info.value)
    assert "withdraw one" in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("n", range(8))
def test_fewer_than_eight_players_are_refused(n):
    with pytest.raises(InvalidSeating, match=f"Register {8 - n} more player"):
        generate_movement(n, 2)


def test_table_layout_uses_fewest_tables_of_five():
    assert table_layout(8) == (2, 0) and table_layout(9) == (1, 1) and table_layout(10) == (0, 2)
    assert (
        table_layout(15) == (0, 3) and table_layout(19) == (1, 3) and table_layout(200) == (50, 0)
    )
    for n in SIZES:
        four, five = table_layout(n)
        assert 4 * four + 5 * five == n and five <= 3


@pytest.mark.parametrize("rounds", [0, -1])
def test_too_few_rounds(rounds):
    with pytest.raises(InvalidRounds, match="At least one round"):
        generate_movement(16, rounds)


def test_too_many_rounds_says_the_maximum():
    with pytest.raises(InvalidRounds, match=f"at most {MAX_ROUNDS} rounds"):
        generate_movement(16, MAX_ROUNDS + 1)
    with pytest.raises(InvalidRounds, match=r"at most 6 rounds .*with 6 étui sets"):
        generate_movement(24, 7, sets=6)
    with pytest.raises(InvalidRounds, match="at most 1 rounds"):
        generate_movement(24, 2, sets=5)
    with pytest.raises(InvalidRounds, match="whole number"):
        generate_movement(16, 2.5)  # type: ignore[arg-type]


def test_a_set_limit_is_respected():
    assert max_rounds(24) == MAX_ROUNDS
    assert max_rounds(24, sets=6) == 6 and max_rounds(24, sets=13) == 12
    assert max_rounds(8, sets=5) == 5 and max_rounds(24, sets=2) == 0
    m = generate_movement(24, 6, sets=6)
    assert m.sets == 6 and validate(m) == []
    m = generate_movement(8, 5, sets=5)
    assert m.sets == 5 and validate(m) == []


# --- data --------------------------------------------------------------------------------------


def test_plain_data_round_trip():
    m = generate_movement(18, 4)
    data = json.loads(json.dumps(m.to_dict()))
    assert Movement.from_dict(data) == m
    assert data["rounds"][0]["tables"][3]["seats"] == {"N": 14, "E": 15, "S": 16, "W": 17, "F": 18}
    assert len(data["rounds"][0]["tables"][3]["sit_out"]) == 4


def test_seats_as_pairs_are_accepted():
    m = generate_movement(8, 2)
    data = m.to_dict()
    for rnd in data["rounds"]:
        for s in rnd["tables"]:
            s["seats"] = [[role, p] for role, p in s["seats"].items()]
    assert Movement.from_dict(data) == m


@pytest.mark.parametrize(
    ("mutate", "where"),
    [
        (lambda d: d.pop("players"), "top level"),
        (lambda d: d.update(rounds={}), "rounds"),
        (lambda d: d["rounds"][0]["tables"][0].update(set="1"), "set"),
        (lambda d: d["rounds"][0]["tables"][0].update(seats=[["N"]]), "seats"),
        (lambda d: d["rounds"][0]["tables"][0]["seats"].update(N=True), "seats.N"),
        (lambda d: d.update(format=9), "format"),
    ],
)
def test_from_dict_refuses_what_is_not_a_movement(mutate, where):
    data = generate_movement(8, 2).to_dict()
    mutate(data)
    with pytest.raises(InvalidMovementData, match=where):
        Movement.from_dict(data)


# --- the validator catches hand-made breaches --------------------------------------------------


def edited(n: int, rounds: int, edit: Any) -> Movement:
    data = generate_movement(n, rounds).to_dict()
    edit(data)
    return Movement.from_dict(data)


def rules_of(m: Movement) -> Counter[str]:
    return Counter(b.rule for b in validate(m))


def table(data: dict[str, Any], rnd: int, tbl: int) -> dict[str, Any]:
    return data["rounds"][rnd - 1]["tables"][tbl - 1]


def test_breach_player_seated_twice_and_missing():
    def edit(d):
        table(d, 2, 1)["seats"]["N"] = table(d, 2, 2)["seats"]["N"]

    m = edited(12, 3, edit)
    breaches = [b for b in validate(m) if b.rule == "seating"]
    assert len(breaches) == 2
    twice = next(b for b in breaches if "times" in b.message)
    missing = next(b for b in breaches if "not seated" in b.message)
    assert twice.round == 2 and "tables 1, 2" in twice.message
    assert (
        missing.player is not None and f"player {missing.player} is not seated" in missing.message
    )


def test_breach_unknown_player():
    m = edited(12, 2, lambda d: table(d, 1, 1)["seats"].update(N=99))
    assert any(b.rule == "seating" and "numbered 1 to 12" in b.message for b in validate(m))


def test_breach_table_size():
    def edit(d):
        w = table(d, 1, 1)["seats"].pop("W")
        table(d, 1, 2)["seats"]["F"] = w

    m = edited(12, 2, edit)
    sizes = [b for b in validate(m) if b.rule == "table_size"]
    assert len(sizes) == 1 and "3 players" in sizes[0].message and sizes[0].table == 1


def test_breach_positions():
    def edit(d):
        seats = table(d, 2, 1)["seats"]
        table(d, 2, 1)["seats"] = [
            ["N", seats["N"]],
            ["N", seats["E"]],
            ["S", seats["S"]],
            ["X", seats["W"]],
        ]

    m = edited(12, 3, edit)
    assert Movement.from_dict(json.loads(json.dumps(m.to_dict()))) == m  # survives a save
    messages = [b.message for b in validate(m) if b.rule == "positions"]
    assert any("position N is given 2 times" in msg for msg in messages)
    assert any("unknown position 'X'" in msg for msg in messages)
    assert any("no player at E, W" in msg for msg in messages)


def test_breach_fifth_player_at_a_table_of_four():
    def edit(d):
        seats = table(d, 1, 1)["seats"]
        seats["F"] = seats.pop("W")

    m = edited(12, 2, edit)
    messages = [b.message for b in validate(m) if b.rule == "positions"]
    assert any("fifth player (F) at a table of four" in msg for msg in messages)


def test_breach_set_per_table():
    def edit(d):
        tables = d["rounds"][1]["tables"]
        tables[1]["table"] = 1  # table 1 listed twice, table 2 missing in round 2
        table(d, 1, 3)["set"] = 42  # no such set

    m = edited(12, 3, edit)
    messages = [b.message for b in validate(m) if b.rule == "set_per_table"]
    assert any("round 2: table 1 is listed 2 times" in msg for msg in messages)
    assert any("round 2: table 2 has no étui set" in msg for msg in messages)
    assert any("étui set 42 does not exist" in msg for msg in messages)


def test_breach_set_repeat():
    def edit(d):  # round 2 replays round 1 exactly
        d["rounds"][1]["tables"] = copy.deepcopy(d["rounds"][0]["tables"])

    m = edited(20, 3, edit)
    repeats = [b for b in validate(m) if b.rule == "set_repeat"]
    assert sorted(b.player for b in repeats if b.round == 2) == list(range(1, 21))
    assert "plays set" in repeats[0].message and "again in round 2" in repeats[0].message
    assert "that player played it in round 1" in repeats[0].message


def test_breach_position_kept():
    def edit(d):
        seats = table(d, 2, 1)["seats"]
        seats["N"], seats["E"] = seats["E"], seats["N"]

    m = edited(16, 3, edit)
    kept = [b for b in validate(m) if b.rule == "position_kept"]
    assert len(kept) == 2
    assert "sits E in round 2" in kept[0].message or "sits N in round 2" in kept[0].message
    assert all("keep their position" in b.message for b in kept)


def test_breach_donne_coverage():
    m = edited(8, 2, lambda d: d.update(sets=3))
    cov = [b for b in validate(m) if b.rule == "donne_coverage"]
    assert [b.message for b in cov] == ["set 3 (donnes 9-12) is never played"]

    def edit(d):
        d["sets"] = 3
        table(d, 2, 2)["set"] = 3  # set 3 once; set 1 then only once too

    m = edited(8, 2, edit)
    cov = [b for b in validate(m) if b.rule == "donne_coverage"]
    assert len(cov) == 2 and all("at one table only" in b.message for b in cov)
    assert {b.set_no for b in cov} == {1, 3}


def test_one_table_only_is_fine_for_coverage():
    def edit(d):
        d["tables"] = 1
        for rnd in d["rounds"]:
            rnd["tables"] = rnd["tables"][:1]

    m = edited(8, 2, edit)
    assert "donne_coverage" not in rules_of(m)


def test_breach_sit_out():
    def edit(d):
        table(d, 1, 2)["sit_out"] = ["N", "N", "E"]
        table(d, 1, 1)["sit_out"] = ["N"]

    m = edited(9, 2, edit)
    messages = [b.message for b in validate(m) if b.rule == "sit_out"]
    assert any("names 3 sit-outs for the 4 donnes" in msg for msg in messages)
    assert any("has N sit out more than one donne" in msg for msg in messages)
    assert any("only a table of five has one" in msg for msg in messages)


def test_fifth_player_may_sit_out_one_donne():
    m = edited(9, 2, lambda d: table(d, 1, 2).update(sit_out=["F", "E", "S", "W"]))
    assert validate(m) == []
    five = m.rounds[0].sitting(2)
    assert five is not None
    assert five.donne_seating(1).sitting_out == five.player("F")
    assert five.donne_seating(1).player("N") == five.player("N")


def test_breach_structure():
    m = edited(8, 2, lambda d: d["rounds"].reverse())
    assert rules_of(m)["structure"] == 2


def test_every_breach_is_reported_not_only_the_first():
    def edit(d):
        table(d, 2, 1)["set"] = table(d, 1, 1)["set"]
        table(d, 3, 3)["seats"]["N"] = table(d, 3, 1)["seats"]["E"]
        table(d, 3, 4)["sit_out"] = ["N"]

    m = edited(17, 3, edit)
    rules = rules_of(m)
    assert {"set_repeat", "seating", "position_kept", "sit_out"} <= set(rules)
    assert sum(rules.values()) >= 6


# --- the algebra -------------------------------------------------------------------------------


@pytest.mark.parametrize("q", [4, 8, 9, 16, 25, 27])
def test_extension_fields_are_fields(q):
    f = ring(q).fields[0]
    for a in range(1, q):
        assert sorted(f.mul(a, b) for b in range(q)) == list(range(q))


def test_ring_addition_is_a_group():
    rg = ring(12)
    for a in range(12):
        assert sorted(rg.add_table[a]) == list(range(12))
        assert rg.add_table[a][rg.neg_table[a]] == 0


@pytest.mark.parametrize(
    ("t", "length", "fifth"), [(2, 2, False), (4, 4, True), (6, 6, True), (12, 6, False)]
)
def test_stage_design_keeps_sets_distinct(t, length, fifth):
    design = stage_design(t, length, fifth)
    assert design is not None
    sep = dict(design.separation)
    for mover in design.movers:
        if mover != "sets":
            key = (mover, "sets")
            assert sep[key] >= length
    assert stage_design(2, 3, False) is None
