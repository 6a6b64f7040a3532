"""The organiser's pages: create an event, invite a club (token shown once), upload a file
by hand (applied or refused with its reason in the log), close."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase

from tests.fixtures.people import PASSWORD
from tournaments.models import Club
from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.models import Invitation, SimultaneousEvent, UploadLog

from .builders import played

pytestmark = pytest.mark.django_db
A = ["1000001", "1000002", "1000003", "1000004"]


@pytest.fixture
def organiser_client(client, make_user):
    user = make_user("federation")
    Club.objects.create(name="Fédération", federation_number="0001").organisers.add(user)
    client.login(username="federation", password=PASSWORD)
    client.user = user
    return client


def test_the_organiser_runs_an_event_from_the_pages(organiser_client, make_user):
    c = organiser_client
    response = c.post(
        "/simultanes/nouveau/",
        {"name": "Simultané", "date": "2027-01-16", "rounds": 2, "sets": 3,
         "method": "average", "matchpoint_penalty_rate": "0.1"},
    )  # fmt: skip
    event = SimultaneousEvent.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/simultanes/{event.public_id}/"
    page = c.get(f"/simultanes/{event.public_id}/").content.decode()
    assert event.commitment in page and event.seed not in page
    response = c.post(f"/simultanes/{event.public_id}/inviter/", {"club_name": "Club A"})
    html = response.content.decode()
    invitation = Invitation.objects.get()
    token = html.split('id="invitation-token">')[1].split("<")[0]
    assert services.invitation_for_token(token) == invitation
    assert token not in c.get(f"/simultanes/{event.public_id}/").content.decode()
    # a club's file by hand, then a tampered one refused with its reason in the log
    hub_event = services.event_donnes(event)
    data = {
        "format": "tarot_club/simultaneous-upload", "version": 1, "event": event.public_id,
        "club": invitation.public_id, "identity": event.identity, "commitment": event.commitment,
        "sequence": 1, "generated_at": "2027-01-16T18:00:00Z", "final": False,
        "donnes": hub_event[:1], "results": [played(1, 1, A)], "penalties": [],
        "players": [{"licence": x, "first_name": "A", "last_name": x} for x in A],
    }  # fmt: skip
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = c.post(
            f"/simultanes/{event.public_id}/envoi/",
            {"file": SimpleUploadedFile("a.json", json.dumps(data).encode())},
            follow=True,
        )
    assert response.status_code == 200 and UploadLog.objects.get().outcome == "applied"
    data["donnes"][0]["chien"] = hub_event[1]["chien"]
    response = c.post(
        f"/simultanes/{event.public_id}/envoi/",
        {"file": SimpleUploadedFile("a.json", json.dumps(data).encode())},
        follow=True,
    )
    refused = UploadLog.objects.get(outcome="refused")
    assert refused.code == "commitment_mismatch" and refused.reason in response.content.decode()
    response = c.post(f"/simultanes/{event.public_id}/clore/", follow=True)
    event.refresh_from_db()
    assert event.state == "closed" and event.embargo_over


def test_strangers_see_no_event_page(organiser_client, client, make_user):
    event = services.event_create(
        user=organiser_client.user, name="S", date="2027-01-16", rounds=2, sets=3
    )
    make_user("stranger")
    from django.test import Client

    other = Client()
    other.login(username="stranger", password=PASSWORD)
    assert other.get(f"/simultanes/{event.public_id}/").status_code == 403
    assert other.post("/simultanes/nouveau/", {"name": "x"}).status_code == 403
    assert Client().get(f"/simultanes/{event.public_id}/").status_code == 302  # to log in
