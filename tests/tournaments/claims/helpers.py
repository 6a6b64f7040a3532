"""A tournament played to the end through the real services, and the cells its tables play."""

from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone

from tests.scoring.documents.play import play_results
from tournaments.models import ArbiterCall, Donne, Round, Seat, Table, TableRound, Tournament
from tournaments.services.results import round_close


def close_every_round(tournament: Tournament, user: Any) -> None:
    """Enter a result for every cell, then close the rounds in order (the last opens the
    claims window)."""
    play_results(tournament, user)
    for round_ in Round.objects.filter(tournament=tournament).order_by("number"):
        round_close(round_=round_, user=user)
    tournament.refresh_from_db()


def cell(tournament: Tournament, round_number: int = 1) -> tuple[Table, Donne, Any]:
    """Table 1's first donne of the round, and a player seated there."""
    tr = TableRound.objects.select_related("table").get(
        round__tournament=tournament, round__number=round_number, table__number=1
    )
    donne = tr.etui_set.donnes.order_by("number").first()
    player = Seat.objects.filter(table_round=tr).order_by("position").first().player
    return tr.table, donne, player


def record_call(tournament: Tournament, table: Table, donne: Donne, player: Any) -> ArbiterCall:
    """A call to the arbiter from the table during the donne (the calls' model, as the call
    service stores it)."""
    tr = TableRound.objects.get(table=table, etui_set_id=donne.etui_set_id)
    return ArbiterCall.objects.create(
        tournament=tournament,
        round=tr.round,
        table=table,
        table_round=tr,
        donne=donne,
        irregularity="renonce",
        called_by=player,
    )


def window_passed(tournament: Tournament, minutes: int = 1) -> None:
    """Move the window's end into the past, as time passing would."""
    Tournament.objects.filter(pk=tournament.pk).update(
        claims_close_at=timezone.now() - datetime.timedelta(minutes=minutes)
    )
    tournament.refresh_from_db()
