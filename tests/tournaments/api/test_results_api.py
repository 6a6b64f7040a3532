"""Writing results, annulments and penalties through the API: the arbiter's service decides
(same errors, same warnings, same scores), versions protect corrections, errors are JSON."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

import pytest
from django.db.models import F
from rest_framework.test import APIClient

from scoring.rules import cards
from tests.tournaments.api.conftest import client_for
from tournaments.models import LedgerEntry, Penalty, Result, Seat, Table, Tournament
from tournaments.services.checks import WARNING_CODES
from tournaments.services.results import ResultInput, result_preview

pytestmark = pytest.mark.django_db

GARDE = {"taker": "N", "contract": "garde", "bouts": 2, "points": 50}


def url(t: Tournament, rest: str = "") -> str:
    return f"/api/v1/tournaments/{t.pk}/{rest}"


def post(client: APIClient, path: str, body: dict[str, Any], **headers: str) -> Any:
    return client.post(path, body, format="json", **headers)


def put(client: APIClient, path: str, body: dict[str, Any], **headers: str) -> Any:
    return client.put(path, body, format="json", **headers)


@pytest.fixture
def arbiter(personas) -> APIClient:
    return client_for(personas.arbiter)


def create(client: APIClient, t: Tournament, table: int, donne: int, **entry: Any) -> Any:
    body = {"table": table, "donne": donne, **(entry or GARDE), "confirm": list(WARNING_CODES)}
    response = post(client, url(t, "results/"), body)
    assert response.status_code == 201, response.json()
    return response


def test_a_result_gets_the_scores_the_service_computes(running_tournament, arbiter) -> None:
    t = running_tournament
    response = create(arbiter, t, 1, 1)
    body = response.json()
    assert body["scores"] == {"N": 204, "E": -68, "S": -68, "W": -68}  # RULES §5 example
    assert body["version"] == 1 and response.headers["ETag"] == '"1"'
    assert body["table"] == 1 and body["donne"] == 1 and body["round"] == 1
    saved = Result.objects.get(pk=body["id"])
    assert saved.scores == body["scores"] and saved.updated_by.username == "arbitre"
    assert LedgerEntry.objects.filter(result=saved, action="result_created").count() == 1
    t.refresh_from_db()
    assert t.results_version == 1
    again = arbiter.get(url(t, "results/1/1/"))
    assert again.status_code == 200 and again.json() == body and again.headers["ETag"] == '"1"'


def test_invalid_entries_get_the_services_messages_per_field(running_tournament, arbiter):
    t = running_tournament
    entry = {"contract": "garde", "bouts": 2, "points": 90}  # no taker; 90 impossible with 2
    response = post(arbiter, url(t, "results/"), {"table": 1, "donne": 1, **entry})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    preview = result_preview(
        tournament=t,
        table=Table.objects.get(tournament=t, number=1),
        donne=t.donnes.get(number=1),
        data=ResultInput(status="played", contract="garde", bouts=2, points=Decimal(90)),
    )
    assert body["details"] == preview.errors
    assert set(body["details"]) >= {"taker", "points"}
    assert not Result.objects.exists() and not LedgerEntry.objects.exists()


def test_an_impossible_poignee_is_refused_as_on_the_form(running_tournament, arbiter):
    """The cards are checked: a poignée needs that many trumps in the player's hand."""
    t = running_tournament
    donne = t.donnes.get(number=1)
    weakest = min("ESW", key=lambda p: cards.trump_count(cards.parse_hand(donne.hand(p))))
    body = {"table": 1, "donne": 1, **GARDE, "poignees": {weakest: "triple"}}
    response = post(arbiter, url(t, "results/"), body)
    assert response.status_code == 400
    details = response.json()["details"]
    preview = result_preview(
        tournament=t,
        table=Table.objects.get(tournament=t, number=1),
        donne=donne,
        data=ResultInput(
            status="played", **{**GARDE, "points": Decimal(50)}, poignees={weakest: "triple"}
        ),
    )
    assert details == preview.errors
    assert any(key.startswith("poignees") for key in details)
    assert not Result.objects.exists()


