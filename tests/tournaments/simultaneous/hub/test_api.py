"""The hub's API: organisers' events and invitations, the clubs' Bearer token and signed
uploads, every refusal's status and code, and the embargo on the overall ranking."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from rest_framework.test import APIClient

from scoring.rules import dealing
from tests.tournaments.api.conftest import client_for
from tournaments.models import Club
from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.models import FieldResult, SimultaneousEvent

from .builders import played, player, upload

pytestmark = pytest.mark.django_db

BASE = "/api/v1/simultaneous/"
A = ["1000001", "1000002", "1000003", "1000004"]
B = ["2000001", "2000002", "2000003", "2000004"]


@pytest.fixture
def organiser(make_user):
    user = make_user("federation")
    Club.objects.create(name="Fédération", federation_number="0001").organisers.add(user)
    return user


@pytest.fixture
def event_id(organiser) -> str:
    response = client_for(organiser).post(
        BASE + "events/",
        {"name": "Simultané", "date": "2027-01-16", "rounds": 2, "sets": 3},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()["event"]


def invite(organiser, event_id: str, name: str) -> tuple[str, str]:
    response = client_for(organiser).post(
        f"{BASE}events/{event_id}/invitations/", {"club_name": name}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    return body["invitation"], body["token"]


def club_client(token: str) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def club_upload(token: str, licences: list[str], results: list[dict], **kw) -> dict:
    described = club_client(token).get(BASE + "club/event/").json()
    numbers = {r["donne"] for r in results} or {1}
    return upload(
        event=described["event"],
        club=described["club"]["invitation"],
        identity=described["identity"],
        commitment=described["commitment"],
        donnes=[  # an upload's donnes have no redraws (RULES §6.3: dealer, hands, chien)
            {k: v for k, v in d.items() if k != "redraws"}
            for d in described["donnes"]
            if d["number"] in numbers
        ],
        players=[player(x) for x in licences],
        results=results,
        **kw,
    )


def send(token: str, data: dict | bytes, *, signature: str | None = None):
    body = data if isinstance(data, bytes) else json.dumps(data).encode()
    with TestCase.captureOnCommitCallbacks(execute=True):
        return club_client(token).post(
            BASE + "club/uploads/",
            body,
            content_type="application/json",
            HTTP_X_SIMULTANEOUS_SIGNATURE=signature or services.signature_of(token, body),
        )


def test_only_club_organisers_create_events(make_user, organiser):
    data = {"name": "S", "date": "2027-01-16", "rounds": 2, "sets": 3}
    assert APIClient().post(BASE + "events/", data, format="json").status_code == 401
    stranger = client_for(make_user("stranger"))
    response = stranger.post(BASE + "events/", data, format="json")
    assert response.status_code == 403 and response.json()["detail"]
    response = client_for(organiser).post(BASE + "events/", {**data, "sets": 0}, format="json")
    assert response.status_code == 400 and "sets" in response.json()["details"]


def test_the_club_reads_its_event_with_its_token(organiser, event_id):
    invitation, token = invite(organiser, event_id, "Club A")
    body = club_client(token).get(BASE + "club/event/").json()
    assert body["club"] == {"invitation": invitation, "name": "Club A"}
    assert len(body["donnes"]) == 12 and body["seed"] is None and body["state"] == "open"
    assert (body["method"], body["matchpoint_penalty_rate"], body["rounds"]) == (
        "average",
        "0.1",
        2,
    )
    event = SimultaneousEvent.objects.get(public_id=event_id)
    assert body["commitment"] == event.commitment and body["identity"] == event.identity
    # Each donne carries the generator's redraws, which the club's check compares too.
    dealt = dealing.generate_donnes(event.seed, event.identity, 12)
    assert [d["redraws"] for d in body["donnes"]] == [d.redraws for d in dealt]
    response = club_client("wrong").get(BASE + "club/event/")
    assert response.status_code == 401 and response.json()["code"] == "not_invited"
    assert APIClient().get(BASE + "club/event/").status_code == 401
    # organisers see the event with its invitations, others do not
    detail = client_for(organiser).get(f"{BASE}events/{event_id}/").json()
    assert [i["invitation"] for i in detail["invitations"]] == [invitation]
    assert "token" not in json.dumps(detail)


def test_a_signed_upload_is_applied(organiser, event_id):
    _inv, token = invite(organiser, event_id, "Club A")
    response = send(token, club_upload(token, A, [played(1, 1, A)]))
    assert response.status_code == 200, response.content
    assert response.json() == {
        "upload": response.json()["upload"],
        "results": {"new": 1, "replaced": 0, "unchanged": 0, "removed": 0},
        "penalties": {"new": 0, "replaced": 0, "unchanged": 0, "removed": 0},
        "final": False,
        "window": {"claims_until": None, "final_at": None},  # under embargo (issue 34 §5)
    }
    again = send(token, club_upload(token, A, [played(1, 1, A)]))
    assert again.json()["results"]["unchanged"] == 1 and FieldResult.objects.count() == 1
    stale = send(token, club_upload(token, A, [], sequence=0))
    assert stale.status_code == 200 and stale.json()["stale"] is True


@pytest.mark.parametrize(
    "case,status,code",
    [
        ("signature", 401, "bad_signature"),
        ("tampered", 422, "commitment_mismatch"),
        ("invalid", 400, "invalid"),
        ("closed", 409, "closed"),
        ("licence", 409, "licence_elsewhere"),
        ("revoked", 403, "not_invited"),
        ("unknown", 401, "not_invited"),
    ],
)
def test_refusals_answer_their_status_and_code(organiser, event_id, case, status, code):
    _inv, token = invite(organiser, event_id, "Club A")
    _inv_b, token_b = invite(organiser, event_id, "Club B")
    data = club_upload(token, A, [played(1, 1, A)])
    signature = None
    if case == "signature":
        signature = "sha256=" + "0" * 64
    elif case == "tampered":
        data["donnes"][0]["chien"], data["donnes"][0]["hands"]["N"] = (
            data["donnes"][0]["hands"]["N"],
            data["donnes"][0]["chien"],
        )
    elif case == "invalid":
        data["results"][0]["scores"]["N"] = 0
    elif case == "closed":
        assert client_for(organiser).post(f"{BASE}events/{event_id}/close/").status_code == 200
    elif case == "licence":
        b = [A[0], *B[1:]]
        assert send(token_b, club_upload(token_b, b, [played(1, 1, b)])).status_code == 200
    elif case == "revoked":
        services.invitation_revoke(invitation=services.invitation_for_token(token))
    elif case == "unknown":
        token = "not-a-token"
    response = send(token, json.dumps(data).encode(), signature=signature)
    body = response.json()
    assert (response.status_code, body["code"]) == (status, code), body
    assert body["detail"] == body["message"] and body["message"]
    if case == "invalid":
        assert list(body["details"]) == ["results[0].scores"]
    if case == "licence":
        assert body["licences"] == [A[0]] and "Club B" not in json.dumps(body)
    if case == "tampered":
        assert body["donnes"] == [1]


def test_the_ranking_is_under_embargo_until_closed(organiser, event_id, make_user):
    _inv, token = invite(organiser, event_id, "Club A")
    _inv, token_b = invite(organiser, event_id, "Club B")
    send(token, club_upload(token, A, [played(1, 1, A)]))
    send(token_b, club_upload(token_b, B, [played(1, 1, B, points="40")]))
    url = f"{BASE}events/{event_id}/ranking/"
    assert APIClient().get(url).status_code == 401
    assert client_for(make_user("player")).get(url).status_code == 403
    rows = client_for(organiser).get(url).json()["results"]
    # N took a garde: made at A, lost at B; each compared with the other across the field
    made, lost = (FieldResult.objects.get(holders__N=x[0]).scores["N"] for x in (A, B))
    assert rows[0]["licence"] == A[0] and rows[-1]["licence"] == B[0]
    assert rows[0]["total"] == str((made - lost) // 2) and rows[0]["club"] == "Club A"
    found = client_for(organiser).get(url, {"q": A[2]}).json()["results"]
    assert [r["licence"] for r in found] == [A[2]]
    client_for(organiser).post(f"{BASE}events/{event_id}/close/")
    assert APIClient().get(url).status_code == 200
    assert club_client(token).get(BASE + "club/event/").json()["seed"]


def test_an_organiser_uploads_a_clubs_file_by_hand(organiser, event_id, make_user):
    _inv, token = invite(organiser, event_id, "Club A")
    data = club_upload(token, A, [played(1, 1, A)])
    file = SimpleUploadedFile("club.json", json.dumps(data).encode(), "application/json")
    url = f"{BASE}events/{event_id}/uploads/"
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client_for(organiser).post(url, {"file": file}, format="multipart")
    assert response.status_code == 200, response.content
    assert response.json()["results"]["new"] == 1
    log = client_for(organiser).get(url).json()["results"]
    assert log[0]["outcome"] == "applied" and log[0]["club_name"] == "Club A"
    assert client_for(make_user("x")).post(url, data, format="json").status_code == 403
    data["donnes"][0]["hands"]["N"] = data["donnes"][0]["hands"]["E"]
    response = client_for(organiser).post(url, data, format="json")
    assert response.status_code in (400, 422) and response.json()["code"] in (
        "invalid",
        "commitment_mismatch",
    )
