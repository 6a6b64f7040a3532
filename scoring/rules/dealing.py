"""Fair, verifiable pre-dealt donnes (RULES §2, §6). Pure Python, no Django.

Why: in duplicate every table plays the same donnes, so the deal must be fair (uniform), fixed in
advance, and checkable afterwards by anyone. The organiser draws a secret seed, publishes
``commitment(seed, identity)`` before play, and reveals the seed after the tournament; anyone can
then regenerate every donne (``verify``) and see that none was chosen by hand.

The procedure (version 1; any change of output needs a new domain string):

1. ``seed``: at least 16 bytes, given as bytes or as a hexadecimal string (``new_seed`` makes 32
   random bytes as 64 hex digits). ``identity``: one line of text naming the tournament, used in
   NFC form and UTF-8 encoded.
2. Commitment: ``sha256(b"tarot_club/v1\\n" + identity + b"\\n" + seed)``, in lowercase hex.
3. Random stream for donne ``k``, attempt ``a``: the concatenation, for counter ``c`` = 0, 1, …,
   of ``HMAC-SHA256(key=seed, msg=b"tarot_club/deal/v1\\n" + identity + b"\\n" + f"{k}:{a}:{c}")``.
4. Unbiased integer below ``m`` (m ≤ 256): take the next stream byte ``b``; if
   ``b < 256 - 256 % m`` return ``b % m``, otherwise discard it and take the next byte.
5. Fisher–Yates: start from the 78 cards in display order (ids 0..77, see scoring.rules.cards); for
   ``i`` from 77 down to 1 swap card ``i`` with card ``j`` = integer below ``i + 1``.
6. Cards 0–17 of the shuffled pack go to N, 18–35 to E, 36–53 to S, 54–71 to W, 72–77 to
   the chien.
7. If a hand is petit sec (its only trump is the Petit and it has no Excuse), the attempt is
   discarded and attempt ``a + 1`` is dealt; ``Donne.redraws`` records how many were discarded.
8. Dealer of donne ``k``: ``ANTICLOCKWISE[(k - 1) % 4]`` = N, W, S, E, N, … — the deal passes
   to the right as in play (anticlockwise, RULES §2), so each position deals once per relais.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# bouts_in, holds, is_petit_sec, points_in and trump_count are re-exported for the Django layer.
from scoring.rules.cards import (
    DECK,
    Donne,
    DonneSet,
    Hand,
    bouts_in,
    check_identity,
    holds,
    is_petit_sec,
    part_name,
    points_in,
    trump_count,
)
from scoring.rules.errors import Message, ScoringError, ngettext

__all__ = [
    "ANTICLOCKWISE",
    "COMMITMENT_DOMAIN",
    "DEAL_DOMAIN",
    "MIN_SEED_BYTES",
    "InvalidSeed",
    "Mismatch",
    "VerificationReport",
    "bouts_in",
    "commitment",
    "deal_attempt",
    "dealer_of",
    "generate_donne",
    "generate_donne_set",
    "generate_donnes",
    "holds",
    "is_petit_sec",
    "new_seed",
    "points_in",
    "seed_bytes",
    "trump_count",
    "verify",
    "verify_set",
]


def _(message: str) -> str:
    """Mark a string for translation without importing Django (see scoring/rules/errors.py)."""
    return message


COMMITMENT_DOMAIN = b"tarot_club/v1\n"
DEAL_DOMAIN = b"tarot_club/deal/v1\n"
MIN_SEED_BYTES = 16
MAX_ATTEMPTS = 1000  # a petit sec hand occurs in about 0.18 % of deals; 1000 in a row never will
ANTICLOCKWISE: tuple[str, ...] = ("N", "W", "S", "E")


class InvalidSeed(ScoringError):
    """A seed that is not usable: not hexadecimal, or too short to be secret."""

    field = "seed"
    templates = {
        "seed_type": _("The seed must be bytes or a hexadecimal string; %(value)s is not."),
        "seed_hex": _(
            "The seed must be hexadecimal (0-9, a-f) with an even number of digits; "
            "%(value)s is not."
        ),
        "seed_short": _(
            "The seed has %(length)s bytes; at least %(minimum)s are needed to keep the deal "
            "secret. Use a new seed (new_seed())."
        ),
        "count_invalid": _(
            "The number of donnes must be a whole number, 0 or more; %(value)s is not."
        ),
        "number_invalid": _("Donne numbers start at 1; %(value)s is not valid."),
        "seed_not_revealed": _(
            "The seed is not revealed yet, so the donnes cannot be checked. Give the seed, or "
            "wait until the organiser reveals it."
        ),
    }


def new_seed() -> str:
    """A fresh secret seed: 32 random bytes from the OS, as 64 lowercase hex digits."""
    return secrets.token_hex(32)


def seed_bytes(seed: bytes | str) -> bytes:
    """The seed as bytes (hex strings are decoded, case-insensitive); InvalidSeed if unusable."""
    if isinstance(seed, (bytes, bytearray)):
        raw = bytes(seed)
    elif isinstance(seed, str):
        try:
            raw = bytes.fromhex(seed.strip())
        except ValueError:
            raise InvalidSeed("seed_hex", value=repr(seed)) from None
    else:
        raise InvalidSeed("seed_type", value=repr(seed))
    if len(raw) < MIN_SEED_BYTES:
        raise InvalidSeed("seed_short", length=len(raw), minimum=MIN_SEED_BYTES)
    return raw


def commitment(seed: bytes | str, identity: str) -> str:
    """Hex SHA-256 binding the seed to the tournament; published before play."""
    ident = check_identity(identity).encode("utf-8")
    return hashlib.sha256(COMMITMENT_DOMAIN + ident + b"\n" + seed_bytes(seed)).hexdigest()


def dealer_of(number: int) -> str:
    """Dealer of donne ``number``: N, W, S, E in turn (anticlockwise), starting with N."""
    if number < 1:
        raise InvalidSeed("number_invalid", value=number)
    return ANTICLOCKWISE[(number - 1) % 4]


def _stream(key: bytes, prefix: bytes) -> Iterator[int]:
    """Bytes of HMAC-SHA256(key, prefix + counter) for counter 0, 1, 2, …"""
    counter = 0
    while True:
        yield from hmac.digest(key, prefix + str(counter).encode("ascii"), "sha256")
        counter += 1


def deal_attempt(
    seed: bytes | str, identity: str, number: int, attempt: int = 0
) -> tuple[tuple[Hand, Hand, Hand, Hand], Hand]:
    """One shuffle (steps 3–6 of the module docstring): the hands N E S W and the chien.

    No petit sec check here: generate_donne does it, so tests can see a discarded attempt.
    """
    key = seed_bytes(seed)
    ident = check_identity(identity).encode("utf-8")
    stream = _stream(key, DEAL_DOMAIN + ident + b"\n" + f"{number}:{attempt}:".encode("ascii"))
    pack = list(DECK)
    for i in range(77, 0, -1):
        m = i + 1
        limit = 256 - 256 % m
        while True:
            b = next(stream)
            if b < limit:
                break
        j = b % m
        pack[i], pack[j] = pack[j], pack[i]
    hands = tuple(tuple(sorted(pack[18 * k : 18 * k + 18])) for k in range(4))
    return (hands[0], hands[1], hands[2], hands[3]), tuple(sorted(pack[72:]))


def generate_donne(seed: bytes | str, identity: str, number: int) -> Donne:
    """Donne ``number`` (1-based) of the tournament: deterministic, never a petit sec hand."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise InvalidSeed("number_invalid", value=repr(number))
    for attempt in range(MAX_ATTEMPTS):
        hands, chien = deal_attempt(seed, identity, number, attempt)
        if not any(is_petit_sec(h) for h in hands):
            return Donne(number, dealer_of(number), hands, chien, redraws=attempt)
    raise RuntimeError(
        f"donne {number}: {MAX_ATTEMPTS} petit sec deals in a row"
    )  # pragma: no cover


