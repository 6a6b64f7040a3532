"""Sharing the sit-outs by local search: the last resort of the movement generator (RULES §7).

Why: ``scoring.rules.movement`` passes the fifth seat along greedily (``_rotate_fifth``) and
picks the holders greedily (``_choose_holders``). For a few fields (e.g. 22 players over 3
rounds, 95 over 8) no greedy variant gets the sit-out counts within one of each other, although
such a seating exists with the very same tables and étui sets. This module searches for it.

What it may change: only WHO fills each seat and who holds each relais at a table of five. The
tables, the étui set of each table in each round and the roles of the seats stay, so every
structural property of the movement (one copy of each set per round, tables numbered as
before, every donne played at two tables) is kept. Moves, each checked before it is made:

- two players trade their seats in one round, or in every round from one on, when each keeps
  his position (a player's seat is his own position N, E, S or W, or the fifth seat F) and
  neither would play an étui set twice;
- the holder of a relais at a table of five becomes another player of that table.

The cost is how far the sit-out counts lie outside the window [⌊total/n⌋, ⌊total/n⌋ + 1] (zero
means a spread of one at most) plus a weight for each player who holds two relais running at
his tables of five (RULES §7: he sits out at the next one). A seeded random search lowers
it by descent: a proposal is kept unless it raises the cost (moves that leave it equal let the
search wander across plateaus; measured, any tolerance of worse states only slowed it). Once
the sharing is found, a second phase trades seats only where the sharing stays and the pairs of
players sharing a table in more than half of the rounds do not grow (the generator's aim for
meetings; e.g. 22 players over 3 rounds: from some pairs together all session to none more
than twice). The search is deterministic for a given input and seed. Pure Python, no Django.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass

__all__ = ["Seat", "SharingProblem", "share_by_search"]

FIFTH = "F"
HOLD_TWICE_WEIGHT = 2  # cost of one relais held right after another (a breach, not a preference)


@dataclass(frozen=True)
class Seat:
    """One seat of one round: its table, the étui set played there and the seat's role."""

    table: int
    set_no: int
    role: str
    five: bool


@dataclass
class SharingProblem:
    """A seated movement as plain lists.

    ``seats[r]`` are the seats of round r, ``occupant[r][k]`` the player in seat k,
    ``holder[r]`` maps each table of five of round r to the seat index of its holder, and
    ``group[p]`` is the position player p keeps (N, E, S or W).
    """

    seats: list[list[Seat]]
    occupant: list[list[int]]
    holder: list[dict[int, int]]
    group: dict[int, str]


class _State:
    """The search state with per-player costs kept current."""

    def __init__(self, problem: SharingProblem) -> None:
        self.p = problem
        self.rounds = len(problem.seats)
        self.where: list[dict[int, int]] = [
            {player: k for k, player in enumerate(occ)} for occ in problem.occupant
        ]
        self.five_seats: list[dict[int, list[int]]] = []
        for seats in problem.seats:
            tables: dict[int, list[int]] = {}
            for k, seat in enumerate(seats):
                if seat.five:
                    tables.setdefault(seat.table, []).append(k)
            self.five_seats.append(tables)
        self.five_list = [[k for ks in tables.values() for k in ks] for tables in self.five_seats]
        self.by_role: list[dict[str, list[int]]] = []
        for seats in problem.seats:
            roles: dict[str, list[int]] = {}
            for k, seat in enumerate(seats):
                roles.setdefault(seat.role, []).append(k)
            self.by_role.append(roles)
        self.table_seats: list[dict[int, list[int]]] = []
        for seats in problem.seats:
            at: dict[int, list[int]] = {}
            for k, seat in enumerate(seats):
                at.setdefault(seat.table, []).append(k)
            self.table_seats.append(at)
        self.limit = math.ceil(self.rounds / 2)  # more rounds together than this count
        self.met: Counter[tuple[int, int]] | None = None  # pairs' rounds together, once tracked
        self.excess = 0
        players = list(problem.group)
        total = sum(4 * len(tables) for tables in self.five_seats)
        self.low = total // len(players)
        self.cost_of = {q: self.player_cost(q) for q in players}
        self.total = sum(self.cost_of.values())

    def player_cost(self, q: int) -> int:
        """Distance of q's sit-out count from the window, plus his relais held twice running."""
        count = twice = 0
        held_last = False
        for r in range(self.rounds):
            k = self.where[r][q]
            seat = self.p.seats[r][k]
            if not seat.five:
                continue
            holds = self.p.holder[r][seat.table] == k
            if holds and held_last:
                twice += 1
            if not holds:
                count += 1
            held_last = holds
        off = max(0, self.low - count, count - self.low - 1)
        return off + HOLD_TWICE_WEIGHT * twice

    def role_fits(self, q: int, seat: Seat) -> bool:
        return seat.role in (FIFTH, self.p.group[q])

    def sets_except(self, q: int, rounds: range) -> set[int]:
        """Étui sets q plays in the rounds outside ``rounds``."""
        return {
            self.p.seats[r][self.where[r][q]].set_no for r in range(self.rounds) if r not in rounds
        }

    def can_trade(self, x: int, y: int, rounds: range) -> bool:
        """x and y may trade seats in ``rounds``: positions kept, no set played twice."""
        seats = self.p.seats
        for r in rounds:
            if not (
                self.role_fits(x, seats[r][self.where[r][y]])
                and self.role_fits(y, seats[r][self.where[r][x]])
            ):
                return False
        x_new = {seats[r][self.where[r][y]].set_no for r in rounds}
        y_new = {seats[r][self.where[r][x]].set_no for r in rounds}
        if len(x_new) < len(rounds) or len(y_new) < len(rounds):
            return False
        return not (x_new & self.sets_except(x, rounds) or y_new & self.sets_except(y, rounds))

    def track_meetings(self) -> None:
        """Count from now on how often each pair shares a table, and the excess over
        ``limit`` (rounds together beyond half of the session), kept current by ``trade``."""
        self.met = Counter()
        for r, tables in enumerate(self.table_seats):
            for ks in tables.values():
                ids = sorted(self.p.occupant[r][k] for k in ks)
                for i, a in enumerate(ids):
                    for b in ids[i + 1 :]:
                        self.met[(a, b)] += 1
        self.excess = sum(max(0, c - self.limit) for c in self.met.values())

    def _meet(self, a: int, b: int, step: int) -> None:
        assert self.met is not None
        key = (a, b) if a < b else (b, a)
        c = self.met[key]
        if step > 0 and c >= self.limit:
            self.excess += 1
        elif step < 0 and c > self.limit:
            self.excess -= 1
        self.met[key] = c + step

    def _move_meetings(self, r: int, x: int, y: int) -> None:
        """x and y are about to trade seats in round r: move their meetings of that round."""
        seats, occ = self.p.seats[r], self.p.occupant[r]
        tx, ty = seats[self.where[r][x]].table, seats[self.where[r][y]].table
        if tx == ty:
            return
        for leaver, joiner, table in ((x, y, tx), (y, x, ty)):
            for k in self.table_seats[r][table]:
                q = occ[k]
                if q != leaver:
                    self._meet(leaver, q, -1)
                    self._meet(joiner, q, +1)

    def trade(self, x: int, y: int, rounds: range) -> None:
        for r in rounds:
            if self.met is not None:
                self._move_meetings(r, x, y)
            kx, ky = self.where[r][x], self.where[r][y]
            self.where[r][x], self.where[r][y] = ky, kx
            self.p.occupant[r][kx], self.p.occupant[r][ky] = y, x

    def rescore(self, players: tuple[int, ...]) -> int:
        """Recompute the players' costs; return the change of the total."""
        delta = 0
        for q in set(players):
            new = self.player_cost(q)
            delta += new - self.cost_of[q]
            self.cost_of[q] = new
        self.total += delta
        return delta


