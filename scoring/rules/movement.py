"""Movements for duplicate tarot: who sits where, with which étui set, round by round (RULES §6, §7).

Pure Python, no Django. A Movement is plain frozen data (``to_dict`` / ``from_dict`` for a
JSONField), so the arbiter may edit one by hand; ``validate`` then checks ANY movement against the
rules and lists every breach.

Vocabulary. n players sit at t tables, ``b = n mod 4`` of them tables of five (fewest possible:
n = 4a + 5b), the tables of five being the last b table numbers. A round is one relais: each table
plays one étui set of 4 donnes; set k holds donnes 4k-3 … 4k (``donnes_of_set``). Player numbers
1..n follow the first round's seating (table 1 N E S W [F], table 2 …), so a player keeps his
number on his route card. Each player has a position N, E, S or W that he keeps all session;
in some rounds he may instead be F, the fifth player of a table of five (the fifth seat passes
from player to player so that sitting out is shared, RULES §7). At a table of five one player
sits out each donne of the relais in turn (``Sitting.sit_out``: the roles sitting out donnes
1..4; the fifth role, absent, "holds" the whole relais): the fifth player takes the seat and the
hand of the one who sits out (the one sitting out gets a differential of 0 for that donne), so
nobody plays a donne twice.

The scheme (``generate_movement``). Tables are numbered by the ring A = GF(q1) × … × GF(qm) of
the prime-power factors of t (scoring.rules.movement_algebra). The rounds are cut into stages of at most
t rounds; each stage uses t fresh étui sets, one per table. In a stage of L rounds, round r is an
element x_r of A; the players of a position move with their own stride λ (table h + λ·x_r), the
fifth players stay, the sets move with a stride of their own; the strides are searched so that
every player plays L different sets, and players of two positions meet as many different
partners as the ring allows (``stage_design``). Between stages, each position is shifted by the
offset that least repeats earlier meetings. Special cases: one round (R = 1) seats the tables by
pairs on the same set (each étui in two or three copies: ``copies_needed``); two tables and an
odd number of rounds use one stage of three rounds with three sets and a bye (players stay put).

Stage length: the longest stages (fewest étuis, each donne compared at the most tables) unless
then two players would share a table in more than half of the rounds; then shorter stages are
tried, and the plan with the fewest such repeats is kept. Sitting out comes first (RULES §7):
when no seating with the longest stages shares it within one, the next shorter plans are tried
(a new stage brings fresh sets, so the fifth seat can pass to anyone there); failing that, on
two tables the groups mix (below), and otherwise a local search re-chooses who sits where and
who holds each relais, tables and sets unchanged (scoring.rules.movement_search; e.g. 22
players over 3 rounds, 95 over 8).

Guarantees (checked by tests/scoring/rules/test_movement.py for every n from 8 to 200, 11 excepted):

- always: every rule ``validate`` checks (each player seated once per round, tables of 4 or 5,
  positions unique and kept, one set per table per round, nobody plays a set twice, every donne
  played at two tables or more);
- sitting out shared (RULES §7): whoever holds a whole relais at a table of five sits out at the
  next table of five he comes to, and the sit-out counts differ by at most one, or by the
  smallest spread found, declared in ``Movement.sit_out_allowance`` (``_share_sit_outs``; the
  spread of every n × 1..8 rounds is printed by bench/bench_movement.py);
- when t has a prime-power factor q ≥ 5, there are no tables of five and R ≤ q:
  nobody meets anybody twice, so every player meets the most distinct opponents possible
  (``opponent_stats``: 3 per round at a table of four, 4 at a table of five, capped by the
  number of players of the other positions). E.g. 20, 28, 32, 36, 44 players for up to 5, 7, 8,
  9, 11 rounds; one round (R = 1) for any n;
- when t ≥ 3, R ≥ 4 and there are no tables of five: no two players share a table in more than
  ⌈R/2⌉ rounds. With tables of five the fifth seat passes from player to player so that
  sitting out is shared; that may cost a few repeated meetings (fairness of §7 comes first).

Limits, by arithmetic rather than by choice: the four positions and the sets are five movers, so
with 3 or 4 tables (or 5 with tables of five) two of them share a stride within a stage and some
pairs of players sit together for a whole stage (R ≤ 3 is a single stage). With 2 tables the
étuis cannot move without a moving player meeting one again, so players move only between
stages and can share a table for most of the session. Sitting out then cannot always be shared
within one: 9 players over 2 or 3 rounds, where no movement at all does better than a spread of
2 or 3 (``least_sit_out_spread`` proves it by exhaustive search: with one copy of each set per
round the table of four keeps its players, who never sit out, while the five others share 8 or
12 sit-outs). Over more rounds the groups can mix: for 9 players the table of four then takes
two groups of four in turn (``_two_tables_mixed``, one set per round: e.g. 5 and 7 rounds).
From 8 to 200 players over 1 to 8 rounds, 9 × 2 and 9 × 3 are the only spreads above one.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scoring.rules.errors import Message, ScoringError, ngettext
from scoring.rules.movement_algebra import SETS, Ring, ring, stage_design
from scoring.rules.movement_search import Seat, SharingProblem, share_by_search

__all__ = [
    "MAX_ROUNDS",
    "POSITIONS",
    "ROLES",
    "Breach",
    "DonneSeating",
    "InvalidMovementData",
    "InvalidRounds",
    "InvalidSeating",
    "Movement",
    "OpponentStats",
    "PlayerOpponents",
    "Round",
    "RouteStep",
    "Sitting",
    "copies_needed",
    "donnes_of_set",
    "generate_movement",
    "least_sit_out_spread",
    "max_rounds",
    "opponent_stats",
    "table_layout",
    "validate",
]


def _(message: str) -> str:
    """Mark a string for translation without importing Django (see scoring/rules/errors.py)."""
    return message


POSITIONS: tuple[str, ...] = ("N", "E", "S", "W")
FIFTH = "F"
ROLES: tuple[str, ...] = (*POSITIONS, FIFTH)
DONNES_PER_SET = 4
MAX_ROUNDS = 40  # 160 donnes per player: far beyond any session; keeps a typo from hanging
FORMAT_VERSION = 1


class InvalidSeating(ScoringError):
    """The players cannot be seated for duplicate (RULES §7)."""

    field = "players"
    templates = {
        "players_type": _("The number of players must be a whole number; %(value)s is not."),
        "players_too_few": ngettext(
            "Duplicate needs at least two tables, so at least 8 players (registered: "
            "%(players)s). Register %(more)s more player.",
            "Duplicate needs at least two tables, so at least 8 players (registered: "
            "%(players)s). Register %(more)s more players.",
            "more",
        ),
        "players_eleven": _(
            "11 players cannot be seated at tables of 4 or 5: register one more player "
            "(12 = three tables of four) or withdraw one (10 = two tables of five)."
        ),
    }


class InvalidRounds(ScoringError):
    """A number of rounds the movement cannot give."""

    field = "rounds"
    templates = {
        "rounds_type": _("The number of rounds must be a whole number; %(value)s is not."),
        "rounds_too_few": _("At least one round is needed; %(value)s is not possible."),
        "rounds_too_many": _(
            "%(value)s rounds is too many: at most %(maximum)s rounds (%(donnes)s donnes per "
            "player) can be played %(why)s. Choose %(maximum)s rounds or fewer."
        ),
        "sets_type": _("The number of étui sets must be a whole number; %(value)s is not."),
    }


class InvalidMovementData(ScoringError):
    """Plain data (a dict from JSON) that does not describe a movement at all."""

    field = "movement"
    templates = {
        "data_invalid": _("The movement data is not valid at %(where)s: %(problem)s."),
    }


def donnes_of_set(set_no: int) -> list[int]:
    """Donnes of étui set ``set_no`` (1-based): set k holds donnes 4k-3 … 4k."""
    if isinstance(set_no, bool) or not isinstance(set_no, int) or set_no < 1:
        raise ValueError(f"étui sets are numbered from 1; {set_no!r} is not valid")
    return list(range(DONNES_PER_SET * set_no - 3, DONNES_PER_SET * set_no + 1))


def _donnes_label(set_no: int) -> str:
    d = donnes_of_set(set_no) if set_no >= 1 else [0, 0, 0, 0]
    return f"set {set_no} (donnes {d[0]}-{d[-1]})"


# --- data ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DonneSeating:
    """Who holds which hand on one donne of the relais, and who sits out (tables of five)."""

    hands: tuple[tuple[str, int], ...]  # (position, player) for N, E, S, W
    sitting_out: int | None = None

    def player(self, position: str) -> int:
        return dict(self.hands)[position]


@dataclass(frozen=True)
class Sitting:
    """One table in one round: the étui set it plays and who sits in which role.

    ``seats`` are (role, player) pairs, roles N E S W and, at a table of five, F. ``sit_out``
    (tables of five only) names, for donne 1..4 of the relais, the role that sits out; the fifth
    player plays that position's hand (if F sits out, the four positions play as usual).
    """

    table: int
    set_no: int
    seats: tuple[tuple[str, int], ...]
    sit_out: tuple[str, ...] = ()

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(p for _r, p in self.seats)

    @property
    def is_five(self) -> bool:
        return len(self.seats) == 5

    def player(self, role: str) -> int | None:
        """The player in a role, or None."""
        for r, p in self.seats:
            if r == role:
                return p
        return None

    def role_of(self, player: int) -> str | None:
        for r, p in self.seats:
            if p == player:
                return r
        return None

    def donne_seating(self, k: int) -> DonneSeating:
        """Hands and sit-out on donne k (1..4) of this table's relais."""
        if not 1 <= k <= DONNES_PER_SET:
            raise ValueError(f"a relais has donnes 1 to {DONNES_PER_SET}; {k!r} is not one")
        seats = dict(self.seats)
        hands = {pos: seats[pos] for pos in POSITIONS if pos in seats}
        out = None
        if self.is_five and len(self.sit_out) == DONNES_PER_SET:
            role = self.sit_out[k - 1]
            if role != FIFTH and role in seats and FIFTH in seats:
                out = seats[role]
                hands[role] = seats[FIFTH]
            elif role == FIFTH:
                out = seats.get(FIFTH)
        return DonneSeating(tuple(hands.items()), out)


