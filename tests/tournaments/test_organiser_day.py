"""The organiser's day without workarounds: his club and its accounts, registrations in one
go, rounds that close (annulling what is missing), the next round opened knowingly, the room
following the round being played, and finishing with a confirmation."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import translation

from tests.fixtures.tournaments import make_players, stage_tournament
from tests.tournaments.test_arbiter_views import save
from tournaments.models import (
    Club,
    LedgerEntry,
    Player,
    Registration,
    Result,
    Round,
    Tournament,
)
from tournaments.services.clock import current_round
from tournaments.services.clubs import club_account_create, club_create
from tournaments.services.registration import (
    RegistrationLinesError,
    RegistrationsRefused,
    players_from_lines,
    registrations_add,
)
from tournaments.services.results import ResultInvalid
from tournaments.services.rounds import (
    RoundOpenNeedsConfirmation,
    round_close_annulling,
    round_missing_cells,
    round_open_checked,
)
from tournaments.services.tournaments import FinishNeedsConfirmation, tournament_set_status

pytestmark = pytest.mark.django_db
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
Status = Tournament.Status


@pytest.fixture(autouse=True)
def english():
    """The services' messages are read in English here (requests ask for it too)."""
    with translation.override("en"):
        yield


# --- the club and its accounts -----------------------------------------------------------------


def test_a_signed_in_user_creates_his_club_and_organises_it(client, personas):
    client.force_login(personas.stranger)
    home = client.get(reverse("organiser_home"), **EN).content.decode()
    assert reverse("organiser_club_create") in home and "Create a club" in home
    response = client.post(
        reverse("organiser_club_create"),
        {"name": "Tarot Club de Lyon", "federation_number": "0101", "city": "Lyon"},
    )
    club = Club.objects.get(federation_number="0101")
    assert response.status_code == 302
    assert list(club.organisers.all()) == [personas.stranger]
    # A taken federation number is refused, said on the page, nothing saved.
    again = client.post(
        reverse("organiser_club_create"),
        {"name": "Autre", "federation_number": "0101"},
        **EN,
    )
    assert again.status_code == 422 and "Federation number already exists" in (
        again.content.decode()
    )
    assert Club.objects.count() == 1


def test_club_create_needs_a_valid_federation_number(personas):
    with pytest.raises(ValidationError) as refused:
        club_create(user=personas.stranger, name="X", federation_number="12")
    assert "federation_number" in refused.value.message_dict
    assert not Club.objects.exists()


def test_the_organiser_creates_an_arbiter_account_with_a_one_time_link(client, personas):
    tournament = stage_tournament(personas=personas, status=Status.REGISTRATION)
    client.force_login(personas.organiser)
    url = reverse("organiser_club_accounts", args=[tournament.club_id])
    page = client.post(
        url,
        {"username": "marie", "role": "arbiter", "tournaments": [tournament.pk]},
        **EN,
    ).content.decode()
    marie = get_user_model().objects.get(username="marie")
    assert not marie.has_usable_password()
    assert tournament.arbiters.filter(pk=marie.pk).exists()
    link = re.search(r'id="set-password-link">([^<]+)<', page).group(1)
    path = link.split("testserver", 1)[1]
    # The new user opens the link, chooses his password, and the link is then used up.
    client.logout()
    form = client.get(path, follow=True)
    assert b"set-password-form" in form.content
    form_url = form.redirect_chain[-1][0]
    done = client.post(
        form_url, {"new_password1": "Une-phrase-longue-42", "new_password2": "Une-phrase-longue-42"}
    )
    assert done.status_code == 302
    assert client.login(username="marie", password="Une-phrase-longue-42")
    client.logout()
    assert b"link-invalid" in client.get(path, follow=True).content


