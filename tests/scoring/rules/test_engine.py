"""Single-deal scoring against the shared worked examples and RULES §1-§5; bad entries."""

from __future__ import annotations

import ast
import json
import pickle
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from scoring.rules import duplicate, engine, errors, ranking
from scoring.rules.engine import (
    CARD_TOTAL,
    CHELEM_BONUS,
    COEFFICIENTS,
    POIGNEE_BONUS,
    POIGNEE_TRUMPS,
    THRESHOLDS,
    Chelem,
    Contract,
    DealScore,
    PetitAuBout,
    PoigneeSize,
    deal_errors,
    poignee_min_trumps,
    points_range,
    score_deal,
)
from scoring.rules.errors import (
    InvalidBouts,
    InvalidCalledSelf,
    InvalidChelem,
    InvalidContract,
    InvalidPetitAuBout,
    InvalidPlayers,
    InvalidPoignees,
    InvalidPoints,
    ScoringError,
)

HERE = Path(__file__).resolve()
VECTORS_COPY = HERE.parent / "data" / "deal_scores.jsonl"
# The repository sits beside shared/ (/work/main and /work/shared; in CI <repo>/../shared).
VECTORS_SHARED = HERE.parents[4] / "shared" / "vectors" / "deal_scores.jsonl"


def _load_vectors() -> list[dict[str, Any]]:
    lines = VECTORS_COPY.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


VECTORS = _load_vectors()
INPUT_KEYS = (
    "players",
    "contract",
    "bouts",
    "points",
    "petit_au_bout",
    "poignees",
    "chelem",
    "called_self",
)


def _inputs(vector: dict[str, Any]) -> dict[str, Any]:
    return {key: vector[key] for key in INPUT_KEYS}


def test_vectors_are_all_loaded() -> None:
    assert len(VECTORS) == 207


def test_vectors_copy_matches_shared() -> None:
    if not VECTORS_SHARED.exists():
        pytest.skip(f"no shared vectors beside the repository at {VECTORS_SHARED}")
    assert VECTORS_COPY.read_bytes() == VECTORS_SHARED.read_bytes(), (
        "tests/scoring/rules/data/deal_scores.jsonl differs from shared/vectors: copy it again"
    )


@pytest.mark.parametrize(
    "vector", VECTORS, ids=[f"{i + 1}-{v['source'][:40]}" for i, v in enumerate(VECTORS)]
)
def test_vector(vector: dict[str, Any]) -> None:
    score = score_deal(**_inputs(vector))
    assert score.scores_by_role() == vector["expect"]
    assert (score.taker, score.partner, score.defender) == (
        vector["expect"]["taker"],
        vector["expect"]["partner"],
        vector["expect"]["defender"],
    )
    parts = score.contract_part + score.petit_au_bout_part + score.poignees_part
    assert score.unit == parts + score.chelem_part
    assert score.defender == -score.unit
    assert sum(score.seat_scores()) == 0
    assert len(score.seat_scores()) == vector["players"]


@pytest.mark.parametrize("vector", VECTORS, ids=[f"{i + 1}-str" for i, _ in enumerate(VECTORS)])
def test_vector_with_points_as_text_decimal_fraction(vector: dict[str, Any]) -> None:
    expected = vector["expect"]
    for points in (
        str(vector["points"]),
        Decimal(str(vector["points"])),
        Fraction(str(vector["points"])),
    ):
        inputs = _inputs(vector) | {"points": points}
        assert score_deal(**inputs).scores_by_role() == expected


def test_rules_worked_examples() -> None:
    s = score_deal(players=4, contract="garde", bouts=2, points=50)
    assert (s.taker, s.partner, s.defender) == (204, None, -68)
    assert (s.won, s.threshold, s.gap, s.coefficient, s.contract_part) == (True, 41, 9, 2, 68)

    s = score_deal(players=4, contract="garde", bouts=2, points=35, petit_au_bout="attack")
    assert (s.taker, s.defender) == (-126, 42)
    assert (s.contract_part, s.petit_au_bout_part, s.unit) == (-62, 20, -42)

    s = score_deal(players=3, contract="garde", bouts=2, points=40.5)
    assert (s.won, s.gap, s.taker, s.defender) == (False, 1, -104, 52)
    assert s.points == Fraction(81, 2)