@dataclass(frozen=True)
class Round:
    """One round (one relais): every table's sitting."""

    number: int
    sittings: tuple[Sitting, ...]

    def sitting(self, table: int) -> Sitting | None:
        for s in self.sittings:
            if s.table == table:
                return s
        return None


@dataclass(frozen=True)
class RouteStep:
    """One line of a player's route card."""

    round: int
    table: int
    set_no: int
    role: str
    donnes: tuple[int, ...]


@dataclass(frozen=True)
class Movement:
    """The whole seating plan of a session. ``sets`` étui sets hold donnes 1 … 4·sets."""

    players: int
    tables: int
    sets: int
    rounds: tuple[Round, ...]
    scheme: str = ""
    # Largest sit-out spread accepted (RULES §7): 1, or more when the generator found no
    # movement with a spread of one and declares the smallest it found (validate checks it).
    sit_out_allowance: int = 1

    @property
    def donnes(self) -> int:
        return DONNES_PER_SET * self.sets

    @property
    def five_tables(self) -> tuple[int, ...]:
        """Tables of five (as seated in the first round)."""
        if not self.rounds:
            return ()
        return tuple(sorted(s.table for s in self.rounds[0].sittings if s.is_five))

    def round(self, number: int) -> Round:
        for r in self.rounds:
            if r.number == number:
                return r
        raise KeyError(f"round {number} is not in this movement")

    def donnes_of_set(self, set_no: int) -> list[int]:
        return donnes_of_set(set_no)

    def route(self, player: int) -> tuple[RouteStep, ...]:
        """Where the player goes, round by round (for his route card)."""
        steps = []
        for rnd in self.rounds:
            for s in rnd.sittings:
                role = s.role_of(player)
                if role is not None:
                    donnes = tuple(donnes_of_set(s.set_no)) if s.set_no >= 1 else ()
                    steps.append(RouteStep(rnd.number, s.table, s.set_no, role, donnes))
        return tuple(steps)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for a JSONField; ``Movement.from_dict`` reads it back equal."""
        return {
            "format": FORMAT_VERSION,
            "players": self.players,
            "tables": self.tables,
            "sets": self.sets,
            "scheme": self.scheme,
            "sit_out_allowance": self.sit_out_allowance,
            "rounds": [
                {
                    "round": rnd.number,
                    "tables": [
                        {
                            "table": s.table,
                            "set": s.set_no,
                            "seats": _seats_data(s.seats),
                            "sit_out": list(s.sit_out),
                        }
                        for s in rnd.sittings
                    ],
                }
                for rnd in self.rounds
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Movement:
        """Build a movement from plain data without judging it: ``validate`` does that.

        Seats may be a {role: player} mapping or a list of [role, player] pairs (the latter can
        express a role given twice, which validate reports).
        """
        return _from_dict(data)


def _seats_data(seats: tuple[tuple[str, int], ...]) -> dict[str, int] | list[list[Any]]:
    """{role: player}; a list of pairs when a role is repeated, so a bad edit survives a save."""
    if len({role for role, _p in seats}) == len(seats):
        return dict(seats)
    return [[role, p] for role, p in seats]


def _need(cond: bool, where: str, problem: str) -> None:
    if not cond:
        raise InvalidMovementData("data_invalid", where=where, problem=problem)


def _int(value: Any, where: str) -> int:
    _need(
        isinstance(value, int) and not isinstance(value, bool), where, f"{value!r} is not a number"
    )
    return int(value)


def _from_dict(data: Mapping[str, Any]) -> Movement:
    _need(isinstance(data, Mapping), "the top level", "expected an object")
    for key in ("players", "tables", "sets", "rounds"):
        _need(key in data, "the top level", f"the key {key!r} is missing")
    if "format" in data:
        _need(data["format"] == FORMAT_VERSION, "format", f"version {data['format']!r} unknown")
    rounds_data = data["rounds"]
    _need(isinstance(rounds_data, list), "rounds", "expected a list")
    rounds = []
    for i, rd in enumerate(rounds_data):
        where = f"rounds[{i}]"
        _need(isinstance(rd, Mapping), where, "expected an object")
        _need("round" in rd and "tables" in rd, where, "needs 'round' and 'tables'")
        _need(isinstance(rd["tables"], list), f"{where}.tables", "expected a list")
        sittings = []
        for j, sd in enumerate(rd["tables"]):
            w = f"{where}.tables[{j}]"
            _need(isinstance(sd, Mapping), w, "expected an object")
            for key in ("table", "set", "seats"):
                _need(key in sd, w, f"the key {key!r} is missing")
            raw_seats = sd["seats"]
            if isinstance(raw_seats, Mapping):
                pairs = list(raw_seats.items())
            else:
                _need(isinstance(raw_seats, list), f"{w}.seats", "expected an object or a list")
                pairs = []
                for k, pair in enumerate(raw_seats):
                    ok = isinstance(pair, (list, tuple)) and len(pair) == 2
                    _need(ok, f"{w}.seats[{k}]", "expected [role, player]")
                    pairs.append((pair[0], pair[1]))
            seats = []
            for role, player in pairs:
                _need(isinstance(role, str), f"{w}.seats", f"role {role!r} is not text")
                seats.append((role, _int(player, f"{w}.seats.{role}")))
            sit_out = sd.get("sit_out", [])
            _need(isinstance(sit_out, list), f"{w}.sit_out", "expected a list")
            _need(all(isinstance(r, str) for r in sit_out), f"{w}.sit_out", "roles are text")
            sittings.append(
                Sitting(
                    _int(sd["table"], f"{w}.table"),
                    _int(sd["set"], f"{w}.set"),
                    tuple(seats),
                    tuple(sit_out),
                )
            )
        rounds.append(Round(_int(rd["round"], f"{where}.round"), tuple(sittings)))
    scheme = data.get("scheme", "")
    _need(isinstance(scheme, str), "scheme", "expected text")
    allowance = _int(data.get("sit_out_allowance", 1), "sit_out_allowance")
    return Movement(
        _int(data["players"], "players"),
        _int(data["tables"], "tables"),
        _int(data["sets"], "sets"),
        tuple(rounds),
        scheme,
        allowance,
    )


# --- seating the players ---------------------------------------------------------------------


def table_layout(players: int) -> tuple[int, int]:
    """(tables of four, tables of five) for n players, fewest tables of five; refuses 11 and < 8."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise InvalidSeating("players_type", value=repr(players))
    if players < 8:
        raise InvalidSeating("players_too_few", players=players, more=8 - players)
    if players == 11:
        raise InvalidSeating("players_eleven")
    five = players % 4
    return (players - 5 * five) // 4, five


