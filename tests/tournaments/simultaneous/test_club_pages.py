"""The club's page path into a simultaneous event and what follows it, against a real hub
served over HTTP (the same project, `live_server`): joining with a new tournament from the
organiser's pages, the event's rounds and method kept, the seed's message, the link to the
overall ranking once the hub ends the embargo, and the redraws compared by the check."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from scoring.rules import dealing
from tests.tournaments.simultaneous.test_club import EVENT_SEED, seated
from tournaments.models import Club, Donne, Tournament
from tournaments.services.preparation import PreparationError, tournament_reveal_seed
from tournaments.services.tournaments import TournamentError, tournament_update
from tournaments.simultaneous.club import services as club_services
from tournaments.simultaneous.club.models import SimultaneousLink
from tournaments.simultaneous.hub import services as hub_services

JOIN = "/simultaneous/join/"


def login(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


@pytest.mark.django_db(transaction=True)
def test_an_organiser_joins_with_a_new_tournament_and_finds_the_overall_ranking(
    live_server, make_user
):
    federation = make_user("federation")
    Club.objects.create(name="Fédération", federation_number="0001").organisers.add(federation)
    event = hub_services.event_create(
        user=federation,
        name="Simultané de printemps",
        date=dt.date(2027, 3, 20),
        rounds=2,
        sets=3,
        method="matchpoints",
    )
    _invitation, token = hub_services.invitation_create(
        event=event, user=federation, club_name="Club des Rois"
    )
    organiser = make_user("organiser")
    club = Club.objects.create(name="Club des Rois", federation_number="0420")
    club.organisers.add(organiser)
    other = Club.objects.create(name="Autre club", federation_number="0421")
    client = login(organiser)
    assert f'href="{JOIN}"' in client.get(reverse("organiser_home")).content.decode()
    page = client.get(JOIN)
    assert page.status_code == 200 and "Club des Rois" in page.content.decode()
    assert "Autre club" not in page.content.decode()

    form = {"club": str(other.pk), "hub_url": live_server.url, "token": token}
    refused = client.post(JOIN, form)
    assert refused.status_code == 400 and "Choose the club" in refused.content.decode()
    refused = client.post(JOIN, {**form, "club": str(club.pk), "token": "wrong"})
    assert refused.status_code == 400 and "does not accept this token" in refused.content.decode()
    assert not Tournament.objects.exists()

    joined = client.post(JOIN, {**form, "club": str(club.pk)})
    tournament = Tournament.objects.get()
    assert joined.status_code == 302 and joined["Location"] == f"/t/{tournament.pk}/simultaneous/"
    assert (tournament.club, tournament.name, tournament.date) == (
        club,
        "Simultané de printemps",
        dt.date(2027, 3, 20),
    )
    assert (tournament.rounds, tournament.method) == (2, "matchpoints")
    assert tournament.commitment == event.commitment
    the_link = SimultaneousLink.objects.get(tournament=tournament)
    dealt = dealing.generate_donnes(event.seed, event.identity, 12)
    assert [d["redraws"] for d in the_link.donnes] == [d.redraws for d in dealt]

    # The event's rounds and method stay; other details may change.
    with translation.override("en"), pytest.raises(TournamentError, match="simultaneous event"):
        tournament_update(tournament=tournament, rounds=3)
    with pytest.raises(TournamentError):
        tournament_update(tournament=tournament, method="average")
    tournament_update(tournament=tournament, venue="Salle des fêtes")

    # The seed is the event's: revealing says so and where the donnes are checked.
    Tournament.objects.filter(pk=tournament.pk).update(status="finished")
    with translation.override("en"), pytest.raises(PreparationError) as no_seed:
        tournament_reveal_seed(tournament=tournament)
    assert "revealed by the event's hub" in str(no_seed.value)
    assert f"/t/{tournament.pk}/simultaneous/" in str(no_seed.value)

    # Under embargo no page points to the overall ranking; after, the club's pages do.
    club_page = f"/t/{tournament.pk}/simultaneous/"
    assert 'id="overall-ranking-link"' not in client.get(club_page).content.decode()
    client.post(club_page + "refresh/")
    assert SimultaneousLink.objects.get(pk=the_link.pk).ranking_url == ""
    hub_services.event_close(event=event, user=federation)
    client.post(club_page + "refresh/")
    ranking = f"{live_server.url}/simultanes/{event.public_id}/classement/"
    assert SimultaneousLink.objects.get(pk=the_link.pk).ranking_url == ranking
    assert f'href="{ranking}"' in client.get(club_page).content.decode()
    Tournament.objects.filter(pk=tournament.pk).update(status="published")
    public = Client().get(tournament.get_absolute_url()).content.decode()
    assert f'href="{ranking}"' in public
    assert Client().get(ranking.removeprefix(live_server.url)).status_code == 200


def test_a_stranger_cannot_open_the_join_page(make_user):
    client = login(make_user("nobody"))
    assert client.get(JOIN).status_code == 403


@pytest.mark.django_db
def test_the_check_compares_the_redraws_the_hub_gave():
    tournament = seated(players=8, rounds=2, sets=4)
    the_link = tournament.simultaneous_link
    ok, summary = club_services.verify_donnes(link=the_link, seed=EVENT_SEED)
    assert ok, summary
    # The hub said donne 3 was dealt again once (it was not): the check names it.
    rows = [dict(d, redraws=1 if d["number"] == 3 else 0) for d in the_link.donnes]
    SimultaneousLink.objects.filter(pk=the_link.pk).update(donnes=rows)
    Donne.objects.filter(tournament=tournament, number=3).update(redraws=1)
    the_link.refresh_from_db()
    with translation.override("en"):
        ok, summary = club_services.verify_donnes(link=the_link, seed=EVENT_SEED)
    assert not ok and "donne 3" in summary and "redraws 1 instead of 0" in summary


def test_an_unlinked_tournament_still_says_no_donnes(db):
    from tests.fixtures.tournaments import stage_tournament

    tournament = stage_tournament(players=8, rounds=2, status="registration")
    Tournament.objects.filter(pk=tournament.pk).update(status="finished", seed="")
    with translation.override("en"), pytest.raises(PreparationError, match="No donnes"):
        tournament_reveal_seed(tournament=tournament)


@pytest.mark.django_db
def test_the_edit_page_refuses_to_change_a_linked_tournaments_rounds(personas):
    tournament = seated(players=8, rounds=2, sets=4)
    Tournament.objects.filter(pk=tournament.pk).update(status="registration")
    tournament.club.organisers.add(personas.organiser)
    client = login(personas.organiser)
    form = {
        "club": tournament.club_id,
        "name": tournament.name,
        "date": tournament.date.isoformat(),
        "venue": "",
        "rounds": 3,
        "donnes_per_relais": 4,
        "method": tournament.method,
        "matchpoint_penalty_rate": "0.1",
        "round_minutes": tournament.round_minutes or "",
        "announcement": "",
    }
    page = client.post(f"/t/{tournament.pk}/edit/", form)
    assert "are the event&#x27;s and cannot change" in page.content.decode()
    tournament.refresh_from_db()
    assert tournament.rounds == 2
