"""What the known hands of a donne allow the attack to end with (RULES §4, §5.1, §5.2). No Django.

In duplicate the hands are known, so an entry can be compared with what the cards allow.
``attack_bounds`` says, for one entry's contract, taker (and partner at five), chelem and petit
au bout, the smallest and largest bouts and points the attack can own, and whether those bounds
are exact (RULES §5.1: an entry outside them is refused) or only likely (§5.2: an entry outside
them is questioned). It names the cards and their holders that make each bound, so that a
message can say why. ``poignee_trumps`` counts the trumps a player could show (§4). ``points_with_bouts`` bounds the
attack's points once the entry's declared bouts are counted with the cards each camp surely
owns unplayed (§5.2).

Camps are ``ATTACK`` and ``DEFENCE``; a card's place is a position or ``CHIEN``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from scoring.rules.cards import EXCUSE, PETIT, TRUMP_21, Card, bouts_in, points_in, trump_count

__all__ = [
    "ATTACK",
    "CHIEN",
    "CONTRACTS",
    "DEFENCE",
    "AttackBounds",
    "BoutPlace",
    "BoutPoints",
    "Discard",
    "attack_bounds",
    "discard_size",
    "discard_values",
    "poignee_trumps",
    "points_with_bouts",
]

ATTACK = "attack"
DEFENCE = "defence"
CHIEN = "chien"
DECK_POINTS = Fraction(91)
BOUT_POINTS = Fraction(9, 2)
CONTRACTS = frozenset({"prise", "garde", "garde_sans", "garde_contre"})
TAKES_CHIEN = frozenset({"prise", "garde"})  # the taker adds the chien to his hand (§3)
CHELEM_MADE = frozenset({"announced_made", "unannounced_made"})
CHELEM_DEFENCE = "defence"

# Why a bout counts for a camp (BoutPlace.why).
HELD = "held"  # the 21 (or the Excuse) counts for the camp of the hand that holds it
CHIEN_STAYS = "chien"  # a bout of the chien under garde sans or garde contre: never played
PETIT_AU_BOUT = "petit_au_bout"  # the Petit went to the camp that won the last trick
CHELEM = "chelem"  # the camp of the chelem took every card played, but an Excuse kept


def discard_size(players: int) -> int:
    """Cards of the écart: six at three and four players, three at five (RULES §2)."""
    return 3 if players == 5 else 6


def poignee_trumps(
    hands: Mapping[str, Sequence[Card]],
    chien: Sequence[Card],
    position: str,
    *,
    taker: str,
    contract: str,
) -> int:
    """Trumps (Excuse included) ``position`` could show (RULES §4): his hand, plus the chien for
    the taker of a prise or a garde, who takes it before the first card. While the contract is
    not chosen the chien is counted, so nothing is refused too early."""
    count = trump_count(hands[position])
    if position == taker and (contract in TAKES_CHIEN or not contract):
        count += trump_count(chien)
    return count


@dataclass(frozen=True)
class Discard:
    """The values the taker's écart can have with his cards: ``least`` and ``most`` points."""

    least: Fraction
    most: Fraction


def discard_values(cards: Sequence[Card], size: int) -> Discard:
    """Smallest and largest écart of ``size`` cards taken from ``cards`` (the taker's hand and
    the chien). RULES §3: no king and no bout; trumps only when the other cards do not suffice.
    """
    allowed = sorted(
        c.half_points for c in cards if not c.is_trump and not c.is_excuse and c.half_points != 9
    )
    if len(allowed) < size:  # trumps (half a point each) complete a forced écart
        forced = sum(allowed) + (size - len(allowed))
        return Discard(Fraction(forced, 2), Fraction(forced, 2))
    return Discard(Fraction(sum(allowed[:size]), 2), Fraction(sum(allowed[-size:]), 2))


@dataclass(frozen=True)
class BoutPlace:
    """A bout whose camp at the end of the deal the hands and the entry decide.

    ``where`` is the position that held it, or ``CHIEN``; ``why`` is HELD, CHIEN_STAYS,
    PETIT_AU_BOUT or CHELEM. ``firm`` is False for an Excuse that returns to its holder's camp
    unless it is played to the last trick (an irregular play, RULES §5.2): a likely place.
    """

    card: Card
    where: str
    camp: str
    why: str
    firm: bool = True