def test_an_unlikely_entry_needs_a_confirmation(running_tournament, arbiter) -> None:
    t = running_tournament
    entry = {"table": 1, "donne": 1, **GARDE, "points": "50.5"}  # a half point at four
    response = post(arbiter, url(t, "results/"), entry)
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "needs_confirmation"
    assert "half_point" in body["warnings"]
    assert body["details"]["confirm"] == list(body["warnings"].values())
    assert not Result.objects.exists()
    confirmed = post(arbiter, url(t, "results/"), {**entry, "confirm": list(body["warnings"])})
    assert confirmed.status_code == 201
    assert "half_point" in confirmed.json()["confirmed_warnings"]


def test_corrections_need_the_current_version(running_tournament, arbiter) -> None:
    t = running_tournament
    create(arbiter, t, 1, 1)
    cell = url(t, "results/1/1/")
    correction = {**GARDE, "points": 52, "confirm": list(WARNING_CODES)}

    no_version = put(arbiter, cell, correction)
    assert no_version.status_code == 409  # never a silent overwrite
    assert no_version.json()["version"] == 1

    no_reason = put(arbiter, cell, {**correction, "version": 1})
    assert no_reason.status_code == 400 and "reason" in no_reason.json()["details"]

    ok = put(arbiter, cell, {**correction, "version": 1, "reason": "Score sheet misread"})
    assert ok.status_code == 200 and ok.json()["version"] == 2
    assert ok.headers["ETag"] == '"2"'
    assert ok.json()["scores"]["N"] == 3 * 2 * (25 + 11)

    stale = put(arbiter, cell, {**correction, "points": 60, "version": 1, "reason": "again"})
    assert stale.status_code == 409
    assert stale.json()["code"] == "conflict"
    assert stale.json()["version"] == 2 and stale.json()["current"]["points"] == 52.0

    stale_if_match = put(
        arbiter, cell, {**correction, "points": 60, "reason": "again"}, HTTP_IF_MATCH='"1"'
    )
    assert stale_if_match.status_code == 412
    assert stale_if_match.json()["code"] == "precondition_failed"
    assert stale_if_match.headers["ETag"] == '"2"'

    disagree = put(arbiter, cell, {**correction, "version": 1, "reason": "x"}, HTTP_IF_MATCH='"2"')
    assert disagree.status_code == 400
    bad_header = put(arbiter, cell, {**correction, "reason": "x"}, HTTP_IF_MATCH="yesterday")
    assert bad_header.status_code == 400 and bad_header.json()["code"] == "invalid_if_match"

    fresh = put(
        arbiter, cell, {**correction, "points": 60, "reason": "third look"}, HTTP_IF_MATCH='"2"'
    )
    assert fresh.status_code == 200 and fresh.json()["version"] == 3
    assert Result.objects.get().points == Decimal("60.0")
    assert LedgerEntry.objects.filter(action="result_changed").count() == 2


def test_annulment_needs_a_reason_and_the_version(running_tournament, arbiter) -> None:
    t = running_tournament
    create(arbiter, t, 1, 1)
    annul = url(t, "results/1/1/annul/")
    assert post(arbiter, annul, {"reason": "", "version": 1}).status_code == 400
    assert post(arbiter, annul, {"reason": "Étuis mixed", "version": 7}).status_code == 409
    done = post(arbiter, annul, {"reason": "Étuis mixed", "version": 1})
    assert done.status_code == 200
    body = done.json()
    assert body["status"] == "annulled" and body["scores"] == {}
    assert body["annul_reason"] == "Étuis mixed" and body["version"] == 2


def test_penalties_from_the_catalogue(running_tournament, arbiter, personas) -> None:
    t = running_tournament
    player = personas.player_user.player
    given = post(
        arbiter, url(t, "penalties/"), {"player": player.pk, "kind": "early_pickup", "donne": 1}
    )
    assert given.status_code == 201
    assert given.json()["points"] == 100 and given.json()["donne"] == 1
    other = post(
        arbiter, url(t, "penalties/"), {"player": player.pk, "kind": "other", "points": 30}
    )
    assert other.status_code == 400 and "reason" in other.json()["details"]
    unknown = post(arbiter, url(t, "penalties/"), {"player": 999999, "kind": "warning"})
    assert unknown.status_code == 400 and "player" in unknown.json()["details"]
    penalty_id = given.json()["id"]
    withdraw = url(t, f"penalties/{penalty_id}/withdraw/")
    done = post(arbiter, withdraw, {"reason": "Wrong player"})
    assert done.status_code == 200 and done.json()["active"] is False
    assert done.json()["withdrawn_by"] == "arbitre"
    again = post(arbiter, withdraw, {"reason": "Wrong player"})
    assert again.status_code == 400
    assert Penalty.objects.count() == 1
    ledger = arbiter.get(url(t, "ledger/")).json()["results"]
    assert [e["action"] for e in ledger] == ["penalty_given", "penalty_withdrawn"]


