"""Checks of an entered result against the known hands of the donne (RULES.md §1, §4).

In duplicate every hand is known, so the arbiter's form can refuse what the cards make
impossible (a poignée with too few trumps) and question what is unlikely (bouts that the other
camp held, a half point at four players). Errors are refused; warnings need a confirmation,
which is stored with the result (Result.confirmed_warnings) so the dashboard can flag it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from scoring.rules import cards
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
]

PLAYERS = 4  # a duplicate donne is always played four-handed
TAKES_CHIEN = ("prise", "garde")  # the taker adds the chien to his hand (RULES.md §3)
CHELEM_MADE = ("announced_made", "unannounced_made")
_SIZES = frozenset(size.value for size in PoigneeSize)

WARNING_CODES = (
    "bouts_held_by_defence",
    "excuse_held_by_defence",
    "bouts_held_by_attack",
    "excuse_held_by_attack",
    "half_point",
    "hands_unreadable",
)


def _who(position: str, seats: Mapping[str, Any] | None) -> str:
    label = str(Position(position).label)
    player = (seats or {}).get(position)
    return f"{label} ({player})" if player is not None else label


def poignee_trumps(
    hands: Mapping[str, tuple[cards.Card, ...]],
    chien: tuple[cards.Card, ...],
    position: str,
    *,
    taker: str,
    contract: str,
) -> int:
    """Trumps (Excuse included) a player could show: his hand, plus the chien for the taker
    of a prise or a garde (he takes it before the first card). While the contract is not
    chosen yet the chien is counted, so nothing is refused too early."""
    count = cards.trump_count(hands[position])
    if position == taker and (contract in TAKES_CHIEN or not contract):
        count += cards.trump_count(chien)
    return count


@dataclass(frozen=True)
class BoutFacts:
    """Which bouts each camp surely ends with, and which it keeps unless played last."""

    sure_attack: tuple[str, ...]  # descriptions of bouts the attack cannot lose
    sure_defence: tuple[str, ...]  # bouts the attack cannot win
    likely_attack: tuple[str, ...]  # the Excuse of the attack (lost only if played last)
    likely_defence: tuple[str, ...]  # the Excuse of the defence (won only if played last)


def bout_facts(
    hands: Mapping[str, tuple[cards.Card, ...]],
    chien: tuple[cards.Card, ...],
    *,
    taker: str,
    contract: str,
    seats: Mapping[str, Any] | None = None,
) -> BoutFacts:
    """Where the bouts go, from the hands alone.

    The 21 cannot be taken: its holder's camp keeps it. The Excuse goes back to its holder's
    camp unless it is played to the last trick. The Petit can be captured: nothing is sure,
    except in the chien of a garde sans (counts for the attack) or a garde contre (for the
    defence). Bouts cannot be put in the écart, so in a prise or garde the taker keeps the
    bouts of the chien in his hand.
    """
    places = _bout_places(hands, taker=taker, contract=contract)
    return BoutFacts(*(_bout_texts(places, kind, contract, seats) for kind in range(len(_KINDS))))


# The kinds of `_bout_places`, in BoutFacts' order.
_KINDS = (_SURE_ATTACK, _SURE_DEFENCE, _LIKELY_ATTACK, _LIKELY_DEFENCE) = range(4)


def _bout_places(
    hands: Mapping[str, tuple[cards.Card, ...]], *, taker: str, contract: str
) -> list[tuple[int, cards.Card, str]]:
    """`bout_facts` without its texts: (kind, bout, where: a position or "chien") of each bout
    whose camp is known; the texts are written only for a warning that names them."""
    places: list[tuple[int, cards.Card, str]] = []
    for card in (cards.TRUMP_21, cards.EXCUSE, cards.PETIT):
        where = next((p for p, hand in hands.items() if card in hand), "chien")
        if where == "chien":
            if contract == "garde_sans":
                places.append((_SURE_ATTACK, card, where))
                continue
            if contract == "garde_contre":
                places.append((_SURE_DEFENCE, card, where))
                continue
            if contract not in TAKES_CHIEN:
                continue  # contract not chosen yet: nothing can be said
            where = taker
        attack = where == taker
        if card == cards.TRUMP_21:
            places.append((_SURE_ATTACK if attack else _SURE_DEFENCE, card, where))
        elif card == cards.EXCUSE:
            places.append((_LIKELY_ATTACK if attack else _LIKELY_DEFENCE, card, where))
    return places


def _bout_texts(
    places: list[tuple[int, cards.Card, str]],
    kind: int,
    contract: str,
    seats: Mapping[str, Any] | None,
) -> tuple[str, ...]:
    """The descriptions of the bouts of ``kind`` ("the 21 held by East"...)."""
    texts = []
    for of_kind, card, where in places:
        if of_kind != kind:
            continue
        if card == cards.TRUMP_21:
            name = _("the 21")
        elif card == cards.EXCUSE:
            name = _("the Excuse")
        else:
            name = _("the Petit")
        if where != "chien":
            texts.append(_("%(card)s held by %(who)s") % {"card": name, "who": _who(where, seats)})
        elif contract == "garde_sans":
            texts.append(_("%(card)s in the chien (garde sans)") % {"card": name})
        else:
            texts.append(_("%(card)s in the chien (garde contre)") % {"card": name})
    return tuple(texts)


# A donne's hands are read for every entry of its tables: each text is parsed once per
# process (the cards are an immutable tuple; a text that does not parse raises every time).
_parse_hand = functools.lru_cache(maxsize=4096)(cards.parse_hand)


def _parse(hands: Mapping[str, str], chien: str) -> tuple[dict[str, tuple[cards.Card, ...]], Any]:
    return {p: _parse_hand(text) for p, text in hands.items()}, _parse_hand(chien)


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
    scoring.rules.cards; ``seats`` (optional) names the players in the messages.
    """
    errors: dict[str, str] = {}
    warnings: dict[str, str] = {}

    if points is not None and Decimal(points) % 1 != 0:
        warnings["half_point"] = _(
            "%(points)s points: at four players each camp ends with an even number of cards, "
            "so the count is a whole number. Check the count, or confirm it."
        ) % {"points": points}

    try:
        parsed, parsed_chien = _parse(hands, chien)
    except cards.NotationError as err:
        warnings["hands_unreadable"] = _(
            "The hands of this donne cannot be read (%(error)s), so the entry cannot be checked "
            "against the cards. Confirm to save it anyway."
        ) % {"error": translate_error(err)}
        return errors, warnings

    for position, size in poignees.items():
        if size not in _SIZES or position not in parsed:
            continue  # unknown sizes and positions are reported by the entry's own checks
        held = poignee_trumps(parsed, parsed_chien, position, taker=taker, contract=contract)
        needed = poignee_min_trumps(PLAYERS, size)
        if held < needed:
            with_chien = position == taker and (contract in TAKES_CHIEN or not contract)
            template = (
                _(
                    "%(who)s cannot show a %(size)s poignée: with the chien, that hand held "
                    "%(held)s trumps (Excuse included) and it needs %(needed)s. Check the "
                    "poignée and who showed it."
                )
                if with_chien
                else _(
                    "%(who)s cannot show a %(size)s poignée: that hand held %(held)s trumps "
                    "(Excuse included) and it needs %(needed)s. Check the poignée and who showed it."
                )
            )
            errors[f"poignees.{position}"] = template % {
                "who": _who(position, seats),
                "size": str(PoigneeLabel(size).label).lower(),
                "held": held,
                "needed": needed,
            }

    errors.update(
        announcement_checks(
            hands=parsed,
            chien=parsed_chien,
            taker=taker,
            contract=contract,
            bouts=bouts,
            points=points,
            petit_au_bout=petit_au_bout,
            chelem=chelem,
            seats=seats,
        )
    )

    if taker and contract and bouts is not None:
        places = _bout_places(parsed, taker=taker, contract=contract)
        kinds = [kind for kind, _card, _where in places]

        def named(kind: int) -> str:
            return ", ".join(_bout_texts(places, kind, contract, seats))

        most = 3 - kinds.count(_SURE_DEFENCE)
        least = kinds.count(_SURE_ATTACK)
        if bouts > most:
            warnings["bouts_held_by_defence"] = _(
                "The attack counts %(bouts)s bout(s), but %(cards)s: the defence kept it, so "
                "the attack has at most %(most)s. Check the bouts."
            ) % {"bouts": bouts, "cards": named(_SURE_DEFENCE), "most": most}
        elif bouts > most - kinds.count(_LIKELY_DEFENCE):
            warnings["excuse_held_by_defence"] = _(
                "The attack counts %(bouts)s bout(s), but %(cards)s: it stays with the defence "
                "unless it was played to the last trick. Check the bouts, or confirm."
            ) % {"bouts": bouts, "cards": named(_LIKELY_DEFENCE)}
        if bouts < least:
            warnings["bouts_held_by_attack"] = _(
                "The attack counts %(bouts)s bout(s), but %(cards)s: the attack kept it, so it "
                "has at least %(least)s. Check the bouts."
            ) % {"bouts": bouts, "cards": named(_SURE_ATTACK), "least": least}
        elif bouts < least + kinds.count(_LIKELY_ATTACK):
            warnings["excuse_held_by_attack"] = _(
                "The attack counts %(bouts)s bout(s), but %(cards)s: it stays with the attack "
                "unless it was played to the last trick. Check the bouts, or confirm."
            ) % {"bouts": bouts, "cards": named(_LIKELY_ATTACK)}
    return errors, warnings