def generate_donnes(seed: bytes | str, identity: str, count: int, first: int = 1) -> list[Donne]:
    """Donnes ``first`` … ``first + count - 1``."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InvalidSeed("count_invalid", value=repr(count))
    key = seed_bytes(seed)
    return [generate_donne(key, identity, k) for k in range(first, first + count)]


def generate_donne_set(
    seed: bytes | str, identity: str, count: int, *, reveal_seed: bool = False
) -> DonneSet:
    """The exportable set of ``count`` donnes, with the commitment (and the seed if revealed)."""
    key = seed_bytes(seed)
    return DonneSet(
        identity=identity,
        commitment=commitment(key, identity),
        donnes=tuple(generate_donnes(key, identity, count)),
        seed=key.hex() if reveal_seed else None,
    )


@dataclass(frozen=True)
class Mismatch:
    """One donne that differs from what the seed deals, and how.

    ``details`` are the differences as Messages, so the Django layer can translate them;
    ``reason`` is their English text.
    """

    number: int
    details: tuple[Message, ...]

    @property
    def reason(self) -> str:
        return "; ".join(self.details)


@dataclass(frozen=True)
class VerificationReport:
    """Outcome of ``verify``: does the seed match the commitment, and every donne the seed?"""

    commitment_ok: bool
    checked: int
    mismatches: tuple[Mismatch, ...]

    @property
    def ok(self) -> bool:
        return self.commitment_ok and not self.mismatches

    @property
    def mismatched_numbers(self) -> tuple[int, ...]:
        return tuple(m.number for m in self.mismatches)

    def summary(self) -> str:
        """One paragraph for the arbiter or a published check."""
        if self.ok:
            return f"Commitment matches; all {self.checked} donnes are those the seed deals."
        parts = []
        if not self.commitment_ok:
            parts.append("The seed does not match the published commitment.")
        parts += [f"Donne {m.number}: {m.reason}" for m in self.mismatches]
        return " ".join(parts)


def _difference(expected: Donne, actual: Donne) -> tuple[Message, ...]:
    what: list[Message] = []
    if actual.dealer != expected.dealer:
        what.append(
            Message(
                _("dealer %(actual)s instead of %(expected)s"),
                actual=actual.dealer,
                expected=expected.dealer,
            )
        )
    for index, (exp, got) in enumerate(zip(expected.hands, actual.hands, strict=True)):
        if exp != got:
            n = len(set(exp) - set(got))
            template = ngettext(
                "%(part)s differs by %(count)s card", "%(part)s differs by %(count)s cards", "count"
            )
            what.append(Message(template, part=part_name(index), count=n))
    if expected.chien != actual.chien:
        what.append(Message(_("%(part)s differs"), part=part_name(4)))
    if actual.redraws != expected.redraws:
        what.append(
            Message(
                _("redraws %(actual)s instead of %(expected)s"),
                actual=actual.redraws,
                expected=expected.redraws,
            )
        )
    return tuple(what) or (Message(_("differs")),)


def verify(
    seed: bytes | str, identity: str, commitment_hex: str, donnes: Sequence[Donne]
) -> VerificationReport:
    """Check a revealed seed against the commitment and regenerate each donne by its number."""
    key = seed_bytes(seed)
    commitment_ok = hmac.compare_digest(commitment(key, identity), commitment_hex.strip().lower())
    mismatches: list[Mismatch] = []
    seen: set[int] = set()
    for donne in donnes:
        if donne.number in seen:
            mismatches.append(Mismatch(donne.number, (Message(_("appears twice")),)))
            continue
        seen.add(donne.number)
        expected = generate_donne(key, identity, donne.number)
        if expected != donne:
            mismatches.append(Mismatch(donne.number, _difference(expected, donne)))
    return VerificationReport(commitment_ok, len(donnes), tuple(mismatches))


def verify_set(donne_set: DonneSet, seed: bytes | str | None = None) -> VerificationReport:
    """Verify a whole set with its revealed seed (or one given here)."""
    if seed is None:
        seed = donne_set.seed
    if seed is None:
        raise InvalidSeed("seed_not_revealed")
    return verify(seed, donne_set.identity, donne_set.commitment, donne_set.donnes)
