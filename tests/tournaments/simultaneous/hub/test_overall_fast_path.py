"""The overall ranking's fast path, tied to the plain ranking on random fields.

The hub pools the field's result rows into groups by (donne, position) as it reads them
(`_pool`), ranks them with `compute_group_ranking` (per distinct score of each group, whole
number sort keys, no card) and builds a player's card when it is read, from his club's
results as ranked and the groups' values (`club_cards`). Here every stored value and every
card is checked against `compute_ranking`, the plain reference (a Fraction per play), on
random fields: every method and a few rates, tables of four and of five (a sitter each
donne), all passed, annulled tables, penalties, players listed without a result, scores
drawn from a few values so that groups hold ties. No database: the rows are built as the
SELECT returns them.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.rules.ranking import Penalty, Play, compute_ranking, exact_value
from tournaments.simultaneous.hub.ranking import (
    OverallInputs,
    _pool,
    club_cards,
    overall_compute,
    overall_rows,
)

PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
POSITIONS = "NESW"
SCORES = st.one_of(st.sampled_from([-204, -68, 0, 42, 68, 204]), st.integers(-600, 600))


@st.composite
def fields(draw: st.DrawFn) -> dict[str, Any]:
    """Clubs of one to three tables of four or five over up to four donnes; some donnes
    not played at some tables; each table result played, all passed or annulled."""
    rows: list[tuple[Any, ...]] = []
    players: dict[str, tuple[str, str, int]] = {}
    for club in range(1, draw(st.integers(1, 4)) + 1):
        for table in range(1, draw(st.integers(1, 3)) + 1):
            size = draw(st.sampled_from([4, 4, 5]))
            seated = [f"{club}{table}{n:05d}" for n in range(size)]
            players.update({licence: ("Joueur", f"N{licence}", club) for licence in seated})
            for donne in range(1, draw(st.integers(1, 4)) + 1):
                if draw(st.integers(0, 4)) == 0:
                    continue
                holders = list(seated)
                sitter = holders.pop(donne % 5) if size == 5 else ""
                status = draw(st.sampled_from(["played", "played", "played", "all_passed"]))
                if draw(st.integers(0, 9)) == 0:
                    status = "annulled"
                seats = dict(zip(POSITIONS, holders, strict=True))
                scores = {p: draw(SCORES) for p in POSITIONS} if status == "played" else {}
                rows.append(
                    (club, table, donne, status, json.dumps(seats), json.dumps(scores), sitter)
                )
    penalised = st.sampled_from(sorted(players)) if players else st.just("9999999")
    penalties = draw(
        st.lists(st.builds(Penalty, penalised, st.sampled_from([0, 5, 10, 40])), max_size=3)
    )
    return {"rows": rows, "players": players, "penalties": penalties}


def plain(field: dict[str, Any], method: str, rate: Fraction) -> list[tuple[Any, ...]]:
    """What the stored rows must hold, from `compute_ranking` on Play objects built here."""
    plays, annulled, sit_outs = [], [], []
    for club, table, donne, status, holders, scores, sitter in field["rows"]:
        room = (club, table)
        for position, licence in json.loads(holders).items():
            score = json.loads(scores)[position] if status == "played" else 0
            plays.append(Play(licence, donne, position, room, score))
        if status == "annulled":
            annulled.append((donne, room))
        if sitter:
            sit_outs.append((sitter, donne))
    ranked = {p.player for p in plays} | {p for p, _d in sit_outs}
    ranked |= {p.player for p in field["penalties"]}
    idle = [Penalty(licence, 0) for licence in sorted(set(field["players"]) - ranked)]
    ranking = compute_ranking(
        plays,
        method=method,
        annulled=annulled,
        sit_outs=sit_outs,
        penalties=field["penalties"] + idle,
        matchpoint_penalty_rate=rate,
    )
    value = lambda v: None if v is None else exact_value(v)  # noqa: E731
    expected = []
    for place, row in enumerate(ranking.rows, start=1):
        card = [
            [
                donne,
                line.position,
                None if line.table is None else f"club{line.table[0]}",
                None if line.table is None else line.table[1],
                value(line.score),
                value(line.differential),
                value(line.percentage),
                line.status.value,
                line.group_size,
            ]
            for donne, line in sorted(row.per_donne.items())
        ]
        expected.append(
            (
                place,
                row.rank,
                row.player,
                str(value(row.total)),
                str(value(row.differential_total)),
                row.penalty_points,
                row.donnes_played,
                row.donnes_compared,
                card,
            )
        )
    return expected


@PROPERTY
@given(
    fields(),
    st.sampled_from(["average", "pairwise", "matchpoints"]),
    st.sampled_from([Fraction(1, 10), Fraction(1, 4), Fraction(0), Fraction(3, 7)]),
)
def test_stored_rows_equal_the_plain_ranking(field: dict[str, Any], method: str, rate) -> None:
    inputs = OverallInputs(1, 1, method, rate)
    _pool(inputs, field["rows"])
    inputs.players = field["players"]
    inputs.clubs = {
        club: (f"club{club}", f"Club {club}") for _l, (_f, _n, club) in field["players"].items()
    }
    ranked = {p for players, _t, _s in inputs.groups.values() for p in players}
    ranked |= {p for p, _d in inputs.sit_outs}
    ranked |= {p.player for p in field["penalties"]}
    inputs.penalties = list(field["penalties"])
    inputs.penalties += [Penalty(x, 0) for x in sorted(set(inputs.players) - ranked)]
    table = overall_compute(inputs)
    rows = overall_rows(inputs, table)
    # What the table's indexes no longer enforce: places 1…n, each licence once.
    assert [row[2] for row in rows] == list(range(1, len(rows) + 1))
    assert len({row[4] for row in rows}) == len(rows)
    cards: dict[str, list[list[Any]]] = {}
    for club in {row[0] for row in field["rows"]}:
        results = [
            [table_, donne, status, json.loads(holders), json.loads(scores), sitter]
            for invitation, table_, donne, status, holders, scores, sitter in field["rows"]
            if invitation == club
        ]
        cards.update(club_cards(results, table.values, f"club{club}"))
    stored = [
        (
            place,
            rank,
            licence,
            total,
            differential,
            penalty,
            played,
            compared,
            cards.get(licence, []),
        )
        for (
            _e,
            _v,
            place,
            rank,
            licence,
            *_names,
            total,
            _float,
            differential,
            penalty,
            played,
            compared,
            _search,
        ) in rows
    ]
    assert stored == plain(field, method, rate)
