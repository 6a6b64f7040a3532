"""Every operation of the hub's API × every kind of caller, with the status each must get:
the event's organiser, another club's organiser (who may organise events, not this one), a
signed-in stranger, anonymous, and a club with its token. A refused write changes nothing.
(tests/tournaments/api/test_permissions.py covers the tournaments' API and defers to this matrix.)"""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tests.tournaments.api.conftest import client_for
from tournaments.models import Club
from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.models import FieldPlayer, Invitation, SimultaneousEvent

from .test_api import BASE, club_client, club_upload, invite

pytestmark = pytest.mark.django_db

CALLERS = ("organiser", "other_organiser", "stranger", "anonymous", "club")
E = BASE + "events/{event}/"

# operation id: (method, path, body, statuses in the order of CALLERS)
MATRIX = {
    "simultaneous_events_list": ("GET", BASE + "events/", None, (200, 200, 200, 401, 401)),
    "simultaneous_events_create": (
        "POST",
        BASE + "events/",
        {"name": "S", "date": "2027-01-16", "rounds": 2, "sets": 3},
        (201, 201, 403, 401, 401),
    ),
    "simultaneous_event": ("GET", E, None, (200, 403, 403, 401, 401)),
    "simultaneous_invitations_create": (
        "POST",
        E + "invitations/",
        {"club_name": "Club Z"},
        (201, 403, 403, 401, 401),
    ),
    "simultaneous_event_close": ("POST", E + "close/", {}, (200, 403, 403, 401, 401)),
    "simultaneous_uploads_list": ("GET", E + "uploads/", None, (200, 403, 403, 401, 401)),
    "simultaneous_uploads_manual": ("POST", E + "uploads/", "upload", (200, 403, 403, 401, 401)),
    "simultaneous_ranking": ("GET", E + "ranking/", None, (200, 403, 403, 401, 401)),
    "simultaneous_conflicts": ("GET", E + "conflicts/", None, (200, 403, 403, 401, 401)),
    # The club's side (joining from this site): a club's organiser is told what is wrong.
    "simultaneous_join": (
        "POST",
        BASE + "join/",
        {"hub_url": "", "token": ""},
        (400, 400, 403, 401, 401),
    ),
    "simultaneous_invitation_revoke": (
        "POST",
        E + "invitations/{invitation}/revoke/",
        {},
        (200, 403, 403, 401, 401),
    ),
    "simultaneous_club_event": ("GET", BASE + "club/event/", None, (401, 401, 401, 401, 200)),
    "simultaneous_club_upload": ("POST", BASE + "club/uploads/", "signed", (401,) * 4 + (200,)),
}


def _state() -> tuple:
    return (
        SimultaneousEvent.objects.count(),
        Invitation.objects.count(),
        FieldPlayer.objects.count(),  # (a refused upload is logged: that log is no write)
        Invitation.objects.filter(revoked_at__isnull=False).count(),
        SimultaneousEvent.objects.filter(closed_at__isnull=False).count(),
    )


@pytest.mark.parametrize("operation", sorted(MATRIX))
def test_each_caller_gets_its_status(operation, make_user):
    method, path, body, expected = MATRIX[operation]
    organiser = make_user("federation")
    Club.objects.create(name="Fédération", federation_number="0001").organisers.add(organiser)
    other = make_user("other-club")
    Club.objects.create(name="Autre club", federation_number="0002").organisers.add(other)
    event = client_for(organiser).post(
        BASE + "events/",
        {"name": "Simultané", "date": "2027-01-16", "rounds": 2, "sets": 3},
        format="json",
    )
    event_id = event.json()["event"]
    invitation, token = invite(organiser, event_id, "Club A")
    clients = {
        "organiser": client_for(organiser),
        "other_organiser": client_for(other),
        "stranger": client_for(make_user("stranger")),
        "anonymous": APIClient(),
        "club": club_client(token),
    }
    url = path.format(event=event_id, invitation=invitation)
    got = {}
    for caller in CALLERS:
        client = clients[caller]
        before = _state()
        if body in ("upload", "signed"):
            data = club_upload(token, [], [])
            raw = json.dumps(data).encode()
            headers = {"HTTP_X_SIMULTANEOUS_SIGNATURE": services.signature_of(token, raw)}
            response = client.post(url, raw, content_type="application/json", **headers)
        elif method == "POST":
            response = client.post(url, body, format="json")
        else:
            response = client.get(url)
        got[caller] = response.status_code
        if response.status_code in (401, 403) and method == "POST":
            assert _state() == before, f"{caller}: a refused write wrote"
        SimultaneousEvent.objects.filter(public_id=event_id).update(closed_at=None)
    assert got == dict(zip(CALLERS, expected, strict=True))


def test_the_matrix_names_every_operation_of_the_hub():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = {
        op["operationId"]
        for item in schema["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and op.get("operationId", "").startswith("simultaneous_")
    }
    assert operations == set(MATRIX)
