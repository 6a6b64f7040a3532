"""Registering and checking in players; a late arrival before the start re-seats cleanly."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone, translation

from tests.fixtures.tournaments import make_players, stage_tournament
from tournaments.models import Club, Registration, Seat, Tournament
from tournaments.services.registration import (
    RegistrationError,
    registration_add,
    registration_check_in,
    registration_check_in_all,
    registration_check_out,
    registration_remove,
)
from tournaments.services.tournaments import (
    SeatingState,
    tournament_create,
    tournament_prepare,
    tournament_seating_status,
    tournament_set_status,
)

pytestmark = pytest.mark.django_db
Status = Tournament.Status


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def club() -> Club:
    return Club.objects.create(name="Tarot Club de Lyon", federation_number="0101")


@pytest.fixture
def tournament(club) -> Tournament:
    tournament = tournament_create(club=club, name="T", date=datetime.date(2026, 12, 5))
    tournament_set_status(tournament=tournament, status=Status.REGISTRATION)
    return tournament


def test_add_check_in_check_out_and_remove(tournament, club):
    player = make_players(club, 1)[0]
    registration = registration_add(tournament=tournament, player=player)
    assert not registration.checked_in
    registration = registration_check_in(tournament=tournament, player=player)
    assert registration.checked_in
    registration = registration_check_out(tournament=tournament, player=player)
    assert Registration.objects.get(pk=registration.pk).checked_in_at is None
    registration_remove(tournament=tournament, player=player)
    assert not tournament.registrations.exists()


def test_players_of_any_club_can_register_and_be_checked_in_at_the_door(tournament):
    other = Club.objects.create(name="Tarot Club de Caen", federation_number="1402")
    visitor = make_players(other, 1, start=40)[0]
    registration = registration_add(tournament=tournament, player=visitor, checked_in=True)
    assert registration.checked_in


def test_registering_twice_is_refused_with_the_name(tournament, club):
    player = make_players(club, 1)[0]
    registration_add(tournament=tournament, player=player)
    with pytest.raises(RegistrationError, match=f"{player.full_name} is already registered"):
        registration_add(tournament=tournament, player=player)
    assert tournament.registrations.count() == 1


def test_acting_on_a_player_not_registered_is_refused(tournament, club):
    player = make_players(club, 1)[0]
    for action in (registration_check_in, registration_check_out, registration_remove):
        with pytest.raises(RegistrationError, match="is not registered"):
            action(tournament=tournament, player=player)


def test_checking_in_twice_keeps_the_first_time(tournament, club):
    player = make_players(club, 1)[0]
    registration_add(tournament=tournament, player=player)
    first = timezone.now() - datetime.timedelta(minutes=5)
    registration_check_in(tournament=tournament, player=player, at=first)
    registration_check_in(tournament=tournament, player=player)
    assert Registration.objects.get(player=player).checked_in_at == first


def test_check_in_all_checks_in_only_the_absent(tournament, club):
    players = make_players(club, 5)
    for player in players:
        registration_add(tournament=tournament, player=player)
    early = timezone.now() - datetime.timedelta(hours=1)
    registration_check_in(tournament=tournament, player=players[0], at=early)
    assert registration_check_in_all(tournament=tournament) == 4
    assert not tournament.registrations.filter(checked_in_at=None).exists()
    assert Registration.objects.get(player=players[0]).checked_in_at == early
    assert registration_check_in_all(tournament=tournament) == 0


@pytest.mark.parametrize("status", [Status.RUNNING, Status.FINISHED, Status.PUBLISHED])
def test_everything_is_closed_once_the_tournament_runs(status):
    tournament = stage_tournament(players=8, status=status)
    seated = tournament.registrations.first().player
    newcomer = make_players(tournament.club, 1, start=90)[0]
    with pytest.raises(RegistrationError, match="closed"):
        registration_add(tournament=tournament, player=newcomer)
    for action in (registration_check_out, registration_remove):
        with pytest.raises(RegistrationError, match="closed"):
            action(tournament=tournament, player=seated)
    with pytest.raises(RegistrationError, match="closed"):
        registration_check_in_all(tournament=tournament)
    assert tournament.registrations.filter(checked_in_at__isnull=False).count() == 8


def test_registration_is_possible_while_draft(club):
    tournament = tournament_create(club=club, name="T", date=datetime.date(2026, 12, 5))
    player = make_players(club, 1)[0]
    registration_add(tournament=tournament, player=player, checked_in=True)
    assert tournament.registrations.get().checked_in


def test_a_late_arrival_makes_the_seating_out_of_date_until_regenerated():
    tournament = stage_tournament(players=8, status=Status.REGISTRATION)
    late = make_players(tournament.club, 1, start=60)[0]
    registration_add(tournament=tournament, player=late)
    # Registered but not yet there: the seating still fits who is present.
    assert tournament_seating_status(tournament=tournament).state == SeatingState.CURRENT
    registration_check_in(tournament=tournament, player=late)
    seating = tournament_seating_status(tournament=tournament)
    assert seating.state == SeatingState.OUTDATED and seating.not_seated == [late]

    tournament_prepare(tournament=tournament)
    assert tournament_seating_status(tournament=tournament).state == SeatingState.CURRENT
    assert Seat.objects.filter(round__tournament=tournament).count() == 9 * 2
    assert set(Seat.objects.filter(player=late).values_list("round__number", flat=True)) == {1, 2}
    tournament_set_status(tournament=tournament, status=Status.RUNNING)


def test_a_player_who_leaves_before_the_start_is_unseated_by_regeneration():
    tournament = stage_tournament(players=9, status=Status.REGISTRATION)
    leaving = Seat.objects.filter(round__tournament=tournament).first().player
    registration_check_out(tournament=tournament, player=leaving)
    assert tournament_seating_status(tournament=tournament).not_checked_in == [leaving]
    tournament_prepare(tournament=tournament)
    assert not Seat.objects.filter(player=leaving).exists()
    assert tournament.tables.count() == 2
    assert set(tournament.tables.values_list("size", flat=True)) == {4}
