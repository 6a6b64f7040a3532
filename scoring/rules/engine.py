"""Scoring of one French tarot deal (RULES §1, §3, §4, §5). Pure Python, no Django.

Points are exact: internally the attack's points are held as a whole number of half points,
which is the same as a Fraction with denominator 2 but much faster. Every plain deal (no
announcement), and every deal with a petit au bout, one poignée or both, is scored once, at
import, so that scoring one costs a few lookups in small tables whether it is seen for the
first time or not; other announcements (a chelem, several poignées) are checked against a table
of the possible ones and their parts added. Anything that misses the tables goes through the
slow, thorough validation, which raises a ScoringError saying what is wrong. The tables are
built by that validation's own checks and builder, and the tests hold both paths to one answer.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from numbers import Rational, Real
from typing import Any, NamedTuple

from scoring.rules.duplicate import Method
from scoring.rules.errors import (
    InvalidBouts,
    InvalidCalledSelf,
    InvalidChelem,
    InvalidContract,
    InvalidPetitAuBout,
    InvalidPlayers,
    InvalidPoignees,
    InvalidPoints,
    Message,
    ScoringError,
    display_value,
)

__all__ = [
    "BOUT_VALUE",
    "CARD_TOTAL",
    "CHELEM_BONUS",
    "COEFFICIENTS",
    "PETIT_AU_BOUT_BONUS",
    "PLAYER_COUNTS",
    "POIGNEE_BONUS",
    "POIGNEE_TRUMPS",
    "THRESHOLDS",
    "Chelem",
    "Contract",
    "DealScore",
    "Method",
    "PetitAuBout",
    "PoigneeSize",
    "announcement_error",
    "deal_errors",
    "parse_points",
    "poignee_min_trumps",
    "points_range",
    "score_deal",
]


class Contract(StrEnum):
    """The bid; the value is the code used in forms and data files."""

    PRISE = "prise"
    GARDE = "garde"
    GARDE_SANS = "garde_sans"
    GARDE_CONTRE = "garde_contre"


class PetitAuBout(StrEnum):
    """Which camp won the last trick holding the Petit."""

    ATTACK = "attack"
    DEFENCE = "defence"


class PoigneeSize(StrEnum):
    """Size of a poignée (handful of trumps) shown."""

    SIMPLE = "simple"
    DOUBLE = "double"
    TRIPLE = "triple"


class Chelem(StrEnum):
    """Slam outcome; None when nobody announced or made one."""

    ANNOUNCED_MADE = "announced_made"
    UNANNOUNCED_MADE = "unannounced_made"
    ANNOUNCED_FAILED = "announced_failed"
    DEFENCE = "defence"


CARD_TOTAL = 91
BOUT_VALUE = Fraction(9, 2)
PLAYER_COUNTS = (3, 4, 5)
COEFFICIENTS: dict[Contract, int] = {
    Contract.PRISE: 1,
    Contract.GARDE: 2,
    Contract.GARDE_SANS: 4,
    Contract.GARDE_CONTRE: 6,
}
THRESHOLDS: dict[int, int] = {0: 56, 1: 51, 2: 41, 3: 36}
POIGNEE_TRUMPS: dict[int, dict[PoigneeSize, int]] = {
    3: {PoigneeSize.SIMPLE: 13, PoigneeSize.DOUBLE: 15, PoigneeSize.TRIPLE: 18},
    4: {PoigneeSize.SIMPLE: 10, PoigneeSize.DOUBLE: 13, PoigneeSize.TRIPLE: 15},
    5: {PoigneeSize.SIMPLE: 8, PoigneeSize.DOUBLE: 10, PoigneeSize.TRIPLE: 13},
}
POIGNEE_BONUS: dict[PoigneeSize, int] = {
    PoigneeSize.SIMPLE: 20,
    PoigneeSize.DOUBLE: 30,
    PoigneeSize.TRIPLE: 40,
}
PETIT_AU_BOUT_BONUS = 10
CHELEM_BONUS: dict[Chelem, int] = {
    Chelem.ANNOUNCED_MADE: 400,
    Chelem.UNANNOUNCED_MADE: 200,
    Chelem.ANNOUNCED_FAILED: -200,
    Chelem.DEFENCE: -200,
}

_CHELEM_MADE = frozenset({Chelem.ANNOUNCED_MADE, Chelem.UNANNOUNCED_MADE})


def points_range(bouts: int) -> tuple[Fraction, Fraction]:
    """Min and max attack points possible with that many bouts: 4.5·b ≤ p ≤ 91 − 4.5·(3 − b)."""
    b = _check_bouts(bouts)
    return BOUT_VALUE * b, CARD_TOTAL - BOUT_VALUE * (3 - b)


def poignee_min_trumps(players: int, size: PoigneeSize | str) -> int:
    """Trumps (Excuse included) a player must show for a poignée of that size."""
    p = _check_players(players)
    return POIGNEE_TRUMPS[p][_check_poignee(size)]


class DealScore(NamedTuple):
    """The score of one deal, with the parts that explain it (all per unit, ints).

    ``unit`` is what each defender pays (negative: receives);
    unit == contract_part + petit_au_bout_part + poignees_part + chelem_part.
    An immutable named tuple, built in one step (a frozen dataclass sets its twenty fields one
    by one); immutable, so the score of a plain deal is one shared object.
    """

    players: int
    contract: Contract
    bouts: int
    points: Fraction
    petit_au_bout: PetitAuBout | None
    poignees: tuple[PoigneeSize, ...]
    chelem: Chelem | None
    called_self: bool
    won: bool
    threshold: int
    gap: int
    coefficient: int
    contract_part: int
    petit_au_bout_part: int
    poignees_part: int
    chelem_part: int
    unit: int
    taker: int
    partner: int | None
    defender: int

    def scores_by_role(self) -> dict[str, int | None]:
        """Score of the taker, the partner (None without one) and each defender."""
        return {"taker": self.taker, "partner": self.partner, "defender": self.defender}

    @property
    def defenders(self) -> int:
        """How many players defend at this table."""
        return self.players - (1 if self.partner is None else 2)

    def seat_scores(self) -> list[int]:
        """One score per player: taker, then partner if any, then each defender; sums to 0."""
        head = [self.taker] if self.partner is None else [self.taker, self.partner]
        return head + [self.defender] * self.defenders


# --- tables for the fast path ---------------------------------------------------------------

_CONTRACTS: dict[str, Contract] = {c.value: c for c in Contract}
_PETITS: dict[Any, PetitAuBout | None] = {None: None, **{p.value: p for p in PetitAuBout}}
# Petit au bout part per unit of coefficient, by camp.
_PETIT_SIGN: dict[Any, int] = {
    None: 0,
    PetitAuBout.ATTACK: PETIT_AU_BOUT_BONUS,
    PetitAuBout.DEFENCE: -PETIT_AU_BOUT_BONUS,
}
_POIGNEES: dict[str, PoigneeSize] = {p.value: p for p in PoigneeSize}
_CHELEMS: dict[Any, Chelem | None] = {None: None, **{c.value: c for c in Chelem}}
_CHELEM_BONUS: dict[Any, int] = {None: 0, **{c.value: b for c, b in CHELEM_BONUS.items()}}
# (chelem, contract won) pairs that can happen: a chelem made implies a won contract, a defence
# chelem a lost one.
_CHELEM_CONSISTENT = frozenset(
    {
        (None, True),
        (None, False),
        (Chelem.ANNOUNCED_FAILED, True),
        (Chelem.ANNOUNCED_FAILED, False),
        (Chelem.ANNOUNCED_MADE, True),
        (Chelem.UNANNOUNCED_MADE, True),
        (Chelem.DEFENCE, False),
    }
)
_HALF_POINTS: dict[int, Fraction] = {h: Fraction(h, 2) for h in range(2 * CARD_TOTAL + 1)}

# Valid points -> half points, by value (40, 40.0, Fraction(40) and Decimal(40) are one key;
# 40.5 is exact in a float) and by their usual spellings ("40", "40.0", "40,0", "40.5", "40,5").
_HALVES: dict[int | float | str, int] = {}
for _h in range(2 * CARD_TOTAL + 1):
    _whole, _half = divmod(_h, 2)
    _number = _h / 2 if _half else _whole
    _HALVES[_number] = _h
    _texts = (
        (f"{_whole}.5", f"{_whole},5") if _half else (f"{_whole}", f"{_whole}.0", f"{_whole},0")
    )
    for _text in _texts:
        _HALVES[_text] = _h
del _h, _whole, _half, _number, _texts, _text
# The same, by the type of the entry: only the types the engine accepts have a table (not
# bool, whose True == 1, nor complex), and a Decimal or a Fraction is looked up among its own
# kind, since comparing one with a float (a key of _HALVES of equal hash) costs far more than
# the lookup.
_HALVES_BY_TYPE: dict[type, dict[Any, int]] = {
    int: _HALVES,
    float: _HALVES,
    str: _HALVES,
    Decimal: {Decimal(h) / 2: h for h in range(2 * CARD_TOTAL + 1)},
    Fraction: {Fraction(h, 2): h for h in range(2 * CARD_TOTAL + 1)},
}

# (contract, bouts, half points) -> precomputed contract part. Only valid combinations are
# present (bouts 0-3, points possible for those bouts): a miss means invalid input.
_Base = tuple[Contract, int, Fraction, bool, int, int, int, int]
_BASE: dict[tuple[str, int, int], _Base] = {}


def _fill_base() -> None:
    for contract, coef in COEFFICIENTS.items():
        for bouts, threshold in THRESHOLDS.items():
            low = 9 * bouts  # 4.5 per bout, in half points
            high = 2 * CARD_TOTAL - 9 * (3 - bouts)
            for h in range(low, high + 1):
                diff = h - 2 * threshold  # in half points
                won = diff >= 0
                gap = (abs(diff) + 1) // 2  # ceil(|diff| / 2): a half point rounds up
                part = (25 + gap) * coef if won else -(25 + gap) * coef
                key = (contract.value, bouts, h)
                _BASE[key] = (contract, bouts, _HALF_POINTS[h], won, threshold, gap, coef, part)


_fill_base()


def _build(
    players: int,
    base: _Base,
    pab: PetitAuBout | None,
    poignees: tuple[PoigneeSize, ...],
    poignees_part: int,
    chelem: Chelem | None,
    chelem_part: int,
    called_self: bool,
) -> DealScore:
    contract, bouts, points, won, threshold, gap, coef, contract_part = base
    pab_part = _PETIT_SIGN[pab] * coef
    unit = contract_part + pab_part + poignees_part + chelem_part
    if players == 5 and not called_self:
        taker, partner = unit + unit, unit
    else:
        taker, partner = (players - 1) * unit, None
    fields = (
        players,
        contract,
        bouts,
        points,
        pab,
        poignees,
        chelem,
        called_self,
        won,
        threshold,
        gap,
        coef,
        contract_part,
        pab_part,
        poignees_part,
        chelem_part,
        unit,
        taker,
        partner,
        -unit,
    )
    return DealScore(*fields)


# The fast path's tables, filled at the end of the module from the rules above and below.
#
# Every plain deal (no petit au bout, poignée nor chelem) is scored once, at import:
# _PLAIN[players][contract][bouts][half points], 9,984 immutable DealScores (about 2 MB; with
# the deals of _SINGLE below, about 30 MB in all), so that a plain deal costs a few lookups in
# small tables on its first sight as on every other. The last level is a tuple indexed by the
# half points (None where impossible), found through _HALVES_BY_TYPE, which knows 50, 50.0,
# Fraction(50), Decimal(50) and the usual spellings alike and no other type; the caller checks
# the types of the players and bouts, since True == 1 and 4.0 == 4. A taker who called himself
# at five has his own table.
_Row = tuple["DealScore | None", ...]
_Plain = dict[int, dict[str, dict[int, _Row]]]
_PLAIN: _Plain = {}
_PLAIN_ALONE: _Plain = {}
_NOT_A_BOOL: _Plain = {}  # the table for a called_self that is neither True nor False
_NO_POIGNEES: tuple[PoigneeSize, ...] = ()
# _ANNOUNCEMENTS[petit au bout][chelem][contract][bouts]: the half points with which that petit
# au bout and chelem are possible (RULES §4, §5.1), the normalised petit au bout and chelem, the
# petit au bout's part per unit of coefficient and the chelem's part. Possible ones only.
_Announcement = tuple[frozenset[int], PetitAuBout | None, Chelem | None, int, int]
_ANNOUNCEMENTS: dict[Any, dict[Any, dict[str, dict[int, _Announcement]]]] = {}
# Poignées as entered (up to five, in any order) -> the sizes and their total bonus.
_POIGNEE_SETS: dict[tuple[str, ...], tuple[tuple[PoigneeSize, ...], int]] = {}
# Deals with a petit au bout, one poignée or both, and no chelem (nearly every deal with an
# announcement) are scored at import too: _SINGLE[petit au bout][poignée] (_SINGLE_ALONE for a
# taker who called himself) is a table like _PLAIN (a DealScore, or None where that petit au bout is impossible), where the
# poignée is its size or _NO_POIGNEE. Building a DealScore (a tuple subclass) costs more than
# finding it, even cold in memory; the tables hold about 90,000 of them (about 25 MB).
_NO_POIGNEE = object()  # the key of "no poignée": no entry can be this object
_Single = dict[Any, dict[Any, _Plain]]
_SINGLE: _Single = {}
_SINGLE_ALONE: _Single = {}
_SINGLE_NOT_A_BOOL: _Single = {}  # for a called_self that is neither True nor False


def score_deal(
    players: int,
    contract: Contract | str,
    bouts: int,
    points: int | float | Decimal | Fraction | str,
    petit_au_bout: PetitAuBout | str | None = None,
    poignees: Iterable[PoigneeSize | str] = (),
    chelem: Chelem | str | None = None,
    called_self: bool = False,
) -> DealScore:
    """Score one deal (RULES §5); raise a ScoringError subclass for an impossible entry."""
    # Fast path: a plain deal is looked up among every valid plain deal, a deal with a petit
    # au bout and at most one poignée among every valid one of those (a hit is a valid entry
    # once the types are checked); any other deal's plain part is looked up likewise, then its
    # announcements among the possible ones. Anything unusual or invalid falls through to the
    # thorough validation, which raises the precise error.
    try:
        if called_self is False:
            table, single = _PLAIN, _SINGLE
        elif called_self is True:
            table, single = _PLAIN_ALONE, _SINGLE_ALONE
        else:
            table, single = _NOT_A_BOOL, _SINGLE_NOT_A_BOOL
        h = _HALVES_BY_TYPE[type(points)][points]  # not True (== 1), nor a complex
        if chelem is None:
            if petit_au_bout is None and poignees is _NO_POIGNEES:
                score = table[players][contract][bouts][h]
            else:
                kind = type(poignees)
                if (kind is list or kind is tuple) and len(poignees) < 2:
                    size = poignees[0] if poignees else _NO_POIGNEE
                    score = single[petit_au_bout][size][players][contract][bouts][h]
                else:
                    score = None
            if (
                score is not None
                and type(players) is int  # not 4.0, which equals 4
                and type(bouts) is int  # not True nor 2.0
            ):
                return score
        plain = table[players][contract][bouts][h]
        if plain is not None and type(players) is int and type(bouts) is int:
            possible, pab, ch, pab_sign, chelem_part = _ANNOUNCEMENTS[petit_au_bout][chelem][
                contract
            ][bouts]
            if poignees is _NO_POIGNEES or poignees is None:
                sizes, poignees_part = _NO_POIGNEES, 0
            elif type(poignees) is list:
                sizes, poignees_part = _POIGNEE_SETS[tuple(poignees)]
            elif type(poignees) is tuple:
                sizes, poignees_part = _POIGNEE_SETS[poignees]
            else:
                sizes = None
            if sizes is not None and h in possible and len(sizes) <= players:
                # The plain deal's score, with the announcements' parts added (RULES §4, §5).
                won, coefficient, contract_part = plain[8], plain[11], plain[12]
                pab_part = pab_sign * coefficient
                if not won:
                    poignees_part = -poignees_part
                unit = contract_part + pab_part + poignees_part + chelem_part
                if plain[18] is None:
                    taker, partner = (players - 1) * unit, None
                else:
                    taker, partner = unit + unit, unit
                fields = (
                    players,
                    plain[1],  # the Contract
                    bouts,
                    plain[3],  # the points, a Fraction
                    pab,
                    sizes,
                    ch,
                    called_self,
                    won,
                    plain[9],  # threshold
                    plain[10],  # gap
                    coefficient,
                    contract_part,
                    pab_part,
                    poignees_part,
                    chelem_part,
                    unit,
                    taker,
                    partner,
                    -unit,
                )
                return DealScore(*fields)
    except (KeyError, TypeError):
        pass  # an unknown or unhashable value: the thorough validation says which
    return _score_slow(
        players, contract, bouts, points, petit_au_bout, poignees, chelem, called_self
    )


# --- thorough validation --------------------------------------------------------------------


def _check_players(players: Any) -> int:
    if type(players) is not int or players not in PLAYER_COUNTS:
        raise InvalidPlayers("players_invalid", value=display_value(players))
    return players


def _check_contract(contract: Any) -> Contract:
    try:
        return _CONTRACTS[contract]
    except (KeyError, TypeError):
        raise InvalidContract("contract_unknown", value=display_value(contract)) from None


def _check_bouts(bouts: Any) -> int:
    if type(bouts) is not int:
        if isinstance(bouts, int) and not isinstance(bouts, bool):
            bouts = int(bouts)  # an int subclass (e.g. an IntEnum) is fine
        else:
            raise InvalidBouts("bouts_not_integer", value=display_value(bouts))
    if not 0 <= bouts <= 3:
        raise InvalidBouts("bouts_out_of_range", value=display_value(bouts))
    return bouts


def parse_points(points: Any) -> Fraction:
    """Exact value of an entry of points (int, float, Decimal, Fraction or "40.5"/"40,5").

    Only checks that it is a number and a multiple of 0.5 in 0-91; not the bouts.
    """
    value: Fraction | None = None
    if isinstance(points, bool) or points is None:
        value = None
    elif isinstance(points, Rational):
        value = Fraction(points.numerator, points.denominator)
    elif isinstance(points, float):
        if math.isfinite(points):
            value = Fraction(points)
    elif isinstance(points, Decimal):
        if points.is_finite():
            value = Fraction(points)
    elif isinstance(points, str):
        text = points.strip().replace(",", ".")
        try:
            value = Fraction(text)
        except (ValueError, ZeroDivisionError):
            value = None
    elif isinstance(points, Real):
        as_float = float(points)
        if math.isfinite(as_float):
            value = Fraction(as_float)
    if value is None:
        raise InvalidPoints("points_not_a_number", value=display_value(points))
    shown = points.strip() if isinstance(points, str) else display_value(points)
    if not 0 <= value <= CARD_TOTAL:
        raise InvalidPoints("points_out_of_range", value=shown)
    if (value * 2).denominator != 1:
        raise InvalidPoints("points_not_half", value=shown)
    return value


def _check_points_for_bouts(value: Fraction, bouts: int) -> None:
    low, high = points_range(bouts)
    if not low <= value <= high:
        params = {
            "bouts": bouts,
            "min": display_value(low),
            "max": display_value(high),
            "value": display_value(value),
        }
        raise InvalidPoints("points_impossible_for_bouts", **params)


def _check_petit(petit_au_bout: Any) -> PetitAuBout | None:
    try:
        return _PETITS[petit_au_bout]
    except (KeyError, TypeError):
        raise InvalidPetitAuBout(
            "petit_au_bout_unknown", value=display_value(petit_au_bout)
        ) from None


def _check_poignee(size: Any) -> PoigneeSize:
    try:
        return _POIGNEES[size]
    except (KeyError, TypeError):
        raise InvalidPoignees("poignee_unknown", value=display_value(size)) from None


def _check_poignees(poignees: Any, players: int | None) -> tuple[PoigneeSize, ...]:
    if poignees is None:
        return ()
    if isinstance(poignees, str):
        poignees = (poignees,)  # a single size given on its own
    try:
        items = list(poignees)
    except TypeError:
        raise InvalidPoignees("poignees_not_a_list", value=display_value(poignees)) from None
    sizes = tuple(_check_poignee(p) for p in items)
    if players is not None and len(sizes) > players:
        raise InvalidPoignees("poignees_too_many", count=len(sizes), players=players)
    return sizes


def _check_chelem(chelem: Any) -> Chelem | None:
    try:
        return _CHELEMS[chelem]
    except (KeyError, TypeError):
        raise InvalidChelem("chelem_unknown", value=display_value(chelem)) from None


def _check_called_self(called_self: Any, players: int | None) -> bool:
    if called_self is None:
        called_self = False
    if not isinstance(called_self, bool):
        raise InvalidCalledSelf("called_self_invalid", value=display_value(called_self))
    if called_self and players is not None and players != 5:
        raise InvalidCalledSelf("called_self_not_five", players=players)
    return called_self


# --- what a chelem and the petit au bout say about bouts and points (RULES §5.1) --------------

# Contracts under which the chien does not count against the camp of a chelem: the attack's
# chelem owns every card but possibly the Excuse (not under garde contre, whose chien goes to
# the defence); the defence's chelem leaves the attack at most its écart and the Excuse (not
# under garde sans, whose chien goes to the attack).
_CHELEM_MADE_BOUNDED = frozenset({Contract.PRISE, Contract.GARDE, Contract.GARDE_SANS})
_CHELEM_DEFENCE_BOUNDED = frozenset({Contract.PRISE, Contract.GARDE, Contract.GARDE_CONTRE})
_CHELEM_MADE_MIN_HALF = 173  # 86.5 points: everything but the Excuse
_CHELEM_DEFENCE_MAX_HALF = 47  # 23.5 points: at most the écart and the Excuse
_CONTRACT_NAMES: dict[Contract, str] = {
    Contract.PRISE: "Prise",
    Contract.GARDE: "Garde",
    Contract.GARDE_SANS: "Garde sans le chien",
    Contract.GARDE_CONTRE: "Garde contre le chien",
}


def announcement_error(
    contract: Contract,
    bouts: int,
    half_points: int,
    petit_au_bout: PetitAuBout | None,
    chelem: Chelem | None,
) -> ScoringError | None:
    """The first table of RULES §5.1: a petit au bout or chelem that the bouts, the points or
    each other make impossible, whatever the hands. Input already normalised; None when fine."""
    if petit_au_bout is PetitAuBout.ATTACK:
        if bouts == 0:
            return InvalidPetitAuBout("petit_au_bout_attack_no_bout")
        if chelem is Chelem.DEFENCE:
            return InvalidPetitAuBout("petit_au_bout_attack_chelem_defence")
    elif petit_au_bout is PetitAuBout.DEFENCE:
        if bouts == 3:
            return InvalidPetitAuBout("petit_au_bout_defence_three_bouts")
        if chelem in _CHELEM_MADE:
            return InvalidPetitAuBout("petit_au_bout_defence_chelem_made")
    if chelem in _CHELEM_MADE and contract in _CHELEM_MADE_BOUNDED:
        name = Message(_CONTRACT_NAMES[contract])
        if bouts < 2:
            return InvalidChelem("chelem_made_too_few_bouts", contract=name, bouts=bouts)
        if half_points < _CHELEM_MADE_MIN_HALF:
            points = display_value(_HALF_POINTS[half_points])
            return InvalidChelem("chelem_made_too_few_points", contract=name, points=points)
    elif chelem is Chelem.DEFENCE and contract in _CHELEM_DEFENCE_BOUNDED:
        name = Message(_CONTRACT_NAMES[contract])
        if bouts > 1:
            return InvalidChelem("chelem_defence_too_many_bouts", contract=name, bouts=bouts)
        if half_points > _CHELEM_DEFENCE_MAX_HALF:
            points = display_value(_HALF_POINTS[half_points])
            return InvalidChelem("chelem_defence_too_many_points", contract=name, points=points)
    return None


def _collect(
    players: Any,
    contract: Any,
    bouts: Any,
    points: Any,
    petit_au_bout: Any,
    poignees: Any,
    chelem: Any,
    called_self: Any,
) -> tuple[list[ScoringError], tuple[Any, ...] | None]:
    """Validate every field; return all errors found, and the normalised input when none."""
    errors: list[ScoringError] = []

    def attempt(check: Any, *args: Any) -> Any:
        try:
            return check(*args)
        except ScoringError as err:
            errors.append(err)
            return None

    n = attempt(_check_players, players)
    c = attempt(_check_contract, contract)
    b = attempt(_check_bouts, bouts)
    p = attempt(parse_points, points)
    if p is not None and b is not None:
        attempt(_check_points_for_bouts, p, b)
    pab = attempt(_check_petit, petit_au_bout)
    sizes = attempt(_check_poignees, poignees, n)
    ch = attempt(_check_chelem, chelem)
    cs = attempt(_check_called_self, called_self, n)
    if not errors and ch is not None:
        threshold = THRESHOLDS[b]
        won = p >= threshold
        params = {"points": display_value(p), "bouts": b, "threshold": threshold}
        if ch in _CHELEM_MADE and not won:
            errors.append(InvalidChelem("chelem_made_but_lost", **params))
        elif ch is Chelem.DEFENCE and won:
            errors.append(InvalidChelem("chelem_defence_but_won", **params))
    if not errors:
        found = announcement_error(c, b, int(p * 2), pab, ch)
        if found is not None:
            errors.append(found)
    if errors:
        return errors, None
    return errors, (n, c, b, p, pab, sizes, ch, cs)


def deal_errors(
    players: Any,
    contract: Any,
    bouts: Any,
    points: Any,
    petit_au_bout: Any = None,
    poignees: Any = (),
    chelem: Any = None,
    called_self: Any = False,
) -> list[ScoringError]:
    """Every problem with a deal entry (empty when valid), so a form can show them all at once."""
    return _collect(players, contract, bouts, points, petit_au_bout, poignees, chelem, called_self)[
        0
    ]


def _score_slow(*args: Any) -> DealScore:
    errors, normalised = _collect(*args)
    if errors:
        raise errors[0]
    assert normalised is not None
    n, c, b, p, pab, sizes, ch, cs = normalised
    base = _BASE[(c.value, b, int(p * 2))]
    bonus = sum(POIGNEE_BONUS[s] for s in sizes)
    return _build(n, base, pab, sizes, bonus if base[3] else -bonus, ch, _CHELEM_BONUS[ch], cs)


# --- the fast path's tables, built from the rules above ---------------------------------------


def _fill_plain() -> None:
    """Score every plain deal once, with _build, the thorough path's own builder; the deals
    of four players first, so that the commonest lie together in memory."""
    configurations = [(4, False), (3, False), (5, False), (5, True)]
    for players, called_self in configurations:
        by_contract = (_PLAIN_ALONE if called_self else _PLAIN).setdefault(players, {})
        rows: dict[tuple[str, int], list[DealScore | None]] = {}
        for (contract, bouts, h), base in _BASE.items():
            row = rows.setdefault((contract, bouts), [None] * (2 * CARD_TOTAL + 1))
            row[h] = _build(players, base, None, _NO_POIGNEES, 0, None, 0, called_self)
        for (contract, bouts), row in rows.items():
            by_contract.setdefault(contract, {})[bouts] = tuple(row)


def _fill_announcements() -> None:
    """Decide, with the thorough path's own checks, at which half points each petit au bout and
    chelem is possible; and total every hand of poignées a table can show."""
    # Whether an announcement is possible depends on the half points only through the
    # threshold and the bounds of RULES §5.1, so the checks run once per stretch of half
    # points between those marks (the tests compare every point with the thorough path).
    possible: defaultdict[tuple[str, int, str | None, str | None], set[int]] = defaultdict(set)
    marks = {_CHELEM_MADE_MIN_HALF, _CHELEM_DEFENCE_MAX_HALF + 1}
    for contract, bouts, h in _BASE:
        base = _BASE[(contract, bouts, h)]
        first = h == 9 * bouts or h in marks or h == 2 * base[4]
        for petit, pab in _PETITS.items():
            for chelem, ch in _CHELEMS.items():
                key = (contract, bouts, petit, chelem)
                if first:
                    allowed = (ch, base[3]) in _CHELEM_CONSISTENT and (
                        announcement_error(base[0], bouts, h, pab, ch) is None
                    )
                elif h - 1 in possible[key]:
                    allowed = True  # as the half point before: same stretch
                else:
                    allowed = False
                if allowed:
                    possible[key].add(h)
    shared: dict[frozenset[int], frozenset[int]] = {}  # most are a whole range: kept once
    for (contract, bouts, petit, chelem), halves in possible.items():
        if not halves:
            continue
        pab, ch = _PETITS[petit], _CHELEMS[chelem]
        parts = (_PETIT_SIGN[pab], _CHELEM_BONUS[chelem])
        frozen = shared.setdefault(frozenset(halves), frozenset(halves))
        by_contract = _ANNOUNCEMENTS.setdefault(petit, {}).setdefault(chelem, {})
        by_contract.setdefault(contract, {})[bouts] = (frozen, pab, ch, *parts)
    for count in range(max(PLAYER_COUNTS) + 1):
        for hand in itertools.product(_POIGNEES, repeat=count):
            sizes = tuple(_POIGNEES[size] for size in hand)
            _POIGNEE_SETS[hand] = (sizes, sum(POIGNEE_BONUS[size] for size in sizes))


def _fill_single() -> None:
    """Score every deal with a petit au bout, one poignée or both (no chelem) once: the plain
    deal's score with the parts of the announcements' tables added, where they are possible."""
    for plain_table, single in [(_PLAIN, _SINGLE), (_PLAIN_ALONE, _SINGLE_ALONE)]:
        for petit, pab in _PETITS.items():
            for size in [_NO_POIGNEE, *PoigneeSize]:
                by_players: _Plain = single.setdefault(petit, {}).setdefault(size, {})
                if pab is None and size is _NO_POIGNEE:
                    by_players.update(plain_table)  # the plain deals themselves
                    continue
                sizes = _NO_POIGNEES if size is _NO_POIGNEE else (size,)
                bonus = 0 if size is _NO_POIGNEE else POIGNEE_BONUS[size]
                for players, by_contract in plain_table.items():
                    for contract, by_bouts in by_contract.items():
                        out = by_players.setdefault(players, {}).setdefault(contract, {})
                        for bouts, row in by_bouts.items():
                            announced = _ANNOUNCEMENTS[petit][None][contract].get(bouts)
                            possible = announced[0] if announced else frozenset()
                            out[bouts] = tuple(
                                _with_announcements(plain, pab, sizes, bonus)
                                if plain is not None and h in possible
                                else None
                                for h, plain in enumerate(row)
                            )
    _SINGLE_NOT_A_BOOL.update({petit: {} for petit in _PETITS})


def _with_announcements(
    plain: DealScore, pab: PetitAuBout | None, sizes: tuple[PoigneeSize, ...], bonus: int
) -> DealScore:
    """The plain deal's score with a petit au bout and poignées (no chelem) added (RULES §4)."""
    pab_part = _PETIT_SIGN[pab] * plain.coefficient
    poignees_part = bonus if plain.won else -bonus
    unit = plain.contract_part + pab_part + poignees_part
    if plain.partner is None:
        taker, partner = (plain.players - 1) * unit, None
    else:
        taker, partner = unit + unit, unit
    fields = (
        *plain[:4],
        pab,
        sizes,
        None,
        *plain[7:13],
        pab_part,
        poignees_part,
        0,
        unit,
        taker,
        partner,
        -unit,
    )
    return DealScore(*fields)


_fill_plain()
_fill_announcements()
_fill_single()