def test_only_the_club_organisers_create_its_accounts(client, personas):
    tournament = stage_tournament(personas=personas)
    url = reverse("organiser_club_accounts", args=[tournament.club_id])
    users_before = get_user_model().objects.count()
    for who in (personas.arbiter, personas.other_arbiter, personas.player_user, personas.stranger):
        client.force_login(who)
        response = client.post(url, {"username": "intrus", "role": "organiser"})
        assert response.status_code == 403
        with pytest.raises(PermissionDenied):
            club_account_create(club=tournament.club, by=who, username="intrus", role="arbiter")
    assert get_user_model().objects.count() == users_before


def test_an_account_refusal_names_the_field_and_saves_nothing(client, personas):
    tournament = stage_tournament(personas=personas)
    other = stage_tournament(name="Ailleurs")
    client.force_login(personas.organiser)
    url = reverse("organiser_club_accounts", args=[tournament.club_id])
    response = client.post(url, {"username": "arbitre", "role": "arbiter"}, **EN)
    assert response.status_code == 422
    assert "A user with that username already exists." in response.content.decode()
    with pytest.raises(ValidationError) as refused:
        club_account_create(
            club=tournament.club,
            by=personas.organiser,
            username="neuf",
            role="arbiter",
            tournaments=[other],
        )
    assert "tournaments" in refused.value.message_dict
    assert not get_user_model().objects.filter(username="neuf").exists()


# --- registrations in one go -----------------------------------------------------------------


@pytest.fixture
def open_tournament(personas) -> Tournament:
    return stage_tournament(players=8, personas=personas, status=Status.REGISTRATION)


def test_registrations_add_is_all_or_nothing_and_names_each_refusal(open_tournament):
    t = open_tournament
    newcomers = make_players(t.club, 3, start=500)
    registered = Registration.objects.filter(tournament=t).first().player
    before = Registration.objects.count()
    with pytest.raises(RegistrationsRefused) as refused:
        registrations_add(tournament=t, players=[*newcomers, registered, newcomers[0]])
    reasons = {(pk, reason) for pk, _name, reason in refused.value.refused}
    assert reasons == {(registered.pk, "already registered"), (newcomers[0].pk, "listed twice")}
    assert Registration.objects.count() == before
    registrations_add(tournament=t, players=newcomers)
    assert Registration.objects.count() == before + 3


def test_pasted_lines_are_read_and_bad_ones_reported(open_tournament):
    t = open_tournament
    a, b, c = make_players(t.club, 3, start=600)
    for player, last in ((b, "Lefèvre"), (c, "Œillet")):
        player.last_name = last
        player.save()
    # A licence, a name without its accents, "last;first" as a sheet's columns; blanks skipped.
    text = f"{a.licence}\n\n{b.first_name} lefevre\nOEILLET;{c.first_name}\n"
    assert players_from_lines(text=text, tournament=t) == [a, b, c]
    taken = set(Player.objects.values_list("licence", flat=True))
    unknown = next(f"{n:07d}" for n in range(1, 10_000) if f"{n:07d}" not in taken)
    with pytest.raises(RegistrationLinesError) as bad:
        players_from_lines(text=f"{a.licence}\n{unknown}\nZzzz Nobody\n", tournament=t)
    assert [(p.number, p.text) for p in bad.value.problems] == [
        (2, unknown),
        (3, "Zzzz Nobody"),
    ]
    assert f"no player has the licence {unknown}" in bad.value.problems[0].reason


def test_a_name_shared_by_two_players_is_ambiguous(open_tournament):
    t = open_tournament
    a, b = make_players(t.club, 2, start=700)
    b.first_name, b.last_name = a.first_name, a.last_name
    b.save()
    with pytest.raises(RegistrationLinesError) as bad:
        players_from_lines(text=f"{a.first_name} {a.last_name}", tournament=t)
    assert "several players have this name" in bad.value.problems[0].reason
    assert a.licence in bad.value.problems[0].reason and b.licence in bad.value.problems[0].reason


