"""What an event's étui sets allow a club (issue 31.7): the fewest sets a movement uses, the
event form's table of them, the event's page and the club told when it joins or registers
more players than the sets seat; the invitation panel gives the hub's address with the token
and the uploads table its legend."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import translation

from scoring.rules.errors import ScoringError
from scoring.rules.movement import generate_movement, most_players, sets_needed
from tests.fixtures.tournaments import make_players, stage_tournament
from tests.tournaments.api.conftest import client_for
from tournaments.models import Club, Registration
from tournaments.services.preparation import PreparationError, tournament_generate
from tournaments.simultaneous.hub import services as hub_services

SIZES = [n for n in range(8, 61) if n != 11]


@pytest.mark.parametrize("rounds", [1, 2, 3, 4, 5, 6, 8])
def test_sets_needed_is_the_fewest_a_movement_uses(rounds):
    for players in SIZES:
        needed = sets_needed(players, rounds)
        assert generate_movement(players, rounds, sets=needed).sets <= needed
        if needed > 1:
            with pytest.raises(ScoringError):
                generate_movement(players, rounds, sets=needed - 1)


def test_most_players_is_the_largest_club_the_sets_seat():
    assert sets_needed(16, 3) == 4  # the club of 16 that was refused by an event of 2 sets
    assert most_players(2, 3) is None  # even 8 players need 3 sets over 3 rounds
    assert most_players(3, 3) == 15 and most_players(4, 3) == 19
    for sets in (3, 4, 10):
        most = most_players(sets, 3)
        assert sets_needed(most, 3) <= sets < sets_needed(most + 1, 3)


@pytest.fixture
def federation(make_user):
    user = make_user("federation")
    Club.objects.create(name="Fédération", federation_number="0001").organisers.add(user)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return user, client


@pytest.mark.django_db
def test_the_event_form_says_how_many_sets_a_club_needs(federation):
    _user, client = federation
    page = client.get("/simultanes/nouveau/").content.decode()
    assert 'id="sets-needed"' in page and "Étui sets a club needs" in page
    row = page.split('<th scope="row">16–19</th>', 1)[1].split("</tr>", 1)[0]
    assert [cell.split("<")[0] for cell in row.split("<td>")[1:]] == ["2", "4", "4", "4", "8", "8"]
    assert "one set per table" in page


@pytest.mark.django_db
def test_the_event_page_gives_capacity_address_token_and_legend(federation, settings):
    user, client = federation
    settings.SITE_URL = "https://hub.example.org"
    event = hub_services.event_create(
        user=user, name="Simultané", date=dt.date(2027, 1, 16), rounds=3, sets=4
    )
    page = client.get(f"/simultanes/{event.public_id}/").content.decode()
    assert "8 to 19 players per club" in page
    assert 'id="uploads-legend"' in page and "+new, ~replaced" in page
    invited = client.post(f"/simultanes/{event.public_id}/inviter/", {"club_name": "Club A"})
    text = invited.content.decode()
    assert '<code id="hub-address">https://hub.example.org/</code>' in text
    assert 'id="invitation-token"' in text


@pytest.mark.django_db(transaction=True)
def test_a_club_is_told_when_it_registers_more_players_than_the_sets_seat(
    live_server, federation, personas
):
    user, _client = federation
    event = hub_services.event_create(
        user=user, name="Simultané", date=dt.date(2027, 1, 16), rounds=3, sets=3
    )
    _invitation, token = hub_services.invitation_create(event=event, user=user, club_name="C")
    tournament = stage_tournament(players=8, rounds=3, status="registration")
    tournament.club.organisers.add(personas.organiser)
    for player in make_players(tournament.club, 8, start=9):
        Registration.objects.create(tournament=tournament, player=player)
    joined = client_for(personas.organiser).post(
        "/api/v1/simultaneous/join/",
        {"tournament": tournament.pk, "hub_url": live_server.url, "token": token},
        format="json",
    )
    assert joined.status_code == 201, joined.content
    (warning,) = joined.json()["warnings"]
    assert "16 players need 4 étui sets" in warning and "at most 15 players" in warning
    organiser = Client(HTTP_ACCEPT_LANGUAGE="en")
    organiser.force_login(personas.organiser)
    registrations = organiser.get(f"/t/{tournament.pk}/registrations/").content.decode()
    assert 'id="seating-limit"' in registrations and "at most 15 players" in registrations
    link_page = organiser.get(f"/t/{tournament.pk}/simultaneous/").content.decode()
    assert "seat a club of 8 to 15 players" in link_page
    Registration.objects.filter(tournament=tournament).update(checked_in_at=dt.datetime.now(dt.UTC))
    with translation.override("en"), pytest.raises(PreparationError, match="at most 15 players"):
        tournament_generate(tournament=tournament)
