"""Checks of an entered result against the known hands of the donne (RULES.md §4, §5.1, §5.2).

In duplicate every hand is known. The pure code (``scoring.rules.card_bounds``) says what the cards
allow the attack to own; this module reads the entry, asks it once, and turns its answers into
translated refusals (a poignée with too few trumps, a chelem or a petit au bout the hands rule
out, §5.1) and warnings to confirm (bouts or points the cards make unlikely, a half point at four
players, §5.2). Confirmations are stored with the result (Result.confirmed_warnings) so the
dashboard can flag them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _

from scoring.rules import cards
from scoring.rules.card_bounds import (
    ATTACK,
    CHIEN,
    CHIEN_STAYS,
    CONTRACTS,
    DEFENCE,
    PETIT_AU_BOUT,
    TAKES_CHIEN,
    AttackBounds,
    BoutPlace,
    attack_bounds,
    poignee_trumps,
    points_with_bouts,
)
from scoring.rules.engine import PoigneeSize, poignee_min_trumps

from ..models import PoigneeSize as PoigneeLabel
from ..models import Position
from .errors import translate_error

__all__ = [
    "WARNING_CODES",
    "BoutFacts",
    "announcement_checks",
    "bout_facts",
    "card_checks",
    "poignee_trumps",
    "typed_warnings",
]

PLAYERS = 4  # a duplicate donne is always played four-handed
CHELEM_MADE = ("announced_made", "unannounced_made")
_SIZES = frozenset(size.value for size in PoigneeSize)

WARNING_CODES = (
    "bouts_held_by_defence",
    "excuse_held_by_defence",
    "bouts_held_by_attack",
    "excuse_held_by_attack",
    "points_below_chien",
    "points_above_chien",
    "points_below_discard",
    "points_above_discard",
    "points_below_bouts",
    "points_above_bouts",
    "half_point",
    "hands_unreadable",
)

Hands = Mapping[str, tuple[cards.Card, ...]]


def _who(position: str, seats: Mapping[str, Any] | None) -> str:
    label = str(Position(position).label)
    player = (seats or {}).get(position)
    return f"{label} ({player})" if player is not None else label


@dataclass(frozen=True)
class BoutFacts:
    """Which bouts each camp surely ends with, and which it keeps unless played last."""

    sure_attack: tuple[str, ...]  # descriptions of bouts the attack cannot lose
    sure_defence: tuple[str, ...]  # bouts the attack cannot win
    likely_attack: tuple[str, ...]  # the Excuse of the attack (lost only if played last)
    likely_defence: tuple[str, ...]  # the Excuse of the defence (won only if played last)


def bout_facts(
    hands: Hands,
    chien: tuple[cards.Card, ...],
    *,
    taker: str,
    contract: str,
    seats: Mapping[str, Any] | None = None,
) -> BoutFacts:
    """Where the bouts go, from the hands alone (RULES.md §5.2), as descriptions."""
    if taker not in hands or contract not in CONTRACTS:
        return BoutFacts((), (), (), ())
    bounds = attack_bounds(hands=hands, chien=chien, contract=contract, taker=taker)
    return BoutFacts(
        *(
            _places_text(bounds.bout_places(camp, firm=firm), contract, seats, taker)
            for firm in (True, False)
            for camp in (ATTACK, DEFENCE)
        )
    )


def _card_name(card: cards.Card) -> str:
    if card == cards.TRUMP_21:
        return _("the 21")
    if card == cards.EXCUSE:
        return _("the Excuse")
    return _("the Petit")


def _place_text(
    place: BoutPlace, contract: str, seats: Mapping[str, Any] | None, taker: str
) -> str:
    """ "the 21 held by East", "the Petit in the chien (garde sans)", …"""
    name = _card_name(place.card)
    if place.why == PETIT_AU_BOUT:
        if place.camp == ATTACK:
            return _("%(card)s won by the attack at the last trick") % {"card": name}
        return _("%(card)s won by the defence at the last trick") % {"card": name}
    if place.why == CHIEN_STAYS:
        if contract == "garde_sans":
            return _("%(card)s in the chien (garde sans)") % {"card": name}
        return _("%(card)s in the chien (garde contre)") % {"card": name}
    where = taker if place.where == CHIEN else place.where  # the taker took the chien
    return _("%(card)s held by %(who)s") % {"card": name, "who": _who(where, seats)}


def _places_text(
    places: tuple[BoutPlace, ...],
    contract: str,
    seats: Mapping[str, Any] | None,
    taker: str,
) -> tuple[str, ...]:
    return tuple(_place_text(p, contract, seats, taker) for p in places)


def _cards_text(chosen: tuple[cards.Card, ...]) -> str:
    """Cards by name in the active language ("Roi de pique, 7 de cœur")."""
    french = (get_language() or "fr").startswith("fr")
    return ", ".join(c.label_fr if french else c.label_en for c in chosen)


# A donne's hands are read for every entry of its tables: each text is parsed once per
# process (the cards are an immutable tuple; a text that does not parse raises every time).
_parse_hand = functools.lru_cache(maxsize=4096)(cards.parse_hand)


def _parse(hands: Mapping[str, str], chien: str) -> tuple[dict[str, tuple[cards.Card, ...]], Any]:
    return {p: _parse_hand(text) for p, text in hands.items()}, _parse_hand(chien)


def _poignee_errors(
    parsed: Hands,
    chien: tuple[cards.Card, ...],
    poignees: Mapping[str, str],
    *,
    taker: str,
    contract: str,
    seats: Mapping[str, Any] | None,
) -> dict[str, str]:
    """RULES.md §4: a poignée needs the trumps in the hand (and the chien the taker took)."""
    errors: dict[str, str] = {}
    for position, size in poignees.items():
        if size not in _SIZES or position not in parsed:
            continue  # unknown sizes and positions are reported by the entry's own checks
        held = poignee_trumps(parsed, chien, position, taker=taker, contract=contract)
        needed = poignee_min_trumps(PLAYERS, size)
        if held >= needed:
            continue
        with_chien = position == taker and (contract in TAKES_CHIEN or not contract)
        template = (
            ngettext(
                "%(who)s cannot show a %(size)s poignée: with the chien, that hand held "
                "%(held)s trump (Excuse included) and it needs %(needed)s. Check the "
                "poignée and who showed it.",
                "%(who)s cannot show a %(size)s poignée: with the chien, that hand held "
                "%(held)s trumps (Excuse included) and it needs %(needed)s. Check the "
                "poignée and who showed it.",
                held,
            )
            if with_chien
            else ngettext(
                "%(who)s cannot show a %(size)s poignée: that hand held %(held)s trump "
                "(Excuse included) and it needs %(needed)s. Check the poignée and who showed it.",
                "%(who)s cannot show a %(size)s poignée: that hand held %(held)s trumps "
                "(Excuse included) and it needs %(needed)s. Check the poignée and who showed it.",
                held,
            )
        )
        errors[f"poignees.{position}"] = template % {
            "who": _who(position, seats),
            "size": str(PoigneeLabel(size).label).lower(),
            "held": held,
            "needed": needed,
        }
    return errors


def card_checks(
    *,
    hands: Mapping[str, str],
    chien: str,
    taker: str,
    contract: str,
    bouts: int | None,
    points: Decimal | None,
    poignees: Mapping[str, str],
    seats: Mapping[str, Any] | None = None,
    petit_au_bout: str = "",
    chelem: str = "",
) -> tuple[dict[str, str], dict[str, str]]:
    """Errors {field: message} and warnings {code: message} of an entry against the cards.

    ``hands`` are the donne's hands by position and ``chien`` its chien, in the notation of
    scoring.rules.cards; ``seats`` (optional) names the players in the messages. The hands are read
    and bounded once (scoring.rules.card_bounds.attack_bounds).
    """
    warnings: dict[str, str] = {}
    try:
        parsed, parsed_chien = _parse(hands, chien)
    except cards.NotationError as err:
        warnings.update(_half_point(points, None))
        warnings["hands_unreadable"] = _(
            "The hands of this donne cannot be read (%(error)s), so the entry cannot be checked "
            "against the cards. Confirm to save it anyway."
        ) % {"error": translate_error(err)}
        return {}, warnings

    errors = _poignee_errors(
        parsed, parsed_chien, poignees, taker=taker, contract=contract, seats=seats
    )
    bounds = None
    if taker in parsed and contract in CONTRACTS:
        bounds = attack_bounds(
            hands=parsed,
            chien=parsed_chien,
            contract=contract,
            taker=taker,
            players=PLAYERS,
            chelem=chelem,
            petit_au_bout=petit_au_bout,
        )
        errors.update(_refusals(bounds, contract, taker, bouts, points, chelem, seats))
    warnings.update(_half_point(points, bounds))
    if bounds is not None:
        warnings.update(_bout_warnings(bounds, contract, taker, bouts, seats))
        warnings.update(
            _point_warnings(bounds, parsed_chien, contract, taker, points, chelem, seats)
            or _bout_point_warnings(bounds, parsed_chien, contract, taker, bouts, points, seats)
        )
    return errors, warnings


def announcement_checks(
    *,
    hands: Hands,
    chien: tuple[cards.Card, ...],
    taker: str,
    contract: str,
    bouts: int | None,
    points: Decimal | None,
    petit_au_bout: str,
    chelem: str,
    seats: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """The second list of RULES.md §5.1: a chelem or a petit au bout that the hands make
    impossible. Refusals {field: message}, naming the player and the card. The four-handed
    duplicate table has no partner: the attack is the taker alone."""
    if taker not in hands or contract not in CONTRACTS:
        return {}
    bounds = attack_bounds(
        hands=hands,
        chien=chien,
        contract=contract,
        taker=taker,
        players=PLAYERS,
        chelem=chelem,
        petit_au_bout=petit_au_bout,
    )
    return _refusals(bounds, contract, taker, bouts, points, chelem, seats)


def typed_warnings(points: Decimal | None, chelem: str) -> dict[str, str]:
    """The warnings of what was typed alone, the same whatever the hands (RULES.md §5, §6.2):
    a half point at four players, unless a chelem was made (by either camp). After a chelem
    a half point is exact when the camp that took no trick kept the Excuse, which only the
    hands tell: that is judged for the arbiter (`card_checks`), never at the table."""
    if chelem in CHELEM_MADE or chelem == "defence":
        return {}
    return _half_point(points, None)


def _half_point(points: Decimal | None, bounds: AttackBounds | None) -> dict[str, str]:
    """RULES.md §5: at four players a half point is questioned, except where a chelem makes
    it exact (the Excuse kept by the camp that took no trick)."""
    if points is None or Decimal(points) % 1 == 0 or (bounds is not None and bounds.half_point):
        return {}
    return {
        "half_point": _(
            "%(points)s points: at four players each camp ends with an even number of cards, "
            "so the count is a whole number. Check the count, or confirm it."
        )
        % {"points": points}
    }


def _chelem_reasons(
    bounds: AttackBounds,
    contract: str,
    taker: str,
    chelem: str,
    seats: Mapping[str, Any] | None,
) -> str:
    """Why a chelem fixes the attack's bouts and points: the kept Excuse and the chien."""
    where, camp = bounds.excuse
    reasons: list[str] = []
    made = chelem in CHELEM_MADE
    keeps = (camp == DEFENCE) if made else (camp == ATTACK)
    if keeps and not (where == CHIEN and contract in ("garde_sans", "garde_contre")):
        holder = taker if where == CHIEN else where
        reasons.append(_("%(who)s holds the Excuse and keeps it") % {"who": _who(holder, seats)})
    if contract == "garde_contre" and made:
        reasons.append(
            ngettext(
                "the chien of the garde contre (%(points)s points, %(bouts)s bout) goes to "
                "the defence",
                "the chien of the garde contre (%(points)s points, %(bouts)s bouts) goes to "
                "the defence",
                bounds.chien_bouts,
            )
            % {"points": _number(bounds.chien_points), "bouts": bounds.chien_bouts}
        )
    if contract == "garde_sans" and not made:
        reasons.append(
            ngettext(
                "the chien of the garde sans (%(points)s points, %(bouts)s bout) counts for "
                "the attack",
                "the chien of the garde sans (%(points)s points, %(bouts)s bouts) counts for "
                "the attack",
                bounds.chien_bouts,
            )
            % {"points": _number(bounds.chien_points), "bouts": bounds.chien_bouts}
        )
    if reasons:
        # French puts a no-break space before the semicolon.
        return pgettext("list separator", "; ").join(reasons)
    return _("the attack takes every card") if made else _("the defence takes every card")


