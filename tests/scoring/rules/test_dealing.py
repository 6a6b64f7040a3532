"""The fair, verifiable generator (scoring/rules/dealing.py): frozen vectors, deal shape, uniformity."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules.cards import (
    DECK,
    PETIT,
    Donne,
    format_donne,
    format_donne_set,
    is_petit_sec,
    parse_donne_set,
)
from scoring.rules.dealing import (
    InvalidSeed,
    commitment,
    deal_attempt,
    dealer_of,
    generate_donne,
    generate_donne_set,
    generate_donnes,
    new_seed,
    seed_bytes,
    verify,
    verify_set,
)

SEED = bytes(range(32)).hex()  # 000102…1f
IDENTITY = "tarot_club test vector"

# Frozen outputs of the version-1 procedure (docstring of scoring/rules/dealing.py). If one of these
# changes, every published commitment check breaks: bump the domain strings instead.
DONNE_1 = """\
donne 1 dealer N
N S:C 10 9 7 H:D V 9 8 6 4 2 D:9 C:C V T:18 9 7 2
E S:2 H:R C 10 7 5 D:C 3 2 C:6 5 3 1 T:21 20 14 12 8
S S:R D 4 1 H:- D:R V 10 5 C:D 9 8 7 4 T:13 10 6 4 3
W S:V 8 6 5 3 H:1 D:D 8 7 4 1 C:2 T:19 17 16 5 1 EX
chien S:- H:3 D:6 C:R 10 T:15 11
"""
COMMITMENT = "dcfcb5add2cc889386b6ec2d9ea2fa2a0a8f22d2b406b296e0db2cbab01f06a7"
SET_24_SHA256 = "c2e0b2b7ee962b0005b2b9b6cc7a88258d0ec95860a3795ca3d5e5460c23a9cb"
FIRST_REDRAWN = 113  # the first donne of this seed whose attempt 0 had a petit sec hand


@pytest.fixture(scope="module")
def many() -> list[Donne]:
    return generate_donnes(SEED, IDENTITY, 2000)


def test_frozen_donne_1():
    assert format_donne(generate_donne(SEED, IDENTITY, 1)) == DONNE_1


def test_frozen_commitment_and_set_digest():
    assert commitment(SEED, IDENTITY) == COMMITMENT
    text = format_donne_set(generate_donne_set(SEED, IDENTITY, 24, reveal_seed=True))
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == SET_24_SHA256


def test_commitment_is_the_documented_hash():
    expected = hashlib.sha256(
        b"tarot_club/v1\n" + IDENTITY.encode() + b"\n" + bytes.fromhex(SEED)
    ).hexdigest()
    assert commitment(SEED, IDENTITY) == expected
    assert commitment(bytes.fromhex(SEED), IDENTITY) == expected
    assert commitment(SEED.upper(), IDENTITY) == expected
    assert commitment(SEED, IDENTITY + "!") != expected


def test_deterministic_and_depends_on_every_input():
    d = generate_donne(SEED, IDENTITY, 5)
    assert generate_donne(bytes.fromhex(SEED), IDENTITY, 5) == d
    assert generate_donne(SEED, IDENTITY, 6).hands != d.hands
    assert generate_donne(SEED, "other tournament", 5).hands != d.hands
    assert generate_donne("ff" + SEED[2:], IDENTITY, 5).hands != d.hands
    assert generate_donnes(SEED, IDENTITY, 3, first=5)[0] == d


def test_identity_is_nfc_before_hashing():
    assert commitment(SEED, "se\u0301ance") == commitment(SEED, "séance")
    assert generate_donne(SEED, "se\u0301ance", 1) == generate_donne(SEED, "séance", 1)


def test_every_card_once_and_the_counts(many):
    for d in many[:300]:
        assert sorted([*d.hands[0], *d.hands[1], *d.hands[2], *d.hands[3], *d.chien]) == list(DECK)
        assert [len(h) for h in d.hands] == [18, 18, 18, 18] and len(d.chien) == 6


def test_dealer_rotates_anticlockwise(many):
    assert [dealer_of(k) for k in range(1, 10)] == ["N", "W", "S", "E", "N", "W", "S", "E", "N"]
    assert all(d.dealer == dealer_of(d.number) for d in many[:12])


def test_no_petit_sec_and_redraws_are_counted(many):
    assert not any(is_petit_sec(h) for d in many for h in d.hands)
    redrawn = [d.number for d in many if d.redraws]
    # P(a petit sec hand) = 4·C(56,17)/C(78,18) ≈ 0.18 %: about 3.7 in 2,000 donnes
    assert redrawn[0] == FIRST_REDRAWN
    assert 1 <= len(redrawn) <= 15


def test_a_petit_sec_draw_is_redrawn():
    hands, _chien = deal_attempt(SEED, IDENTITY, FIRST_REDRAWN, 0)
    assert any(is_petit_sec(h) for h in hands)
    holder = next(h for h in hands if is_petit_sec(h))
    assert PETIT in holder
    donne = generate_donne(SEED, IDENTITY, FIRST_REDRAWN)
    assert donne.redraws == 1
    assert (donne.hands, donne.chien) == deal_attempt(SEED, IDENTITY, FIRST_REDRAWN, 1)
    assert not any(is_petit_sec(h) for h in donne.hands)


def test_card_places_are_uniform(many):
    """Chi-square over the 78 × 5 table card × place (N, E, S, W, chien), 2,000 donnes.

    Each donne puts every card in exactly one place, 18/18/18/18/6, so the table has both
    margins fixed: df = 77 · 4 = 308, and drawing without replacement inflates the statistic by
    78/77 (its mean is 78 · 4 = 312). Quantiles of χ²(308), computed from the regularised
    incomplete gamma function: 236.96 at p = 0.001 (lower tail), 390.43 at p = 0.001 (upper
    tail; Wilson–Hilferty gives 390.46). This seed gives 313.3.
    """
    counts = [Counter() for _ in range(78)]
    for d in many:
        for place, cards in enumerate((*d.hands, d.chien)):
            for c in cards:
                counts[c][place] += 1
    shares = [18 / 78] * 4 + [6 / 78]
    stat = 0.0
    for card_counts in counts:
        for place, share in enumerate(shares):
            expected = len(many) * share
            stat += (card_counts[place] - expected) ** 2 / expected
    scaled = stat * 77 / 78
    assert scaled < 390.43
    assert scaled > 236.96  # a far too good fit would mean the test measures nothing


def test_positions_get_their_share_of_trumps(many):
    trumps = Counter()
    for d in many:
        for pos, hand in zip("NESW", d.hands, strict=True):
            trumps[pos] += sum(1 for c in hand if c.is_trump)
    expected = len(many) * 21 * 18 / 78
    for pos in "NESW":
        assert math.isclose(trumps[pos], expected, rel_tol=0.03)


# --- verification ------------------------------------------------------------------------------


def test_verify_accepts_the_true_set():
    donnes = generate_donnes(SEED, IDENTITY, 8)
    report = verify(SEED, IDENTITY, COMMITMENT, donnes)
    assert report.ok and report.commitment_ok and report.checked == 8
    assert report.mismatches == () and "all 8 donnes" in report.summary()


def test_verify_reports_every_mismatch():
    donnes = generate_donnes(SEED, IDENTITY, 6)
    swapped = donnes[2]
    n, e = swapped.hands[0], swapped.hands[1]
    bad = Donne(3, swapped.dealer, (e, n, swapped.hands[2], swapped.hands[3]), swapped.chien)
    other = generate_donne(SEED, "another tournament", 5)
    tampered = [*donnes[:2], bad, donnes[3], other, donnes[5], donnes[5]]
    report = verify(SEED, IDENTITY, COMMITMENT, tampered)
    assert report.commitment_ok and not report.ok
    assert report.mismatched_numbers == (3, 5, 6)
    assert "hand N differs by 18 cards" in report.mismatches[0].reason
    assert report.mismatches[2].reason == "appears twice"


def test_verify_reports_a_wrong_commitment():
    donnes = generate_donnes(SEED, IDENTITY, 2)
    report = verify(new_seed(), IDENTITY, COMMITMENT, donnes)
    assert not report.commitment_ok and not report.ok
    assert "does not match the published commitment" in report.summary()


def test_verify_set_through_the_text_file():
    text = format_donne_set(generate_donne_set(SEED, IDENTITY, 4, reveal_seed=True))
    assert verify_set(parse_donne_set(text)).ok
    hidden = generate_donne_set(SEED, IDENTITY, 4)
    assert hidden.seed is None and hidden.commitment == COMMITMENT
    assert verify_set(hidden, SEED).ok
    with pytest.raises(InvalidSeed):
        verify_set(hidden)


# --- seeds -------------------------------------------------------------------------------------


def test_new_seed_is_32_random_bytes():
    a, b = new_seed(), new_seed()
    assert len(a) == 64 and a != b and seed_bytes(a) == bytes.fromhex(a)


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("00" * 15, "has 15 bytes"),
        ("xyz", "must be hexadecimal"),
        ("abc", "must be hexadecimal"),
        (12345, "must be bytes or a hexadecimal string"),
    ],
)
def test_bad_seeds(seed, message):
    with pytest.raises(InvalidSeed, match=message):
        seed_bytes(seed)


def test_bad_counts_and_numbers():
    with pytest.raises(InvalidSeed):
        generate_donnes(SEED, IDENTITY, -1)
    with pytest.raises(InvalidSeed):
        generate_donne(SEED, IDENTITY, 0)
    assert generate_donnes(SEED, IDENTITY, 0) == []


@settings(max_examples=25, deadline=None)
@given(st.binary(min_size=16, max_size=40), st.integers(1, 10_000))
def test_any_seed_deals_a_valid_round_tripping_donne(seed, number):
    donne = generate_donne(seed, IDENTITY, number)
    assert not any(is_petit_sec(h) for h in donne.hands)
    donne_set = generate_donne_set(seed, IDENTITY, 0, reveal_seed=True)
    assert parse_donne_set(format_donne_set(donne_set)) == donne_set
    assert verify(seed, IDENTITY, donne_set.commitment, [donne]).ok