def _proposal(state: _State, rng: random.Random, r: int, kx: int) -> tuple[int, int, range] | None:
    """Two players who may trade seats in round ``r`` (or from it on): the occupant of seat
    ``kx`` and one of the same role or a fifth; None when no trade is allowed."""
    x = state.p.occupant[r][kx]
    roles = state.by_role[r]
    ky = rng.choice(roles[state.p.group[x]] + roles.get(FIFTH, []))
    y = state.p.occupant[r][ky]
    if x == y:
        return None
    rounds = range(r, state.rounds) if rng.random() < 0.3 else range(r, r + 1)
    if not state.can_trade(x, y, rounds):
        return None
    return x, y, rounds


def _try_trade(state: _State, rng: random.Random) -> None:
    """Propose two players trading seats in one round (or from that round on)."""
    r = rng.randrange(state.rounds)
    kx = rng.choice(state.five_list[r])  # one of them comes to or leaves a table of five
    proposal = _proposal(state, rng, r, kx)
    if proposal is None:
        return
    x, y, rounds = proposal
    state.trade(x, y, rounds)
    if state.rescore((x, y)) > 0:
        state.trade(x, y, rounds)
        state.rescore((x, y))


def _try_fewer_meetings(state: _State, rng: random.Random) -> None:
    """Propose two players trading seats where sitting out stays shared and pairs of players
    sharing a table in more than half of the rounds do not become more frequent."""
    r = rng.randrange(state.rounds)
    kx = rng.randrange(len(state.p.seats[r]))
    proposal = _proposal(state, rng, r, kx)
    if proposal is None:
        return
    x, y, rounds = proposal
    before = state.excess
    state.trade(x, y, rounds)
    if state.rescore((x, y)) > 0 or state.excess > before:
        state.trade(x, y, rounds)
        state.rescore((x, y))


def _try_holder(state: _State, rng: random.Random) -> None:
    """Propose another holder at one table of five in one round."""
    r = rng.randrange(state.rounds)
    table = rng.choice(sorted(state.five_seats[r]))
    old = state.p.holder[r][table]
    new = rng.choice([k for k in state.five_seats[r][table] if k != old])
    affected = (state.p.occupant[r][old], state.p.occupant[r][new])
    state.p.holder[r][table] = new
    if state.rescore(affected) > 0:
        state.p.holder[r][table] = old
        state.rescore(affected)


def share_by_search(problem: SharingProblem, steps: int, seed: int = 0, polish: int = 0) -> bool:
    """Search in place for seats and holders sharing the sit-outs within one (cost zero).

    Returns True when found (``problem`` then holds it), False after ``steps`` proposals
    (``problem`` then holds the last state, which may be no better than the first). Once
    found, up to ``polish`` more proposals keep the sharing and lower the number of times
    two players share a table beyond half of the rounds (the generator's aim for meetings).
    """
    state = _State(problem)
    if not any(state.five_seats) or state.total == 0:
        return state.total == 0
    rng = random.Random(seed)
    for _step in range(steps):
        if rng.random() < 0.7:
            _try_trade(state, rng)
        else:
            _try_holder(state, rng)
        if state.total == 0:
            break
    if state.total:
        return False
    state.track_meetings()
    for _step in range(polish):
        if not state.excess:
            break
        _try_fewer_meetings(state, rng)
    return True