@dataclass(frozen=True)
class AttackBounds:
    """The attack's possible bouts and points for one entry, from the hands (RULES §5.1, §5.2).

    ``places`` are the bouts whose camp is decided. ``bouts_low``/``bouts_high`` count them
    (``firm_low``/``firm_high`` without the Excuse's likely return). ``points_low`` and
    ``points_high`` bound the points. With ``exact_bouts`` / ``exact_points`` the bound is
    §5.1's (refuse outside it); otherwise §5.2's (warn). ``chelem_blocker`` is the 21 whose camp
    takes a trick although the other camp's chelem was entered; ``petit_unplayed`` is True when a
    petit au bout was entered while the Petit lies in a chien nobody plays. ``half_point`` is
    True when a chelem leaves the attack a half point whatever the play (the Excuse kept by
    the camp that took no trick, RULES §5). ``excuse`` is where the Excuse was dealt and the camp it counts
    for; ``chien_points``/``chien_bouts`` describe the chien; ``discard`` the taker's possible
    écart under prise and garde (None otherwise).
    """

    places: tuple[BoutPlace, ...]
    bouts_low: int
    bouts_high: int
    firm_low: int
    firm_high: int
    points_low: Fraction
    points_high: Fraction
    exact_bouts: bool
    exact_points: bool
    chelem_blocker: BoutPlace | None
    petit_unplayed: bool
    half_point: bool
    excuse: tuple[str, str]
    chien_points: Fraction
    chien_bouts: int
    discard: Discard | None

    def bout_places(self, camp: str, *, firm: bool | None = None) -> tuple[BoutPlace, ...]:
        """The places of bouts decided for ``camp`` (only firm or only likely ones if asked)."""
        return tuple(p for p in self.places if p.camp == camp and (firm is None or p.firm == firm))


def _where(hands: Mapping[str, Sequence[Card]], card: Card) -> str:
    return next((p for p, hand in hands.items() if card in hand), CHIEN)


def _camp(where: str, attack: frozenset[str], contract: str) -> str:
    """The camp that plays (or owns) a card dealt to ``where``."""
    if where == CHIEN:
        return DEFENCE if contract == "garde_contre" else ATTACK
    return ATTACK if where in attack else DEFENCE


def _places(
    hands: Mapping[str, Sequence[Card]],
    attack: frozenset[str],
    contract: str,
    chelem: str,
    petit_au_bout: str,
) -> tuple[BoutPlace, ...]:
    """Where each bout ends, when the hands and the entry decide it (RULES §5.1, §5.2)."""
    unplayed_chien = contract in ("garde_sans", "garde_contre")
    places = []
    for card in (TRUMP_21, EXCUSE, PETIT):
        where = _where(hands, card)
        held_camp = _camp(where, attack, contract)
        if where == CHIEN and unplayed_chien:
            places.append(BoutPlace(card, where, held_camp, CHIEN_STAYS))
        elif chelem in CHELEM_MADE or chelem == CHELEM_DEFENCE:
            winner = ATTACK if chelem in CHELEM_MADE else DEFENCE
            camp = held_camp if card == EXCUSE else winner  # the Excuse stays with its holder
            places.append(BoutPlace(card, where, camp, CHELEM))
        elif card == TRUMP_21:
            places.append(BoutPlace(card, where, held_camp, HELD))
        elif card == EXCUSE:
            places.append(BoutPlace(card, where, held_camp, HELD, firm=False))
        elif petit_au_bout in (ATTACK, DEFENCE):
            places.append(BoutPlace(card, where, petit_au_bout, PETIT_AU_BOUT))
    return tuple(places)


def _chelem_blocker(
    places: Sequence[BoutPlace], attack: frozenset[str], contract: str, chelem: str
) -> BoutPlace | None:
    """The 21 that wins a trick for the camp that was said to take none (RULES §5.1)."""
    if chelem not in CHELEM_MADE and chelem != CHELEM_DEFENCE:
        return None
    place = next(p for p in places if p.card == TRUMP_21)
    if place.why == CHIEN_STAYS:
        return None  # never played
    holder_camp = _camp(place.where, attack, contract)
    loser = DEFENCE if chelem in CHELEM_MADE else ATTACK
    return place if holder_camp == loser else None


def _points(
    contract: str,
    chelem: str,
    excuse_camp: str,
    excuse_in_chien: bool,
    chien_points: Fraction,
    discard: Discard | None,
) -> tuple[Fraction, Fraction, bool]:
    """(least, most, exact) points of the attack (RULES §5.1, §5.2)."""
    kept_excuse = BOUT_POINTS if not excuse_in_chien else Fraction(0)
    if chelem in CHELEM_MADE:
        total = DECK_POINTS
        if excuse_camp == DEFENCE:
            total -= kept_excuse
        if contract == "garde_contre":
            total -= chien_points
        return total, total, True
    if chelem == CHELEM_DEFENCE:
        own = kept_excuse if excuse_camp == ATTACK else Fraction(0)
        if contract == "garde_sans":
            return own + chien_points, own + chien_points, True
        if contract == "garde_contre":
            return own, own, True
        assert discard is not None
        return own + discard.least, own + discard.most, False
    if contract == "garde_sans":
        return chien_points, DECK_POINTS, False
    if contract == "garde_contre":
        return Fraction(0), DECK_POINTS - chien_points, False
    assert discard is not None
    return discard.least, DECK_POINTS, False


