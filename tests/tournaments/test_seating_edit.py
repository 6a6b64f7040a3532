"""Editing the seating by hand: swaps and étui-set changes checked against the
movement rules on the stored rows, refused with every breach and nothing changed; the seating
plan's edit mode and its check line."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.urls import reverse
from django.utils import translation

from scoring.documents.services import seating_key
from scoring.rules.movement import Movement, validate
from tests.fixtures.tournaments import Personas, stage_tournament
from tests.tournaments.test_card_checks import deal
from tests.tournaments.test_results_service import GARDE_WON, cell, set_hands
from tournaments.models import Donne, Seat, TableRound, Tournament
from tournaments.services.results import result_annul, result_save
from tournaments.services.seating_edit import (
    SeatingEditRefused,
    movement_from_rows,
    seating_check,
    seating_set_change,
    seating_swap,
)

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def seat(tournament: Tournament, round_number: int, table: int, position: str) -> Seat:
    return Seat.objects.select_related("player").get(
        round__tournament=tournament,
        round__number=round_number,
        table_round__table__number=table,
        position=position,
    )


def stored(tournament: Tournament) -> dict[str, Any]:
    """Everything an edit could change."""
    tournament = Tournament.objects.get(pk=tournament.pk)
    return {
        "seats": sorted(
            Seat.objects.filter(round__tournament=tournament).values_list(
                "pk", "table_round_id", "player_id", "position"
            )
        ),
        "sets": sorted(
            TableRound.objects.filter(round__tournament=tournament).values_list("pk", "etui_set_id")
        ),
        "movement": tournament.movement,
    }


def saved(tournament: Tournament) -> Movement:
    """The stored movement, seats in N E S W F order (PostgreSQL's jsonb sorts the keys)."""
    movement = Movement.from_dict(Tournament.objects.get(pk=tournament.pk).movement)
    rounds = tuple(
        replace(
            rnd,
            sittings=tuple(
                replace(s, seats=tuple(sorted(s.seats, key=lambda seat: "NESWF".index(seat[0]))))
                for s in rnd.sittings
            ),
        )
        for rnd in movement.rounds
    )
    return replace(movement, rounds=rounds)


def sets_played(tournament: Tournament, player_id: int, before_round: int) -> set[int]:
    return set(
        TableRound.objects.filter(
            round__tournament=tournament, round__number__lt=before_round, seats__player=player_id
        ).values_list("etui_set__number", flat=True)
    )


@pytest.fixture
def big(personas: Personas) -> Tournament:
    """16 players at 4 tables, 2 rounds: two North players of round 2 can swap when neither
    played the other's set in round 1."""
    return stage_tournament(players=16, rounds=2, personas=personas, name="Seize")


def valid_north_swap(tournament: Tournament) -> tuple[Seat, Seat]:
    norths = [seat(tournament, 2, table, "N") for table in (1, 2, 3, 4)]
    for a in norths:
        for b in norths:
            if a.table_round_id == b.table_round_id:
                continue
            set_a = a.table_round.etui_set.number
            set_b = b.table_round.etui_set.number
            if set_b not in sets_played(tournament, a.player_id, 2) and set_a not in sets_played(
                tournament, b.player_id, 2
            ):
                return a, b
    raise AssertionError("no valid swap in this movement")


# --- reading the rows ----------------------------------------------------------------------------


def test_the_rows_give_back_the_generated_movement(big):
    movement = movement_from_rows(big)
    assert movement == saved(big)
    assert seating_check(big) == []


def test_the_check_sees_an_edit_made_behind_its_back(running_tournament):
    """An edit through the admin (here straight on the rows) is judged on what is stored."""
    TableRound.objects.filter(
        round__tournament=running_tournament, round__number=1, table__number=1
    ).update(etui_set=TableRound.objects.get(round__number=1, table__number=2).etui_set)
    rules = {breach.rule for breach in seating_check(running_tournament)}
    assert rules == {"set_repeat", "donne_coverage"}


# --- swaps ---------------------------------------------------------------------------------------


def test_a_valid_swap_is_stored_and_the_movement_stays_valid(big, personas):
    a, b = valid_north_swap(big)
    key = seating_key(big)
    movement = seating_swap(
        tournament=big, round_number=2, player_a=a.player, player_b=b.player, user=personas.arbiter
    )
    assert seat(big, 2, a.table_round.table.number, "N").player_id == b.player_id
    assert seat(big, 2, b.table_round.table.number, "N").player_id == a.player_id
    assert validate(movement) == []
    assert seating_check(big) == []
    big.refresh_from_db()
    assert saved(big) == movement == movement_from_rows(big)
    assert "edited by hand" in movement.scheme
    # Printed route cards and score sheets show as out of date.
    assert seating_key(big) != key


def test_a_swap_that_makes_players_play_a_set_again_is_refused_with_every_breach(
    running_tournament, personas
):
    """8 players at 2 tables: the sets change tables between rounds, so a North player moved
    to the other table in round 1 meets that table's set again in round 2."""
    t = running_tournament
    a, b = seat(t, 1, 1, "N"), seat(t, 1, 2, "N")
    before = stored(t)
    with pytest.raises(SeatingEditRefused) as refused:
        seating_swap(
            tournament=t,
            round_number=1,
            player_a=a.player,
            player_b=b.player,
            user=personas.arbiter,
        )
    breaches = refused.value.breaches
    assert [breach.rule for breach in breaches] == ["set_repeat", "set_repeat"]
    assert len(refused.value.messages) == len(breaches) == 2
    text = " ".join(refused.value.messages)
    assert a.player.full_name in text and b.player.full_name in text
    assert "again" in text and "Nobody plays a donne twice" in text
    assert stored(t) == before


def test_a_swap_that_breaks_positions_is_refused_with_every_breach(running_tournament, personas):
    t = running_tournament
    north, east = seat(t, 1, 1, "N"), seat(t, 1, 1, "E")
    before = stored(t)
    with pytest.raises(SeatingEditRefused) as refused:
        seating_swap(
            tournament=t,
            round_number=1,
            player_a=north.player_id,
            player_b=east.player_id,
            user=personas.organiser,
        )
    assert [b.rule for b in refused.value.breaches] == ["position_kept", "position_kept"]
    messages = refused.value.messages
    assert len(messages) == 2
    assert any(
        north.player.full_name in m and "sits North but East in round 1" in m for m in messages
    )
    assert any(
        east.player.full_name in m and "sits East but North in round 1" in m for m in messages
    )
    assert all("keep their position" in m for m in messages)
    assert stored(t) == before


def test_swapping_someone_not_seated_in_the_round_is_refused(running_tournament, personas):
    t = running_tournament
    a = seat(t, 1, 1, "N")
    with pytest.raises(SeatingEditRefused, match="Choose two different players"):
        seating_swap(
            tournament=t,
            round_number=1,
            player_a=a.player,
            player_b=a.player,
            user=personas.arbiter,
        )
    with pytest.raises(SeatingEditRefused, match="not seated in round 1"):
        seating_swap(
            tournament=t, round_number=1, player_a=a.player, player_b=10**6, user=personas.arbiter
        )
    with pytest.raises(SeatingEditRefused, match="There is no round 9"):
        seating_swap(tournament=t, round_number=9, player_a=1, player_b=2, user=personas.arbiter)


# --- étui sets -----------------------------------------------------------------------------------


def test_a_set_change_that_leaves_a_donne_at_one_table_is_refused(running_tournament, personas):
    """Table 1 playing set 2 in round 1: set 1 is then played at one table only, and table 1's
    players play set 2 twice."""
    t = running_tournament
    before = stored(t)
    with pytest.raises(SeatingEditRefused) as refused:
        seating_set_change(
            tournament=t, round_number=1, table_number=1, set_number=2, user=personas.arbiter
        )
    rules = [b.rule for b in refused.value.breaches]
    assert rules.count("set_repeat") == 4 and rules.count("donne_coverage") == 1
    assert len(refused.value.messages) == 5
    assert any(
        "Étui set 1 (donnes 1–4) is played at one table only (round 2, table 2)" in m
        for m in refused.value.messages
    )
    assert stored(t) == before


def test_a_valid_set_change_is_stored(personas):
    """One round at 5 tables: the sets are played in copies, so table 3 may take set 1."""
    t = stage_tournament(players=20, rounds=1, personas=personas, name="Vingt")
    key = seating_key(t)
    movement = seating_set_change(
        tournament=t, round_number=1, table_number=3, set_number=1, user=personas.arbiter
    )
    assert movement.round(1).sitting(3).set_no == 1
    assert TableRound.objects.get(round__tournament=t, table__number=3).etui_set.number == 1
    assert seating_check(t) == []
    t.refresh_from_db()
    assert saved(t) == movement
    assert seating_key(t) != key


def test_a_set_change_names_what_does_not_exist(running_tournament, personas):
    t = running_tournament
    with pytest.raises(SeatingEditRefused, match="no étui set 7: the sets are numbered 1 to 2"):
        seating_set_change(
            tournament=t, round_number=1, table_number=1, set_number=7, user=personas.arbiter
        )
    with pytest.raises(SeatingEditRefused, match="Table 5 does not play in round 1"):
        seating_set_change(
            tournament=t, round_number=1, table_number=5, set_number=1, user=personas.arbiter
        )
    with pytest.raises(SeatingEditRefused, match="already plays étui set 1"):
        seating_set_change(
            tournament=t, round_number=1, table_number=1, set_number=1, user=personas.arbiter
        )


# --- results lock a round --------------------------------------------------------------------------


def test_edits_are_refused_once_a_result_exists_in_the_round(big, personas):
    for donne in Donne.objects.filter(tournament=big):
        set_hands(donne, deal(N=["T21", "EX"]))
    where = cell(big, 1, 1)
    result_save(**where, data=GARDE_WON, user=personas.arbiter, expected_version=None)
    before = stored(big)
    a, b = seat(big, 1, 1, "N"), seat(big, 1, 2, "N")
    with pytest.raises(SeatingEditRefused, match="Results have been entered in round 1"):
        seating_swap(
            tournament=big,
            round_number=1,
            player_a=a.player,
            player_b=b.player,
            user=personas.arbiter,
        )
    with pytest.raises(SeatingEditRefused, match="Results have been entered in round 1"):
        seating_set_change(
            tournament=big, round_number=1, table_number=1, set_number=2, user=personas.arbiter
        )
    assert stored(big) == before
    # The next round, still unplayed, may change.
    a, b = valid_north_swap(big)
    seating_swap(
        tournament=big, round_number=2, player_a=a.player, player_b=b.player, user=personas.arbiter
    )


def test_edits_are_refused_once_a_donne_is_annulled_in_the_round(running_tournament, personas):
    t = running_tournament
    result_annul(
        **cell(t, 1, 1), user=personas.arbiter, reason="Étui mélangé", expected_version=None
    )
    a, b = seat(t, 1, 1, "S"), seat(t, 1, 2, "S")
    with pytest.raises(SeatingEditRefused, match="has been annulled"):
        seating_swap(
            tournament=t,
            round_number=1,
            player_a=a.player,
            player_b=b.player,
            user=personas.arbiter,
        )


def test_edits_are_refused_once_the_tournament_is_over(running_tournament, personas):
    t = running_tournament
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)
    with pytest.raises(SeatingEditRefused, match="The tournament is over"):
        seating_set_change(
            tournament=t, round_number=1, table_number=1, set_number=2, user=personas.arbiter
        )


