"""The organiser's day through the API: a club and its accounts, registrations in one call,
closing a round by annulling what it misses, opening a round while one is open, finishing
with a confirmation. Every refusal is a 4xx with a translated message, nothing half-saved."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from tests.fixtures.tournaments import make_players, stage_tournament
from tests.tournaments.api.conftest import client_for
from tournaments.models import Club, Registration, Result, Round, Tournament

pytestmark = pytest.mark.django_db
Status = Tournament.Status


def test_a_signed_in_user_creates_a_club_and_then_its_accounts(personas):
    api = client_for(personas.stranger)
    created = api.post(
        "/api/v1/clubs/", {"name": "Club neuf", "federation_number": "0777"}, format="json"
    )
    assert created.status_code == 201
    club = Club.objects.get(pk=created.json()["id"])
    assert list(club.organisers.all()) == [personas.stranger]
    account = api.post(
        f"/api/v1/clubs/{club.pk}/accounts/",
        {"username": "paul", "role": "organiser"},
        format="json",
    )
    assert account.status_code == 201
    body = account.json()
    assert body["role"] == "organiser" and "/account/set-password/" in body["set_password_url"]
    assert club.organisers.filter(username="paul").exists()
    # Anonymous callers cannot create a club.
    anonymous = client_for(None).post(
        "/api/v1/clubs/", {"name": "X", "federation_number": "0778"}, format="json"
    )
    assert anonymous.status_code == 401 and Club.objects.count() == 1


def test_club_and_account_refusals_are_400_in_french_and_save_nothing(personas):
    tournament = stage_tournament(personas=personas)
    other = stage_tournament(name="Ailleurs")
    api = client_for(personas.organiser)
    fr = {"HTTP_ACCEPT_LANGUAGE": "fr"}
    bad = api.post("/api/v1/clubs/", {"name": "X", "federation_number": "12"}, format="json", **fr)
    assert (
        bad.status_code == 400 and "4 à 7 chiffres" in bad.json()["details"]["federation_number"][0]
    )
    users = get_user_model().objects.count()
    refused = api.post(
        f"/api/v1/clubs/{tournament.club_id}/accounts/",
        {"username": "neuf", "role": "arbiter", "tournaments": [other.pk]},
        format="json",
        **fr,
    )
    assert refused.status_code == 400 and "tournaments" in refused.json()["details"]
    assert refused.json()["message"] == "Choisissez des tournois de ce club."
    assert get_user_model().objects.count() == users


def test_accounts_of_a_club_are_refused_to_others(personas):
    tournament = stage_tournament(personas=personas)
    path = f"/api/v1/clubs/{tournament.club_id}/accounts/"
    users = get_user_model().objects.count()
    for who in (personas.arbiter, personas.other_arbiter, personas.player_user, personas.stranger):
        answer = client_for(who).post(path, {"username": "x1", "role": "arbiter"}, format="json")
        assert answer.status_code == 403 and answer.json()["message"]
    assert get_user_model().objects.count() == users


def test_registering_a_list_is_all_or_nothing_and_names_each_refused_player(personas):
    t = stage_tournament(players=8, personas=personas, status=Status.REGISTRATION)
    api = client_for(personas.organiser)
    path = f"/api/v1/tournaments/{t.pk}/registrations/"
    newcomers = make_players(t.club, 3, start=400)
    already = Registration.objects.filter(tournament=t).first().player
    before = Registration.objects.count()
    refused = api.post(path, {"players": [newcomers[0].pk, already.pk]}, format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "refused"
    assert refused.json()["refused"] == [
        {"player": already.pk, "name": already.full_name, "reason": "already registered"}
    ]
    unknown = api.post(path, {"players": [newcomers[0].pk, 999999]}, format="json")
    assert unknown.status_code == 400
    assert unknown.json()["details"]["players"] == ["No player has the id 999999."]
    both = api.post(path, {"player": newcomers[0].pk, "players": [newcomers[1].pk]}, format="json")
    assert both.status_code == 400
    assert Registration.objects.count() == before
    done = api.post(path, {"players": [p.pk for p in newcomers], "checked_in": True}, format="json")
    assert done.status_code == 201 and done.json()["count"] == 3
    assert Registration.objects.count() == before + 3
    # The single-player form still works.
    one = make_players(t.club, 1, start=450)[0]
    single = api.post(path, {"player": one.pk}, format="json")
    assert single.status_code == 201 and single.json()["player"]["id"] == one.pk


def test_bulk_registration_is_refused_to_others(personas):
    t = stage_tournament(players=8, personas=personas, status=Status.REGISTRATION)
    newcomer = make_players(t.club, 1, start=400)[0]
    path = f"/api/v1/tournaments/{t.pk}/registrations/"
    for who in (personas.other_arbiter, personas.player_user, personas.stranger):
        answer = client_for(who).post(path, {"players": [newcomer.pk]}, format="json")
        assert answer.status_code == 403
    assert not Registration.objects.filter(player=newcomer).exists()


def test_closing_a_round_lists_what_is_missing_then_annuls_it(personas):
    t = stage_tournament(personas=personas)
    api = client_for(personas.arbiter)
    path = f"/api/v1/tournaments/{t.pk}/rounds/1/close/"
    refused = api.post(path, {}, format="json")
    assert refused.status_code == 400
    missing = refused.json()["missing"]
    assert len(missing) == 8
    assert missing[0] == {"table": 1, "donne": 1, "reason": "no result entered"}
    no_reason = api.post(path, {"annul_missing": True}, format="json")
    assert no_reason.status_code == 400 and "reason" in no_reason.json()["details"]
    assert not Result.objects.exists()
    done = api.post(path, {"annul_missing": True, "reason": "out of time"}, format="json")
    assert done.status_code == 200
    assert done.json() == {"number": 1, "state": "closed", "annulled": 8}
    assert Result.objects.filter(status="annulled").count() == 8
    stranger = client_for(personas.other_arbiter).post(
        f"/api/v1/tournaments/{t.pk}/rounds/2/close/",
        {"annul_missing": True, "reason": "x"},
        format="json",
    )
    assert stranger.status_code == 403 and Result.objects.count() == 8


def test_opening_a_round_while_one_is_open_needs_confirmation(personas):
    t = stage_tournament(personas=personas)
    Round.objects.filter(tournament=t, number=1).update(state="open")
    api = client_for(personas.arbiter)
    path = f"/api/v1/tournaments/{t.pk}/rounds/2/open/"
    asked = api.post(path, {}, format="json")
    assert asked.status_code == 400 and asked.json()["code"] == "needs_confirmation"
    assert asked.json()["open_rounds"] == [1]
    assert Round.objects.get(tournament=t, number=2).state == "pending"
    done = api.post(path, {"confirm_open": True}, format="json")
    assert done.status_code == 200 and done.json()["state"] == "open"


def test_finishing_with_a_round_open_needs_confirmation(personas):
    t = stage_tournament(personas=personas)
    Round.objects.filter(tournament=t, number=1).update(state="open")
    api = client_for(personas.organiser)
    path = f"/api/v1/tournaments/{t.pk}/status/"
    asked = api.post(path, {"status": "finished"}, format="json")
    assert asked.status_code == 400 and asked.json()["code"] == "needs_confirmation"
    assert asked.json()["open_rounds"] == [1] and len(asked.json()["missing"]) == 16
    assert Tournament.objects.get(pk=t.pk).status == Status.RUNNING
    done = api.post(path, {"status": "finished", "confirm_missing": True}, format="json")
    assert done.status_code == 200 and done.json()["status"] == "finished"