def attack_bounds(
    *,
    hands: Mapping[str, Sequence[Card]],
    chien: Sequence[Card],
    contract: str,
    taker: str,
    partner: str = "",
    players: int = 4,
    chelem: str = "",
    petit_au_bout: str = "",
) -> AttackBounds:
    """The attack's smallest and largest bouts and points for an entry (see AttackBounds).

    ``hands`` maps each position to the cards it was dealt, ``chien`` is the chien; ``contract``
    is a contract code (prise, garde, garde_sans, garde_contre); ``partner`` the called king's
    holder at five (empty when the taker plays alone). ``chelem`` and ``petit_au_bout`` are the
    entry's codes, or empty. ValueError for a contract or taker the hands do not know.
    """
    if contract not in CONTRACTS or taker not in hands:
        raise ValueError(f"no bounds for contract {contract!r} and taker {taker!r}")
    attack = frozenset(p for p in (taker, partner) if p)
    places = _places(hands, attack, contract, chelem, petit_au_bout)
    discard = None
    if contract in TAKES_CHIEN:
        discard = discard_values((*hands[taker], *chien), discard_size(players))
    excuse_where = _where(hands, EXCUSE)
    excuse_camp = _camp(excuse_where, attack, contract)
    chien_points = points_in(chien)
    low, high, exact_points = _points(
        contract,
        chelem,
        excuse_camp,
        excuse_where == CHIEN and contract in ("garde_sans", "garde_contre"),
        chien_points,
        discard,
    )
    exact_bouts = chelem in CHELEM_MADE or chelem == CHELEM_DEFENCE
    to_attack = [p for p in places if p.camp == ATTACK]
    to_defence = [p for p in places if p.camp == DEFENCE]
    return AttackBounds(
        places=places,
        bouts_low=len(to_attack),
        bouts_high=3 - len(to_defence),
        firm_low=sum(1 for p in to_attack if p.firm),
        firm_high=3 - sum(1 for p in to_defence if p.firm),
        points_low=low,
        points_high=high,
        exact_bouts=exact_bouts,
        exact_points=exact_points,
        chelem_blocker=_chelem_blocker(places, attack, contract, chelem),
        petit_unplayed=bool(petit_au_bout)
        and contract in ("garde_sans", "garde_contre")
        and _where(hands, PETIT) == CHIEN,
        half_point=exact_bouts and low.denominator == 2 and high.denominator == 2,
        excuse=(excuse_where, excuse_camp),
        chien_points=chien_points,
        chien_bouts=bouts_in(chien),
        discard=discard,
    )


@dataclass(frozen=True)
class BoutPoints:
    """The attack's points once its declared bouts are counted (RULES §5.2).

    Each declared bout puts 4.5 points with the attack, each other bout 4.5 with the defence;
    on top of them each camp surely owns the cards that go to it unplayed, without their bouts
    (counted among the bouts already): ``attack_sure`` points (the chien of a garde sans, or
    the smallest écart of a prise or garde) and ``defence_sure`` points (the chien of a garde
    contre). ``sure_cards`` are the chien's cards behind them, bouts left out (empty under
    prise and garde, whose écart is not known). ``least`` and ``most`` bound the points.
    """

    bouts: int
    least: Fraction
    most: Fraction
    attack_sure: Fraction
    defence_sure: Fraction
    sure_cards: tuple[Card, ...]


def points_with_bouts(
    *, contract: str, chien: Sequence[Card], bouts: int, discard: Discard | None = None
) -> BoutPoints:
    """Bounds of the attack's points for ``bouts`` declared bouts (0 to 3) under ``contract``
    (see BoutPoints). ``discard`` is the taker's possible écart (`discard_values`), needed
    under prise and garde. ValueError for bouts outside 0-3, an unknown contract, or a prise
    or garde without its écart."""
    if contract not in CONTRACTS or not 0 <= bouts <= 3:
        raise ValueError(f"no bounds for contract {contract!r} and {bouts!r} bouts")
    plain = tuple(c for c in chien if not c.is_bout)
    attack_sure = defence_sure = Fraction(0)
    sure_cards: tuple[Card, ...] = ()
    if contract in TAKES_CHIEN:
        if discard is None:
            raise ValueError(f"a {contract} needs the taker's possible écart")
        attack_sure = discard.least  # an écart holds no bout (RULES §3)
    elif contract == "garde_sans":
        attack_sure, sure_cards = points_in(plain), plain
    else:
        defence_sure, sure_cards = points_in(plain), plain
    return BoutPoints(
        bouts=bouts,
        least=BOUT_POINTS * bouts + attack_sure,
        most=DECK_POINTS - BOUT_POINTS * (3 - bouts) - defence_sure,
        attack_sure=attack_sure,
        defence_sure=defence_sure,
        sure_cards=sure_cards,
    )
