"""compute_group_ranking ranks plays given grouped by (donne, position) exactly as
compute_ranking_table ranks them one by one, a card built from its group values is the
table's card line for line, and it rejects the same input with the same error."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from scoring.rules.duplicate import to_exact
from scoring.rules.ranking import (
    Play,
    PlayGroups,
    annulled_line,
    compute_group_ranking,
    compute_ranking,
    compute_ranking_table,
    exact_value,
    group_line,
    sat_out_line,
)
from tests.scoring.rules.test_ranking_table import (
    BASE,
    CONTRADICTIONS,
    METHODS,
    RATES,
    _error,
    tournaments,
)

PROPERTY = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=300,
    suppress_health_check=[HealthCheck.too_slow],
)


def grouped(plays: list[Play]) -> PlayGroups:
    """The plays as (players, tables, scores) per (donne, position), in their order."""
    groups: PlayGroups = {}
    for play in plays:
        players, tables, scores = groups.setdefault((play.donne, play.position), ([], [], []))
        players.append(play.player)
        tables.append(play.table)
        scores.append(play.score)
    return groups


@PROPERTY
@given(tournaments(), METHODS, RATES)
def test_group_ranking_equals_the_table_and_its_cards(
    tournament: dict[str, Any], method: str, rate: Any
) -> None:
    table = compute_ranking_table(method=method, matchpoint_penalty_rate=rate, **tournament)
    ranking = compute_group_ranking(
        grouped(tournament["plays"]),
        method=method,
        matchpoint_penalty_rate=rate,
        annulled=tournament["annulled"],
        sit_outs=tournament["sit_outs"],
        penalties=tournament["penalties"],
    )
    assert (ranking.method, ranking.matchpoint_penalty_rate, ranking.rows) == (
        table.method,
        table.matchpoint_penalty_rate,
        table.rows,
    )
    # Every card, built from the group values, is the table's card line for line.
    annulled = set(tournament["annulled"])
    cards: dict[Any, dict[Any, list[Any]]] = {player: {} for player, _values in table.rows}
    for player, donne, position, room, score in tournament["plays"]:
        if (donne, room) in annulled:
            line = annulled_line(donne, position, room)
        else:
            line = group_line(ranking.values, donne, position, room, exact_value(to_exact(score)))
        cards[player][donne] = line
    for player, donne in tournament["sit_outs"]:
        cards[player][donne] = sat_out_line(donne)
    assert cards == {
        player: {line[0]: line for line in lines} for player, lines in table.lines.items()
    }


@pytest.mark.parametrize(
    ("plays", "extra"),
    [
        *CONTRADICTIONS,
        ([*BASE, Play("d", 1, "S", 2, "lots")], {}),  # not a number, alone in its group
    ],
)
def test_group_ranking_rejects_what_compute_ranking_rejects(plays: list[Play], extra: dict) -> None:
    expected = _error(lambda: compute_ranking(plays, **extra))
    assert _error(lambda: compute_group_ranking(grouped(plays), **extra)) == expected


def test_groups_with_lists_out_of_step_are_refused() -> None:
    with pytest.raises(ValueError, match="out of step"):
        compute_group_ranking({(1, "N"): (["a", "b"], [1], [0, 0])})