def test_a_penalty_sent_twice_without_a_key_is_recorded_once(running_tournament, arbiter, personas):
    """RULES §8: a retry without Idempotency-Key answers the penalty already recorded (200, same
    id) and records nothing; after PENALTY_REPEAT_SECONDS a deliberate second one is 201."""
    t = running_tournament
    body = {
        "player": personas.player_user.player.pk,
        "kind": "other",
        "points": 20,
        "reason": "Phone rang",
        "donne": 2,
    }
    first = post(arbiter, url(t, "penalties/"), body)
    assert first.status_code == 201
    again = post(arbiter, url(t, "penalties/"), body)
    assert again.status_code == 200 and again.json() == first.json()
    assert Penalty.objects.count() == 1
    assert LedgerEntry.objects.filter(action="penalty_given").count() == 1
    t.refresh_from_db()
    assert t.results_version == 1
    Penalty.objects.update(given_at=F("given_at") - datetime.timedelta(seconds=121))
    later = post(arbiter, url(t, "penalties/"), body)
    assert later.status_code == 201 and later.json()["id"] != first.json()["id"]
    assert Penalty.objects.count() == 2


def test_preview_never_writes(running_tournament, arbiter) -> None:
    t = running_tournament
    response = post(arbiter, url(t, "results/preview/"), {"table": 1, "donne": 1, **GARDE})
    assert response.status_code == 200
    body = response.json()
    assert body["scores"] == {"N": 204, "E": -68, "S": -68, "W": -68}
    assert body["parts"]["coefficient"] == 2 and body["won"] is True
    incomplete = post(arbiter, url(t, "results/preview/"), {"table": 1, "donne": 1})
    assert incomplete.json()["ok"] is False and "taker" in incomplete.json()["missing"]
    assert not Result.objects.exists()


def test_a_table_that_does_not_play_the_donne(running_tournament, arbiter) -> None:
    t = running_tournament
    # table 1 plays set 1 (donnes 1-4) and set 2 (5-8): there is no donne 9 at all
    missing = post(arbiter, url(t, "results/"), {"table": 1, "donne": 9, **GARDE})
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_hands_and_results_hidden_until_every_table_played_the_donne(
    running_tournament, arbiter, personas
) -> None:
    t = running_tournament
    player = client_for(personas.player_user)
    create(arbiter, t, 1, 1)
    hidden = player.get(url(t, "donnes/1/")).json()
    assert hidden["hands"] is None and hidden["hands_visible"] is False
    assert arbiter.get(url(t, "donnes/1/")).json()["hands"]["N"] == t.donnes.get(number=1).hand_n
    assert player.get(url(t, "results/")).json()["count"] == 0
    assert arbiter.get(url(t, "results/")).json()["count"] == 1
    assert player.get(url(t, "results/1/1/")).status_code == 403
    assert player.get(url(t, "travellers/1/")).status_code == 403

    # Table 2 plays donne 1 in round 2, which the arbiter opens first (issue 30.8).
    assert post(arbiter, url(t, "rounds/2/open/"), {"confirm_open": True}).status_code == 200
    create(arbiter, t, 2, 1)
    shown = player.get(url(t, "donnes/1/")).json()
    assert shown["complete"] is True and shown["hands"]["chien"] == t.donnes.get(number=1).chien
    assert player.get(url(t, "results/")).json()["count"] == 2
    traveller = player.get(url(t, "travellers/1/"))
    assert traveller.status_code == 200
    assert [row["table"] for row in traveller.json()["rows"]] == [1, 2]
    assert player.get(url(t, "donnes/2/")).json()["hands"] is None