def _refusals(
    bounds: AttackBounds,
    contract: str,
    taker: str,
    bouts: int | None,
    points: Decimal | None,
    chelem: str,
    seats: Mapping[str, Any] | None,
) -> dict[str, str]:
    """RULES.md §5.1, second list: what the hands rule out for this entry."""
    errors: dict[str, str] = {}
    if bounds.petit_unplayed:
        errors["petit_au_bout"] = _(
            "The Petit lies in the chien (%(contract)s): it is never played, so nobody wins it "
            "at the last trick. Clear the petit au bout."
        ) % {"contract": _contract_name(contract)}
    if not bounds.exact_bouts:
        return errors
    made = chelem in CHELEM_MADE
    blocker = bounds.chelem_blocker
    if blocker is not None and made:
        errors["chelem"] = _(
            "%(who)s holds the 21: the defence takes at least one trick. A chelem of the "
            "attack is impossible; check the chelem."
        ) % {"who": _who(blocker.where, seats)}
    elif blocker is not None:
        errors["chelem"] = _(
            "%(who)s, the taker, holds the 21: the attack takes at least one trick. A chelem "
            "of the defence is impossible; check the chelem."
        ) % {"who": _who(taker if blocker.where == CHIEN else blocker.where, seats)}
    why = _chelem_reasons(bounds, contract, taker, chelem, seats)
    expected = bounds.bouts_low
    if bouts is not None and bouts != expected:
        template = (
            ngettext(
                "With a chelem of the attack, the attack owns exactly %(expected)s bout, not "
                "%(bouts)s (%(why)s). Check the bouts or the chelem.",
                "With a chelem of the attack, the attack owns exactly %(expected)s bouts, not "
                "%(bouts)s (%(why)s). Check the bouts or the chelem.",
                expected,
            )
            if made
            else ngettext(
                "With a chelem of the defence, the attack owns exactly %(expected)s bout, not "
                "%(bouts)s (%(why)s). Check the bouts or the chelem.",
                "With a chelem of the defence, the attack owns exactly %(expected)s bouts, not "
                "%(bouts)s (%(why)s). Check the bouts or the chelem.",
                expected,
            )
        )
        errors["bouts"] = template % {"expected": expected, "bouts": bouts, "why": why}
    if bounds.exact_points and points is not None and Fraction(points) != bounds.points_low:
        template = (
            _(
                "With a chelem of the attack, the attack owns exactly %(expected)s points, not "
                "%(points)s (%(why)s). Check the points or the chelem."
            )
            if made
            else _(
                "With a chelem of the defence, the attack owns exactly %(expected)s points, not "
                "%(points)s (%(why)s). Check the points or the chelem."
            )
        )
        errors["points"] = template % {
            "expected": _number(bounds.points_low),
            "points": _number(Decimal(points)),
            "why": why,
        }
    return errors


