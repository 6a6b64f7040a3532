"""Tarot cards, hands and donnes, and their ASCII text notation (RULES §1, §2, §6). No Django.

Why this module exists: pre-dealt donnes travel as text (the arbiter's printed diagrams, the file
published with the seed after the tournament so anyone can check the deal), so the notation must
be exact, readable by a person and round-trip. The notation is specified in docs/formats.md.

Cards are small ints (``Card`` subclasses ``int``), numbered 0..77 in **display order**:
♠ R D C V 10 … 1, then ♥, ♦, ♣ the same way, then the trumps 21 … 1, then the Excuse (77).
Sorting cards therefore sorts them for display, and a card is as cheap as an int.
"""

from __future__ import annotations

import operator
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, SupportsIndex

from scoring.rules.errors import Message, ScoringError, ngettext

__all__ = [
    "CHIEN_SIZE",
    "DECK",
    "DECK_HALF_POINTS",
    "EXCUSE",
    "FORMAT_VERSION",
    "HAND_SIZE",
    "PETIT",
    "POSITIONS",
    "SUITS",
    "TRUMP_21",
    "Card",
    "Donne",
    "DonneSet",
    "Hand",
    "InvalidIdentity",
    "NotationError",
    "bouts_in",
    "check_identity",
    "format_cards",
    "format_donne",
    "format_donne_set",
    "format_hand",
    "holds",
    "is_petit_sec",
    "parse_card",
    "parse_cards",
    "parse_donne",
    "parse_donne_set",
    "parse_hand",
    "points_in",
    "sort_cards",
    "trump_count",
]


def _(message: str) -> str:
    """Mark a string for translation without importing Django (see scoring/rules/errors.py)."""
    return message


SUITS: tuple[str, ...] = ("S", "H", "D", "C")
POSITIONS: tuple[str, ...] = ("N", "E", "S", "W")
HAND_SIZE = 18  # four players (duplicate is played four to a table, RULES §2)
CHIEN_SIZE = 6
DECK_HALF_POINTS = 182  # 91 points (RULES §1)
FORMAT_VERSION = 1

_SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SUIT_FR = {"S": "pique", "H": "cœur", "D": "carreau", "C": "trèfle"}
_SUIT_EN = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
# Rank tokens in display order (offset 0..13 inside a suit): Roi, Dame, Cavalier, Valet, 10 … 1.
_RANK_TOKENS: tuple[str, ...] = ("R", "D", "C", "V", *(str(v) for v in range(10, 0, -1)))
_RANK_OFFSET = {tok: i for i, tok in enumerate(_RANK_TOKENS)}
_FACE_FR = {"R": "Roi", "D": "Dame", "C": "Cavalier", "V": "Valet", "1": "As"}
_FACE_EN = {"R": "King", "D": "Queen", "C": "Knight", "V": "Jack", "1": "Ace"}
_FACE_HALF_POINTS = {0: 9, 1: 7, 2: 5, 3: 3}  # offset in suit -> half points (R, D, C, V)

# The parts of a deal (hands N E S W, chien) as words in messages, each marked whole so that a
# translation can say "la main de Nord": as a subject ("Hand N has …") and inside a sentence.
_PART_SUBJECTS: tuple[str, ...] = (
    _("Hand N"),
    _("Hand E"),
    _("Hand S"),
    _("Hand W"),
    _("The chien"),
)
_PART_NAMES: tuple[str, ...] = (
    _("hand N"),
    _("hand E"),
    _("hand S"),
    _("hand W"),
    _("the chien"),
)


def part_name(index: int) -> Message:
    """Hand N, E, S, W (index 0-3) or the chien (4), as words inside a sentence."""
    return Message(_PART_NAMES[index])


_FIRST_TRUMP = 56  # id of the 21; trump n has id 77 - n
_EXCUSE_ID = 77


