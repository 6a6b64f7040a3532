"""A hand grouped by suit for the hub's pages, in the shape the site's hand diagram
(`templates/scoring/_hand.html`) reads: suit symbols, ranks in the page's language (R D C V or
K Q C J, `scoring.rules.display`), trumps high to low."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from scoring.rules import display
from scoring.rules.cards import NotationError, parse_hand
from tournaments.models import Position

POSITION_LABELS = dict(Position.choices)


@dataclass(frozen=True)
class Suit:
    symbol: str
    css: str
    cards: list[str]
    name: str


@dataclass(frozen=True)
class Hand:
    position: str
    label: str
    suits: list[Suit]
    trumps: list[str]
    raw: str


def hand_view(position: str, text: str, language: str) -> Hand:
    """The hand held at `position` ("" for the chien), as the diagram shows it; a hand the
    notation cannot read is shown as stored."""
    label = str(POSITION_LABELS.get(position, "")) if position else _("Chien")
    try:
        cards = parse_hand(text)
    except NotationError:
        return Hand(position, label, [], [], text)
    suits: dict[str, list[str]] = {s: [] for s in display.SUITS}
    trumps: list[str] = []
    for card in cards:
        if card.suit is not None:
            suits[card.suit].append(display.rank_text(card.rank, language))
        else:
            trumps.append(card.symbol)
    return Hand(
        position,
        label,
        [
            Suit(display.SUIT_SYMBOLS[s], f"suit-{s}", suits[s], display.suit_name(s, language))
            for s in display.SUITS
        ],
        trumps,
        text,
    )