def _bout_warnings(
    bounds: AttackBounds,
    contract: str,
    taker: str,
    bouts: int | None,
    seats: Mapping[str, Any] | None,
) -> dict[str, str]:
    """RULES.md §5.2, bouts: outside what the hands let each camp keep."""
    if bouts is None or bounds.exact_bouts:
        return {}

    def named(camp: str, firm: bool) -> str:
        return ", ".join(_places_text(bounds.bout_places(camp, firm=firm), contract, seats, taker))

    # "1 bout", "2 bouts" (French: "0 bout"), for the messages whose plural follows the cards.
    counted = ngettext("%(bouts)s bout", "%(bouts)s bouts", bouts) % {"bouts": bouts}
    warnings: dict[str, str] = {}
    if bouts > bounds.firm_high:
        held = len(bounds.bout_places(DEFENCE, firm=True))
        warnings["bouts_held_by_defence"] = ngettext(
            "The attack counts %(counted)s, but %(cards)s: the defence kept it, so "
            "the attack has at most %(most)s. Check the bouts.",
            "The attack counts %(counted)s, but %(cards)s: the defence kept them, so "
            "the attack has at most %(most)s. Check the bouts.",
            held,
        ) % {"counted": counted, "cards": named(DEFENCE, True), "most": bounds.firm_high}
    elif bouts > bounds.bouts_high:
        warnings["excuse_held_by_defence"] = ngettext(
            "The attack counts %(bouts)s bout, but %(cards)s: it stays with the defence "
            "unless it was played to the last trick. Check the bouts, or confirm.",
            "The attack counts %(bouts)s bouts, but %(cards)s: it stays with the defence "
            "unless it was played to the last trick. Check the bouts, or confirm.",
            bouts,
        ) % {"bouts": bouts, "cards": named(DEFENCE, False)}
    if bouts < bounds.firm_low:
        held = len(bounds.bout_places(ATTACK, firm=True))
        warnings["bouts_held_by_attack"] = ngettext(
            "The attack counts %(counted)s, but %(cards)s: the attack kept it, so it "
            "has at least %(least)s. Check the bouts.",
            "The attack counts %(counted)s, but %(cards)s: the attack kept them, so it "
            "has at least %(least)s. Check the bouts.",
            held,
        ) % {"counted": counted, "cards": named(ATTACK, True), "least": bounds.firm_low}
    elif bouts < bounds.bouts_low:
        warnings["excuse_held_by_attack"] = ngettext(
            "The attack counts %(bouts)s bout, but %(cards)s: it stays with the attack "
            "unless it was played to the last trick. Check the bouts, or confirm.",
            "The attack counts %(bouts)s bouts, but %(cards)s: it stays with the attack "
            "unless it was played to the last trick. Check the bouts, or confirm.",
            bouts,
        ) % {"bouts": bouts, "cards": named(ATTACK, False)}
    return warnings