class NotationError(ScoringError):
    """Text that is not valid card / hand / donne notation; says where (line) and what."""

    field = "donnes"
    templates = {
        "card_unknown": _(
            "Unknown card %(token)s. Write a suit letter S, H, D or C and a rank 1-10, V, C, D "
            "or R (e.g. SR, H10), T1 to T21 for trumps, or EX for the Excuse."
        ),
        "card_duplicate": _("Card %(card)s is written twice. Each card appears once."),
        "group_unknown": _(
            "Unknown group %(token)s. A hand is written as groups S: H: D: C: T: (e.g. "
            "S:R D 7 H:- D:V C:10 T:21 5 EX)."
        ),
        "group_twice": _("Group %(group)s: is written twice in this hand. Write it once."),
        "token_outside_group": _(
            "%(token)s is not inside a group. Start the hand with a group such as S:."
        ),
        "rank_unknown": _("%(token)s is not a rank of group %(group)s:. Use %(allowed)s."),
        "void_mixed": _(
            "Group %(group)s: has '-' (void) and cards. Write either '-' or the cards."
        ),
        "line": _("Line %(line)s: %(message)s"),
        "count": ngettext(
            "%(what)s has %(count)s card; it must have %(expected)s. Check the cards written.",
            "%(what)s has %(count)s cards; it must have %(expected)s. Check the cards written.",
            "count",
        ),
        "hands_count": ngettext(
            "A donne has %(count)s hand; it must have 4 (N, E, S and W). Check the hands given.",
            "A donne has %(count)s hands; it must have 4 (N, E, S and W). Check the hands given.",
            "count",
        ),
        "count_missing": ngettext(
            "%(what)s has %(count)s card; it must have %(expected)s. Not in the donne: %(cards)s.",
            "%(what)s has %(count)s cards; it must have %(expected)s. Not in the donne: %(cards)s.",
            "count",
        ),
        "duplicate_in_donne": _(
            "Card %(card)s is in %(first)s and in %(second)s. Each card appears once per donne."
        ),
        "missing_in_donne": _(
            "Donne %(number)s lacks %(cards)s. Each of the 78 cards appears once per donne."
        ),
        "position_unknown": _("Unknown position %(value)s. Positions are N, E, S and W."),
        "number_invalid": _("Donne number %(value)s is not valid. Number donnes 1, 2, 3 …"),
        "redraws_invalid": _("Redraws %(value)s is not valid: write a whole number, 0 or more."),
        "expected_donne": _("Expected a line 'donne <number> dealer <position>', found %(text)s."),
        "block_line_unknown": _(
            "Expected a hand line (N, E, S or W followed by the hand) or 'chien', found %(text)s."
        ),
        "block_line_twice": _("%(what)s is written twice in donne %(number)s."),
        "block_incomplete": ngettext(
            "Donne %(number)s lacks the line %(missing)s. A donne has N, E, S, W and chien.",
            "Donne %(number)s lacks the lines %(missing)s. A donne has N, E, S, W and chien.",
            "count",
        ),
        "header_magic": _("Not a tarot_club donnes file: the first line must be '%(expected)s'."),
        "header_version": _(
            "Format version %(value)s is not supported; this software reads version %(expected)s."
        ),
        "header_unknown": _(
            "Unknown header line %(text)s. The header has identity, commitment, seed and donnes."
        ),
        "header_twice": _("Header line %(key)s is written twice."),
        "header_missing": _("The header lacks the line %(key)s."),
        "hex_invalid": _("%(key)s must be hexadecimal (0-9, a-f)%(length)s; %(value)s is not."),
        "count_invalid": _("'donnes' must be a whole number, 0 or more; %(value)s is not."),
        "count_mismatch": ngettext(
            "The header announces %(expected)s donne but the file has %(count)s. "
            "The file may be truncated.",
            "The header announces %(expected)s donnes but the file has %(count)s. "
            "The file may be truncated.",
            "expected",
        ),
        "number_order": _(
            "Donne %(number)s comes after donne %(previous)s. Donnes are listed once each, "
            "in increasing order."
        ),
        "empty": _("The text is empty."),
    }

    def __init__(self, code: str, template: str | None = None, **params: Any) -> None:
        super().__init__(code, template, **params)
        self.line: int | None = params.get("line")
        self.inner: NotationError | None = None

    @classmethod
    def at(cls, line: int | None, err: NotationError) -> NotationError:
        """Return err located at a line (1-based) of the text being parsed."""
        if line is None or err.line is not None:
            return err
        located = cls("line", line=line, message=err.message())
        located.inner = err  # the located problem, to translate on its own
        return located