# --- who may --------------------------------------------------------------------------------------


@pytest.mark.parametrize("persona", ["player_user", "stranger", "other_arbiter", "anonymous"])
def test_only_the_tournaments_managers_may_edit(running_tournament, personas, persona):
    t = running_tournament
    user = AnonymousUser() if persona == "anonymous" else getattr(personas, persona)
    a, b = seat(t, 1, 1, "N"), seat(t, 1, 2, "N")
    before = stored(t)
    with pytest.raises(PermissionDenied):
        seating_swap(tournament=t, round_number=1, player_a=a.player, player_b=b.player, user=user)
    with pytest.raises(PermissionDenied):
        seating_set_change(tournament=t, round_number=1, table_number=1, set_number=2, user=user)
    assert stored(t) == before


@pytest.mark.parametrize("persona", ["player_user", "stranger", "other_arbiter"])
def test_the_edit_screens_answer_403_to_others(client, running_tournament, personas, persona):
    t = running_tournament
    client.force_login(getattr(personas, persona))
    a, b = seat(t, 2, 1, "N"), seat(t, 2, 2, "N")
    before = stored(t)
    swap = {"round": 2, "player_a": a.player_id, "player_b": b.player_id}
    assert client.post(reverse("organiser_seating_swap", args=[t.pk]), swap).status_code == 403
    change = {"round": 1, "table": 1, "etui_set": 2}
    assert client.post(reverse("organiser_seating_set", args=[t.pk]), change).status_code == 403
    assert client.get(reverse("organiser_seating_plan", args=[t.pk]) + "?edit=1").status_code == 403
    assert stored(t) == before


