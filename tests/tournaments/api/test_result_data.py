"""`result_data`, the answer to a write written out by hand, is exactly
``ResultSerializer(result).data`` (the schema's shape), for every kind of result."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone, translation
from rest_framework.renderers import JSONRenderer

from tests.fixtures.tournaments import open_round_for, stage_tournament
from tournaments.api.serializers import ResultSerializer, result_data
from tournaments.models import Donne, Result, TableRound
from tournaments.services.checks import WARNING_CODES
from tournaments.services.results import ResultInput, result_annul, result_save

pytestmark = pytest.mark.django_db


def test_same_data_as_the_serializer(personas) -> None:
    t = stage_tournament(players=9, personas=personas)  # a table of five: a sitter
    cells = [
        (table_round.table, donne)
        for table_round in TableRound.objects.filter(table__tournament=t).select_related("table")
        for donne in Donne.objects.filter(etui_set=table_round.etui_set)[:3]
    ]
    entries = [
        ResultInput(status="played", taker="N", contract="garde", bouts=2, points=50),
        ResultInput(status="all_passed"),
        None,  # annulled
    ]
    written = []  # as the services return them (what an API write answers with)
    for i, (table, donne) in enumerate(cells):
        open_round_for(table, donne, personas.arbiter)
        entry = entries[i % 3]
        if entry is None:
            saved = result_annul(
                tournament=t,
                table=table,
                donne=donne,
                user=personas.arbiter,
                reason="étuis mixed",
                expected_version=None,
            )
        else:
            saved = result_save(
                tournament=t,
                table=table,
                donne=donne,
                data=entry,
                user=personas.arbiter,
                expected_version=None,
                confirmed=WARNING_CODES,
            )
        written.append(saved)
    results = list(Result.objects.filter(tournament=t))
    assert {r.status for r in results} == {"played", "all_passed", "annulled"}
    assert any(r.sitter_id for r in results)
    render = JSONRenderer().render
    for zone in ("UTC", "Europe/Paris"):
        with timezone.override(zone), translation.override("fr"):
            for result in [*results, *written]:
                expected = ResultSerializer(result).data
                assert result_data(result) == expected
                assert render(result_data(result)) == render(expected)
                assert json.loads(render(result_data(result)))["updated_by"] == "arbitre"
