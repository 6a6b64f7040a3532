"""/api/v1/tournaments/{id}/claims/: the list for arbiters, filing (a player his own, an
arbiter for a player), settling; the refusals are 4xx that name the field, nothing saved."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Claim, LedgerEntry, Penalty, Player, Seat, TableRound

from .helpers import cell, close_every_round, record_call, window_passed

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def api(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def closed(personas):
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    return t


def url(t, rest: str = "") -> str:
    return f"/api/v1/tournaments/{t.pk}/claims/{rest}"


def own_cell(t, personas):
    """A table and donne where the player with an account (the first registered) plays."""
    me = Player.objects.get(user=personas.player_user)
    tr = TableRound.objects.filter(round__tournament=t, seats__player=me).first()
    return me, tr.table, tr.etui_set.donnes.order_by("number").first()


def test_a_player_files_his_own_and_the_arbiter_settles_it(closed, personas):
    t = closed
    me, table, donne = own_cell(t, personas)
    body = {"table": table.number, "donne": donne.number, "kind": "result", "text": "Poignée"}
    filed = api(personas.player_user).post(url(t), body, format="json", **EN)
    assert filed.status_code == 201, filed.content
    assert filed.json()["filed_by"] == me.pk and filed.json()["state"] == "open"
    claim_id = filed.json()["id"]
    # Strangers and players do not read the claims; the arbiter does.
    assert api(personas.player_user).get(url(t)).status_code == 403
    listed = api(personas.arbiter).get(url(t)).json()
    assert [c["id"] for c in listed["results"]] == [claim_id]
    # Settled with a penalty to the opponent who hid his poignée.
    opponent = (
        Seat.objects.filter(table_round__table=table, table_round__etui_set_id=donne.etui_set_id)
        .exclude(player=me)
        .first()
        .player
    )
    settle = {
        "state": "accepted",
        "reason": "Poignée non montrée",
        "penalty": {"player": opponent.pk, "kind": "warning"},
    }
    done = api(personas.arbiter).post(url(t, f"{claim_id}/settle/"), settle, format="json")
    assert done.status_code == 200, done.content
    assert done.json()["state"] == "accepted" and done.json()["settled_by"] == "arbitre"
    penalty = Penalty.objects.get(pk=done.json()["penalty"])
    assert penalty.player == opponent and penalty.donne == donne
    # Settling again: 409, nothing changes.
    again = api(personas.arbiter).post(
        url(t, f"{claim_id}/settle/"), {"state": "rejected", "reason": "x"}, format="json", **EN
    )
    assert again.status_code == 409 and "already settled" in again.json()["message"]
    assert Claim.objects.get(pk=claim_id).state == "accepted"
    actions = set(LedgerEntry.objects.filter(tournament=t).values_list("action", flat=True))
    assert {"claim_filed", "claim_settled", "penalty_given"} <= actions


def test_refusals_name_the_field_and_save_nothing(closed, personas):
    t = closed
    me, table, donne = own_cell(t, personas)
    client = api(personas.player_user)
    base = {"table": table.number, "donne": donne.number, "kind": "result", "text": "Faux"}
    unknown = client.post(url(t), {**base, "donne": 999}, format="json", **EN)
    assert unknown.status_code == 400 and "donne 999" in unknown.json()["details"]["donne"][0]
    no_table = client.post(url(t), {**base, "table": 99}, format="json", **EN)
    assert no_table.status_code == 400 and "table 99" in no_table.json()["details"]["table"][0]
    kind = client.post(url(t), {**base, "kind": "mood"}, format="json", **EN)
    assert kind.status_code == 400 and "kind" in kind.json()["details"]
    # Not his table's donne.
    other = TableRound.objects.filter(round__tournament=t).exclude(seats__player=me).first()
    foreign = other.etui_set.donnes.exclude(etui_set__table_rounds__seats__player=me).first()
    if foreign is not None:
        refused = client.post(
            url(t),
            {**base, "table": other.table.number, "donne": foreign.number},
            format="json",
            **EN,
        )
        assert refused.status_code == 400, refused.content
    # An irregularity without a call: the rule's reason.
    irregular = client.post(url(t), {**base, "kind": "irregularity"}, format="json", **EN)
    assert irregular.status_code == 400
    assert "ipso facto" in irregular.json()["details"]["kind"][0]
    # Late.
    window_passed(t)
    late = client.post(url(t), base, format="json", **EN)
    assert late.status_code == 400 and "closed at" in late.json()["message"]
    assert not Claim.objects.exists()
    # A stranger may not file.
    assert api(personas.stranger).post(url(t), base, format="json").status_code in (403, 404)


def test_irregularity_with_a_call_or_the_arbiters_reason(closed, personas):
    t = closed
    table, donne, player = cell(t)
    body = {
        "table": table.number,
        "donne": donne.number,
        "kind": "irregularity",
        "text": "Renonce de Sud",
        "player": player.pk,
    }
    arbiter = api(personas.arbiter)
    refused = arbiter.post(url(t), body, format="json", **EN)
    assert refused.status_code == 400  # no call, no written reason
    taken = arbiter.post(
        url(t), {**body, "without_call": "L'arbitre était à une autre table"}, format="json"
    )
    assert taken.status_code == 201 and taken.json()["without_call"]
    record_call(t, table, donne, player)
    backed = arbiter.post(url(t), body, format="json")
    assert backed.status_code == 201 and backed.json()["without_call"] == ""


def test_the_list_costs_the_same_few_queries_for_any_number_of_claims(
    closed, personas, django_assert_max_num_queries
):
    from tournaments.services.claims import claim_file

    t = closed
    table, donne, player = cell(t)
    for n in range(5):
        claim_file(
            tournament=t,
            table=table,
            donne=donne,
            kind="result",
            text=f"Réclamation {n}",
            player=player,
        )
    client = api(personas.arbiter)
    with django_assert_max_num_queries(8):
        listed = client.get(url(t))
    assert listed.status_code == 200 and listed.json()["count"] == 5
