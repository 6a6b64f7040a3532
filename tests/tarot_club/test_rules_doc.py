"""docs/rules.md is the reference a deployer reads: its tables of poignées and of payments by
number of players, and its worked examples, are what the engine computes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring.rules.engine import poignee_min_trumps, score_deal

RULES = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")


def table_after(heading: str) -> list[list[str]]:
    """The rows of the first Markdown table whose header starts with `heading`."""
    lines = RULES.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {heading}"))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_poignee_table_is_the_engine_s():
    rows = table_after("players at the deal | simple")
    assert len(rows) == 3
    for players, *needed in rows:
        n = int(players.split()[0])
        assert [int(x) for x in needed] == [
            poignee_min_trumps(n, size) for size in ("simple", "double", "triple")
        ]


def amount(text: str, unit: int) -> int | None:
    """ "3 × unit", "unit", "−unit", "—" as a number of points."""
    if text == "—":
        return None
    found = re.fullmatch(r"(−?)(?:(\d+) × )?unit", text)
    assert found, text
    return (-1 if found.group(1) else 1) * int(found.group(2) or 1) * unit


def test_the_payment_table_is_the_engine_s():
    rows = table_after("players at the deal | taker")
    assert len(rows) == 4
    for players, taker, partner, defender in rows:
        n = int(re.match(r"\d+", players).group())
        deal = score_deal(n, "garde", 2, 50, called_self="alone" in players)  # unit 68
        assert amount(taker, deal.unit) == deal.taker, players
        assert amount(partner, deal.unit) == deal.partner, players
        assert amount(defender, deal.unit) == deal.defender, players


@pytest.mark.parametrize(
    ("players", "contract", "bouts", "points", "petit", "taker", "defender"),
    [
        (4, "garde", 2, 50, None, 204, -68),
        (4, "garde", 2, 35, "attack", -126, 42),
        (4, "garde", 2, "40.5", None, -156, 52),
        (3, "garde", 2, "40.5", None, -104, 52),
    ],
)
def test_the_worked_examples(players, contract, bouts, points, petit, taker, defender):
    deal = score_deal(players, contract, bouts, points, petit_au_bout=petit)
    assert (deal.taker, deal.defender) == (taker, defender)
    written = {
        204: "the taker scores +204",
        -126: "the taker scores −126",
        -104: "the taker scores −104",
        -156: "each defender receives 52",
    }[taker]
    assert written in " ".join(RULES.split())