def max_rounds(players: int, sets: int | None = None) -> int:
    """Most rounds the movement can give: MAX_ROUNDS, or fewer with only ``sets`` étui sets.

    With s sets at t tables nobody can play more than s rounds without replaying a donne; the
    stages use t sets each (3 for the two-table bye stage), one round may share sets by pairs.
    """
    four, five = table_layout(players)
    t = four + five
    if sets is None:
        return MAX_ROUNDS
    if isinstance(sets, bool) or not isinstance(sets, int):
        raise InvalidRounds("sets_type", value=repr(sets))
    if t == 2:
        best = sets
    elif sets >= t:
        best = (sets // t) * t
    else:
        best = 1 if sets >= t // 2 else 0
    return min(best, MAX_ROUNDS)


def sets_needed(players: int, rounds: int) -> int:
    """The fewest étui sets a movement of ``players`` over ``rounds`` rounds can use:
    `generate_movement(players, rounds, sets=sets_needed(players, rounds))` succeeds (a
    simultaneous event must deal at least that many sets for a club of that size). Raises
    InvalidSeating / InvalidRounds as generate_movement does."""
    four, five = table_layout(players)
    if isinstance(rounds, bool) or not isinstance(rounds, int):
        raise InvalidRounds("rounds_type", value=repr(rounds))
    if rounds < 1:
        raise InvalidRounds("rounds_too_few", value=rounds)
    t = four + five
    for sets in range(1, t * rounds + 4):
        if max_rounds(players, sets) >= rounds:
            return sets
    generate_movement(players, rounds)  # raises: more rounds than any movement gives
    raise AssertionError("unreachable")  # pragma: no cover


def most_players(sets: int, rounds: int, *, at_most: int = 400) -> int | None:
    """The most players a club may seat with ``sets`` étui sets over ``rounds`` rounds (None
    when not even 8 can): every size from 8 up to it fits, except 11, which no movement
    seats (more players mean more tables, so never fewer sets)."""
    best = None
    for players in range(8, at_most + 1):
        if players == 11:
            continue
        try:
            if sets_needed(players, rounds) > sets:
                break
        except ScoringError:
            break
        best = players
    return best


@dataclass(frozen=True)
class _Stage:
    kind: str  # "mitchell", "bye" (two tables, three rounds, three sets), "shared" (R = 1)
    length: int

    def sets(self, t: int) -> int:
        return {"mitchell": t, "bye": 3, "shared": t // 2}[self.kind]


def _plans(t: int, rounds: int) -> list[tuple[_Stage, ...]]:
    """Candidate stage plans, longest stages (fewest sets) first."""
    if rounds == 1:
        return [(_Stage("shared", 1),)]
    if t == 2:
        stages = [_Stage("mitchell", 2)] * (rounds // 2)
        if rounds % 2:
            stages = [*stages[:-1], _Stage("bye", 3)]
        return [tuple(stages)]
    plans: list[tuple[_Stage, ...]] = []
    for cap in range(min(rounds, t), 1, -1):
        k = math.ceil(rounds / cap)
        base, extra = divmod(rounds, k)
        if base < 2:
            continue
        plan = tuple(_Stage("mitchell", base + 1 if i < extra else base) for i in range(k))
        if plan not in plans:
            plans.append(plan)
    return plans


@dataclass
class _Built:
    rounds: list[list[tuple[int, list[tuple[str, int]]]]]  # per round, per table: (set, seats)
    sets: int
    max_together: int
    description: str


class _Seater:
    """Builds a movement for one stage plan (internal; see the module docstring)."""

    def __init__(
        self,
        players: int,
        four: int,
        five: int,
        five_at: tuple[int, ...] | None = None,
        mobile: bool = False,
    ) -> None:
        self.n = players
        self.mobile = mobile
        self.t = four + five
        self.b = five
        self.rg: Ring = ring(self.t)
        # tables of five, as ring elements (numbered last in the output, see _seat)
        self.five_tables = set(five_at if five_at is not None else range(self.t - five, self.t))
        self.role: list[str] = []
        self.home: list[int] = []
        for j in range(self.t):
            for role in (*POSITIONS, *((FIFTH,) if j in self.five_tables else ())):
                self.role.append(role)
                self.home.append(j)
        self.by_role: dict[str, list[int]] = defaultdict(list)
        for pid, role in enumerate(self.role):
            self.by_role[role].append(pid)

    def _shifts(self, stage: _Stage) -> dict[str, tuple[int, ...]]:
        if stage.kind != "mitchell":
            return {m: (0,) * stage.length for m in (*ROLES, SETS)}
        design = stage_design(self.t, stage.length, self.b > 0, self.mobile)
        if design is None:  # no stride keeps every position moving: the usual design
            design = stage_design(self.t, stage.length, self.b > 0)
        assert design is not None  # a stage of at most t rounds always has one (t ≥ 3 or L = 2)
        return {m: design.shifts(m) for m in design.movers}

    def _tables_of(
        self, offsets: Mapping[str, int], shifts: Mapping[str, tuple[int, ...]], r: int
    ) -> list[int]:
        add = self.rg.add_table
        return [
            add[add[self.home[pid]][offsets.get(role, 0)]][shifts[role][r]]
            for pid, role in enumerate(self.role)
        ]

    def _cost(
        self,
        offsets: Mapping[str, int],
        shifts: Mapping[str, tuple[int, ...]],
        length: int,
        count: list[int],
    ) -> int:
        n = self.n
        cost = 0
        for r in range(length):
            at: dict[int, list[int]] = defaultdict(list)
            for pid, j in enumerate(self._tables_of(offsets, shifts, r)):
                at[j].append(pid)
            for group in at.values():
                for a, b in itertools.combinations(group, 2):
                    prior = count[a * n + b]
                    cost += prior * prior
        return cost

    def _offsets(
        self, shifts: Mapping[str, tuple[int, ...]], length: int, count: list[int]
    ) -> dict[str, int]:
        """Offsets of the four positions for a new stage that least repeat earlier meetings."""
        free = list(POSITIONS) if self.b else list(POSITIONS[1:])  # no fifth: N fixes the frame
        best = {r: 0 for r in POSITIONS}
        best_cost = self._cost(best, shifts, length, count)
        if self.t ** len(free) <= 256:
            for values in itertools.product(range(self.t), repeat=len(free)):
                cand = {**best, **dict(zip(free, values, strict=True))}
                c = self._cost(cand, shifts, length, count)
                if c < best_cost:
                    best, best_cost = cand, c
            return best
        for _pass in range(3):
            improved = False
            for role in free:
                for v in range(self.t):
                    if v == best[role]:
                        continue
                    cand = {**best, role: v}
                    c = self._cost(cand, shifts, length, count)
                    if c < best_cost:
                        best, best_cost, improved = cand, c, True
            if not improved:
                break
        return best

    def build(self, plan: tuple[_Stage, ...]) -> _Built:
        n, t, add, neg = self.n, self.t, self.rg.add_table, self.rg.neg_table
        count = [0] * (n * n)
        rounds: list[list[tuple[int, list[tuple[str, int]]]]] = []
        base = 0
        for k, stage in enumerate(plan):
            shifts = self._shifts(stage)
            offsets = {r: 0 for r in POSITIONS}
            if k:
                offsets = self._offsets(shifts, stage.length, count)
            for r in range(stage.length):
                tables = self._tables_of(offsets, shifts, r)
                seats: list[list[tuple[str, int]]] = [[] for _ in range(t)]
                for pid, j in enumerate(tables):
                    seats[j].append((self.role[pid], pid))
                out = []
                for j in range(t):
                    if stage.kind == "mitchell":
                        label = add[j][neg[shifts[SETS][r]]]
                    elif stage.kind == "bye":
                        label = (j + r) % 3
                    else:
                        label = min(j // 2, t // 2 - 1)
                    ordered = sorted(seats[j], key=lambda s: ROLES.index(s[0]))
                    out.append((base + label + 1, [(role, pid + 1) for role, pid in ordered]))
                    ids = sorted(pid for _role, pid in seats[j])
                    for a, b in itertools.combinations(ids, 2):
                        count[a * n + b] += 1
                rounds.append(out)
            base += stage.sets(t)
        lengths = "+".join(str(s.length) for s in plan)
        field = " × ".join(f"GF({q})" for q in self.rg.sizes)
        kinds = {s.kind for s in plan}
        if "shared" in kinds:
            how = "one round, tables paired on the same étui set"
        else:
            how = f"tables numbered by {field}, stages of {lengths} rounds"
            if "bye" in kinds:
                how += " (the 3-round stage has 3 sets and a bye)"
        return _Built(rounds, base, max(count, default=0), how)


def generate_movement(players: int, rounds: int, *, sets: int | None = None) -> Movement:
    """The movement for ``players`` players and ``rounds`` relais of 4 donnes.

    ``sets`` optionally caps the number of étui sets available; by default as many as needed.
    Raises InvalidSeating (11 players, fewer than 8) or InvalidRounds, saying what to do.
    """
    four, five = table_layout(players)
    t = four + five
    if isinstance(rounds, bool) or not isinstance(rounds, int):
        raise InvalidRounds("rounds_type", value=repr(rounds))
    if rounds < 1:
        raise InvalidRounds("rounds_too_few", value=rounds)
    limit = max_rounds(players, sets)
    if rounds > limit:
        why = (
            Message(
                _(
                    "with %(sets)s étui sets at %(tables)s tables without anyone playing a "
                    "donne twice"
                ),
                sets=sets,
                tables=t,
            )
            if sets is not None
            else Message(_("in one session by this software"))
        )
        raise InvalidRounds(
            "rounds_too_many",
            value=rounds,
            maximum=limit,
            donnes=DONNES_PER_SET * limit,
            why=why,
        )
    return _generate(players, rounds, sets, limit)


@functools.lru_cache(maxsize=512)
def _generate(players: int, rounds: int, sets: int | None, limit: int) -> Movement:
    """generate_movement once its arguments are checked (cached: a Movement is immutable, and
    the search below, instant for most sizes, takes a second or two for the hardest).

    Tries seatings (placements of the tables of five, strides that keep every position
    moving, then shorter stages, then for 9 players groups that mix, then a local search on
    who sits where) until one shares sitting out within one donne; otherwise keeps the
    smallest spread, then the fewest repeated meetings. The last two are skipped where
    ``least_sit_out_spread`` proves the spread found the least possible."""
    four, five = table_layout(players)
    t = four + five
    plans = [p for p in _plans(t, rounds) if sets is None or sum(s.sets(t) for s in p) <= sets]
    if not plans:  # pragma: no cover - max_rounds already refused it
        raise InvalidRounds(
            "rounds_too_many", value=rounds, maximum=limit, donnes=4 * limit, why=Message(_("here"))
        )
    best: tuple[tuple[bool, int, int], Movement] | None = None
    tries = [(p, mobile) for p in _five_placements(t, five) for mobile in (False, True)]
    if not five:
        tries = tries[:1]
    elif t > 12:  # bigger fields: fewer, costlier tries (each re-seats every stage)
        tries = tries[:6]
    candidates = plans
    for k, (five_at, mobile) in enumerate(tries):
        seated, max_together, plan = _seat(players, four, five, five_at, candidates, rounds, mobile)
        if k == 0:
            candidates = [plan]  # the other tries keep the stage plan of the first
        shared, forced = _share_sit_outs(seated)
        spread = sit_out_spread(shared)
        key = (forced, max(1, spread), max_together)
        if best is None or key < best[0]:
            best = (key, shared)
        if not forced and spread <= 1:
            return shared
    # Sharing still above one: within a long stage the fifth seat can rarely pass on (whoever
    # takes it would replay a set), while a stage starts with fresh sets, so any player may
    # take it there. The next shorter stage plans (more étui sets) are tried with the first
    # placements of the tables of five; sharing within one comes first (RULES §7).
    assert best is not None
    shorter = [p for p in plans if p != candidates[0]][:SHORTER_PLANS]
    placements = [five_at for five_at, mobile in tries if not mobile][:SHORTER_PLACEMENTS]
    for plan in shorter:
        for five_at in placements:
            seated, max_together, _plan = _seat(players, four, five, five_at, [plan], rounds)
            shared, forced = _share_sit_outs(seated)
            spread = sit_out_spread(shared)
            key = (forced, max(1, spread), max_together)
            if key < best[0]:
                best = (key, shared)
            if not forced and spread <= 1:
                return shared
    # Last resorts, unless an exhaustive search shows that no movement does better: on two
    # tables, groups that mix across rounds; else the same tables and sets, with who sits
    # where searched (movement_search).
    least = least_sit_out_spread(players, rounds)
    hopeless = least is not None and best[0][1] <= max(1, least)
    if (four, five) == (1, 1) and not hopeless and (sets is None or rounds <= sets):
        mixed = _two_tables_mixed(players, rounds)
        if mixed is not None:
            return mixed
    for seed in range(0 if hopeless else SEARCH_SEEDS):
        found = _search_sharing(best[1], seed)
        if found is not None:
            return found
    return best[1]


# While sharing stays above one with the longest stages: how many shorter stage plans, and
# placements of the tables of five with each, are tried (a few seconds at most for 100 players).
SHORTER_PLANS = 2
SHORTER_PLACEMENTS = 2


FIVE_PLACEMENTS = 6  # placements of the tables of five tried while sharing is above one


def _five_placements(t: int, five: int) -> list[tuple[int, ...]]:
    """Where the tables of five sit in the ring, in the order tried: the last elements first
    (the plain numbering), then spread-out and seeded choices. Which elements are tables of
    five decides how often each mover comes back to one, hence how sitting out can be shared;
    the output always numbers the tables of five last."""
    out = [tuple(range(t - five, t))]
    if five == 0 or five >= t:
        return out
    step = t // five
    out.append(tuple(k * step + step // 2 for k in range(five)))
    rng = random.Random(1000 * t + five)
    for _ in range(4 * FIVE_PLACEMENTS):
        if len(out) >= FIVE_PLACEMENTS:
            break
        pick = tuple(sorted(rng.sample(range(t), five)))
        if pick not in out:
            out.append(pick)
    return out


def _seat(
    players: int,
    four: int,
    five: int,
    five_at: tuple[int, ...],
    plans: list[tuple[_Stage, ...]],
    rounds: int,
    mobile: bool = False,
) -> tuple[Movement, int, tuple[_Stage, ...]]:
    """The movement of the best stage plan with tables of five at ``five_at`` (ring elements),
    tables renumbered so that the tables of five come last; its max_together and plan."""
    t = four + five
    seater = _Seater(players, four, five, five_at, mobile)
    threshold = math.ceil(rounds / 2)
    chosen: tuple[_Built, tuple[_Stage, ...]] | None = None
    for plan in plans:
        built = seater.build(plan)
        if built.max_together <= threshold:
            chosen = (built, plan)
            break
        if chosen is None or (built.max_together, built.sets) < (
            chosen[0].max_together,
            chosen[0].sets,
        ):
            chosen = (built, plan)
    assert chosen is not None
    built, plan = chosen
    five_set = seater.five_tables
    order = [j for j in range(t) if j not in five_set] + sorted(five_set)
    number = {j: k + 1 for k, j in enumerate(order)}
    out_rounds = []
    for r, tables in enumerate(built.rounds, start=1):
        sittings = sorted(
            (
                Sitting(
                    number[j],
                    set_no,
                    tuple(seats),
                    POSITIONS if j in five_set else (),
                )
                for j, (set_no, seats) in enumerate(tables)
            ),
            key=lambda s: s.table,
        )
        out_rounds.append(Round(r, tuple(sittings)))
    scheme = f"{t} tables ({five} of five); {built.description}"
    movement = Movement(players, t, built.sets, tuple(out_rounds), scheme)
    return _renumber(movement), built.max_together, plan


# --- sharing the sit-outs (RULES §7) -----------------------------------------------------------
#
# At a table of five, four of the five players sit out one donne each and one "holds" the whole
# relais; whoever holds sits out at the next table of five he comes to. A player's count is
# the number of rounds he spends at a table of five less the relais he holds there, so sharing
# needs two things: the seat of the fifth player must pass from player to player (otherwise its
# holder is at a table of five every round and sits out every other relais while others never
# do), and the holders must be chosen well. ``_rotate_fifth`` passes the fifth seat along the
# players of one position (a player keeps his position whenever he holds one; in a round where
# he is the fifth player he plays the hand of whoever sits out), never letting anybody replay a
# set; ``_choose_holders`` picks each relais' holder. Both are greedy; a few deterministic
# variants are tried and the smallest spread is kept. Where sharing stays above one,
# ``_generate`` also re-seats with the tables of five at other elements of the ring
# (``_five_placements``) and with strides that keep every position moving
# (``stage_design(mobile=True)``): a position that stays put leaves its players at the tables
# of four for a whole stage. The output still numbers the tables of five last. Whatever is
# found, the smallest spread is declared in ``Movement.sit_out_allowance`` (1 when exact).

SHARE_TRIES = 4  # variants tried while the spread is above one (deterministic seeds)


def sit_out_counts(movement: Movement) -> dict[int, int]:
    """Donnes each player (1..n) sits out over the session, from the sit-out orders."""
    counts = dict.fromkeys(range(1, movement.players + 1), 0)
    for rnd in movement.rounds:
        for s in rnd.sittings:
            if not s.is_five:
                continue
            for k in range(1, DONNES_PER_SET + 1):
                out = s.donne_seating(k).sitting_out if len(s.sit_out) == DONNES_PER_SET else None
                if out is not None:
                    counts[out] = counts.get(out, 0) + 1
    return counts


def sit_out_spread(movement: Movement) -> int:
    """Most donnes sat out by one player minus fewest by another (RULES §7 asks at most 1)."""
    counts = sit_out_counts(movement)
    return max(counts.values(), default=0) - min(counts.values(), default=0)


def _holder(s: Sitting) -> int | None:
    """The player of a table of five who sits out no donne of the relais (None if unclear)."""
    if not s.is_five or len(s.sit_out) != DONNES_PER_SET:
        return None
    missing = [role for role, _p in s.seats if role not in s.sit_out]
    return s.player(missing[0]) if len(missing) == 1 else None


def _with_seats(movement: Movement, assign: list[dict[int, int]]) -> Movement:
    """The movement with slot numbers replaced, round by round, by the players in them."""
    rounds = tuple(
        Round(
            rnd.number,
            tuple(
                Sitting(s.table, s.set_no, tuple((r, assign[i][p]) for r, p in s.seats), s.sit_out)
                for s in rnd.sittings
            ),
        )
        for i, rnd in enumerate(movement.rounds)
    )
    return Movement(movement.players, movement.tables, movement.sets, rounds, movement.scheme)


def _rotate_fifth(movement: Movement, rng: random.Random | None, balance: bool = False) -> Movement:
    """Pass each table of five's fifth seat, round by round, to a player of one position.

    The slots of the generated movement stay (tables, sets, roles); only who fills them
    changes: in a round, the fifth player takes the slot of a player of his group (his
    position), who becomes the fifth player. Chosen: the player with the fewest rounds at a
    table of five so far, among the swaps that replay no set for either of them. With
    ``balance``, players of one position then also trade slots for the rest of the session
    when that evens out the rounds they will spend at a table of five (``_balance``).
    """
    rounds = movement.rounds
    if len(rounds) < 2 or not movement.five_tables:
        return movement
    where: dict[tuple[int, int], tuple[int, bool]] = {}  # (slot, round index) -> (set, five)
    mates: dict[tuple[int, int], tuple[int, ...]] = {}  # (slot, round index) -> table's slots
    for i, rnd in enumerate(rounds):
        for s in rnd.sittings:
            for _role, p in s.seats:
                where[(p, i)] = (s.set_no, s.is_five)
                mates[(p, i)] = s.players
    first = rounds[0]
    fifth_slots = [s.player(FIFTH) for s in first.sittings if s.is_five]
    order = list(POSITIONS)
    if rng is not None:
        rng.shuffle(order)
    role_of = {p: r for s in first.sittings for r, p in s.seats}
    groups = [[p for p, r in sorted(role_of.items()) if r == order[k]] for k in range(len(order))]
    occupant = {p: p for p in range(1, movement.players + 1)}
    played: dict[int, set[int]] = defaultdict(set)
    met: dict[int, set[int]] = defaultdict(set)
    visits: Counter[int] = Counter()
    assign: list[dict[int, int]] = []
    last = len(rounds)

    def record(i: int) -> None:
        assign.append(dict(occupant))
        for slot, player in occupant.items():
            set_no, five = where[(slot, i)]
            played[player].add(set_no)
            visits[player] += five
            met[player].update(occupant[q] for q in mates[(slot, i)])

    def repeats(player: int, slot: int, i: int) -> int:
        """Players he would meet again from round i on (with today's occupants)."""
        return sum(
            1
            for k in range(i, last)
            for q in mates[(slot, k)]
            if q != slot and occupant[q] in met[player]
        )

    # suffix views per slot: sets played and rounds at a table of five from round i on
    later_sets: dict[tuple[int, int], frozenset[int]] = {}
    ahead: dict[tuple[int, int], int] = {}
    for slot in occupant:
        acc: set[int] = set()
        count = 0
        for k in range(last - 1, -1, -1):
            set_no, five = where[(slot, k)]
            acc.add(set_no)
            count += five
            later_sets[(slot, k)] = frozenset(acc)
            ahead[(slot, k)] = count

    record(0)
    for i in range(1, last):
        for fifth, group in zip(fifth_slots, groups, strict=False):
            if fifth is None:
                continue
            y = occupant[fifth]
            later_fifth = later_sets[(fifth, i)]
            legal = [
                slot
                for slot in group
                if not (later_sets[(slot, i)] & played[y] or later_fifth & played[occupant[slot]])
            ]
            if not legal:
                continue
            fewest = min(visits[occupant[slot]] for slot in legal)
            best: tuple[tuple[float, ...], int] | None = None
            for slot in legal:
                x = occupant[slot]
                if visits[x] != fewest:
                    continue
                tie = rng.random() if rng is not None else slot
                again = repeats(y, slot, i) + repeats(x, fifth, i)
                cost = (again, ahead[(slot, i)], tie)
                if best is None or cost < best[0]:
                    best = (cost, slot)
            assert best is not None
            slot = best[1]
            occupant[slot], occupant[fifth] = y, occupant[slot]
        if balance:
            paired = dict(zip(fifth_slots, groups, strict=False))
            for same in groups:
                group = same + [f for f, g in paired.items() if g is same and f is not None]
                _balance(group, i, occupant, visits, played, later_sets, ahead)
        record(i)
    return _with_seats(movement, assign)


def _balance(
    group: list[int],
    i: int,
    occupant: dict[int, int],
    visits: Counter[int],
    played: dict[int, set[int]],
    later_sets: dict[tuple[int, int], frozenset[int]],
    ahead: dict[tuple[int, int], int],
) -> None:
    """Trade slots of one position from round i on while it lowers the sum of squares of the
    rounds each player will have spent at a table of five, and replays no set."""

    def projected(slot: int) -> int:
        return visits[occupant[slot]] + ahead[(slot, i)]

    for _pass in range(2):
        changed = False
        for a in sorted(group, key=projected, reverse=True):
            x = occupant[a]
            best: tuple[int, int] | None = None
            for b in group:
                z = occupant[b]
                if b == a or later_sets[(b, i)] & played[x] or later_sets[(a, i)] & played[z]:
                    continue
                px, pz = visits[x], visits[z]
                now = (px + ahead[(a, i)]) ** 2 + (pz + ahead[(b, i)]) ** 2
                then = (px + ahead[(b, i)]) ** 2 + (pz + ahead[(a, i)]) ** 2
                if then < now and (best is None or then - now < best[0]):
                    best = (then - now, b)
            if best is not None:
                b = best[1]
                occupant[a], occupant[b] = occupant[b], x
                changed = True
        if not changed:
            break


def _choose_holders(movement: Movement, rng: random.Random | None) -> tuple[Movement, bool]:
    """Sit-out orders: at each table of five the holder is, among those who did not hold at
    their last table of five, the one who would end with the most sit-outs if he never held
    again; the four others sit out in the order N, E, S, W, F. The flag says whether every
    holder could be chosen that way (False: someone had to hold twice running)."""
    remaining: Counter[int] = Counter()
    for rnd in movement.rounds:
        for s in rnd.sittings:
            if s.is_five:
                remaining.update(s.players)
    count: Counter[int] = Counter()
    held_last: set[int] = set()
    rounds = []
    clean = True
    for rnd in movement.rounds:
        sittings = []
        for s in rnd.sittings:
            if not s.is_five:
                sittings.append(s)
                continue
            pool = [p for p in s.players if p not in held_last]
            if not pool:
                clean, pool = False, list(s.players)
            holder = max(
                pool,
                key=lambda p: (count[p] + remaining[p], rng.random() if rng is not None else -p),
            )
            for p in s.players:
                remaining[p] -= 1
                if p == holder:
                    held_last.add(p)
                else:
                    count[p] += 1
                    held_last.discard(p)
            order = tuple(r for r in ROLES if r in dict(s.seats) and s.player(r) != holder)
            sittings.append(Sitting(s.table, s.set_no, s.seats, order))
        rounds.append(Round(rnd.number, tuple(sittings)))
    shared = Movement(
        movement.players, movement.tables, movement.sets, tuple(rounds), movement.scheme
    )
    return shared, clean


def _renumber(movement: Movement) -> Movement:
    """Players numbered by first appearance (round 1, table 1 N E S W F …), as documented."""
    number: dict[int, int] = {}
    for rnd in movement.rounds:
        for s in rnd.sittings:
            for _role, p in s.seats:
                number.setdefault(p, len(number) + 1)
    return _with_seats(movement, [number] * len(movement.rounds))


def _share_sit_outs(movement: Movement) -> tuple[Movement, bool]:
    """The movement with the fifth seat passed around and the sit-out orders chosen so that
    the sit-out counts differ by as little as found (at most one wherever a variant gets it);
    a spread above one is declared in ``sit_out_allowance``."""
    if not movement.five_tables:
        return movement, False
    best: tuple[tuple[bool, int], Movement] | None = None
    for k in range(SHARE_TRIES):
        rng = random.Random(k // 2) if k >= 2 else None
        seated = _rotate_fifth(movement, rng, balance=k % 2 == 1)
        for j in range(2):
            shared, clean = _choose_holders(seated, random.Random(1000 + k) if j else None)
            key = (not clean, sit_out_spread(shared))
            if best is None or key < best[0]:
                best = (key, shared)
            if best[0] <= (False, 1):
                break
        if best[0] <= (False, 1):
            break
    assert best is not None
    (forced, spread), shared = best
    shared = _renumber(shared)
    return Movement(
        shared.players, shared.tables, shared.sets, shared.rounds, shared.scheme, max(1, spread)
    ), forced


# --- where one donne's spread is impossible: a proof by exhaustive search ---------------------


@functools.lru_cache(maxsize=16)
def least_sit_out_spread(players: int, rounds: int) -> int | None:
    """The smallest sit-out spread ANY movement reaches, where an exhaustive search settles it:
    9 players (a table of four and a table of five) over 2 or 3 rounds; None elsewhere.

    The search covers every movement that plays one copy of each étui set per round (the two
    tables play different sets), every set at two tables or more (so at most R sets among
    the 2R plays), nobody replaying a set, tables of 4 or 5 in any round; it even lets
    players change position and hold relais twice running (so the answer bounds every real
    movement from below). Why it is above one: a player who
    changed table would replay a set, so the table of four keeps its four players all session
    and they never sit out, while the five others share all 4 × rounds sit-outs.
    """
    four, five = table_layout(players)
    if (four, five) != (1, 1) or not 2 <= rounds <= 3:
        return None
    best: int | None = None
    pairs = [(a, b) for a in range(rounds) for b in range(rounds) if a != b]
    for schedule in itertools.product(pairs, repeat=rounds):
        plays = Counter(set_no for pair in schedule for set_no in pair)
        if min(plays.values()) < 2:
            continue  # a set played at one table only
        paths = [
            path
            for path in itertools.product((0, 1), repeat=rounds)
            if len({schedule[r][path[r]] for r in range(rounds)}) == rounds
        ]
        for counts in _compositions(players, len(paths)):
            seated = [path for path, k in zip(paths, counts, strict=True) for _ in range(k)]
            spread = _least_spread_of(seated, rounds)
            if spread is not None and (best is None or spread < best):
                best = spread
    return best


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way of writing ``total`` as an ordered sum of ``parts`` whole numbers ≥ 0."""
    if parts == 0:
        return [()] if total == 0 else []
    return [(k, *rest) for k in range(total + 1) for rest in _compositions(total - k, parts - 1)]


def _least_spread_of(seated: list[tuple[int, ...]], rounds: int) -> int | None:
    """Smallest spread over every choice of holders, players following ``seated`` (the table
    of each, round by round); None when some round has a table of other than 4 or 5."""
    at_five: list[list[int]] = []
    for r in range(rounds):
        table_zero = [i for i, path in enumerate(seated) if path[r] == 0]
        table_one = [i for i, path in enumerate(seated) if path[r] == 1]
        if {len(table_zero), len(table_one)} != {4, 5}:
            return None
        at_five.append(table_zero if len(table_zero) == 5 else table_one)
    best: int | None = None
    for holders in itertools.product(*at_five):
        counts = [0] * len(seated)
        for r, holder in enumerate(holders):
            for i in at_five[r]:
                counts[i] += i != holder
        spread = max(counts) - min(counts)
        best = spread if best is None else min(best, spread)
    return best


# --- two tables whose players mix (9 players) ---------------------------------------------------


def _two_tables_mixed(players: int, rounds: int) -> Movement | None:
    """9 players on a table of four and a table of five, R sets, the groups mixing: a movement
    sharing sitting out within one, or None if none of this shape does.

    In a two-table stage the players cannot change table (they would replay a set), so the
    table of four keeps its players for the stage. Here instead set r + 1 is played at the
    table of five in round r and, at the table of four, in the round where σ names it (σ(r)
    is the set of the table of four in round r, σ(r) ≠ r, so every set is played at both
    tables). A player F (fifth) is at the table of five every round; four players A are there
    with him in the rounds of ``with_a`` and at the table of four in the others, four players
    C the other way round. Every σ and ``with_a`` where A and C never replay a set is tried;
    the first whose holders share sitting out within one is kept."""
    if players != 9 or rounds < 2:
        return None
    everyone = range(rounds)
    for sigma in itertools.permutations(everyone):
        if any(sigma[r] == r for r in everyone):
            continue
        for size in range(1, rounds):
            for with_a in itertools.combinations(everyone, size):
                a_sets = {r if r in with_a else sigma[r] for r in everyone}
                c_sets = {sigma[r] if r in with_a else r for r in everyone}
                if len(a_sets) == len(c_sets) == rounds:
                    found = _mixed_movement(set(with_a), sigma)
                    if found is not None:
                        return found
    return None


def _mixed_movement(with_a: set[int], sigma: tuple[int, ...]) -> Movement | None:
    """The movement of ``_two_tables_mixed`` for one (σ, with_a), with its holders chosen; None
    unless it shares sitting out within one and every holder sits out at his next table."""
    group_a = tuple(zip(POSITIONS, (1, 2, 3, 4), strict=True))
    group_c = tuple(zip(POSITIONS, (6, 7, 8, 9), strict=True))
    out = []
    for r, four_set in enumerate(sigma):
        five_seats, four_seats = (group_a, group_c) if r in with_a else (group_c, group_a)
        four = Sitting(1, four_set + 1, four_seats)
        five = Sitting(2, r + 1, (*five_seats, (FIFTH, 5)), POSITIONS)
        out.append(Round(r + 1, (four, five)))
    scheme = "2 tables (1 of five); the players of the two tables mix, one set per round"
    plain = Movement(9, 2, len(sigma), tuple(out), scheme)
    for rng in (None, *(random.Random(seed) for seed in range(SHARE_TRIES))):
        shared, clean = _choose_holders(plain, rng)
        if clean and sit_out_spread(shared) <= 1:
            found = _renumber(shared)
            return found if not validate(found) else None
    return None


SEARCH_STEPS = 60_000  # proposals per seed of the last-resort search (≈ 1 s at 100 players)
SEARCH_SEEDS = 3
SEARCH_POLISH = 20_000  # then proposals that only lower repeated meetings, sharing kept


def _search_sharing(movement: Movement, seed: int) -> Movement | None:
    """The movement with seats and holders re-chosen by local search (movement_search) so
    that sitting out is shared within one; None if the search finds no such seating.

    Tables, étui sets and the roles of the seats stay: only who sits where changes, so the
    result keeps every property of ``movement`` but its meetings, and is validated again."""
    problem = _sharing_problem(movement)
    if not share_by_search(problem, SEARCH_STEPS, seed, SEARCH_POLISH):
        return None
    rounds = []
    for r, rnd in enumerate(movement.rounds):
        sittings = []
        for s in rnd.sittings:
            seats = tuple(
                (seat.role, problem.occupant[r][k])
                for k, seat in enumerate(problem.seats[r])
                if seat.table == s.table
            )
            order: tuple[str, ...] = ()
            if s.is_five:
                held = problem.seats[r][problem.holder[r][s.table]].role
                order = tuple(role for role in ROLES if role != held)
            sittings.append(Sitting(s.table, s.set_no, seats, order))
        rounds.append(Round(rnd.number, tuple(sittings)))
    found = _renumber(
        Movement(movement.players, movement.tables, movement.sets, tuple(rounds), movement.scheme)
    )
    if sit_out_spread(found) > 1 or validate(found):  # pragma: no cover - the search's contract
        return None
    return found


def _sharing_problem(movement: Movement) -> SharingProblem:
    """The movement as movement_search's plain lists: seats, occupants, holders, positions."""
    seats: list[list[Seat]] = []
    occupant: list[list[int]] = []
    holder: list[dict[int, int]] = []
    group: dict[int, str] = {}
    for rnd in movement.rounds:
        row: list[Seat] = []
        occ: list[int] = []
        held: dict[int, int] = {}
        for s in rnd.sittings:
            holds = _holder(s)
            for role, p in s.seats:
                if p == holds or (s.is_five and holds is None and role == FIFTH):
                    held[s.table] = len(row)
                row.append(Seat(s.table, s.set_no, role, s.is_five))
                occ.append(p)
                if role != FIFTH:
                    group.setdefault(p, role)
        seats.append(row)
        occupant.append(occ)
        holder.append(held)
    # a player seated fifth in every round joins the smallest position group
    sizes = Counter(group.values())
    for p in range(1, movement.players + 1):
        if p not in group:
            role = min(POSITIONS, key=lambda r: (sizes[r], POSITIONS.index(r)))
            group[p] = role
            sizes[role] += 1
    return SharingProblem(seats, occupant, holder, group)


# --- validation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Breach:
    """One broken rule, with a message for the arbiter and where it happens."""

    rule: str
    message: str
    round: int | None = None
    table: int | None = None
    player: int | None = None
    set_no: int | None = None


RULES_CHECKED = {
    "structure": "the movement's counts and round numbers are consistent",
    "seating": "each player is seated exactly once per round",
    "table_size": "tables have 4 or 5 players",
    "positions": "positions are N, E, S, W (and F at a table of five), each once per table",
    "set_per_table": "each table plays exactly one existing étui set per round",
    "set_repeat": "nobody plays an étui set (a donne) twice",
    "position_kept": "players keep their position (N, E, S or W) all session; a player may be "
    "the fifth player (F) of a table of five in some rounds",
    "donne_coverage": "every donne is played at two tables or more (when there are two tables)",
    "sit_out": "at a table of five one player sits out each donne, each at most once",
    "sit_out_turn": "whoever holds a whole relais at a table of five sits out at the next table "
    "of five that player comes to",
    "sit_out_spread": "any two players' sit-out counts differ by at most one (or by the "
    "movement's declared sit_out_allowance, the smallest the generator found)",
}


def validate(movement: Movement) -> list[Breach]:
    """Every breach of the movement rules (RULES_CHECKED), in round and table order.

    Works on any movement (generated, or edited by hand and read with Movement.from_dict).
    """
    out = _structure_breaches(movement)
    seen = _Seen()
    for rnd in movement.rounds:
        out.extend(_round_breaches(movement, rnd, seen))
    if movement.tables >= 2:
        out.extend(_coverage_breaches(movement, seen.plays))
    if not any(b.rule in ("seating", "sit_out", "positions") for b in out):
        out.extend(_sharing_breaches(movement))
    return out


@dataclass
class _Seen:
    """What `validate` has seen in the rounds before the current one."""

    role: dict[int, tuple[str, int]] = field(default_factory=dict)  # player -> (role, round)
    # player -> set -> first round
    sets_of: dict[int, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    # set -> [(round, table)]
    plays: dict[int, list[tuple[int, int]]] = field(default_factory=lambda: defaultdict(list))


def _structure_breaches(movement: Movement) -> list[Breach]:
    """The declared sizes and the rounds' numbering."""
    out: list[Breach] = []
    n, t, nsets = movement.players, movement.tables, movement.sets
    if n < 1:
        out.append(Breach("structure", f"the movement declares {n} players"))
    if t < 1:
        out.append(Breach("structure", f"the movement declares {t} tables"))
    if nsets < 1:
        out.append(Breach("structure", f"the movement declares {nsets} étui sets"))
    if not movement.rounds:
        out.append(Breach("structure", "the movement has no round"))
    for i, rnd in enumerate(movement.rounds, start=1):
        if rnd.number != i:
            out.append(
                Breach(
                    "structure",
                    f"round number {rnd.number} is listed in place {i}: rounds are numbered "
                    "1, 2, 3 … in order",
                    round=rnd.number,
                )
            )
    return out


def _round_breaches(movement: Movement, rnd: Any, seen: _Seen) -> list[Breach]:
    """One round's breaches: its tables, each sitting, and where its players sit."""
    rn = rnd.number
    out = _table_list_breaches(movement, rnd)
    where_player: dict[int, list[int]] = defaultdict(list)
    for s in rnd.sittings:
        out.extend(_sitting_breaches(movement, s, rn, seen))
        for _role, p in s.seats:
            where_player[p].append(s.table)
    out.extend(_seating_breaches(movement, rn, where_player))
    return out


def _table_list_breaches(movement: Movement, rnd: Any) -> list[Breach]:
    """Each table of the round exists and plays one étui set."""
    out: list[Breach] = []
    rn, t = rnd.number, movement.tables
    table_count = Counter(s.table for s in rnd.sittings)
    for table, k in sorted(table_count.items()):
        if not 1 <= table <= t:
            out.append(
                Breach(
                    "set_per_table",
                    f"round {rn}: table {table} does not exist (tables 1 to {t})",
                    round=rn,
                    table=table,
                )
            )
        if k > 1:
            out.append(
                Breach(
                    "set_per_table",
                    f"round {rn}: table {table} is listed {k} times; a table plays one set "
                    "per round",
                    round=rn,
                    table=table,
                )
            )
    for table in range(1, t + 1):
        if table not in table_count:
            out.append(
                Breach(
                    "set_per_table",
                    f"round {rn}: table {table} has no étui set (and no players)",
                    round=rn,
                    table=table,
                )
            )
    return out


def _sitting_breaches(movement: Movement, s: Any, rn: int, seen: _Seen) -> list[Breach]:
    """A table in a round: its size, positions, sit-out order, étui set and its players'
    positions and sets against the rounds before."""
    out: list[Breach] = []
    size = len(s.seats)
    if size not in (4, 5):
        out.append(
            Breach(
                "table_size",
                f"round {rn}, table {s.table}: {size} players; a table has 4 or 5",
                round=rn,
                table=s.table,
            )
        )
    roles = [r for r, _p in s.seats]
    out.extend(_position_breaches(s, rn, roles, size))
    _check_sit_out(s, rn, roles, out)
    nsets = movement.sets
    if not 1 <= s.set_no <= nsets:
        out.append(
            Breach(
                "set_per_table",
                f"round {rn}, table {s.table}: étui set {s.set_no} does not exist "
                f"(sets 1 to {nsets})",
                round=rn,
                table=s.table,
                set_no=s.set_no,
            )
        )
    else:
        seen.plays[s.set_no].append((rn, s.table))
    for role, p in s.seats:
        if 1 <= p <= movement.players:
            out.extend(_player_breaches(movement, s, rn, role, p, seen))
    return out


def _position_breaches(s: Any, rn: int, roles: list[str], size: int) -> list[Breach]:
    """The positions at a table: known, given once, all there, no fifth at a table of four."""
    out: list[Breach] = []
    expected = set(POSITIONS) | ({FIFTH} if size == 5 else set())
    for role, k in Counter(roles).items():
        if role not in ROLES:
            out.append(
                Breach(
                    "positions",
                    f"round {rn}, table {s.table}: unknown position {role!r} (use N, E, "
                    "S, W, and F for the fifth player)",
                    round=rn,
                    table=s.table,
                )
            )
        elif k > 1:
            out.append(
                Breach(
                    "positions",
                    f"round {rn}, table {s.table}: position {role} is given {k} times",
                    round=rn,
                    table=s.table,
                )
            )
    if size in (4, 5):
        lacking = [r for r in ROLES if r in expected and r not in roles]
        if lacking:
            out.append(
                Breach(
                    "positions",
                    f"round {rn}, table {s.table}: no player at {', '.join(lacking)}",
                    round=rn,
                    table=s.table,
                )
            )
        if size == 4 and FIFTH in roles:
            out.append(
                Breach(
                    "positions",
                    f"round {rn}, table {s.table}: a fifth player (F) at a table of four",
                    round=rn,
                    table=s.table,
                )
            )
    return out


def _player_breaches(
    movement: Movement, s: Any, rn: int, role: str, p: int, seen: _Seen
) -> list[Breach]:
    """A player keeps his position and never plays an étui set twice."""
    out: list[Breach] = []
    if role != FIFTH and p in seen.role and seen.role[p][0] != role:
        first_role, first_round = seen.role[p]
        out.append(
            Breach(
                "position_kept",
                f"player {p} sits {role} in round {rn} (table {s.table}) but "
                f"{first_role} in round {first_round}: players keep their "
                "position",
                round=rn,
                table=s.table,
                player=p,
            )
        )
    if role != FIFTH:
        seen.role.setdefault(p, (role, rn))
    if 1 <= s.set_no <= movement.sets:
        first = seen.sets_of[p].get(s.set_no)
        if first is not None and first != rn:
            out.append(
                Breach(
                    "set_repeat",
                    f"player {p} plays {_donnes_label(s.set_no)} again in round "
                    f"{rn} (table {s.table}); that player played it in round {first}",
                    round=rn,
                    table=s.table,
                    player=p,
                    set_no=s.set_no,
                )
            )
        seen.sets_of[p].setdefault(s.set_no, rn)
    return out


def _seating_breaches(
    movement: Movement, rn: int, where_player: dict[int, list[int]]
) -> list[Breach]:
    """Every player of the field seated exactly once in the round, and nobody else."""
    out: list[Breach] = []
    n = movement.players
    for p in sorted(where_player):
        if not 1 <= p <= n:
            out.append(
                Breach(
                    "seating",
                    f"round {rn}: player {p} is seated (table "
                    f"{', '.join(map(str, where_player[p]))}) but players are numbered 1 "
                    f"to {n}",
                    round=rn,
                    player=p,
                )
            )
        elif len(where_player[p]) > 1:
            out.append(
                Breach(
                    "seating",
                    f"round {rn}: player {p} is seated {len(where_player[p])} times "
                    f"(tables {', '.join(map(str, where_player[p]))})",
                    round=rn,
                    player=p,
                )
            )
    for p in range(1, n + 1):
        if p not in where_player:
            out.append(
                Breach("seating", f"round {rn}: player {p} is not seated", round=rn, player=p)
            )
    return out


def _coverage_breaches(movement: Movement, plays: dict[int, list[tuple[int, int]]]) -> list[Breach]:
    """With two tables or more, every étui set is played at two tables at least."""
    out: list[Breach] = []
    for set_no in range(1, movement.sets + 1):
        where = plays.get(set_no, [])
        if not where:
            out.append(
                Breach(
                    "donne_coverage",
                    f"{_donnes_label(set_no)} is never played",
                    set_no=set_no,
                )
            )
        elif len(where) == 1:
            rn, table = where[0]
            out.append(
                Breach(
                    "donne_coverage",
                    f"{_donnes_label(set_no)} is played at one table only (round {rn}, "
                    f"table {table}): nothing to compare its results with",
                    round=rn,
                    table=table,
                    set_no=set_no,
                )
            )
    return out


def _sharing_breaches(movement: Movement) -> list[Breach]:
    """RULES §7 on a movement whose seats and sit-out orders are otherwise sound."""
    out: list[Breach] = []
    held: dict[int, int] = {}  # player -> round of the relais he held, until his next five
    for rnd in movement.rounds:
        for s in rnd.sittings:
            if not s.is_five:
                continue
            holder = _holder(s)
            for p in s.players:
                if p in held and p == holder:
                    out.append(
                        Breach(
                            "sit_out_turn",
                            f"round {rnd.number}, table {s.table}: player {p} holds the whole "
                            f"relais again; they held it in round {held[p]}, so they sit out one "
                            "donne here",
                            round=rnd.number,
                            table=s.table,
                            player=p,
                        )
                    )
                held.pop(p, None)
            if holder is not None:
                held[holder] = rnd.number
    counts = sit_out_counts(movement)
    if counts:
        allowed = max(1, movement.sit_out_allowance)
        most = max(counts.values())
        fewest = min(counts.values())
        if most - fewest > allowed:
            p = min(q for q, k in counts.items() if k == most)
            q = min(r for r, k in counts.items() if k == fewest)
            out.append(
                Breach(
                    "sit_out_spread",
                    f"player {p} sits out {most} donnes but player {q} only {fewest}: the "
                    f"counts may differ by {allowed} at most",
                    player=p,
                )
            )
    return out


def _check_sit_out(s: Sitting, rn: int, roles: list[str], out: list[Breach]) -> None:
    if len(s.seats) != 5:
        if s.sit_out:
            out.append(
                Breach(
                    "sit_out",
                    f"round {rn}, table {s.table}: a sit-out order at a table of "
                    f"{len(s.seats)}; only a table of five has one",
                    round=rn,
                    table=s.table,
                )
            )
        return
    problems = []
    if len(s.sit_out) != DONNES_PER_SET:
        problems.append(f"names {len(s.sit_out)} sit-outs for the {DONNES_PER_SET} donnes")
    bad = [r for r in s.sit_out if r not in roles]
    if bad:
        problems.append(f"names {', '.join(map(repr, bad))}, not seated at this table")
    twice = [r for r, k in Counter(s.sit_out).items() if k > 1]
    if twice:
        problems.append(f"has {', '.join(twice)} sit out more than one donne")
    for problem in problems:
        out.append(
            Breach(
                "sit_out",
                f"round {rn}, table {s.table} (table of five): the sit-out order {problem}; give "
                "one role per donne, each at most once",
                round=rn,
                table=s.table,
            )
        )


# --- statistics ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerOpponents:
    """Opponent diversity of one player.

    ``possible`` is the most distinct opponents he could meet: the number of table-mates summed
    over his rounds, capped by the number of players of other roles (players of his own
    position never share his table).
    """

    player: int
    role: str
    distinct: int
    possible: int
    max_together: int


@dataclass(frozen=True)
class OpponentStats:
    """Per-player opponent diversity of a movement."""

    players: tuple[PlayerOpponents, ...]

    @property
    def min_distinct(self) -> int:
        return min((p.distinct for p in self.players), default=0)

    @property
    def max_together(self) -> int:
        """Most rounds any two players share a table."""
        return max((p.max_together for p in self.players), default=0)

    @property
    def all_at_bound(self) -> bool:
        """Every player meets as many distinct opponents as possible."""
        return all(p.distinct == p.possible for p in self.players)

    @property
    def shortfall(self) -> int:
        """Total distinct opponents missing against the bound, over all players."""
        return sum(p.possible - p.distinct for p in self.players)


def opponent_stats(movement: Movement) -> OpponentStats:
    """Distinct opponents (players met at the same table) per player, and the bound."""
    met: dict[int, Counter[int]] = defaultdict(Counter)
    mates: Counter[int] = Counter()
    role_of: dict[int, str] = {}
    for rnd in movement.rounds:
        for s in rnd.sittings:
            ids = [p for _r, p in s.seats]
            for role, p in s.seats:
                role_of.setdefault(p, role)
                mates[p] += len(ids) - 1
                for q in ids:
                    if q != p:
                        met[p][q] += 1
    per_role = Counter(role_of.values())
    positional = sum(k for r, k in per_role.items() if r != FIFTH)
    out = []
    for p in sorted(role_of):
        role = role_of[p]
        pool = positional if role == FIFTH else len(role_of) - per_role[role]
        out.append(
            PlayerOpponents(
                p,
                role,
                len(met[p]),
                min(mates[p], pool),
                max(met[p].values(), default=0),
            )
        )
    return OpponentStats(tuple(out))


def copies_needed(movement: Movement) -> dict[int, int]:
    """For each étui set, how many copies must exist: the most tables playing it in one round."""
    need: dict[int, int] = {}
    for rnd in movement.rounds:
        for set_no, k in Counter(s.set_no for s in rnd.sittings).items():
            need[set_no] = max(need.get(set_no, 0), k)
    return dict(sorted(need.items()))
