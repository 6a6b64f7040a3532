"""The calls' API (issue 34 point 2): /api/v1/tournaments/<id>/calls/ — create by a player
of the table with his code, list, take and rule by the arbiters only, the 4xx that name what
is wrong, and the ruling's links."""

from __future__ import annotations

import pytest

from tests.tournaments.api.conftest import client_for
from tests.tournaments.test_table_entry import code_of, holders
from tournaments.models import ArbiterCall, Round

from .conftest import call, relais

pytestmark = pytest.mark.django_db


def _base(t) -> str:
    return f"/api/v1/tournaments/{t.pk}/calls/"


def _open_round_one(t) -> None:
    Round.objects.filter(tournament=t, number=1).update(state=Round.State.OPEN)


def test_a_player_calls_through_the_api_and_a_second_call_joins(t, personas):
    _open_round_one(t)
    donne = relais(t)[0]
    north, east = (holders(t, 1, donne.number)[p] for p in "NE")
    api = client_for(personas.stranger)  # any account: the proof is the player's code
    body = {"table": 1, "donne": donne.number, "irregularity": "jeu_hors_tour", "trick": 3}
    made = api.post(_base(t), body | {"player": north.pk, "code": code_of(t, north)}, format="json")
    assert made.status_code == 201, made.json()
    assert made.json()["state"] == "open" and made.json()["joined"] is False
    joined = api.post(_base(t), body | {"player": east.pk, "code": code_of(t, east)}, format="json")
    assert joined.status_code == 200 and joined.json()["joined"] is True
    assert joined.json()["id"] == made.json()["id"] and joined.json()["joins"] == 1


def test_bad_calls_are_400s_that_name_the_field(t, personas):
    _open_round_one(t)
    donne = relais(t)[0]
    north = holders(t, 1, donne.number)["N"]
    api = client_for(personas.stranger)
    proof = {"player": north.pk, "code": code_of(t, north)}
    unknown = api.post(
        _base(t), {"table": 1, "donne": donne.number, "irregularity": "x"} | proof, format="json"
    )
    assert unknown.status_code == 400 and "irregularity" in unknown.json()["details"]
    other = relais(t, 2)[0].number
    elsewhere = api.post(
        _base(t), {"table": 1, "donne": other, "irregularity": "renonce"} | proof, format="json"
    )
    assert elsewhere.status_code == 400 and "donne" in elsewhere.json()["details"]
    assert str(other) in elsewhere.json()["details"]["donne"][0]
    assert not ArbiterCall.objects.exists()


def test_only_the_arbiters_list_take_and_rule(t, personas):
    made = call(t)
    for user in (None, personas.stranger, personas.player_user):
        api = client_for(user)
        assert api.get(_base(t)).status_code in (401, 403)
        assert api.post(f"{_base(t)}{made.pk}/take/").status_code in (401, 403)
        ruling = api.post(f"{_base(t)}{made.pk}/rule/", {"ruling": "none"}, format="json")
        assert ruling.status_code in (401, 403)
    made.refresh_from_db()
    assert made.state == "open"
    arbiter = client_for(personas.arbiter)
    listed = arbiter.get(_base(t), {"state": "open"})
    assert [c["id"] for c in listed.json()["results"]] == [made.pk]
    assert "hand" not in str(listed.json())


def test_take_then_rule_an_annulment_then_a_second_ruling_is_a_409(t, personas):
    made = call(t)
    arbiter = client_for(personas.arbiter)
    taken = arbiter.post(f"{_base(t)}{made.pk}/take/")
    assert taken.status_code == 200 and taken.json()["state"] == "en_route"
    no_reason = arbiter.post(f"{_base(t)}{made.pk}/rule/", {"ruling": "annulment"}, format="json")
    assert no_reason.status_code == 400
    ruled = arbiter.post(
        f"{_base(t)}{made.pk}/rule/",
        {"ruling": "annulment", "note": "Étui mal replacé"},
        format="json",
    )
    assert ruled.status_code == 200, ruled.json()
    data = ruled.json()
    assert data["ruling"] == "annulment" and data["result"] and data["ledger_entry"]
    assert data["seconds_to_arbiter"] is not None
    again = arbiter.post(f"{_base(t)}{made.pk}/rule/", {"ruling": "none"}, format="json")
    assert again.status_code == 409 and "already ruled" in again.json()["message"]


def test_a_score_the_arbiter_sets_and_an_unknown_ruling(t, personas):
    made = call(t)
    arbiter = client_for(personas.arbiter)
    unknown = arbiter.post(f"{_base(t)}{made.pk}/rule/", {"ruling": "pardon"}, format="json")
    assert unknown.status_code == 400 and "ruling" in unknown.json()["details"]
    score = {"taker": "N", "contract": "garde", "bouts": 2, "points": 50}
    ruled = arbiter.post(
        f"{_base(t)}{made.pk}/rule/",
        {"ruling": "score", "result": score, "note": "Renonce"},
        format="json",
    )
    assert ruled.status_code == 200, ruled.json()
    assert ruled.json()["ruling"] == "score" and ruled.json()["result"]
