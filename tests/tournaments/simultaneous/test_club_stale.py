"""What a club is told is what the hub did (issue 30.10), against a real hub served over HTTP
(the same project, `live_server`): a second tournament cannot join an event with the same
invitation, and an upload the hub ignored as stale is shown as such, with what to do, until
the arbiter sends again after the hub's sequence."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client

from tournaments.models import Club, Tournament
from tournaments.simultaneous.club import services
from tournaments.simultaneous.club.models import SimultaneousLink
from tournaments.simultaneous.hub import services as hub_services
from tournaments.simultaneous.hub.models import UploadLog


@pytest.fixture
def joined(live_server, make_user):
    federation = make_user("federation")
    Club.objects.create(name="Fédération", federation_number="0001").organisers.add(federation)
    event = hub_services.event_create(
        user=federation, name="Simultané", date=dt.date(2027, 3, 20), rounds=2, sets=3
    )
    _invitation, token = hub_services.invitation_create(
        event=event, user=federation, club_name="Club des Rois"
    )
    organiser = make_user("organiser")
    club = Club.objects.create(name="Club des Rois", federation_number="0420")
    club.organisers.add(organiser)
    link = services.join(hub_url=live_server.url, token=token, user=organiser, club=club)
    return live_server.url, token, organiser, club, link


@pytest.mark.django_db(transaction=True)
def test_a_second_tournament_cannot_join_with_the_same_invitation(joined):
    hub_url, token, organiser, club, link = joined
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organiser)
    page = client.post(
        "/simultaneous/join/", {"club": str(club.pk), "hub_url": hub_url, "token": token}
    )
    assert page.status_code == 400
    assert "already plays this event" in page.content.decode()
    assert link.tournament.name in page.content.decode()
    assert Tournament.objects.count() == 1 and SimultaneousLink.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_stale_answer_is_shown_as_ignored_with_what_to_do(joined):
    _hub_url, _token, organiser, _club, link = joined
    tournament_id = link.tournament_id
    assert services.upload_run(tournament_id=tournament_id) == "acknowledged"
    assert services.upload_run(tournament_id=tournament_id) == "acknowledged"
    # The site is restored from a backup taken after the first upload.
    SimultaneousLink.objects.filter(pk=link.pk).update(sequence=0, acked_sequence=0)
    assert services.upload_run(tournament_id=tournament_id) == "stale"
    link.refresh_from_db()
    assert (link.state, link.error_code, link.acked_sequence) == ("stale", "stale", 0)
    assert UploadLog.objects.filter(outcome="stale").count() == 1
    assert tournament_id not in services.links_behind()  # waits for the arbiter
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organiser)
    text = client.get(f"/t/{tournament_id}/simultaneous/").content.decode()
    assert "Up to date on the hub" not in text
    assert "Ignored by the hub" in text and "The hub did not take the last upload." in text
    assert "n° 2" in text and "restored from a backup" in text

    client.post(f"/t/{tournament_id}/simultaneous/send/")
    link.refresh_from_db()
    assert (link.state, link.sequence, link.acked_sequence) == ("acknowledged", 3, 3)
    assert UploadLog.objects.filter(outcome="applied").count() == 3
