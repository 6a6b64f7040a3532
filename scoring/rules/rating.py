"""The player's rating ("indice"), pure: the software's own measure of strength, not the
federation's ranking. Documented in docs/RATING.md.

Games. Players who held the same cards (the same donne at the same position, RULES §6) are
compared pairwise: each pair is one game, won (1), drawn (½) or lost (0) by the score. A
`CardGroup` is one such group of (player, score) of one event (annulled tables and sit-outs
left out by the caller); a group of one gives no game.

System. Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2022), on the usual scale:
a new player starts at 1500 with a deviation of 350 and a volatility of 0.06, τ = 0.5.

- **Rating periods**: all the games of one date form one period (the events of one day
  together), and periods are taken in date order; so the order of the events given, and of
  events of the same date, changes nothing.
- **Idle time**: before each period a player's deviation grows as the system's idle periods
  make it, one idle period per full 7 days since his previous period (and never beyond 350):
  `φ² + k·σ²` (his own calendar, whatever other players did meanwhile).
- **Per event**: his rating and deviation before the period and after it, how many games he
  played in the event, the percentage he was expected to score against the field's ratings
  (the mean over his games of Glicko-2's expected score E(μ, μⱼ, φⱼ)) and the one he scored.

Deterministic and symmetric: every sum over opponents is `math.fsum` (exactly rounded, so
independent of the order the players come in), and a period's games are read from the
ratings before it, so relabelling the players relabels the result and nothing else.

Speed: a player's games against one opponent in one period are tallied first (count and
points), so the expected score is computed once per opponent met, not once per game.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import NamedTuple

__all__ = [
    "DEVIATION_START",
    "RATING_START",
    "VOLATILITY_START",
    "CardGroup",
    "EventRating",
    "PlayerRating",
    "RatingEvent",
    "RatingTable",
    "compute_ratings",
    "group_games",
]

RATING_START = 1500.0
DEVIATION_START = 350.0
VOLATILITY_START = 0.06
TAU = 0.5
IDLE_DAYS = 7  # one idle rating period per full week without play
_SCALE = 173.7178  # Glicko-2's scale: μ = (r − 1500) / 173.7178
_EPSILON = 1e-6  # the volatility iteration's tolerance
_PHI_START = DEVIATION_START / _SCALE
_PI2 = math.pi**2

Score = int | Fraction
CardGroup = Sequence[tuple[Hashable, Score]]  # (player, score) of those who held the same cards


@dataclass(frozen=True)
class RatingEvent:
    """One counted event: its key (anything hashable), its date, and its groups of players
    who held the same cards (one per donne and position)."""

    key: Hashable
    day: date
    groups: Sequence[CardGroup]


class PlayerRating(NamedTuple):
    """A player's rating after the last period he played in."""

    player: Hashable
    rating: float
    deviation: float
    volatility: float
    events: int
    games: int
    last_day: date


class EventRating(NamedTuple):
    """A player's rating around one event: before and after the event's period (shared by
    the events of its date), his games in the event, and the percentages (0-100) he was
    expected to score against the field's ratings and scored."""

    event: Hashable
    player: Hashable
    rating_before: float
    deviation_before: float
    rating_after: float
    deviation_after: float
    games: int
    expected: float
    achieved: float


@dataclass(frozen=True)
class RatingTable:
    """Every rated player's current rating, and every (event, player) line in date order."""

    players: dict[Hashable, PlayerRating]
    events: list[EventRating]


class _State(NamedTuple):
    mu: float
    phi: float
    sigma: float
    events: int
    games: int
    last_day: date


# Tally of one player's games in one event: {opponent: [games, points]}.
_Tally = dict[Hashable, list[float]]


def group_games(group: CardGroup) -> Iterable[tuple[Hashable, Hashable, float]]:
    """The games of one group: (a, b, a's points) for each pair, a before b in the group."""
    for index, (a, score_a) in enumerate(group):
        for b, score_b in group[index + 1 :]:
            yield a, b, 1.0 if score_a > score_b else 0.5 if score_a == score_b else 0.0


def _event_tallies(groups: Iterable[CardGroup]) -> dict[Hashable, _Tally]:
    """Every player's tally of the event's games, by opponent; a player held twice in one
    group is refused (ValueError): each position of a donne is held once per table."""
    tallies: dict[Hashable, _Tally] = {}
    for group in groups:
        if len(group) < 2:
            continue
        if len({player for player, _score in group}) != len(group):
            raise ValueError("a player appears twice among those who held the same cards")
        own = [(tallies.setdefault(player, {}), player, score) for player, score in group]
        for index, (tally_a, a, score_a) in enumerate(own):
            for tally_b, b, score_b in own[index + 1 :]:
                points = 1.0 if score_a > score_b else 0.5 if score_a == score_b else 0.0
                line = tally_a.get(b)
                if line is None:
                    tally_a[b] = [1.0, points]
                else:
                    line[0] += 1.0
                    line[1] += points
                line = tally_b.get(a)
                if line is None:
                    tally_b[a] = [1.0, 1.0 - points]
                else:
                    line[0] += 1.0
                    line[1] += 1.0 - points
    return tallies


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / _PI2)