def test_the_edit_screens_send_anonymous_users_to_log_in(client, running_tournament):
    url = reverse("organiser_seating_swap", args=[running_tournament.pk])
    response = client.post(url, {"round": 1, "player_a": 1, "player_b": 2})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert client.get(url).status_code == 302


# --- the screen ------------------------------------------------------------------------------------


def test_the_seating_plan_says_it_was_checked(client, running_tournament, personas):
    t = running_tournament
    client.force_login(personas.arbiter)
    url = reverse("organiser_seating_plan", args=[t.pk])
    page = client.get(url, **EN).content.decode()
    assert "Checked: no breach of the movement rules." in page
    assert 'id="seating-edit-link"' in page
    assert reverse("organiser_seating_swap", args=[t.pk]) not in page
    # An edit made through the admin shows with every breach.
    TableRound.objects.filter(round__tournament=t, round__number=1, table__number=1).update(
        etui_set=TableRound.objects.get(
            round__tournament=t, round__number=1, table__number=2
        ).etui_set
    )
    page = client.get(url, **EN).content.decode()
    assert "Checked: 5 breaches of the movement rules." in page
    assert "is played at one table only" in page


def test_the_edit_flow_through_the_screen(client, big, personas):
    client.force_login(personas.organiser)
    plan = reverse("organiser_seating_plan", args=[big.pk])
    page = client.get(plan + "?edit=1", **EN).content.decode()
    for number in (1, 2):
        assert f'id="round-{number}-edit"' in page
    assert reverse("organiser_seating_swap", args=[big.pk]) in page
    assert reverse("organiser_seating_set", args=[big.pk]) in page
    a, b = seat(big, 1, 1, "N"), seat(big, 1, 1, "E")
    assert f'<option value="{a.player_id}">Table 1, North: {a.player.full_name}</option>' in page

    # Refused: every breach is listed, nothing changes.
    before = stored(big)
    response = client.post(
        reverse("organiser_seating_swap", args=[big.pk]),
        {"round": 1, "player_a": a.player_id, "player_b": b.player_id},
        follow=True,
        **EN,
    )
    assert response.redirect_chain[-1][0] == plan + "?edit=1#round-1"
    page = response.content.decode()
    assert "The change was refused: it would break 2 rules of the movement." in page
    assert page.count("Players keep their position all session.") == 2
    assert stored(big) == before

    # Accepted.
    a, b = valid_north_swap(big)
    response = client.post(
        reverse("organiser_seating_swap", args=[big.pk]),
        {"round": 2, "player_a": a.player_id, "player_b": b.player_id},
        follow=True,
        **EN,
    )
    page = response.content.decode()
    assert (
        f"Round 2: {a.player.full_name} and {b.player.full_name} have swapped seats. The "
        "movement was checked: no breach." in page
    )
    assert "Checked: no breach of the movement rules." in page
    assert seat(big, 2, a.table_round.table.number, "N").player_id == b.player_id

    # A set change that breaks coverage, through the screen.
    response = client.post(
        reverse("organiser_seating_set", args=[big.pk]),
        {"round": 1, "table": 1, "etui_set": 2},
        follow=True,
        **EN,
    )
    page = response.content.decode()
    assert "The change was refused" in page and "is played at one table only" in page

    # Bad input: a message, no change.
    response = client.post(
        reverse("organiser_seating_set", args=[big.pk]), {"round": "x"}, follow=True, **EN
    )
    assert "Choose a table and an étui set." in response.content.decode()


def test_a_round_with_results_offers_no_edit(client, running_tournament, personas):
    t = running_tournament
    result_annul(
        **cell(t, 1, 1), user=personas.arbiter, reason="Étui mélangé", expected_version=None
    )
    client.force_login(personas.arbiter)
    page = client.get(
        reverse("organiser_seating_plan", args=[t.pk]) + "?edit=1", **EN
    ).content.decode()
    assert "Results or annulments have been entered in this round" in page
    assert page.count('class="actions seating-swap"') == 1  # round 2 only


def test_the_seating_plan_in_edit_mode_queries_do_not_grow(
    client, personas, django_assert_max_num_queries
):
    client.force_login(personas.organiser)
    small = stage_tournament(players=8, personas=personas)
    large = stage_tournament(players=22, rounds=4, name="Grand")
    large.club.organisers.add(personas.organiser)
    for tournament in (small, large):
        url = reverse("organiser_seating_plan", args=[tournament.pk])
        with django_assert_max_num_queries(17):  # the plain page, the locked rounds, the sets
            assert client.get(url + "?edit=1").status_code == 200