def test_half_point_rounds_for_the_camp_that_scores() -> None:
    won = score_deal(players=4, contract="prise", bouts=1, points="51.5")
    assert (won.won, won.gap, won.unit) == (True, 1, 26)
    lost = score_deal(players=4, contract="prise", bouts=1, points="50.5")
    assert (lost.won, lost.gap, lost.unit) == (False, 1, -26)
    exact = score_deal(players=4, contract="prise", bouts=1, points=51)
    assert (exact.won, exact.gap, exact.unit) == (True, 0, 25)


def test_five_players_partner_and_alone() -> None:
    with_partner = score_deal(players=5, contract="garde", bouts=2, points=50)
    assert with_partner.seat_scores() == [136, 68, -68, -68, -68]
    alone = score_deal(players=5, contract="garde", bouts=2, points=50, called_self=True)
    assert alone.seat_scores() == [272, -68, -68, -68, -68]
    assert alone.scores_by_role() == {"taker": 272, "partner": None, "defender": -68}


def test_poignees_go_to_the_winning_camp_unmultiplied() -> None:
    won = score_deal(players=4, contract="garde_contre", bouts=3, points=36, poignees=["triple"])
    assert (won.contract_part, won.poignees_part, won.unit) == (150, 40, 190)
    lost = score_deal(
        players=4, contract="garde_contre", bouts=3, points=35, poignees=("simple", "double")
    )
    assert (lost.poignees_part, lost.unit) == (-50, -6 * 26 - 50)
    assert lost.poignees == (PoigneeSize.SIMPLE, PoigneeSize.DOUBLE)


def test_chelem_parts() -> None:
    made = score_deal(players=4, contract="prise", bouts=3, points=91, chelem="unannounced_made")
    assert (made.chelem_part, made.unit) == (200, 25 + 55 + 200)
    failed = score_deal(players=4, contract="prise", bouts=1, points=40, chelem="announced_failed")
    assert (failed.won, failed.chelem_part, failed.unit) == (False, -200, -(25 + 11) - 200)
    defence = score_deal(players=3, contract="garde", bouts=0, points=0, chelem=Chelem.DEFENCE)
    assert (defence.chelem_part, defence.unit, defence.taker) == (-200, -362, -724)


def test_enums_and_plain_strings_are_equivalent() -> None:
    plain = score_deal(
        players=5,
        contract="garde_sans",
        bouts=1,
        points=60,
        petit_au_bout="defence",
        poignees=["double"],
        chelem="announced_failed",
        called_self=True,
    )
    typed = score_deal(
        players=5,
        contract=Contract.GARDE_SANS,
        bouts=1,
        points=60,
        petit_au_bout=PetitAuBout.DEFENCE,
        poignees=(PoigneeSize.DOUBLE,),
        chelem=Chelem.ANNOUNCED_FAILED,
        called_self=True,
    )
    assert plain == typed
    assert plain.contract is Contract.GARDE_SANS
    assert plain.petit_au_bout is PetitAuBout.DEFENCE
    assert plain.chelem is Chelem.ANNOUNCED_FAILED


def test_other_accepted_forms() -> None:
    base = score_deal(players=4, contract="garde", bouts=2, points=40.5)
    assert score_deal(players=4, contract="garde", bouts=2, points="40,5") == base
    assert score_deal(players=4, contract="garde", bouts=2, points=" 40.5 ") == base
    assert score_deal(4, "garde", 2, Fraction(81, 2)) == base
    one = score_deal(players=4, contract="garde", bouts=2, points=50, poignees="simple")
    assert one.poignees == (PoigneeSize.SIMPLE,)
    generated = score_deal(
        players=4, contract="garde", bouts=2, points=50, poignees=(p for p in ["simple"])
    )
    assert generated == one
    assert score_deal(players=4, contract="garde", bouts=2, points=50, poignees=None).unit == 68
    assert score_deal(players=4, contract="garde", bouts=2, points=50, called_self=None).unit == 68