def _holder(
    hands: Mapping[str, tuple[cards.Card, ...]], card: cards.Card, *, taker: str, contract: str
) -> str:
    """Position whose camp plays ``card``, or "chien" when it stays in the chien (garde sans,
    garde contre). Under a prise or garde the taker takes the chien and cannot discard a bout."""
    where = next((p for p, hand in hands.items() if card in hand), "chien")
    if where == "chien" and contract in TAKES_CHIEN:
        return taker
    return where


def announcement_checks(
    *,
    hands: Mapping[str, tuple[cards.Card, ...]],
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
    errors: dict[str, str] = {}
    if not taker or not contract:
        return errors
    if petit_au_bout and contract in ("garde_sans", "garde_contre") and cards.PETIT in chien:
        errors["petit_au_bout"] = _(
            "The Petit lies in the chien (%(contract)s): it is never played, so nobody wins it "
            "at the last trick. Clear the petit au bout."
        ) % {"contract": _contract_name(contract)}
    if not chelem or chelem == "announced_failed":
        return errors

    holder_21 = _holder(hands, cards.TRUMP_21, taker=taker, contract=contract)
    holder_excuse = _holder(hands, cards.EXCUSE, taker=taker, contract=contract)
    chien_bouts = cards.bouts_in(chien)
    if chelem in CHELEM_MADE:
        if holder_21 not in (taker, "chien"):
            errors["chelem"] = _(
                "%(who)s holds the 21: the defence takes at least one trick. A chelem of the "
                "attack is impossible; check the chelem."
            ) % {"who": _who(holder_21, seats)}
        reasons: list[str] = []
        expected, least = 3, Decimal(91)
        if holder_excuse not in (taker, "chien"):
            expected -= 1
            least -= Decimal("4.5")
            reasons.append(
                _("%(who)s holds the Excuse and keeps it") % {"who": _who(holder_excuse, seats)}
            )
        if contract == "garde_contre":
            expected -= chien_bouts
            chien_points = cards.points_in(chien)
            least -= Decimal(chien_points.numerator) / chien_points.denominator
            reasons.append(
                _(
                    "the chien of the garde contre (%(points)s points, %(bouts)s bout(s)) goes to "
                    "the defence"
                )
                % {"points": _number(chien_points), "bouts": chien_bouts}
            )
        why = "; ".join(reasons) or _("the attack takes every card")
        if bouts is not None and bouts != expected:
            errors["bouts"] = _(
                "With a chelem of the attack, the attack owns exactly %(expected)s bout(s), not "
                "%(bouts)s (%(why)s). Check the bouts or the chelem."
            ) % {"expected": expected, "bouts": bouts, "why": why}
        if points is not None and Decimal(points) < least:
            errors["points"] = _(
                "With a chelem of the attack, the attack has at least %(least)s points, not "
                "%(points)s (%(why)s). Check the points or the chelem."
            ) % {"least": _number(least), "points": _number(Decimal(points)), "why": why}
    elif chelem == "defence":
        if holder_21 == taker:
            errors["chelem"] = _(
                "%(who)s, the taker, holds the 21: the attack takes at least one trick. A chelem "
                "of the defence is impossible; check the chelem."
            ) % {"who": _who(taker, seats)}
        reasons = []
        most = 0
        if holder_excuse == taker:
            most += 1
            reasons.append(_("%(who)s holds the Excuse and keeps it") % {"who": _who(taker, seats)})
        if contract == "garde_sans":
            most += chien_bouts
            reasons.append(
                _("the chien of the garde sans holds %(bouts)s bout(s)") % {"bouts": chien_bouts}
            )
        why = "; ".join(reasons) or _("the defence takes every card")
        if bouts is not None and bouts > most:
            errors["bouts"] = _(
                "With a chelem of the defence, the attack owns at most %(most)s bout(s), not "
                "%(bouts)s (%(why)s). Check the bouts or the chelem."
            ) % {"most": most, "bouts": bouts, "why": why}
    return errors


def _contract_name(code: str) -> str:
    from ..models import Contract

    return str(Contract(code).label) if code in Contract.values else code


def _number(value: Any) -> str:
    """40, 40.5: points as people write them (the active language's decimal mark)."""
    from django.utils.formats import number_format

    value = Decimal(value.numerator) / value.denominator if hasattr(value, "numerator") else value
    value = Decimal(value)
    return number_format(value, 0 if value == value.to_integral_value() else 1)
