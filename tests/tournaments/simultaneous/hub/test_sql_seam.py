"""The hub's SQL seam: COPY stores exactly what the plain bulk_create stores."""

from __future__ import annotations

import json

import msgspec
import pytest
from django.db import connection

from tournaments.simultaneous.hub import sql
from tournaments.simultaneous.hub.models import OverallRankingClub, OverallRankingRow
from tournaments.simultaneous.hub.ranking import ROW_FIELDS, overall_inputs

from .test_overall_ranking import field

pytestmark = pytest.mark.django_db


def _stored(event) -> list[tuple]:
    return list(
        OverallRankingRow.objects.filter(event=event)
        .order_by("place")
        .values_list(*(f.removesuffix("_id") for f in ROW_FIELDS))
    )


def test_copy_and_bulk_create_store_the_same_rows(hub):
    for i, club in field().items():
        hub.send(i, hub.upload(i, club["results"], club["licences"], penalties=club["penalties"]))
    copied = _stored(hub.event)
    assert len(copied) == 17 and overall_inputs(event_id=hub.event.pk) is not None
    rows = [
        tuple(getattr(r, f) for f in ROW_FIELDS)
        for r in OverallRankingRow.objects.filter(event=hub.event).order_by("place")
    ]
    OverallRankingRow.objects.all().delete()
    sql.bulk_rows(OverallRankingRow, ROW_FIELDS, rows)
    plain = _stored(hub.event)
    OverallRankingRow.objects.all().delete()
    sql.copy_rows(OverallRankingRow, ROW_FIELDS, rows)
    assert _stored(hub.event) == plain == copied
    assert connection.vendor in ("postgresql", "sqlite")  # COPY on the first, bulk_create else


CLUB_FIELDS = ("event_id", "invitation_id", "serial", "results")


def test_a_clubs_results_are_stored_as_json_text_and_read_back_as_lists(hub):
    """`JSONTextField`: PostgreSQL's json type (no jsonb parse on COPY), the same lists back;
    JSON text given as `msgspec.Raw` is stored as the value it encodes, by COPY and by the
    plain bulk_create alike."""
    for i, club in field().items():
        hub.send(i, hub.upload(i, club["results"], club["licences"], penalties=club["penalties"]))
    kept = OverallRankingClub.objects.filter(event=hub.event).order_by("invitation_id").first()
    assert isinstance(kept.results, list) and isinstance(kept.results[0], list)
    _table, _donne, _status, holders, scores, _sitter = kept.results[0]
    assert isinstance(holders, dict) and isinstance(scores, dict)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_typeof(results)::text, results::jsonb = %s::jsonb FROM "
                "simultaneous_hub_overallrankingclub WHERE id = %s",
                [json.dumps(kept.results), kept.pk],
            )
            assert cursor.fetchone() == ("json", True)
    raw = [
        [t, d, st, msgspec.Raw(json.dumps(h).encode()), msgspec.Raw(json.dumps(s).encode()), x]
        for t, d, st, h, s, x in kept.results
    ]
    row = (hub.event.pk, kept.invitation_id, kept.serial, raw)
    stored = []
    for store in (sql.copy_rows, lambda *a, **k: sql.bulk_rows(*a[:2], [sql._plain(row, 3)])):
        OverallRankingClub.objects.filter(invitation_id=kept.invitation_id).delete()
        store(OverallRankingClub, CLUB_FIELDS, [row], json_field="results")
        stored.append(OverallRankingClub.objects.get(invitation_id=kept.invitation_id).results)
    assert stored == [kept.results, kept.results]
