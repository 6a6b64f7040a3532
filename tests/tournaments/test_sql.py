"""tournaments.sql, the plain-SQL helpers of an API write, against the ORM: the instances it
loads from its rows are the ORM's. (Its statements are tied to their ORM versions where they
are used: tests/tournaments/test_result_cell.py, test_tournament_with_roles.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Tournament
from tournaments.sql import columns, run

pytestmark = pytest.mark.django_db


def values(obj: Any, skip: tuple[str, ...] = ("id",)) -> dict[str, Any]:
    return {
        f.attname: getattr(obj, f.attname)
        for f in type(obj)._meta.concrete_fields
        if f.attname not in skip
    }


def test_a_loaded_instance_is_the_orms(personas) -> None:
    t = stage_tournament(personas=personas)
    cols = columns(Tournament)
    (row,) = run(f"SELECT {cols.select('t')} FROM {cols.table} t WHERE t.id = %s", [t.pk]).rows
    loaded, orm = cols.load(row), Tournament.objects.get(pk=t.pk)
    assert values(loaded, ()) == values(orm, ())
    assert (loaded._state.adding, loaded._state.db) == (False, orm._state.db)
    assert loaded.club.name == orm.club.name  # relations load as usual
    loaded.venue = "Salle C"
    loaded.save(update_fields=["venue"])  # an UPDATE, not an INSERT
    assert Tournament.objects.get(pk=t.pk).venue == "Salle C"