def _volatility(phi: float, sigma: float, delta: float, v: float) -> float:
    """Glicko-2's new volatility (step 5, the Illinois algorithm)."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (
            TAU * TAU
        )

    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * TAU) < 0:
            k += 1
        big_b = a - k * TAU
    f_a, f_b = f(big_a), f(big_b)
    for _step in range(100):
        if abs(big_b - big_a) <= _EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def _idle(state: _State | None, day: date) -> tuple[float, float, float]:
    """(μ, φ, σ) of a player at the start of a period on `day`, idle time counted."""
    if state is None:
        return 0.0, _PHI_START, VOLATILITY_START
    idle = (day - state.last_day).days // IDLE_DAYS
    phi = math.sqrt(state.phi * state.phi + idle * state.sigma * state.sigma)
    return state.mu, min(phi, _PHI_START), state.sigma


def _update(
    start: tuple[float, float, float], tally: _Tally, before: dict[Hashable, tuple[float, float]]
) -> tuple[float, float, float]:
    """Glicko-2's steps 3-8 for one player over one period's `tally`, against the
    opponents' (μ, φ) at the start of the period."""
    mu, phi, sigma = start
    info: list[float] = []
    gain: list[float] = []
    for opponent, (games, points) in tally.items():
        mu_j, phi_j = before[opponent]
        g = _g(phi_j)
        e = 1.0 / (1.0 + math.exp(-g * (mu - mu_j)))
        info.append(games * g * g * e * (1.0 - e))
        gain.append(g * (points - games * e))
    information = math.fsum(info)
    if information <= 0.0:  # outcomes certain at these ratings: nothing learnt but time
        return mu, min(math.sqrt(phi * phi + sigma * sigma), _PHI_START), sigma
    v = 1.0 / information
    summed = math.fsum(gain)
    new_sigma = _volatility(phi, sigma, v * summed, v)
    phi_star2 = phi * phi + new_sigma * new_sigma
    new_phi = 1.0 / math.sqrt(1.0 / phi_star2 + 1.0 / v)
    return mu + new_phi * new_phi * summed, new_phi, new_sigma


def _expected(mu: float, tally: _Tally, before: dict[Hashable, tuple[float, float]]) -> float:
    """The points a player at μ was expected to score over `tally`'s games."""
    return math.fsum(
        games * (1.0 / (1.0 + math.exp(-_g(before[j][1]) * (mu - before[j][0]))))
        for j, (games, _points) in tally.items()
    )


def _merge(tallies: Iterable[_Tally]) -> _Tally:
    merged: _Tally = {}
    for tally in tallies:
        for opponent, (games, points) in tally.items():
            line = merged.setdefault(opponent, [0.0, 0.0])
            line[0] += games
            line[1] += points
    return merged


def _rating(mu: float) -> float:
    return RATING_START + _SCALE * mu


def _period(
    day: date,
    events: list[tuple[Hashable, dict[Hashable, _Tally]]],
    states: dict[Hashable, _State],
    lines: list[EventRating],
) -> None:
    """Rate one date's events together: read every player's start, update, then store."""
    players: dict[Hashable, list[_Tally]] = {}
    for _key, tallies in events:
        for player, tally in tallies.items():
            players.setdefault(player, []).append(tally)
    start = {player: _idle(states.get(player), day) for player in players}
    before = {player: (mu, phi) for player, (mu, phi, _s) in start.items()}
    after: dict[Hashable, tuple[float, float, float]] = {}
    for player, tallies in players.items():
        merged = tallies[0] if len(tallies) == 1 else _merge(tallies)
        after[player] = _update(start[player], merged, before)
    for key, tallies in events:
        for player, tally in tallies.items():
            mu, phi, _sigma = start[player]
            games = math.fsum(count for count, _points in tally.values())
            points = math.fsum(points for _count, points in tally.values())
            expected = _expected(mu, tally, before)
            lines.append(
                EventRating(
                    key,
                    player,
                    _rating(mu),
                    _SCALE * phi,
                    _rating(after[player][0]),
                    _SCALE * after[player][1],
                    int(games),
                    100.0 * expected / games,
                    100.0 * points / games,
                )
            )
    for player, (mu, phi, sigma) in after.items():
        old = states.get(player)
        count = len(players[player])
        played = int(math.fsum(c for tally in players[player] for c, _p in tally.values()))
        states[player] = _State(
            mu,
            phi,
            sigma,
            (old.events if old else 0) + count,
            (old.games if old else 0) + played,
            day,
        )


def compute_ratings(events: Iterable[RatingEvent]) -> RatingTable:
    """Every player's rating after the given events, and each event's lines (see the
    module's docstring). The events may come in any order; a player with no game (alone at
    his position on every donne) is not rated. Raises ValueError when a player appears twice
    in one group."""
    by_day: dict[date, list[tuple[Hashable, dict[Hashable, _Tally]]]] = {}
    for event in events:
        tallies = _event_tallies(event.groups)
        if tallies:
            by_day.setdefault(event.day, []).append((event.key, tallies))
    states: dict[Hashable, _State] = {}
    lines: list[EventRating] = []
    for day in sorted(by_day):
        _period(day, by_day[day], states, lines)
    players = {
        player: PlayerRating(
            player,
            _rating(state.mu),
            _SCALE * state.phi,
            state.sigma,
            state.events,
            state.games,
            state.last_day,
        )
        for player, state in states.items()
    }
    return RatingTable(players, lines)
