"""An invited club that uploads another club's licences (issue 30.6): the rightful club's 409
tells it nothing of the other club; the organiser sees both claims (page and API) and
revokes an invitation from his pages or the API, which releases its licences."""

from __future__ import annotations

import json

import pytest
from django.test import Client, TestCase

from tests.tournaments.api.conftest import client_for
from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.models import FieldPlayer, FieldResult, SimultaneousEvent

from .builders import played, player
from .test_api import BASE, club_upload, event_id, invite, organiser, send  # noqa: F401

pytestmark = pytest.mark.django_db

A = ["1000001", "1000002", "1000003", "1000004"]


def squatted(organiser, event_id):  # noqa: F811
    """Club B uploads Club A's four licences (under names of its own) before Club A does."""
    _inv_a, token_a = invite(organiser, event_id, "Club A")
    inv_b, token_b = invite(organiser, event_id, "Club Squat")
    data = club_upload(token_b, A, [played(1, 1, A)])
    data["players"] = [player(x, "Faux", f"Nom {x}") for x in A]
    assert send(token_b, data).status_code == 200
    return token_a, inv_b


def test_the_rightful_clubs_409_tells_nothing_of_the_other_club(organiser, event_id):  # noqa: F811
    token_a, _inv_b = squatted(organiser, event_id)
    data = club_upload(token_a, A, [played(1, 1, A)])
    data["players"] = [player(x, "Vrai", f"Joueur {x}") for x in A]
    response = send(token_a, data)
    body = response.json()
    assert (response.status_code, body["code"]) == (409, "licence_elsewhere")
    assert body["licences"] == A and body["detail"] == body["message"]
    text = json.dumps(body, ensure_ascii=False)
    assert "Club Squat" not in text and "Faux" not in text and "Nom " not in text


def test_the_organiser_sees_both_claims_and_revoking_releases_the_licences(organiser, event_id):  # noqa: F811
    token_a, inv_b = squatted(organiser, event_id)
    rightful = club_upload(token_a, A, [played(1, 1, A)])
    rightful["players"] = [player(x, "Vrai", f"Joueur {x}") for x in A]
    assert send(token_a, rightful).status_code == 409
    api = client_for(organiser)
    conflicts = api.get(f"{BASE}events/{event_id}/conflicts/").json()
    assert [c["licence"] for c in conflicts] == A
    first = conflicts[0]
    assert (first["holder"]["club_name"], first["holder"]["first_name"]) == ("Club Squat", "Faux")
    assert (first["claimant"]["club_name"], first["claimant"]["first_name"]) == ("Club A", "Vrai")
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(organiser)
    text = page.get(f"/simultanes/{event_id}/").content.decode()
    assert 'id="conflicts"' in text and "Club A claims players of Club Squat" in text
    assert f"Faux Nom {A[0]}" in text and f"Vrai Joueur {A[0]}" in text

    event = SimultaneousEvent.objects.get(public_id=event_id)
    version = event.results_version
    with TestCase.captureOnCommitCallbacks(execute=True):
        revoked = api.post(f"{BASE}events/{event_id}/invitations/{inv_b}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["active"] is False
    assert not FieldPlayer.objects.filter(invitation__public_id=inv_b).exists()
    assert not FieldResult.objects.filter(invitation__public_id=inv_b).exists()
    event.refresh_from_db()
    assert event.results_version == version + 1
    assert api.get(f"{BASE}events/{event_id}/conflicts/").json() == []
    assert 'id="conflicts"' not in page.get(f"/simultanes/{event_id}/").content.decode()
    rightful["sequence"] = 2
    applied = send(token_a, rightful)
    assert applied.status_code == 200 and applied.json()["results"]["new"] == 1
    names = set(FieldPlayer.objects.values_list("first_name", flat=True))
    assert names == {"Vrai"}


def test_the_organiser_revokes_from_his_page_and_nobody_else_does(
    organiser,  # noqa: F811
    event_id,  # noqa: F811
    make_user,
):
    _token_a, inv_b = squatted(organiser, event_id)
    url = f"/simultanes/{event_id}/invitations/{inv_b}/revoquer/"
    stranger = make_user("stranger")
    other = Client()
    other.force_login(stranger)
    assert other.post(url).status_code == 403
    response = client_for(stranger).post(f"{BASE}events/{event_id}/invitations/{inv_b}/revoke/")
    assert response.status_code == 403
    assert FieldPlayer.objects.filter(invitation__public_id=inv_b).count() == 4
    page = Client(HTTP_ACCEPT_LANGUAGE="en")
    page.force_login(organiser)
    status = page.get(f"/simultanes/{event_id}/").content.decode()
    assert url in status  # the clubs' table offers the revoke
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = page.post(url)
    assert response.status_code == 302
    assert not FieldPlayer.objects.filter(invitation__public_id=inv_b).exists()
    assert services.invitation_for_token(_token_a) is not None
    unknown = client_for(organiser).post(f"{BASE}events/{event_id}/invitations/nope/revoke/")
    assert unknown.status_code == 404


def test_the_admins_revoke_releases_the_licences_too(organiser, event_id, make_user):  # noqa: F811
    _token_a, inv_b = squatted(organiser, event_id)
    admin = make_user("admin", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    invitation = services.Invitation.objects.get(public_id=inv_b)
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client.post(
            "/admin/simultaneous_hub/invitation/",
            {"action": "revoke", "_selected_action": [invitation.pk]},
        )
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    assert not FieldPlayer.objects.filter(invitation=invitation).exists()
