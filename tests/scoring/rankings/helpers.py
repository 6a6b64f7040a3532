"""Entering results through the real result service, for the rankings tests."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from scoring.rankings.catch_up import ranking_snapshot_caught_up
from scoring.rankings.selectors import (
    FINAL,
    RankingView,
    ScoreCard,
    ranking_view,
    score_cards_from_snapshot,
)
from tests.fixtures.tournaments import open_round_for
from tournaments.models import Donne, Player, Result, Table, TableRound, Tournament
from tournaments.services.results import (
    ResultInput,
    ResultNeedsConfirmation,
    result_annul,
    result_save,
)


def schedule(tournament: Tournament) -> list[tuple[int, int, int]]:
    """(round, table number, donne number) for every donne each table is to play."""
    out = []
    for tr in TableRound.objects.filter(round__tournament=tournament).select_related(
        "round", "table"
    ):
        for donne in Donne.objects.filter(etui_set_id=tr.etui_set_id).order_by("number"):
            out.append((tr.round.number, tr.table.number, donne.number))
    return sorted(out)


def tables_playing(tournament: Tournament, donne_number: int) -> list[int]:
    return sorted(t for _r, t, d in schedule(tournament) if d == donne_number)


def enter(
    tournament: Tournament,
    table_number: int,
    donne_number: int,
    user: Any,
    *,
    status: str = "played",
    taker: str = "N",
    contract: str = "garde",
    bouts: int = 2,
    points: int = 50,
) -> Result:
    """Save a result as an arbiter would, confirming any warning about the cards."""
    table = Table.objects.get(tournament=tournament, number=table_number)
    donne = Donne.objects.get(tournament=tournament, number=donne_number)
    current = Result.objects.filter(table=table, donne=donne).first()
    version = current.version if current else None
    reason = "correction" if current else ""
    if status == "annulled":
        open_round_for(table, donne, user)
        return result_annul(
            tournament=tournament,
            table=table,
            donne=donne,
            user=user,
            reason="étui mélangé",
            expected_version=version,
        )
    if status == "all_passed":
        data = ResultInput(status="all_passed")
    else:
        data = ResultInput(
            status="played", taker=taker, contract=contract, bouts=bouts, points=Decimal(points)
        )
    open_round_for(table, donne, user)
    kwargs = {
        "tournament": tournament,
        "table": table,
        "donne": donne,
        "data": data,
        "user": user,
        "expected_version": version,
        "reason": reason,
    }
    try:
        return result_save(**kwargs)
    except ResultNeedsConfirmation as exc:
        return result_save(**kwargs, confirmed=list(exc.warnings))


def player_at(
    tournament: Tournament, round_number: int, table_number: int, position: str
) -> Player:
    tr = TableRound.objects.get(
        round__tournament=tournament, round__number=round_number, table__number=table_number
    )
    return tr.seats.get(position=position).player


def ranking_read(tournament: Tournament, *, audience: str = FINAL) -> RankingView:
    """The ranking as a page reads it: `scoring.rankings.catch_up` first (a stale ranking is
    helped to catch up: in-process without a broker), then the selectors' view."""
    snapshot, current = ranking_snapshot_caught_up(tournament)
    return ranking_view(tournament, snapshot, current, audience=audience)


def score_card_read(
    tournament: Tournament,
    player: Player,
    *,
    can_manage: bool,
    viewer_player_id: int | None = None,
) -> ScoreCard | None:
    """A player's score card as its page reads it (see `ranking_read`)."""
    snapshot, current = ranking_snapshot_caught_up(tournament)
    return score_cards_from_snapshot(
        tournament,
        [player],
        snapshot=snapshot,
        current=current,
        can_manage=can_manage,
        viewer_player_id=viewer_player_id,
    ).get(player.pk)