def test_deal_score_is_frozen() -> None:
    s = score_deal(players=4, contract="garde", bouts=2, points=50)
    assert isinstance(s, DealScore)
    with pytest.raises(AttributeError):
        s.unit = 0  # type: ignore[misc]


def test_constants() -> None:
    assert CARD_TOTAL == 91
    assert COEFFICIENTS == {"prise": 1, "garde": 2, "garde_sans": 4, "garde_contre": 6}
    assert THRESHOLDS == {0: 56, 1: 51, 2: 41, 3: 36}
    assert POIGNEE_TRUMPS == {
        3: {"simple": 13, "double": 15, "triple": 18},
        4: {"simple": 10, "double": 13, "triple": 15},
        5: {"simple": 8, "double": 10, "triple": 13},
    }
    assert POIGNEE_BONUS == {"simple": 20, "double": 30, "triple": 40}
    assert CHELEM_BONUS == {
        "announced_made": 400,
        "unannounced_made": 200,
        "announced_failed": -200,
        "defence": -200,
    }
    assert poignee_min_trumps(4, "double") == 13
    assert poignee_min_trumps(5, PoigneeSize.TRIPLE) == 13
    assert points_range(0) == (Fraction(0), Fraction(155, 2))
    assert points_range(2) == (Fraction(9), Fraction(173, 2))
    assert points_range(3) == (Fraction(27, 2), Fraction(91))
    with pytest.raises(InvalidBouts):
        points_range(4)
    with pytest.raises(InvalidPlayers):
        poignee_min_trumps(6, "simple")
    with pytest.raises(InvalidPoignees):
        poignee_min_trumps(4, "quadruple")


def test_every_valid_entry_scores_and_every_edge_is_checked() -> None:
    """Walk the whole grid of points per bouts: inside the range scores, just outside raises."""
    for bouts in range(4):
        low, high = points_range(bouts)
        for half in range(0, 2 * CARD_TOTAL + 1):
            points = Fraction(half, 2)
            if low <= points <= high:
                s = score_deal(players=4, contract="prise", bouts=bouts, points=points)
                assert s.won == (points >= THRESHOLDS[bouts])
            else:
                with pytest.raises(InvalidPoints) as info:
                    score_deal(players=4, contract="prise", bouts=bouts, points=points)
                assert info.value.code == "points_impossible_for_bouts"


