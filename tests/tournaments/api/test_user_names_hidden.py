"""User names (logins) stay with those who manage the tournament: strangers and players get
the arbiters' full names at most, and results without who saved them."""

from __future__ import annotations

import pytest

from tests.fixtures.tournaments import open_round_for
from tests.tournaments.api.conftest import client_for
from tests.tournaments.test_results_service import GARDE_WON, cell
from tournaments.models import Tournament
from tournaments.services.checks import WARNING_CODES
from tournaments.services.results import result_save

pytestmark = pytest.mark.django_db

LOGINS = ("arbitre", "orga")


def _public(t: Tournament) -> Tournament:
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.PUBLISHED)
    return t


def test_anonymous_tournament_answers_contain_no_user_name(running_tournament, personas):
    t = _public(running_tournament)
    personas.arbiter.first_name, personas.arbiter.last_name = "Anne", "Bonnet"
    personas.arbiter.save()
    for table in (1, 2):  # donne 1 complete: its results are public
        where = cell(t, table, 1)
        open_round_for(where["table"], where["donne"], personas.arbiter)
        result_save(
            **where,
            data=GARDE_WON,
            user=personas.arbiter,
            expected_version=None,
            confirmed=WARNING_CODES,
        )
    for user in (None, personas.player_user, personas.stranger):
        api = client_for(user)
        detail = api.get(f"/api/v1/tournaments/{t.pk}/")
        assert detail.status_code == 200
        assert detail.json()["arbiters"] == ["Anne Bonnet"]
        listing = api.get("/api/v1/tournaments/").content.decode()
        results = api.get(f"/api/v1/tournaments/{t.pk}/results/")
        one = api.get(f"/api/v1/tournaments/{t.pk}/results/1/1/")
        assert results.status_code == one.status_code == 200
        assert one.json()["updated_by"] is None
        for text in (
            detail.content.decode(),
            listing,
            results.content.decode(),
            one.content.decode(),
        ):
            for login in LOGINS:
                assert f'"{login}"' not in text


def test_arbiters_and_organisers_still_see_user_names(running_tournament, personas):
    t = _public(running_tournament)
    result_save(
        **cell(t, 1, 1),
        data=GARDE_WON,
        user=personas.arbiter,
        expected_version=None,
        confirmed=WARNING_CODES,
    )
    for user in (personas.arbiter, personas.organiser):
        api = client_for(user)
        assert api.get(f"/api/v1/tournaments/{t.pk}/").json()["arbiters"] == ["arbitre"]
        listing = api.get("/api/v1/tournaments/").json()["results"]
        assert [x["arbiters"] for x in listing if x["id"] == t.pk] == [["arbitre"]]
        one = api.get(f"/api/v1/tournaments/{t.pk}/results/1/1/").json()
        assert one["updated_by"] == "arbitre"
