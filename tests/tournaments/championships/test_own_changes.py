"""A change of the championship's own inputs (its séries, its rule before the freeze) after
its lines were stored shows at once, though no counted event's version moved."""

from __future__ import annotations

import pytest
from django.test import TestCase

from tournaments.championships import services
from tournaments.championships.ranking import championship_caught_up

from .conftest import add, create

pytestmark = pytest.mark.django_db


def test_series_set_after_the_lines_were_stored_are_ranked_apart(season):
    championship = create(season)
    for built in season.tournaments:
        add(championship, season.organiser, built.tournament)
    assert championship_caught_up(championship).series() == []
    licences = [p.licence for p in season.tournaments[0].players]
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.series_set(
            championship, [(licences[0], "1re"), (licences[1], "1re")], user=season.organiser
        )
    standing = championship_caught_up(championship)
    assert {line.player for line in standing.scope("1re")} == {f"L{x}" for x in licences[:2]}