# kwargs overriding a valid deal, error class, code, text the message must contain
VALID = {"players": 4, "contract": "garde", "bouts": 2, "points": 50}
BAD_INPUTS: list[tuple[dict[str, Any], type[ScoringError], str, str]] = [
    ({"points": 92}, InvalidPoints, "points_out_of_range", "92"),
    ({"points": -0.5}, InvalidPoints, "points_out_of_range", "-0.5"),
    ({"points": "91.5"}, InvalidPoints, "points_out_of_range", "91.5"),
    ({"points": 40.3}, InvalidPoints, "points_not_half", "40.3"),
    ({"points": "40.25"}, InvalidPoints, "points_not_half", "40.25"),
    ({"points": Decimal("40.1")}, InvalidPoints, "points_not_half", "40.1"),
    ({"points": Fraction(1, 3)}, InvalidPoints, "points_not_half", "1/3"),
    ({"points": "forty"}, InvalidPoints, "points_not_a_number", "forty"),
    ({"points": None}, InvalidPoints, "points_not_a_number", "None"),
    ({"points": float("nan")}, InvalidPoints, "points_not_a_number", "nan"),
    ({"points": True}, InvalidPoints, "points_not_a_number", "True"),
    ({"bouts": 2, "points": 87}, InvalidPoints, "points_impossible_for_bouts", "87"),
    ({"bouts": 0, "points": 80}, InvalidPoints, "points_impossible_for_bouts", "80"),
    ({"bouts": 1, "points": 4}, InvalidPoints, "points_impossible_for_bouts", "4"),
    ({"bouts": 3, "points": 13}, InvalidPoints, "points_impossible_for_bouts", "13"),
    ({"bouts": 4}, InvalidBouts, "bouts_out_of_range", "4"),
    ({"bouts": -1}, InvalidBouts, "bouts_out_of_range", "-1"),
    ({"bouts": 2.0}, InvalidBouts, "bouts_not_integer", "2.0"),
    ({"bouts": "2"}, InvalidBouts, "bouts_not_integer", "2"),
    ({"bouts": True}, InvalidBouts, "bouts_not_integer", "True"),
    ({"bouts": None}, InvalidBouts, "bouts_not_integer", "None"),
    ({"contract": "petite"}, InvalidContract, "contract_unknown", "petite"),
    ({"contract": "GARDE"}, InvalidContract, "contract_unknown", "GARDE"),
    ({"contract": None}, InvalidContract, "contract_unknown", "None"),
    ({"contract": ["garde"]}, InvalidContract, "contract_unknown", "garde"),
    ({"petit_au_bout": "taker"}, InvalidPetitAuBout, "petit_au_bout_unknown", "taker"),
    ({"petit_au_bout": True}, InvalidPetitAuBout, "petit_au_bout_unknown", "True"),
    ({"poignees": ["quadruple"]}, InvalidPoignees, "poignee_unknown", "quadruple"),
    ({"poignees": [None]}, InvalidPoignees, "poignee_unknown", "None"),
    ({"poignees": 3}, InvalidPoignees, "poignees_not_a_list", "3"),
    ({"poignees": ["simple"] * 5}, InvalidPoignees, "poignees_too_many", "5"),
    (
        {"players": 3, "poignees": ("simple", "double", "triple", "simple")},
        InvalidPoignees,
        "poignees_too_many",
        "4",
    ),
    ({"chelem": "made"}, InvalidChelem, "chelem_unknown", "made"),
    ({"points": 40.5, "chelem": "announced_made"}, InvalidChelem, "chelem_made_but_lost", "40.5"),
    ({"points": 30, "chelem": "unannounced_made"}, InvalidChelem, "chelem_made_but_lost", "30"),
    ({"points": 41, "chelem": "defence"}, InvalidChelem, "chelem_defence_but_won", "41"),
    # RULES §5.1, first table: what a chelem and the petit au bout say about bouts and points.
    (
        {"bouts": 0, "points": 30, "petit_au_bout": "attack"},
        InvalidPetitAuBout,
        "petit_au_bout_attack_no_bout",
        "0 bouts",
    ),
    (
        {"bouts": 3, "points": 60, "petit_au_bout": "defence"},
        InvalidPetitAuBout,
        "petit_au_bout_defence_three_bouts",
        "3 bouts",
    ),
    (
        {"bouts": 2, "points": 86.5, "petit_au_bout": "defence", "chelem": "announced_made"},
        InvalidPetitAuBout,
        "petit_au_bout_defence_chelem_made",
        "defence",
    ),
    (
        {"bouts": 1, "points": 10, "petit_au_bout": "attack", "chelem": "defence"},
        InvalidPetitAuBout,
        "petit_au_bout_attack_chelem_defence",
        "attack",
    ),
    (
        {"bouts": 1, "points": 52, "chelem": "unannounced_made"},
        InvalidChelem,
        "chelem_made_too_few_bouts",
        "not 1",
    ),
    (
        {"contract": "garde_sans", "bouts": 3, "points": 86, "chelem": "announced_made"},
        InvalidChelem,
        "chelem_made_too_few_points",
        "86.5 points, not 86",
    ),
    (
        {"contract": "prise", "bouts": 2, "points": 20, "chelem": "defence"},
        InvalidChelem,
        "chelem_defence_too_many_bouts",
        "not 2",
    ),
    (
        {"contract": "garde_contre", "bouts": 1, "points": 24, "chelem": "defence"},
        InvalidChelem,
        "chelem_defence_too_many_points",
        "23.5 points, not 24",
    ),
    ({"called_self": True}, InvalidCalledSelf, "called_self_not_five", "4"),
    ({"players": 3, "called_self": True}, InvalidCalledSelf, "called_self_not_five", "3"),
    ({"players": 5, "called_self": "yes"}, InvalidCalledSelf, "called_self_invalid", "yes"),
    ({"players": 6}, InvalidPlayers, "players_invalid", "6"),
    ({"players": 2}, InvalidPlayers, "players_invalid", "2"),
    ({"players": 4.0}, InvalidPlayers, "players_invalid", "4.0"),
    ({"players": "4"}, InvalidPlayers, "players_invalid", "4"),
    ({"players": True}, InvalidPlayers, "players_invalid", "True"),
]