def test_rounds_open_and_close_through_the_api(running_tournament, arbiter) -> None:
    t = running_tournament
    refused = post(arbiter, url(t, "rounds/1/close/"), {})
    assert refused.status_code == 400 and "misses" in refused.json()["message"]
    table = Table.objects.get(tournament=t, number=1)
    for round_table in table.table_rounds.filter(round__number=1):
        for donne in round_table.etui_set.donnes.all():
            create(arbiter, t, 1, donne.number, status="all_passed")
    other = Table.objects.get(tournament=t, number=2).table_rounds.get(round__number=1)
    for donne in other.etui_set.donnes.all():
        create(arbiter, t, 2, donne.number, status="all_passed")
    closed = post(arbiter, url(t, "rounds/1/close/"), {})
    assert closed.status_code == 200 and closed.json()["state"] == "closed"
    locked = put(
        arbiter, url(t, "results/1/1/"), {"status": "all_passed", "version": 1, "reason": "x"}
    )
    assert locked.status_code == 400 and "closed" in locked.json()["message"]
    assert post(arbiter, url(t, "rounds/1/open/"), {}).json()["state"] == "open"


def test_lists_use_a_bounded_number_of_queries(
    running_tournament, arbiter, django_assert_max_num_queries
) -> None:
    t = running_tournament
    for donne in (1, 2, 3, 4):
        create(arbiter, t, 1, donne, status="all_passed")
    for path in ("results/", "donnes/", "seats/", "ledger/", "etuis/", "registrations/"):
        with django_assert_max_num_queries(12):
            assert arbiter.get(url(t, path)).status_code == 200


def test_errors_are_json_and_translated(running_tournament, personas) -> None:
    t = running_tournament
    french = APIClient(HTTP_ACCEPT_LANGUAGE="fr")
    french.force_authenticate(personas.arbiter)
    required = french.post(url(t, "results/"), {"donne": 1}, format="json")
    assert required.status_code == 400
    assert required.json()["details"]["table"] == ["Ce champ est obligatoire."]
    assert french.get("/api/v1/tournaments/999999/").json()["message"] == "Non trouvé."
    english = client_for(personas.arbiter)
    broken = english.post(url(t, "results/"), "{not json", content_type="application/json")
    assert broken.status_code == 400 and broken.json()["code"] == "parse_error"
    assert "JSON parse error" in broken.json()["message"]
    required_en = english.post(url(t, "results/"), {"donne": 1}, format="json")
    assert required_en.json()["details"]["table"] == ["This field is required."]
    missing = english.get("/api/v1/tournaments/999999/")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
    nowhere = english.get("/api/v1/no-such-thing/")
    assert nowhere.status_code == 404 and nowhere.json()["code"] == "not_found"
    form = english.post(url(t, "results/"), {"table": 1}, format="multipart")
    assert form.status_code == 415 and form.json()["code"] == "unsupported_media_type"


def test_another_players_card_hides_unfinished_donnes(running_tournament, arbiter, personas):
    """As on the score card page: only the card's owner and the managers see a donne that
    some tables have still to play."""
    t = running_tournament
    create(arbiter, t, 1, 1)
    me = personas.player_user.player
    other = (
        Seat.objects.filter(round__tournament=t, round__number=1, table_round__table__number=1)
        .exclude(player=me)
        .first()
        .player
    )
    player = client_for(personas.player_user)

    def line(client: APIClient, who: int) -> dict[str, Any]:
        card = client.get(url(t, f"score-cards/{who}/"))
        assert card.status_code == 200
        return next(x for x in card.json()["lines"] if x["donne"] == 1)

    hidden = line(player, other.pk)
    assert hidden["hidden"] is True and hidden["scores"] == {} and hidden["contract"] == ""
    shown = line(arbiter, other.pk)
    assert shown["hidden"] is False and shown["contract"] == "garde"
    assert line(player, me.pk)["hidden"] is False


@pytest.mark.parametrize("value", ["²", "１", "99999999999", "-1", "x"])
def test_a_filter_that_is_not_a_small_number_matches_nothing(running_tournament, arbiter, value):
    create(arbiter, running_tournament, 1, 1)
    response = arbiter.get(url(running_tournament, "results/"), {"table": value})
    assert response.status_code == 200
    assert response.json()["results"] == []
    assert (
        len(arbiter.get(url(running_tournament, "results/"), {"table": "1"}).json()["results"]) == 1
    )