def test_the_page_registers_ticked_pasted_and_earlier_players(client, personas, open_tournament):
    t = open_tournament
    client.force_login(personas.organiser)
    add = reverse("organiser_registration_add_many", args=[t.pk])
    a, b, c, d = make_players(t.club, 4, start=800)
    page = client.get(reverse("organiser_registrations", args=[t.pk]), **EN).content.decode()
    assert f'name="players" value="{a.pk}"' in page
    assert client.post(add, {"source": "tick", "players": [a.pk, b.pk]}).status_code == 302
    # A pasted list with one unknown line: nothing saved, the line named.
    bad = client.post(add, {"source": "lines", "lines": f"{c.licence}\nPersonne Inconnue"}, **EN)
    assert bad.status_code == 422
    html = bad.content.decode()
    assert 'data-line="2"' in html and "Personne Inconnue" in html
    assert not Registration.objects.filter(tournament=t, player=c).exists()
    assert (
        client.post(add, {"source": "lines", "lines": f"{c.licence}\n{d.licence}"}).status_code
        == 302
    )
    # The same players as last time: a new tournament of the club.
    later = Tournament.objects.create(club=t.club, name="Suivant", date=t.date, rounds=2)
    add_later = reverse("organiser_registration_add_many", args=[later.pk])
    assert client.post(add_later, {"source": "tournament", "earlier": t.pk}).status_code == 302
    assert later.registrations.count() == t.registrations.count() == 12


def test_strangers_cannot_register_in_bulk(client, personas, open_tournament):
    t = open_tournament
    a = make_players(t.club, 1, start=900)[0]
    add = reverse("organiser_registration_add_many", args=[t.pk])
    for who in (personas.other_arbiter, personas.player_user, personas.stranger):
        client.force_login(who)
        assert client.post(add, {"source": "tick", "players": [a.pk]}).status_code == 403
    assert not Registration.objects.filter(player=a).exists()


# --- rounds ------------------------------------------------------------------------------------


def test_the_dashboard_lists_missing_cells_with_their_reason_on_screen(client, personas):
    t = stage_tournament(personas=personas)
    for donne in (1, 2, 3, 4, 5, 6):
        save(t, personas.arbiter, 1 if donne <= 4 else 2, donne)
    Result.objects.filter(tournament=t, donne__number=6).update(entry_status="awaiting")
    client.force_login(personas.arbiter)
    html = client.get(reverse("arbiter_dashboard", args=[t.pk]), **EN).content.decode()
    block = html[html.index('id="round-1"') : html.index('id="round-2"')]
    assert re.search(r'data-cell="2-7">.*?Table 2, donne 7</a> — no result entered', block, re.S)
    assert re.search(r"Table 2, donne 6</a> — entered at the table, waiting", block, re.S)
    assert "disabled" not in block and "Annul what is missing and close the round" in block


def test_closing_with_annulment_annuls_every_missing_cell_then_closes(personas):
    t = stage_tournament(personas=personas)
    for donne in (1, 2, 3, 4, 5):
        save(t, personas.arbiter, 1 if donne <= 4 else 2, donne)
    Result.objects.filter(tournament=t, donne__number=5).update(entry_status="contested")
    round_1 = Round.objects.select_related("tournament").get(tournament=t, number=1)
    assert [(c.table, c.donne, c.state) for c in round_missing_cells(round_=round_1)] == [
        (2, 5, "contested"),
        (2, 6, "missing"),
        (2, 7, "missing"),
        (2, 8, "missing"),
    ]
    with pytest.raises(ResultInvalid) as no_reason:
        round_close_annulling(round_=round_1, user=personas.arbiter, reason="  ")
    assert "reason" in no_reason.value.errors
    assert Result.objects.filter(status="annulled").count() == 0
    _round, count = round_close_annulling(
        round_=round_1, user=personas.arbiter, reason="out of time"
    )
    assert count == 4
    assert Round.objects.get(pk=round_1.pk).state == "closed"
    annulled = Result.objects.filter(tournament=t, status="annulled")
    assert annulled.count() == 4 and set(annulled.values_list("annul_reason", flat=True)) == {
        "out of time"
    }
    assert LedgerEntry.objects.filter(tournament=t, action="result_annulled").count() == 4


