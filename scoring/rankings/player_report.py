"""A player's event report (issue 35): each donne he played against the field that held his
cards, once the event's donnes are complete (RULES §6.1), and after the embargo when his
club's event was part of a simultaneous one (§6.3).

Per donne: the hands (his own marked), his position, his table's result and his score, the
field's results at his position (each outcome and score with how many tables, and the
spread), his differential under the event's method and his match points, what the best third
of the field did with his cards; then the donnes that gained and lost most. The comparison
itself is the pure `scoring.rules.player_report` over the counted results, so the report
agrees with the travellers and needs no snapshot.

`report_state` says whether a report may be shown; `event_report` reads it in a fixed number
of queries (the complete donnes' three, the donnes, the results) whatever the field's size.
A simultaneous event's embargo is known to the club's app only: it registers a check with
`embargo_register` (nothing here imports it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from scoring.rankings.selectors import CONTRACT_LABELS, POSITION_LABELS, hand_view
from scoring.rules.display import HandView
from scoring.rules.duplicate import differentials
from scoring.rules.player_report import (
    BestThird,
    Comparison,
    FieldOutcome,
    best_third,
    compare,
    field_outcomes,
    spread,
    swings,
)
from scoring.templatetags.rankings import signed
from tournaments.models import POSITIONS, Donne, Player, Result, Tournament
from tournaments.selectors import complete_donnes

OPEN = "open"
NOT_STARTED = "not_started"
INCOMPLETE = "incomplete"
EMBARGO = "embargo"

_EMBARGO_CHECKS: list[Callable[[Tournament], bool]] = []


def embargo_register(check: Callable[[Tournament], bool]) -> None:
    """Register a check that says a tournament's hands and field are still under a
    simultaneous event's embargo (the club's app, from its ready())."""
    if check not in _EMBARGO_CHECKS:
        _EMBARGO_CHECKS.append(check)


def report_state(tournament: Tournament) -> str:
    """OPEN when every donne of the event is complete and no embargo holds it; else why not
    (NOT_STARTED, INCOMPLETE, EMBARGO). Arbiters and organisers are held to it too: the
    report is the players' reading of a finished event, the travellers are theirs before."""
    if tournament.status not in (
        Tournament.Status.RUNNING,
        Tournament.Status.FINISHED,
        Tournament.Status.PUBLISHED,
    ):
        return NOT_STARTED
    if any(check(tournament) for check in _EMBARGO_CHECKS):
        return EMBARGO
    donnes = set(Donne.objects.filter(tournament=tournament).values_list("pk", flat=True))
    if not donnes or not donnes <= complete_donnes(tournament):
        return INCOMPLETE
    return OPEN


@dataclass(frozen=True)
class DonneLine:
    """One donne of the report. `status`: played, all_passed, annulled (at his table: no
    comparison) or sat_out. `outcome` is his table's, as the field's are labelled."""

    donne: Donne
    number: int
    table_number: int
    position: str | None
    status: str
    outcome: str
    score: int | None
    hands: list[HandView]
    chien: HandView | None
    comparison: Comparison | None = None
    differential: Fraction | None = None
    percentage: Fraction | None = None  # the event's own, under the match-point method
    outcomes: list[FieldOutcome[str]] = field(default_factory=list)
    spread_counts: list[tuple[int | Fraction, int]] = field(default_factory=list)
    best: BestThird[str] | None = None

    @property
    def position_label(self) -> str:
        return str(POSITION_LABELS.get(self.position or "", ""))

    @property
    def compared(self) -> bool:
        return self.comparison is not None and self.comparison.tables > 1

    def against_field(self, matchpoints: bool) -> Fraction:
        """What the donne gained or lost him: the differential, or under match points the
        percentage above or below 50."""
        if matchpoints:
            return self.percentage - 50 if self.percentage is not None else Fraction(0)
        return self.differential or Fraction(0)


@dataclass(frozen=True)
class EventReport:
    """A player's report of one event: his lines by donne number, the donnes that gained and
    lost most (differential under the event's method), and his totals over them."""

    tournament: Tournament
    player: Player
    lines: list[DonneLine]
    gained: list[DonneLine]
    lost: list[DonneLine]
    differential_total: Fraction
    matchpoint_share: Fraction | None  # mean match-point share of the donnes compared

    @property
    def is_matchpoints(self) -> bool:
        return self.tournament.method == "matchpoints"


def outcome_label(status: str, contract: str, taker: str) -> str:
    """What happened at a table, in the page's language ("Garde by North", "All passed")."""
    if status == Result.Status.ALL_PASSED:
        return str(_("All passed"))
    if status == Result.Status.ANNULLED:
        return str(_("Annulled"))
    return str(
        _("%(contract)s by %(taker)s")
        % {
            "contract": CONTRACT_LABELS.get(contract, contract),
            "taker": POSITION_LABELS.get(taker, taker),
        }
    )