def _point_warnings(
    bounds: AttackBounds,
    chien: tuple[cards.Card, ...],
    contract: str,
    taker: str,
    points: Decimal | None,
    chelem: str,
    seats: Mapping[str, Any] | None,
) -> dict[str, str]:
    """RULES.md §5.2, points: below the chien of a garde sans or the smallest écart, above what
    the chien of a garde contre leaves, outside the écart a chelem of the defence leaves."""
    if points is None or bounds.exact_points:
        return {}
    value = Fraction(points)
    if bounds.points_low <= value <= bounds.points_high:
        return {}
    numbers = {
        "points": _number(Decimal(points)),
        "least": _number(bounds.points_low),
        "most": _number(bounds.points_high),
        "chien": _number(bounds.chien_points),
        "who": _who(taker, seats),
    }
    if contract == "garde_sans":
        numbers["cards"] = _cards_text(chien)
        return {
            "points_below_chien": _(
                "The attack counts %(points)s points, but under garde sans the chien counts for "
                "it: %(least)s points (%(cards)s). Check the points, or confirm."
            )
            % numbers
        }
    if contract == "garde_contre":
        numbers["cards"] = _cards_text(chien)
        return {
            "points_above_chien": _(
                "The attack counts %(points)s points, but under garde contre the chien counts "
                "for the defence: %(chien)s points (%(cards)s), so the attack has at most "
                "%(most)s. Check the points, or confirm."
            )
            % numbers
        }
    code = "points_below_discard" if value < bounds.points_low else "points_above_discard"
    if chelem == "defence":
        numbers["why"] = _chelem_reasons(bounds, contract, taker, chelem, seats)
        return {
            code: _(
                "With a chelem of the defence the attack owns only the écart of %(who)s (and an "
                "Excuse it kept): with these cards, from %(least)s to %(most)s points, not "
                "%(points)s (%(why)s). Check the points or the chelem, or confirm."
            )
            % numbers
        }
    return {
        code: _(
            "The attack counts %(points)s points, but the écart of %(who)s counts for it: with "
            "the cards of that hand and of the chien, the smallest écart is worth %(least)s "
            "points. Check the points, or confirm."
        )
        % numbers
    }