@pytest.mark.parametrize(
    ("override", "error", "code", "shown"),
    BAD_INPUTS,
    ids=[f"{case[2]}-{i}" for i, case in enumerate(BAD_INPUTS)],
)
def test_bad_input(
    override: dict[str, Any], error: type[ScoringError], code: str, shown: str
) -> None:
    with pytest.raises(error) as info:
        score_deal(**(VALID | override))
    err = info.value
    assert isinstance(err, ValueError)
    assert err.code == code
    assert err.field == error.field
    assert err.field in {*INPUT_KEYS, "poignees"}
    message = str(err)
    assert message and shown in message
    # Translatable: the template is a marked literal and formats to the same message.
    assert errors.english(err.template, err.params) == message
    assert err.template in type(err).templates.values()
    # Survives pickling (e.g. through a task queue).
    again = pickle.loads(pickle.dumps(err))
    assert (type(again), again.code, str(again)) == (type(err), err.code, message)


def test_message_for_impossible_points_says_the_range() -> None:
    with pytest.raises(InvalidPoints) as info:
        score_deal(players=4, contract="garde", bouts=2, points=87)
    assert str(info.value) == (
        "With 2 bouts the attack has between 9 and 86.5 points; 87 is impossible. "
        "Check the bouts or the points."
    )
    assert info.value.params == {"bouts": 2, "min": "9", "max": "86.5", "value": "87"}
    with pytest.raises(InvalidPoints) as info:
        score_deal(players=4, contract="garde", bouts=1, points=3)
    assert str(info.value).startswith("With 1 bout the attack has between 4.5 and 82 points")


def test_deal_errors_lists_every_problem() -> None:
    assert deal_errors(**VALID) == []
    found = deal_errors(
        players=6,
        contract="x",
        bouts=9,
        points="z",
        petit_au_bout="?",
        poignees=["w"],
        chelem=1,
        called_self=3,
    )
    assert [e.field for e in found] == [
        "players",
        "contract",
        "bouts",
        "points",
        "petit_au_bout",
        "poignees",
        "chelem",
        "called_self",
    ]


def test_error_order_is_the_form_order() -> None:
    """score_deal raises the first problem in field order, so the message is predictable."""
    with pytest.raises(InvalidContract):
        score_deal(players=4, contract="x", bouts=9, points=200)
    with pytest.raises(InvalidBouts):
        score_deal(players=4, contract="garde", bouts=9, points=200)


def test_no_django_import_in_pure_modules() -> None:
    for module in (engine, duplicate, ranking, errors):
        tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n == "django" or n.startswith("django.") for n in names), module


def test_chelem_bounds_follow_the_chien() -> None:
    """RULES §5.1: under garde contre the chien goes to the defence, under garde sans to the
    attack, so those chelems are not bounded by the first table."""
    made = score_deal(
        players=4, contract="garde_contre", bouts=2, points=70, chelem="announced_made"
    )
    assert made.chelem_part == 400
    defence = score_deal(players=4, contract="garde_sans", bouts=2, points=30, chelem="defence")
    assert defence.chelem_part == -200
    # The Excuse kept by a defender: the attack's chelem has 86.5 points and 2 bouts.
    assert score_deal(players=4, contract="garde", bouts=2, points=86.5, chelem="unannounced_made")


def test_the_reported_chelem_without_bouts_is_refused() -> None:
    """A chelem made without announcement with 52 points and 1 bout used to be scored."""
    with pytest.raises(InvalidChelem) as info:
        score_deal(players=4, contract="garde", bouts=1, points=52, chelem="unannounced_made")
    assert info.value.field == "chelem"
    assert "Garde" in str(info.value)
    found = deal_errors(players=4, contract="garde", bouts=1, points=52, chelem="unannounced_made")
    assert [e.code for e in found] == ["chelem_made_too_few_bouts"]