def test_closing_with_annulment_is_refused_to_strangers(personas):
    t = stage_tournament(personas=personas)
    round_1 = Round.objects.select_related("tournament").get(tournament=t, number=1)
    for who in (personas.other_arbiter, personas.player_user, personas.stranger):
        with pytest.raises(PermissionDenied):
            round_close_annulling(round_=round_1, user=who, reason="x")
    assert not Result.objects.exists() and round_1.state != "closed"


def test_the_close_form_asks_for_the_reason_and_the_confirmation(client, personas):
    t = stage_tournament(personas=personas)
    client.force_login(personas.arbiter)
    url = reverse("arbiter_round_close", args=[t.pk, 1])
    unconfirmed = client.post(url, {"annul_missing": "1", "reason": "r"}, follow=True, **EN)
    assert "tick the box confirming" in unconfirmed.content.decode()
    no_reason = client.post(url, {"annul_missing": "1", "confirm": "1"}, follow=True, **EN)
    assert "Give the reason for annulling" in no_reason.content.decode()
    assert not Result.objects.exists()
    done = client.post(
        url, {"annul_missing": "1", "confirm": "1", "reason": "r"}, follow=True, **EN
    )
    assert "8 missing donnes were annulled" in done.content.decode()
    assert Round.objects.get(tournament=t, number=1).state == "closed"


def test_opening_the_next_round_with_one_open_asks_to_confirm(client, personas):
    t = stage_tournament(personas=personas)
    Round.objects.filter(tournament=t, number=1).update(state="open")
    round_2 = Round.objects.select_related("tournament").get(tournament=t, number=2)
    with pytest.raises(RoundOpenNeedsConfirmation) as asked:
        round_open_checked(round_=round_2, user=personas.arbiter)
    assert asked.value.open_rounds == [1]
    client.force_login(personas.arbiter)
    url = reverse("arbiter_round_open", args=[t.pk, 2])
    page = client.post(url, **EN)
    assert page.status_code == 200 and "Round 1 is still open" in page.content.decode()
    assert Round.objects.get(pk=round_2.pk).state == "pending"
    client.post(url, {"confirm_open": "1"})
    assert Round.objects.get(pk=round_2.pk).state == "open"
    # Reopening round 1 for a correction while round 2 is played asks nothing.
    Round.objects.filter(tournament=t, number=1).update(state="closed")
    round_1 = Round.objects.select_related("tournament").get(tournament=t, number=1)
    round_open_checked(round_=round_1, user=personas.arbiter)
    assert Round.objects.get(pk=round_1.pk).state == "open"


def test_the_room_follows_the_highest_open_round(client, personas):
    t = stage_tournament(personas=personas)
    Round.objects.filter(tournament=t).update(state="open")
    assert current_round(t).number == 2
    html = client.get(reverse("room_screen_clock", args=[t.pk]), **EN).content.decode()
    assert '<p class="clock-round">Round 2</p>' in html


def test_finishing_with_a_round_open_or_a_result_missing_asks_to_confirm(client, personas):
    t = stage_tournament(personas=personas)
    Round.objects.filter(tournament=t, number=1).update(state="open")
    with pytest.raises(FinishNeedsConfirmation) as asked:
        tournament_set_status(tournament=t, status=Status.FINISHED)
    assert asked.value.open_rounds == [1] and len(asked.value.missing) == 16
    client.force_login(personas.organiser)
    url = reverse("organiser_tournament_status", args=[t.pk])
    page = client.post(url, {"status": "finished"}, **EN).content.decode()
    assert "Finish the tournament?" in page and "Round 1 is still open." in page
    assert 'data-cell="1-1"' in page and "Finish anyway" in page
    assert Tournament.objects.get(pk=t.pk).status == Status.RUNNING
    client.post(url, {"status": "finished", "confirm_missing": "1"})
    assert Tournament.objects.get(pk=t.pk).status == Status.FINISHED
