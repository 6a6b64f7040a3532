"""The hub's SQL seam: COPY stores exactly what the plain bulk_create stores."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from tournaments.simultaneous.hub import sql
from tournaments.simultaneous.hub.models import OverallRankingRow
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
    sql.copy_rows(OverallRankingRow, ROW_FIELDS, rows, json_field="card")
    assert _stored(hub.event) == plain == copied
    assert connection.vendor in ("postgresql", "sqlite")  # COPY on the first, bulk_create else


def test_the_card_is_stored_as_json_text_and_read_back_as_lists(hub):
    """`JSONTextField`: PostgreSQL's json type (no jsonb parse on COPY), the same lists back."""
    for i, club in field().items():
        hub.send(i, hub.upload(i, club["results"], club["licences"], penalties=club["penalties"]))
    row = OverallRankingRow.objects.filter(event=hub.event).order_by("place").first()
    assert isinstance(row.card, list) and row.card and isinstance(row.card[0], list)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_typeof(card)::text, card::jsonb = %s::jsonb FROM "
                "simultaneous_hub_overallrankingrow WHERE id = %s",
                [json.dumps(row.card), row.pk],
            )
            assert cursor.fetchone() == ("json", True)
