"""Tournaments: creation, edition, status transitions and their guards, seating state and plan."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone, translation

from tests.fixtures.tournaments import make_players, stage_tournament
from tournaments.models import Club, Registration, Result, Seat, TableRound, Tournament
from tournaments.services.preparation import PreparationError
from tournaments.services.tournaments import (
    SeatingState,
    TournamentError,
    tournament_create,
    tournament_next_statuses,
    tournament_prepare,
    tournament_seating_plan,
    tournament_seating_status,
    tournament_set_status,
    tournament_update,
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


def add_late_player(tournament: Tournament, *, checked_in: bool = True):
    player = make_players(tournament.club, 1, start=500)[0]
    Registration.objects.create(
        tournament=tournament, player=player, checked_in_at=timezone.now() if checked_in else None
    )
    return player


def enter_a_result(tournament: Tournament, user) -> Result:
    """A played result stored directly: the guards only ask whether one exists."""
    table_round = TableRound.objects.filter(round__tournament=tournament).first()
    donne = table_round.etui_set.donnes.first()
    return Result.objects.create(
        tournament=tournament,
        table_round=table_round,
        table=table_round.table,
        donne=donne,
        status=Result.Status.ALL_PASSED,
        scores={"N": 0, "E": 0, "S": 0, "W": 0},
        created_by=user,
        updated_by=user,
    )


# --- create and update ---------------------------------------------------------------------


def test_create_makes_a_draft_with_its_arbiters(club, make_user):
    arbiter = make_user("arbitre")
    club.arbiters.add(arbiter)  # only the club's own can be named (issue 30.9)
    tournament = tournament_create(
        club=club,
        name="  Tournoi de Noël ",
        date=datetime.date(2026, 12, 19),
        venue="Salle des fêtes",
        rounds=3,
        method="matchpoints",
        matchpoint_penalty_rate=Decimal("0.2"),
        arbiters=[arbiter],
    )
    tournament.refresh_from_db()
    assert tournament.status == Status.DRAFT
    assert tournament.name == "Tournoi de Noël"
    assert (tournament.rounds, tournament.donnes_per_relais) == (3, 4)
    assert tournament.matchpoint_penalty_rate == Decimal("0.2")
    assert list(tournament.arbiters.all()) == [arbiter]


@pytest.mark.parametrize(
    "field, value",
    [("rounds", 0), ("rounds", 31), ("donnes_per_relais", 5), ("method", "borda")],
)
def test_create_refuses_bad_values_and_saves_nothing(club, field, value):
    values = {"club": club, "name": "T", "date": datetime.date(2026, 12, 19), field: value}
    with pytest.raises(ValidationError) as caught:
        tournament_create(**values)
    assert field in caught.value.message_dict
    assert not Tournament.objects.exists()


def test_relais_other_than_four_is_explained(club):
    with pytest.raises(ValidationError) as caught:
        tournament_create(club=club, name="T", date=datetime.date(2026, 1, 1), donnes_per_relais=6)
    assert "relais of 4 donnes" in caught.value.message_dict["donnes_per_relais"][0]


def test_update_changes_details_and_arbiters(club, make_user):
    tournament = tournament_create(club=club, name="T", date=datetime.date(2026, 1, 1))
    arbiter = make_user("arbitre")
    club.arbiters.add(arbiter)
    tournament_update(tournament=tournament, name="Tournoi", venue="Mairie", arbiters=[arbiter])
    tournament.refresh_from_db()
    assert (tournament.name, tournament.venue) == ("Tournoi", "Mairie")
    assert list(tournament.arbiters.all()) == [arbiter]
    with pytest.raises(TypeError):
        tournament_update(tournament=tournament, status=Status.PUBLISHED)


def test_changing_rounds_before_the_start_makes_the_seating_out_of_date():
    tournament = stage_tournament(players=8, rounds=2, status=Status.REGISTRATION)
    assert tournament_seating_status(tournament=tournament).state == SeatingState.CURRENT
    tournament_update(tournament=tournament, rounds=3)
    seating = tournament_seating_status(tournament=tournament)
    assert seating.state == SeatingState.OUTDATED
    assert seating.shape_changed
    assert "number of rounds" in " ".join(seating.reasons())


def test_rounds_cannot_change_once_running_and_nothing_is_saved():
    tournament = stage_tournament(players=8, rounds=2, status=Status.RUNNING)
    with pytest.raises(TournamentError, match="only change before the tournament starts"):
        tournament_update(tournament=tournament, rounds=3, name="Autre nom")
    tournament.refresh_from_db()
    assert (tournament.rounds, tournament.name) == (2, "Tournoi du samedi")


def test_changing_the_method_moves_the_results_version():
    tournament = stage_tournament(players=8, status=Status.RUNNING)
    version = tournament.results_version
    tournament_update(tournament=tournament, name="Même méthode")
    assert Tournament.objects.get(pk=tournament.pk).results_version == version
    tournament_update(tournament=tournament, method="pairwise")
    tournament.refresh_from_db()
    assert (tournament.method, tournament.results_version) == ("pairwise", version + 1)


# --- status ----------------------------------------------------------------------------------


def test_the_happy_path_through_every_status():
    tournament = stage_tournament(players=8, status=Status.DRAFT)
    for status in (Status.REGISTRATION, Status.RUNNING, Status.FINISHED, Status.PUBLISHED):
        assert status in tournament_next_statuses(tournament=tournament)
        # No result was entered: finishing and publishing ask for a confirmation.
        confirm = status in (Status.FINISHED, Status.PUBLISHED)
        tournament_set_status(tournament=tournament, status=status, confirm_missing=confirm)
        assert Tournament.objects.get(pk=tournament.pk).status == status


@pytest.mark.parametrize(
    "start, target, message",
    [
        (Status.DRAFT, Status.RUNNING, "cannot go from “Draft” to “Running”"),
        (Status.REGISTRATION, Status.PUBLISHED, "Only a finished tournament can be published"),
        (Status.RUNNING, Status.PUBLISHED, "Only a finished tournament can be published"),
        (Status.PUBLISHED, Status.DRAFT, "cannot go from"),
        (Status.RUNNING, "paused", "Unknown status"),
    ],
)
def test_transitions_not_allowed_are_refused_with_a_reason(start, target, message):
    tournament = stage_tournament(players=8, status=start)
    with pytest.raises(TournamentError, match=message):
        tournament_set_status(tournament=tournament, status=target)
    assert Tournament.objects.get(pk=tournament.pk).status == start


def test_running_needs_a_generated_seating(club):
    tournament = tournament_create(club=club, name="T", date=datetime.date(2026, 1, 1))
    tournament_set_status(tournament=tournament, status=Status.REGISTRATION)
    with pytest.raises(TournamentError, match="has not been generated"):
        tournament_set_status(tournament=tournament, status=Status.RUNNING)
    assert Tournament.objects.get(pk=tournament.pk).status == Status.REGISTRATION


def test_running_needs_the_seating_to_match_the_check_ins():
    tournament = stage_tournament(players=8, status=Status.REGISTRATION)
    late = add_late_player(tournament)
    with pytest.raises(TournamentError, match="out of date") as caught:
        tournament_set_status(tournament=tournament, status=Status.RUNNING)
    assert late.full_name in caught.value.message
    assert Tournament.objects.get(pk=tournament.pk).status == Status.REGISTRATION


def test_back_to_registration_only_while_no_result(personas):
    tournament = stage_tournament(players=8, status=Status.RUNNING)
    tournament_set_status(tournament=tournament, status=Status.REGISTRATION)
    tournament_set_status(tournament=tournament, status=Status.RUNNING)
    enter_a_result(tournament, personas.arbiter)
    with pytest.raises(TournamentError, match="cannot go back to registration"):
        tournament_set_status(tournament=tournament, status=Status.REGISTRATION)
    assert Tournament.objects.get(pk=tournament.pk).status == Status.RUNNING


def test_a_finished_tournament_can_be_reopened_and_unpublished():
    tournament = stage_tournament(players=8, status=Status.PUBLISHED)
    tournament_set_status(tournament=tournament, status=Status.FINISHED)
    tournament_set_status(tournament=tournament, status=Status.RUNNING)
    assert Tournament.objects.get(pk=tournament.pk).status == Status.RUNNING


# --- seating state and generation -----------------------------------------------------------


def test_seating_state_none_current_outdated_and_locked(club, personas):
    tournament = tournament_create(club=club, name="T", date=datetime.date(2026, 1, 1))
    seating = tournament_seating_status(tournament=tournament)
    assert (seating.state, seating.generated) == (SeatingState.NONE, False)

    tournament = stage_tournament(players=8, status=Status.REGISTRATION)
    seating = tournament_seating_status(tournament=tournament)
    assert (seating.state, seating.checked_in, seating.registered) == ("current", 8, 8)

    late = add_late_player(tournament)
    seating = tournament_seating_status(tournament=tournament)
    assert seating.state == SeatingState.OUTDATED
    assert seating.not_seated == [late]
    assert seating.not_checked_in == []

    first = Seat.objects.filter(round__tournament=tournament).first().player
    Registration.objects.filter(tournament=tournament, player=first).update(checked_in_at=None)
    seating = tournament_seating_status(tournament=tournament)
    assert seating.not_checked_in == [first]
    assert f"no longer checked in: {first.full_name}" in " ".join(seating.reasons())

    tournament_prepare(tournament=tournament)
    assert tournament_seating_status(tournament=tournament).state == SeatingState.CURRENT

    enter_a_result(tournament, personas.arbiter)
    seating = tournament_seating_status(tournament=tournament)
    assert (seating.state, seating.can_generate) == (SeatingState.LOCKED, False)


def test_prepare_reseats_a_late_arrival_and_keeps_the_commitment():
    tournament = stage_tournament(players=8, status=Status.REGISTRATION)
    commitment = tournament.commitment
    late = add_late_player(tournament)
    tournament_prepare(tournament=tournament)
    assert Seat.objects.filter(round__tournament=tournament, player=late).count() == 2
    assert sorted(tournament.tables.values_list("size", flat=True)) == [4, 5]
    assert Tournament.objects.get(pk=tournament.pk).commitment == commitment
    tournament_set_status(tournament=tournament, status=Status.RUNNING)


def test_prepare_is_refused_once_running_and_for_eleven_players():
    running = stage_tournament(players=8, status=Status.RUNNING)
    with pytest.raises(TournamentError, match="before the tournament starts"):
        tournament_prepare(tournament=running)

    tournament = stage_tournament(players=8, status=Status.REGISTRATION, name="Onze")
    extra = make_players(tournament.club, 3, start=700)
    Registration.objects.bulk_create(
        Registration(tournament=tournament, player=p, checked_in_at=timezone.now()) for p in extra
    )
    with pytest.raises(PreparationError, match="11"):
        tournament_prepare(tournament=tournament)
    assert Seat.objects.filter(round__tournament=tournament).count() == 16


# --- seating plan -----------------------------------------------------------------------------


def test_seating_plan_lists_every_table_seat_sit_out_and_route():
    tournament = stage_tournament(players=9, rounds=2, status=Status.REGISTRATION)
    plan = tournament_seating_plan(tournament=tournament)
    assert [r.number for r in plan.rounds] == [1, 2]
    seats = Seat.objects.filter(round__tournament=tournament).select_related(
        "table_round__table", "round"
    )
    expected = {
        (s.round.number, s.table_round.table.number, s.position, s.player_id) for s in seats
    }
    got = {
        (rnd.number, table.number, seat.position, seat.player.pk)
        for rnd in plan.rounds
        for table in rnd.tables
        for seat in table.seats
    }
    assert got == expected
    five = next(t for t in plan.rounds[0].tables if t.size == 5)
    assert [s.position for s in five.seats] == ["N", "E", "S", "W", "F"]
    assert five.seats[0].label == "North"
    assert len(five.donnes) == 4 and len(five.sit_outs) == 4
    seated = {s.position: s.player for s in five.seats}
    for sit_out in five.sit_outs:
        assert sit_out.player == seated[sit_out.position]
    assert len(plan.routes) == 9
    for route in plan.routes:
        assert [stop.round for stop in route.stops] == [1, 2]
        for stop in route.stops:
            assert (stop.round, stop.table, stop.position, route.player.pk) in expected


def test_seating_plan_queries_do_not_grow_with_the_tournament(django_assert_max_num_queries):
    small = stage_tournament(players=8, rounds=2, status=Status.REGISTRATION)
    large = stage_tournament(players=21, rounds=4, status=Status.REGISTRATION, name="Grand")
    for tournament in (small, large):
        with django_assert_max_num_queries(3):
            plan = tournament_seating_plan(tournament=tournament)
    assert len(plan.routes) == 21 and len(plan.rounds) == 4
    assert not tournament_seating_plan(tournament=Tournament(pk=0)).generated
