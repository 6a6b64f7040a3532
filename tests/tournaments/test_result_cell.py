"""`result_cell`, the API's short way (one or two queries) to the context of a write, gives what
`result_context` gives (round, place in the étui set, holders, who sits out at a table of
five), reads the saved result with it, and steps aside (None) whenever the longer way has
something precise to say."""

from __future__ import annotations

import pytest

from tests.fixtures.tournaments import open_round_for, stage_tournament
from tournaments.models import Donne, Player, Result, Round, TableRound
from tournaments.services.checks import WARNING_CODES
from tournaments.services.results import (
    ResultInput,
    result_cell,
    result_context,
    result_save,
)

pytestmark = pytest.mark.django_db


def same_context(a, b) -> bool:
    return (
        (a.table.pk, a.donne.pk, a.table_round.pk, a.round.pk, a.index)
        == (b.table.pk, b.donne.pk, b.table_round.pk, b.round.pk, b.index)
        and {p: pl.pk for p, pl in a.seats.items()} == {p: pl.pk for p, pl in b.seats.items()}
        and (a.sitter.pk if a.sitter else None) == (b.sitter.pk if b.sitter else None)
    )


def test_every_cell_of_a_tournament_with_a_table_of_five(personas) -> None:
    t = stage_tournament(players=9, personas=personas)
    cells = [
        (table_round.table, donne)
        for table_round in TableRound.objects.filter(table__tournament=t).select_related("table")
        for donne in Donne.objects.filter(etui_set=table_round.etui_set)
    ]
    assert len(cells) == 16 and any(table.size == 5 for table, _donne in cells)
    for table, donne in cells:
        open_round_for(table, donne, personas.arbiter)
        expected = result_context(tournament=t, table=table, donne=donne)
        fast = result_cell(
            tournament=t, table_number=table.number, donne_number=donne.number, correcting=False
        )
        assert fast is not None and same_context(fast, expected), (table.number, donne.number)
        assert fast.current_loaded and fast.current is None
        assert (
            result_cell(
                tournament=t, table_number=table.number, donne_number=donne.number, correcting=True
            )
            is None
        )  # nothing to correct yet

        saved = result_save(
            tournament=t,
            table=table,
            donne=donne,
            data=ResultInput(status="all_passed"),
            user=personas.arbiter,
            expected_version=None,
            confirmed=WARNING_CODES,
            context=fast,
        )
        correcting = result_cell(
            tournament=t, table_number=table.number, donne_number=donne.number, correcting=True
        )
        assert correcting is not None and same_context(correcting, expected)
        assert correcting.current.pk == saved.pk
        assert (
            result_cell(
                tournament=t, table_number=table.number, donne_number=donne.number, correcting=False
            )
            is None
        )  # a second creation: the longer way says it is a conflict
    assert Result.objects.filter(tournament=t).count() == 16


def test_unknown_numbers(running_tournament) -> None:
    t = running_tournament
    for table_number, donne_number in ((1, 999), (99, 1)):
        for correcting in (False, True):
            cell = result_cell(
                tournament=t,
                table_number=table_number,
                donne_number=donne_number,
                correcting=correcting,
            )
            assert cell is None


def fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_rows_read_as_the_orm_reads_them(personas) -> None:
    """Every field of what the plain SQL loads (JSON, dates, decimals...) equals the ORM's."""
    t = stage_tournament(players=9, personas=personas)
    table_round = TableRound.objects.filter(table__tournament=t, table__size=5).first()
    donne = Donne.objects.filter(etui_set=table_round.etui_set).order_by("number")[1]
    table = table_round.table
    fresh = result_cell(
        tournament=t, table_number=table.number, donne_number=donne.number, correcting=False
    )
    assert fresh is not None
    rounds = [fields(Round.objects.get(pk=table_round.round_id))]  # pending, then opened
    result_save(
        tournament=t,
        table=table,
        donne=donne,
        data=ResultInput(status="played", taker="N", contract="garde", bouts=2, points=50),
        user=personas.arbiter,
        expected_version=None,
        confirmed=WARNING_CODES,
        context=fresh,
    )
    fixed = result_cell(
        tournament=t, table_number=table.number, donne_number=donne.number, correcting=True
    )
    assert fixed is not None
    rounds.append(fields(Round.objects.get(pk=table_round.round_id)))
    for ctx, round_ in zip((fresh, fixed), rounds, strict=True):
        assert fields(ctx.table) == fields(table)
        assert fields(ctx.donne) == fields(donne)
        assert fields(ctx.table_round) == fields(table_round)
        assert fields(ctx.round) == round_
        assert ctx.table_round.round is ctx.round
        for position, player in ctx.seats.items():
            assert fields(player) == fields(Player.objects.get(pk=player.pk)), position
    saved = Result.objects.get(table=table, donne=donne)
    assert fields(fixed.current) == fields(saved)
    assert fixed.current.scores and fixed.current.holders  # JSON read as JSON
    assert fixed.current.updated_at == saved.updated_at  # dates read as dates
    assert fixed.current.table is fixed.table and fixed.current.donne is fixed.donne
