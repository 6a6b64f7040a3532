"""The arithmetic behind the movements: tables as elements of a product of finite fields.

Why: a Mitchell movement ("N stays, E moves one table, S two, W three, the étuis one the other
way") needs the differences of the strides to be invertible modulo the number of tables t, which
fails for even t or t divisible by 3. Numbering the tables by the ring A = GF(q1) × … × GF(qm),
where t = q1·…·qm is the factorisation of t into prime powers, gives far more room: in GF(4),
GF(8), GF(9)… every non-zero element is invertible, so 4, 8 or 9 tables behave as well as 5 or 7.

In a stage of L rounds, round r is the element x_r with components (r mod q_i), and each
"mover" m (the players of one position, the fifth players, the étui sets) has a stride λ_m in A.
A player of mover m whose stage starts at table h sits at table h + λ_m·x_r. Two movers m, m'
are then separated on rounds r ≠ s exactly when some component i has λ_m ≠ λ_m' and
x_r ≠ x_s there, which only depends on P(m, m') = ∏ q_i over the components where λ_m and λ_m'
differ: a player of m meets min(L, P) different players of m' in L rounds, and plays L different
étui sets when P(m, sets) ≥ L. ``stage_design`` searches the strides that satisfy the latter for
every player mover and maximise the former. No Django here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["Ring", "StageDesign", "prime_power_factors", "ring", "stage_design"]


def prime_power_factors(t: int) -> tuple[tuple[int, int], ...]:
    """[(p, k), …] with t = ∏ p**k, primes increasing."""
    out = []
    p = 2
    while p * p <= t:
        if t % p == 0:
            k = 0
            while t % p == 0:
                t //= p
                k += 1
            out.append((p, k))
        p += 1
    if t > 1:
        out.append((t, 1))
    return tuple(out)


def _poly_mod_is_irreducible(coeffs: tuple[int, ...], p: int) -> bool:
    """True if the monic polynomial (low degree first, leading 1 implied) has no factor."""
    k = len(coeffs)
    modulus = [*coeffs, 1]
    for d in range(1, k // 2 + 1):
        for low in itertools.product(range(p), repeat=d):
            divisor = [*low, 1]
            rem = modulus[:]
            for shift in range(len(rem) - len(divisor), -1, -1):
                factor = rem[shift + d]
                if factor:
                    for i, c in enumerate(divisor):
                        rem[shift + i] = (rem[shift + i] - factor * c) % p
            if not any(rem[:d]):
                return False
    return True


class _Field:
    """GF(p**k) with elements 0..q-1 (base-p digits = polynomial coefficients, low first)."""

    def __init__(self, p: int, k: int) -> None:
        self.p, self.k, self.q = p, k, p**k
        if k == 1:
            self.modulus: tuple[int, ...] = ()
        else:
            self.modulus = next(
                c
                for c in itertools.product(range(p), repeat=k)
                if c[0] and _poly_mod_is_irreducible(c, p)
            )

    def _digits(self, a: int) -> list[int]:
        out = []
        for _ in range(self.k):
            a, d = divmod(a, self.p)
            out.append(d)
        return out

    def _number(self, digits: list[int]) -> int:
        n = 0
        for d in reversed(digits):
            n = n * self.p + d
        return n

    def add(self, a: int, b: int) -> int:
        if self.k == 1:
            return (a + b) % self.p
        da, db = self._digits(a), self._digits(b)
        return self._number([(x + y) % self.p for x, y in zip(da, db, strict=True)])

    def neg(self, a: int) -> int:
        if self.k == 1:
            return (-a) % self.p
        return self._number([(-x) % self.p for x in self._digits(a)])

    def mul(self, a: int, b: int) -> int:
        if self.k == 1:
            return a * b % self.p
        p, k = self.p, self.k
        da, db = self._digits(a), self._digits(b)
        prod = [0] * (2 * k - 1)
        for i, x in enumerate(da):
            if x:
                for j, y in enumerate(db):
                    prod[i + j] = (prod[i + j] + x * y) % p
        for deg in range(2 * k - 2, k - 1, -1):  # reduce with x^k = -(modulus low terms)
            c = prod[deg]
            if c:
                prod[deg] = 0
                for i, m in enumerate(self.modulus):
                    prod[deg - k + i] = (prod[deg - k + i] - c * m) % p
        return self._number(prod[:k])


@dataclass(frozen=True)
class Ring:
    """A = ∏ GF(q_i) on the table indices 0..t-1 (mixed radix, first component lowest)."""

    t: int
    sizes: tuple[int, ...]
    add_table: tuple[tuple[int, ...], ...]
    neg_table: tuple[int, ...]
    fields: tuple[_Field, ...]

    def components(self, a: int) -> list[int]:
        out = []
        for q in self.sizes:
            a, d = divmod(a, q)
            out.append(d)
        return out

    def element(self, comps: list[int]) -> int:
        n = 0
        for q, d in zip(reversed(self.sizes), reversed(comps), strict=True):
            n = n * q + d
        return n

    def mul(self, a: int, b: int) -> int:
        ca, cb = self.components(a), self.components(b)
        return self.element([f.mul(x, y) for f, x, y in zip(self.fields, ca, cb, strict=True)])

    def round_element(self, r: int) -> int:
        """x_r: component i is r mod q_i (distinct in that component for q_i rounds)."""
        return self.element([r % q for q in self.sizes])


@lru_cache(maxsize=64)
def ring(t: int) -> Ring:
    """The ring for t tables (cached; the add table is t×t)."""
    fields = tuple(_Field(p, k) for p, k in prime_power_factors(t)) if t > 1 else ()
    sizes = tuple(f.q for f in fields)
    bare = Ring(t, sizes, (), (), fields)
    comps = [bare.components(a) for a in range(t)]
    add_table = tuple(
        tuple(
            bare.element([f.add(x, y) for f, x, y in zip(fields, ca, cb, strict=True)])
            for cb in comps
        )
        for ca in comps
    )
    neg_table = tuple(
        bare.element([f.neg(x) for f, x in zip(fields, ca, strict=True)]) for ca in comps
    )
    return Ring(t, sizes, add_table, neg_table, fields)


@dataclass(frozen=True)
class StageDesign:
    """Strides for one stage of ``length`` rounds: λ per mover as a ring element.

    ``separation[(m, m')]`` is P(m, m') of the module docstring; ``key`` the score it got.
    """

    t: int
    length: int
    movers: tuple[str, ...]
    strides: tuple[int, ...]
    separation: tuple[tuple[tuple[str, str], int], ...]
    key: tuple[int, ...]

    def stride(self, mover: str) -> int:
        return self.strides[self.movers.index(mover)]

    def shifts(self, mover: str) -> tuple[int, ...]:
        """λ_m·x_r for r = 0..length-1."""
        rg = ring(self.t)
        lam = self.stride(mover)
        return tuple(rg.mul(lam, rg.round_element(r)) for r in range(self.length))


def _partitions(n: int, blocks: int) -> Iterator[tuple[int, ...]]:
    """Restricted growth strings of length n with exactly ``blocks`` blocks."""

    def rec(prefix: list[int], used: int) -> Iterator[tuple[int, ...]]:
        i = len(prefix)
        if i == n:
            if used == blocks:
                yield tuple(prefix)
            return
        if used + (n - i) < blocks:
            return
        for v in range(min(used + 1, blocks)):
            prefix.append(v)
            yield from rec(prefix, max(used, v + 1))
            prefix.pop()

    return rec([], 0)


PLAYER_MOVERS = ("N", "E", "S", "W", "F")
SETS = "sets"


@lru_cache(maxsize=256)
def stage_design(t: int, length: int, with_fifth: bool, mobile: bool = False) -> StageDesign | None:
    """Best strides for a stage, or None if no stride lets everyone play distinct sets.

    Score (lexicographic): fewest repeated meetings between the four positions (the minimum,
    then the sum of min(L, P) over the 6 pairs), then the same for fifth players vs positions.
    Only the pattern of equal classes per component matters, so the search enumerates set
    partitions of the movers per field (all distinct when the field is big enough).
    ``mobile`` (with fifth players) forbids a position to share the fifth players' stride, so
    no position stays put: a player left at a table of four for a whole stage never sits out,
    which sharing the sit-outs (RULES §7) may not afford; repeated meetings may cost more.
    """
    rg = ring(t)
    movers = ("N", "E", "S", "W", *(("F",) if with_fifth else ()), SETS)
    n = len(movers)
    idx = {m: i for i, m in enumerate(movers)}
    pos_pairs = [(idx[a], idx[b]) for a, b in itertools.combinations("NESW", 2)]
    f_pairs = [(idx[p], idx["F"]) for p in "NESW"] if with_fifth else []
    hard = [(idx[m], idx[SETS]) for m in movers if m != SETS]
    all_pairs = list(itertools.combinations(range(n), 2))
    pair_bit = {pair: 1 << k for k, pair in enumerate(all_pairs)}

    options: list[list[tuple[tuple[int, ...], int]]] = []
    for q in rg.sizes:
        comp = []
        for labels in _partitions(n, min(q, n)):
            mask = 0
            for (a, b), bit in pair_bit.items():
                if labels[a] != labels[b]:
                    mask |= bit
            comp.append((labels, mask))
        options.append(comp)

    ideal = (length, 6 * length, length if with_fifth else 0, 4 * length if with_fifth else 0)
    best: tuple[tuple[int, ...], tuple[tuple[tuple[int, ...], int], ...]] | None = None
    for combo in itertools.product(*options):
        sep = {}
        for pair, bit in pair_bit.items():
            prod = 1
            for (_labels, mask), q in zip(combo, rg.sizes, strict=True):
                if mask & bit:
                    prod *= q
            sep[pair] = prod
        if any(sep[h] < length for h in hard):
            continue
        if mobile and with_fifth and any(sep[p] < 2 for p in f_pairs):
            continue
        d_pos = [min(length, sep[p]) for p in pos_pairs]
        d_f = [min(length, sep[p]) for p in f_pairs] or [0]
        key = (min(d_pos), sum(d_pos), min(d_f), sum(d_f) if f_pairs else 0)
        if best is None or key > best[0]:
            best = (key, combo)
            if key == ideal:
                break
    if best is None:
        return None
    key, combo = best
    # Class labels -> field elements: the fifth players' class (else N's) is 0, so they stay put.
    anchor = idx["F"] if with_fifth else idx["N"]
    strides_comps: list[list[int]] = [[] for _ in range(n)]
    for labels, _mask in combo:
        order = [labels[anchor]] + [v for v in dict.fromkeys(labels) if v != labels[anchor]]
        value = {label: k for k, label in enumerate(order)}
        for i in range(n):
            strides_comps[i].append(value[labels[i]])
    strides = tuple(rg.element(c) for c in strides_comps)
    separation = tuple(
        ((movers[a], movers[b]), _sep_value(combo, rg.sizes, pair_bit[(a, b)]))
        for a, b in all_pairs
    )
    return StageDesign(t, length, movers, strides, separation, key)


def _sep_value(
    combo: tuple[tuple[tuple[int, ...], int], ...], sizes: tuple[int, ...], bit: int
) -> int:
    prod = 1
    for (_labels, mask), q in zip(combo, sizes, strict=True):
        if mask & bit:
            prod *= q
    return prod