_RESULT_FIELDS = ("donne_id", "table__number", "status", "contract", "taker", "scores")


def _results(tournament: Tournament) -> dict[int, list[tuple[Any, ...]]]:
    """The counted results by donne, as plain values (one query): fields of
    `_RESULT_FIELDS`, then holders and sitter."""
    by_donne: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for values in (
        Result.objects.counted()
        .filter(tournament=tournament)
        .order_by("table__number")
        .values_list(*_RESULT_FIELDS, "holders", "sitter_id")
    ):
        by_donne[values[0]].append(values)
    return by_donne


def _line(donne: Donne, results: list[tuple[Any, ...]], player: Player, method: str) -> DonneLine:
    """His line on one donne from its counted results (he played it at one of them)."""
    mine = None
    position = None
    for values in results:
        holders, sitter = values[6] or {}, values[7]
        held = next((p for p, pid in holders.items() if int(pid) == player.pk), None)
        if held is not None or sitter == player.pk:
            mine, position = values, held
            break
    assert mine is not None
    _d, table_number, status, contract, taker, scores, _h, _s = mine
    language_hands = [hand_view(p, str(POSITION_LABELS[p]), donne.hand(p)) for p in POSITIONS]
    chien = hand_view("", str(_("Chien")), donne.chien) if donne.chien else None
    base: dict[str, Any] = {
        "donne": donne,
        "number": donne.number,
        "table_number": table_number,
        "position": position,
        "hands": language_hands,
        "chien": chien,
    }
    if position is None:
        return DonneLine(status="sat_out", outcome=str(_("Sat out")), score=None, **base)
    if status == Result.Status.ANNULLED:
        return DonneLine(status=status, outcome=str(_("Annulled")), score=None, **base)
    entries = [
        (outcome_label(v[2], v[3], v[4]), int((v[5] or {}).get(position, 0)))
        for v in results
        if v[2] != Result.Status.ANNULLED and position in (v[6] or {})
    ]
    score = int((scores or {}).get(position, 0))
    group = [s for _label, s in entries]
    comparison = compare(score, group)
    counted = [v for v in results if v[2] != Result.Status.ANNULLED and position in (v[6] or {})]
    mine_at = next(i for i, v in enumerate(counted) if v is mine)
    differential = differentials(group, method)[mine_at] if len(group) > 1 else Fraction(0)
    return DonneLine(
        status=status,
        outcome=outcome_label(status, contract, taker),
        score=score,
        comparison=comparison,
        differential=differential,
        percentage=comparison.percentage * 100 if comparison.percentage is not None else None,
        outcomes=field_outcomes(entries),
        spread_counts=spread(group),
        best=best_third(entries),
        **base,
    )


def event_report(tournament: Tournament, player: Player) -> EventReport | None:
    """The player's report of the event (check `report_state` first); None when he played no
    donne of it. Two queries (the donnes, the results)."""
    donnes = list(Donne.objects.filter(tournament=tournament).order_by("number"))
    by_donne = _results(tournament)
    method = tournament.method
    lines = []
    for donne in donnes:
        results = by_donne.get(donne.pk, [])
        if any(_holds(values, player.pk) for values in results):
            lines.append(_line(donne, results, player, method))
    if not lines:
        return None
    compared = [line for line in lines if line.compared]
    is_mp = method == "matchpoints"
    by_value = [(line, line.against_field(is_mp)) for line in compared]
    gained, lost = swings(by_value)
    shares = [line.comparison.percentage for line in compared if line.comparison]
    return EventReport(
        tournament=tournament,
        player=player,
        lines=lines,
        gained=[line for line, _v in gained],
        lost=[line for line, _v in lost],
        differential_total=sum((line.differential or Fraction(0) for line in lines), Fraction(0)),
        matchpoint_share=(
            sum((s for s in shares if s is not None), Fraction(0)) * 100 / len(shares)
            if shares
            else None
        ),
    )


def _holds(values: tuple[Any, ...], player_id: int) -> bool:
    holders, sitter = values[6] or {}, values[7]
    return sitter == player_id or any(int(pid) == player_id for pid in holders.values())


def best_third_text(line: DonneLine) -> str:
    """What the best third of the field did, in one sentence (the PDF's too)."""
    best = line.best
    if best is None:
        return ""
    outcomes = pgettext("list separator", "; ").join(
        f"{o.key} {signed(o.score) or '0'}" + (f" ×{o.tables}" if o.tables > 1 else "")
        for o in best.outcomes
    )
    tables = ngettext("%(n)s table", "%(n)s tables", best.tables) % {"n": best.tables}
    return _("The best third of the field (%(tables)s, mean %(mean)s): %(outcomes)s") % {
        "tables": tables,
        "mean": signed(best.mean) or "0",
        "outcomes": outcomes,
    }