class InvalidIdentity(ScoringError):
    """A tournament identity that cannot be written on one line or hashed unambiguously."""

    field = "identity"
    templates = {
        "identity_empty": _("The tournament identity is empty. Give e.g. the club and the date."),
        "identity_control": _(
            "The tournament identity must be one line of printable text; %(value)s is not."
        ),
        "identity_spaces": _(
            "The tournament identity must not start or end with spaces; %(value)s does."
        ),
        "identity_type": _("The tournament identity must be text; %(value)s is not."),
    }


class Card(int):
    """One of the 78 cards, as an int 0..77 in display order (see the module docstring)."""

    __slots__ = ()

    def __new__(cls, value: SupportsIndex) -> Card:
        if isinstance(value, Card):
            return value
        if isinstance(value, bool):
            raise TypeError("a card is an int 0..77, not a bool")
        index = operator.index(value)
        if not 0 <= index < 78:
            raise ValueError(f"card id {index} is outside 0..77")
        return DECK[index]

    @classmethod
    def parse(cls, token: str) -> Card:
        """The card for a code such as 'SR', 'h10', 'T21' or 'EX' (case-insensitive)."""
        return parse_card(token)

    @property
    def suit(self) -> str | None:
        """'S', 'H', 'D' or 'C'; None for trumps and the Excuse."""
        return SUITS[self // 14] if self < _FIRST_TRUMP else None

    @property
    def rank(self) -> int:
        """Suit cards 1..14 (V 11, C 12, D 13, R 14); trumps 1..21; the Excuse 0."""
        if self < _FIRST_TRUMP:
            return 14 - self % 14
        return 77 - int(self) if self < _EXCUSE_ID else 0

    @property
    def is_trump(self) -> bool:
        """True for the 21 atouts (the Excuse is not a trump)."""
        return _FIRST_TRUMP <= self < _EXCUSE_ID

    @property
    def is_excuse(self) -> bool:
        return self == _EXCUSE_ID

    @property
    def is_bout(self) -> bool:
        """The Petit, the 21 and the Excuse (RULES §1)."""
        return self in (_FIRST_TRUMP, 76, _EXCUSE_ID)

    @property
    def half_points(self) -> int:
        """Value in half points: bouts and kings 9, dames 7, cavaliers 5, valets 3, others 1."""
        return _HALF_POINTS[self]

    @property
    def points(self) -> Fraction:
        """Value in points (4.5 for a bout or a king)."""
        return Fraction(_HALF_POINTS[self], 2)

    @property
    def code(self) -> str:
        """ASCII code used in files: 'SR', 'H10', 'T21', 'EX'."""
        return _CODES[self]

    @property
    def symbol(self) -> str:
        """Short display form: 'R♠', '10♥', '21', 'Exc'."""
        if self < _FIRST_TRUMP:
            return _RANK_TOKENS[self % 14] + _SUIT_SYMBOLS[SUITS[self // 14]]
        return str(self.rank) if self < _EXCUSE_ID else "Exc"

    @property
    def label_fr(self) -> str:
        """French name: 'Roi de pique', '7 de cœur', '21 d’atout', 'Petit', 'Excuse'."""
        if self < _FIRST_TRUMP:
            tok = _RANK_TOKENS[self % 14]
            suit = _SUIT_FR[SUITS[self // 14]]
            return f"{_FACE_FR.get(tok, tok)} de {suit}"
        if self == 76:
            return "Petit (1 d’atout)"
        return f"{self.rank} d’atout" if self < _EXCUSE_ID else "Excuse"

    @property
    def label_en(self) -> str:
        """English name: 'King of spades', '7 of hearts', 'Trump 21', 'Petit', 'Excuse'."""
        if self < _FIRST_TRUMP:
            tok = _RANK_TOKENS[self % 14]
            return f"{_FACE_EN.get(tok, tok)} of {_SUIT_EN[SUITS[self // 14]]}"
        if self == 76:
            return "Petit (trump 1)"
        return f"Trump {self.rank}" if self < _EXCUSE_ID else "Excuse"

    def __repr__(self) -> str:
        return f"Card({_CODES[self]!r})"

    def __str__(self) -> str:
        return _CODES[self]

    def __reduce__(self) -> tuple[Any, ...]:
        return (Card, (int(self),))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Card:
        return self


def _code(i: int) -> str:
    if i < _FIRST_TRUMP:
        return SUITS[i // 14] + _RANK_TOKENS[i % 14]
    return f"T{77 - i}" if i < _EXCUSE_ID else "EX"


def _half_points(i: int) -> int:
    if i in (_FIRST_TRUMP, 76, _EXCUSE_ID):
        return 9
    if i < _FIRST_TRUMP:
        return _FACE_HALF_POINTS.get(i % 14, 1)
    return 1


DECK: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(78))
_CODES: tuple[str, ...] = tuple(_code(i) for i in range(78))
_HALF_POINTS: tuple[int, ...] = tuple(_half_points(i) for i in range(78))
_BY_CODE: dict[str, Card] = {c: DECK[i] for i, c in enumerate(_CODES)}
TRUMP_21: Card = DECK[_FIRST_TRUMP]
PETIT: Card = DECK[76]
EXCUSE: Card = DECK[_EXCUSE_ID]
assert sum(_HALF_POINTS) == DECK_HALF_POINTS


# --- single cards and flat card lists ---------------------------------------------------------


def parse_card(token: str) -> Card:
    """The card for an ASCII code ('SR', 'h10', 'T21', 'ex'); NotationError if unknown."""
    card = _BY_CODE.get(token.strip().upper()) if isinstance(token, str) else None
    if card is None:
        raise NotationError("card_unknown", token=repr(token))
    return card


def _as_card(card: Card | int | str) -> Card:
    return parse_card(card) if isinstance(card, str) else Card(card)


def sort_cards(cards: Iterable[Card | int | str]) -> tuple[Card, ...]:
    """Cards as a tuple in display order (♠ ♥ ♦ ♣ kings first, trumps 21..1, Excuse last)."""
    return tuple(sorted(_as_card(c) for c in cards))


def format_cards(cards: Iterable[Card | int]) -> str:
    """Flat notation: codes in display order separated by one space ('SR H10 T21 EX')."""
    return " ".join(_CODES[c] for c in sorted(Card(c) for c in cards))


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse flat notation (any order, any case, any whitespace); refuses duplicates."""
    cards: list[Card] = []
    seen: set[Card] = set()
    for token in text.split():
        card = parse_card(token)
        if card in seen:
            raise NotationError("card_duplicate", card=card.code)
        seen.add(card)
        cards.append(card)
    return tuple(sorted(cards))


# --- hands: grouped notation S:… H:… D:… C:… T:… ----------------------------------------------

_GROUPS: tuple[str, ...] = ("S", "H", "D", "C", "T")
_TRUMP_TOKENS = {str(n): DECK[77 - n] for n in range(1, 22)}
_GROUP_RE = re.compile(r"^([A-Za-z]+):(.*)$")


def format_hand(cards: Iterable[Card | int]) -> str:
    """Grouped notation, all five groups, voids as '-': 'S:R 7 H:- D:V 5 C:1 T:21 3 EX'."""
    groups: dict[str, list[str]] = {g: [] for g in _GROUPS}
    for c in sorted(Card(c) for c in cards):
        if c < _FIRST_TRUMP:
            groups[SUITS[c // 14]].append(_RANK_TOKENS[c % 14])
        elif c < _EXCUSE_ID:
            groups["T"].append(str(77 - c))
        else:
            groups["T"].append("EX")
    return " ".join(f"{g}:{' '.join(groups[g]) if groups[g] else '-'}" for g in _GROUPS)


def parse_hand(text: str) -> tuple[Card, ...]:
    """Parse grouped notation (case-insensitive, groups in any order, absent group = void).

    A group tag is a letter and ':' ('S:', 'T:'); the tokens up to the next tag are its ranks.
    '-' marks a void and stands alone in its group; 'EX' (the Excuse) may stand anywhere,
    canonically at the end of the T group.
    """
    cards: list[Card] = []
    seen: set[Card] = set()
    group: str | None = None
    used: set[str] = set()
    tokens_in: dict[str, int] = {}
    void: set[str] = set()
    for raw in text.split():
        m = _GROUP_RE.match(raw)
        if m:
            group = m.group(1).upper()
            if group not in _GROUPS:
                raise NotationError("group_unknown", token=repr(raw))
            if group in used:
                raise NotationError("group_twice", group=group)
            used.add(group)
            tokens_in[group] = 0
            raw = m.group(2)
            if not raw:
                continue
        token = raw.upper()
        if group is not None:
            if (token == "-" and tokens_in[group]) or group in void:
                raise NotationError("void_mixed", group=group)
            tokens_in[group] += 1
        if token == "EX":
            card = EXCUSE
        elif group is None:
            raise NotationError("token_outside_group", token=repr(raw))
        elif token == "-":
            void.add(group)
            continue
        elif group == "T":
            found = _TRUMP_TOKENS.get(token)
            if found is None:
                raise NotationError(
                    "rank_unknown",
                    token=repr(raw),
                    group=group,
                    allowed=Message(_("1 to 21, or EX")),
                )
            card = found
        else:
            offset = _RANK_OFFSET.get(token)
            if offset is None:
                raise NotationError(
                    "rank_unknown",
                    token=repr(raw),
                    group=group,
                    allowed=Message(_("1-10, V, C, D, R, or EX")),
                )
            card = DECK[SUITS.index(group) * 14 + offset]
        if card in seen:
            raise NotationError("card_duplicate", card=card.code)
        seen.add(card)
        cards.append(card)
    return tuple(sorted(cards))


# --- helpers the arbiter checks need ----------------------------------------------------------


def trump_count(cards: Iterable[Card | int | str], include_excuse: bool = True) -> int:
    """Trumps held, the Excuse counted by default (as for a poignée, RULES §4)."""
    n = 0
    for c in cards:
        c = _as_card(c)
        if _FIRST_TRUMP <= c < _EXCUSE_ID or (include_excuse and c == _EXCUSE_ID):
            n += 1
    return n


def holds(cards: Iterable[Card | int | str], card: Card | int | str) -> bool:
    """True if the card (a Card, an id or a code such as 'T1') is among the cards."""
    wanted = _as_card(card)
    return any(_as_card(c) == wanted for c in cards)


def bouts_in(cards: Iterable[Card | int | str]) -> int:
    """Number of bouts (Petit, 21, Excuse) among the cards."""
    return sum(1 for c in cards if _as_card(c) in (_FIRST_TRUMP, 76, _EXCUSE_ID))


def points_in(cards: Iterable[Card | int | str]) -> Fraction:
    """Card points of the cards, exact (half points kept)."""
    return Fraction(sum(_HALF_POINTS[_as_card(c)] for c in cards), 2)


def is_petit_sec(cards: Iterable[Card | int | str]) -> bool:
    """RULES §2: the Petit is the hand's only trump and the hand has no Excuse."""
    trumps = [c for c in map(_as_card, cards) if c >= _FIRST_TRUMP]
    return trumps == [PETIT]


# --- identities -------------------------------------------------------------------------------


def check_identity(identity: str) -> str:
    """Return the tournament identity in NFC form; refuse what cannot sit on one header line.

    Why NFC: the identity is hashed (commitment, deal stream); 'é' typed two ways must hash alike.
    """
    if not isinstance(identity, str):
        raise InvalidIdentity("identity_type", value=repr(identity))
    if not identity:
        raise InvalidIdentity("identity_empty")
    if any(unicodedata.category(ch).startswith("C") for ch in identity):
        raise InvalidIdentity("identity_control", value=repr(identity))
    if identity != identity.strip():
        raise InvalidIdentity("identity_spaces", value=repr(identity))
    return unicodedata.normalize("NFC", identity)


# --- donnes -----------------------------------------------------------------------------------

Hand = tuple[Card, ...]


def _deal_problems(
    hands: Sequence[Sequence[Card]], chien: Sequence[Card]
) -> list[tuple[int, NotationError]]:
    """Problems of a four-player deal, each tied to its part (0-3: hands N E S W, 4: chien)."""
    problems: list[tuple[int, NotationError]] = []
    owner: dict[Card, int] = {}
    parts = [*hands, chien]
    missing = ", ".join(c.code for c in _missing(parts))
    for k, part in enumerate(parts):
        expected = CHIEN_SIZE if k == 4 else HAND_SIZE
        if len(part) != expected:
            what = Message(_PART_SUBJECTS[k])
            if missing:
                err = NotationError(
                    "count_missing", what=what, count=len(part), expected=expected, cards=missing
                )
            else:
                err = NotationError("count", what=what, count=len(part), expected=expected)
            problems.append((k, err))
        for c in part:
            if c in owner:
                err = NotationError(
                    "duplicate_in_donne",
                    card=c.code,
                    first=Message(_PART_NAMES[owner[c]]),
                    second=Message(_PART_NAMES[k]),
                )
                problems.append((k, err))
            else:
                owner[c] = k
    return problems


def _missing(parts: Iterable[Iterable[Card]]) -> list[Card]:
    present = {c for part in parts for c in part}
    return [c for c in DECK if c not in present]


@dataclass(frozen=True)
class Donne:
    """One pre-dealt four-player deal: number, dealer, hands N E S W (18 each), chien (6).

    ``redraws`` counts the attempts the generator discarded (petit sec, RULES §2); 0 for a donne
    that was not generated here. Hands are stored sorted, so equal deals compare equal.
    """

    number: int
    dealer: str
    hands: tuple[Hand, Hand, Hand, Hand]
    chien: Hand
    redraws: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.number, bool) or not isinstance(self.number, int) or self.number < 1:
            raise NotationError("number_invalid", value=repr(self.number))
        if self.dealer not in POSITIONS:
            raise NotationError("position_unknown", value=repr(self.dealer))
        if isinstance(self.redraws, bool) or not isinstance(self.redraws, int) or self.redraws < 0:
            raise NotationError("redraws_invalid", value=repr(self.redraws))
        if len(self.hands) != 4:
            raise NotationError("hands_count", count=len(self.hands))
        hands = tuple(sort_cards(h) for h in self.hands)
        chien = sort_cards(self.chien)
        problems = _deal_problems(hands, chien)
        if problems:
            raise problems[0][1]
        missing = _missing([*hands, chien])
        if missing:
            raise NotationError(
                "missing_in_donne", number=self.number, cards=", ".join(c.code for c in missing)
            )
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "chien", chien)

    def hand(self, position: str) -> Hand:
        """The hand dealt to a position 'N', 'E', 'S' or 'W'."""
        try:
            return self.hands[POSITIONS.index(position)]
        except ValueError:
            raise NotationError("position_unknown", value=repr(position)) from None

    def holder(self, card: Card | int | str) -> str:
        """Where a card was dealt: 'N', 'E', 'S', 'W' or 'chien'."""
        wanted = _as_card(card)
        for pos, hand in zip(POSITIONS, self.hands, strict=True):
            if wanted in hand:
                return pos
        return "chien"

    def to_text(self) -> str:
        """This donne as a canonical text block (see format_donne)."""
        return format_donne(self)


def format_donne(donne: Donne) -> str:
    """Canonical block: 'donne 3 dealer S' (+ ' redraws 1' if any), N, E, S, W and chien lines."""
    head = f"donne {donne.number} dealer {donne.dealer}"
    if donne.redraws:
        head += f" redraws {donne.redraws}"
    lines = [head]
    lines += [f"{p} {format_hand(h)}" for p, h in zip(POSITIONS, donne.hands, strict=True)]
    lines.append(f"chien {format_hand(donne.chien)}")
    return "\n".join(lines) + "\n"


_DONNE_RE = re.compile(r"^donne\s+(\S+)\s+dealer\s+(\S+)(?:\s+redraws\s+(\S+))?$", re.IGNORECASE)


def _parse_int(text: str, code: str) -> int:
    if not re.fullmatch(r"[0-9]+", text):
        raise NotationError(code, value=repr(text))
    return int(text)


def _parse_block(lines: list[tuple[int, str]]) -> Donne:
    """Parse one donne block given as (line number, stripped text) pairs."""
    head_no, head = lines[0]
    m = _DONNE_RE.match(head)
    if not m:
        raise NotationError.at(head_no, NotationError("expected_donne", text=repr(head)))
    try:
        number = _parse_int(m.group(1), "number_invalid")
        if number < 1:
            raise NotationError("number_invalid", value=repr(m.group(1)))
        dealer = m.group(2).upper()
        if dealer not in POSITIONS:
            raise NotationError("position_unknown", value=repr(m.group(2)))
        redraws = _parse_int(m.group(3), "redraws_invalid") if m.group(3) is not None else 0
    except NotationError as err:
        raise NotationError.at(head_no, err) from None
    parts: dict[str, tuple[int, Hand]] = {}
    for line_no, text in lines[1:]:
        key, _sep, rest = text.partition(" ")
        key = key.upper()
        if key not in (*POSITIONS, "CHIEN"):
            raise NotationError.at(line_no, NotationError("block_line_unknown", text=repr(text)))
        what = Message(_PART_SUBJECTS[4 if key == "CHIEN" else POSITIONS.index(key)])
        if key in parts:
            raise NotationError.at(
                line_no, NotationError("block_line_twice", what=what, number=number)
            )
        try:
            parts[key] = (line_no, parse_hand(rest))
        except NotationError as err:
            raise NotationError.at(line_no, err) from None
    missing_keys = [
        k.lower() if k == "CHIEN" else k for k in (*POSITIONS, "CHIEN") if k not in parts
    ]
    if missing_keys:
        raise NotationError.at(
            head_no,
            NotationError(
                "block_incomplete",
                number=number,
                missing=", ".join(missing_keys),
                count=len(missing_keys),
            ),
        )
    hands = [parts[p][1] for p in POSITIONS]
    chien = parts["CHIEN"][1]
    line_of = [parts[p][0] for p in POSITIONS] + [parts["CHIEN"][0]]
    problems = _deal_problems(hands, chien)
    if problems:
        k, err = problems[0]
        raise NotationError.at(line_of[k], err)
    missing = _missing([*hands, chien])
    if missing:
        raise NotationError.at(
            head_no,
            NotationError(
                "missing_in_donne", number=number, cards=", ".join(c.code for c in missing)
            ),
        )
    return Donne(number, dealer, (hands[0], hands[1], hands[2], hands[3]), chien, redraws)


def _content_lines(text: str) -> list[tuple[int, str]]:
    """Non-blank, non-comment lines with their 1-based numbers, stripped."""
    out = []
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line and not line.startswith("#"):
            out.append((i, line))
    return out


def parse_donne(text: str) -> Donne:
    """Parse one donne block (as written by format_donne); NotationError says line and problem."""
    lines = _content_lines(text)
    if not lines:
        raise NotationError("empty")
    if len(lines) > 6:
        raise NotationError.at(
            lines[6][0], NotationError("block_line_unknown", text=repr(lines[6][1]))
        )
    return _parse_block(lines)


# --- sets of donnes ---------------------------------------------------------------------------

_MAGIC = f"tarot_club donnes format {FORMAT_VERSION}"
_MAGIC_RE = re.compile(r"^tarot_club\s+donnes\s+format\s+(\S+)$", re.IGNORECASE)
_HEX_RE = re.compile(r"^[0-9a-fA-F]+$")


@dataclass(frozen=True)
class DonneSet:
    """The donnes of one tournament with the header that lets anyone check them.

    ``commitment`` is published before play (scoring.rules.dealing.commitment); ``seed`` is None until
    the organiser reveals it after the tournament.
    """

    identity: str
    commitment: str
    donnes: tuple[Donne, ...]
    seed: str | None = None

    version: ClassVar[int] = FORMAT_VERSION

    def __post_init__(self) -> None:
        object.__setattr__(self, "identity", check_identity(self.identity))
        object.__setattr__(self, "commitment", _check_hex("commitment", self.commitment, 64))
        if self.seed is not None:
            object.__setattr__(self, "seed", _check_hex("seed", self.seed, None))
        object.__setattr__(self, "donnes", tuple(self.donnes))
        previous = 0
        for d in self.donnes:
            if not isinstance(d, Donne):
                raise TypeError(f"DonneSet.donnes holds {type(d).__name__}, not Donne")
            if d.number <= previous:
                raise NotationError("number_order", number=d.number, previous=previous)
            previous = d.number

    def to_text(self) -> str:
        return format_donne_set(self)


def _check_hex(key: str, value: str, length: int | None) -> str:
    ok = isinstance(value, str) and bool(_HEX_RE.match(value))
    ok = ok and (len(value) == length if length else len(value) % 2 == 0)
    if not ok:
        detail = (
            Message(_(", %(digits)s digits"), digits=length)
            if length
            else Message(_(", an even number of digits"))
        )
        raise NotationError("hex_invalid", key=key, length=detail, value=repr(value))
    return value.lower()


def format_donne_set(donne_set: DonneSet) -> str:
    """Canonical text of a set: header lines, then one block per donne, blank line between."""
    head = [_MAGIC, f"identity {donne_set.identity}", f"commitment {donne_set.commitment}"]
    if donne_set.seed is not None:
        head.append(f"seed {donne_set.seed}")
    head.append(f"donnes {len(donne_set.donnes)}")
    blocks = ["\n".join(head) + "\n", *(format_donne(d) for d in donne_set.donnes)]
    return "\n".join(blocks)


def parse_donne_set(text: str) -> DonneSet:
    """Parse a set file; refuses anything malformed with the line number and the problem.

    Lenient on input: any case for keywords, positions and cards, extra blank lines,
    '#' comment lines, hand lines of a block in any order.
    """
    lines = _content_lines(text)
    if not lines:
        raise NotationError("empty")
    first_no, first = lines[0]
    m = _MAGIC_RE.match(first)
    if not m:
        raise NotationError.at(first_no, NotationError("header_magic", expected=_MAGIC))
    if m.group(1) != str(FORMAT_VERSION):
        raise NotationError.at(
            first_no,
            NotationError("header_version", value=repr(m.group(1)), expected=FORMAT_VERSION),
        )
    header: dict[str, tuple[int, str]] = {}
    i = 1
    while i < len(lines) and not lines[i][1].lower().startswith("donne "):
        line_no, line = lines[i]
        key, _sep, value = line.partition(" ")
        key = key.lower()
        if key not in ("identity", "commitment", "seed", "donnes"):
            raise NotationError.at(line_no, NotationError("header_unknown", text=repr(line)))
        if key in header:
            raise NotationError.at(line_no, NotationError("header_twice", key=key))
        header[key] = (line_no, value.strip() if key != "identity" else value)
        i += 1
    for key in ("identity", "commitment", "donnes"):
        if key not in header:
            raise NotationError.at(
                lines[i][0] if i < len(lines) else lines[-1][0],
                NotationError("header_missing", key=key),
            )
    identity_no, identity_text = header["identity"]
    try:
        identity = check_identity(identity_text)
    except InvalidIdentity as err:
        raise NotationError("line", line=identity_no, message=err.message()) from None
    try:
        commitment = _check_hex("commitment", header["commitment"][1], 64)
    except NotationError as err:
        raise NotationError.at(header["commitment"][0], err) from None
    seed = None
    if "seed" in header:
        try:
            seed = _check_hex("seed", header["seed"][1], None)
        except NotationError as err:
            raise NotationError.at(header["seed"][0], err) from None
    count_no, count_text = header["donnes"]
    try:
        count = _parse_int(count_text, "count_invalid")
    except NotationError as err:
        raise NotationError.at(count_no, err) from None
    donnes: list[Donne] = []
    previous = 0
    while i < len(lines):
        block = [lines[i]]
        i += 1
        while i < len(lines) and not lines[i][1].lower().startswith("donne "):
            block.append(lines[i])
            i += 1
        donne = _parse_block(block)
        if donne.number <= previous:
            raise NotationError.at(
                block[0][0], NotationError("number_order", number=donne.number, previous=previous)
            )
        previous = donne.number
        donnes.append(donne)
    if len(donnes) != count:
        raise NotationError.at(
            count_no, NotationError("count_mismatch", expected=count, count=len(donnes))
        )
    return DonneSet(identity, commitment, tuple(donnes), seed)