def _bout_point_warnings(
    bounds: AttackBounds,
    chien: tuple[cards.Card, ...],
    contract: str,
    taker: str,
    bouts: int | None,
    points: Decimal | None,
    seats: Mapping[str, Any] | None,
) -> dict[str, str]:
    """RULES.md §5.2, points with the bouts: the declared bouts place 4.5 points each with
    the attack and the others with the defence, on top of the cards each camp surely owns
    unplayed (the chien of a garde sans or contre, the smallest écart of a prise or garde).
    Not on a chelem, whose bouts and points the hands fix (§5.1), nor for bouts outside 0-3
    (the engine refuses them)."""
    if points is None or bouts is None or not 0 <= bouts <= 3 or bounds.exact_bouts:
        return {}
    bound = points_with_bouts(contract=contract, chien=chien, bouts=bouts, discard=bounds.discard)
    value = Fraction(points)
    engine_range = Fraction(9, 2) * bouts <= value <= 91 - Fraction(9, 2) * (3 - bouts)
    if bound.least <= value <= bound.most or not engine_range:
        return {}  # possible, or refused by the engine already (RULES §1)
    above = value > bound.most
    other = 3 - bouts
    numbers = {
        "points": _number(Decimal(points)),
        "counted": ngettext("%(bouts)s bout", "%(bouts)s bouts", bouts) % {"bouts": bouts},
        "other": ngettext("%(bouts)s bout", "%(bouts)s bouts", other) % {"bouts": other},
        "bout_points": _number(Fraction(9, 2) * (other if above else bouts)),
        "sure": _number(bound.defence_sure if above else bound.attack_sure),
        "cards": _cards_text(bound.sure_cards),
        "least": _number(bound.least),
        "most": _number(bound.most),
        "who": _who(taker, seats),
    }
    if above:  # only a garde contre: elsewhere bound.most is the engine's own bound
        message = _(
            "The attack counts %(points)s points and %(counted)s, so the defence owns "
            "%(other)s (%(bout_points)s points) and, under garde contre, the chien besides "
            "its bouts: %(sure)s points (%(cards)s). The attack has at most %(most)s points. "
            "Check the points and the bouts, or confirm."
        )
    elif contract == "garde_sans":
        message = _(
            "The attack counts %(points)s points and %(counted)s (%(bout_points)s points), and "
            "under garde sans the chien besides its bouts counts for it: %(sure)s points "
            "(%(cards)s). The attack has at least %(least)s points. Check the points and the "
            "bouts, or confirm."
        )
    else:
        message = _(
            "The attack counts %(points)s points and %(counted)s (%(bout_points)s points), and "
            "the écart of %(who)s counts for it, never a bout: with the cards of that hand and "
            "of the chien, at least %(sure)s points. The attack has at least %(least)s points. "
            "Check the points and the bouts, or confirm."
        )
    return {"points_above_bouts" if above else "points_below_bouts": message % numbers}


def _contract_name(code: str) -> str:
    from ..models import Contract

    return str(Contract(code).label) if code in Contract.values else code


def _number(value: Any) -> str:
    """40, 40.5: points as people write them (the active language's decimal mark)."""
    from django.utils.formats import number_format

    value = Decimal(value.numerator) / value.denominator if hasattr(value, "numerator") else value
    value = Decimal(value)
    return number_format(value, 0 if value == value.to_integral_value() else 1)
