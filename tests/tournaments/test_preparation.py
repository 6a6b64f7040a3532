"""Generation of the seating, movement, étuis and donnes, and their verification."""

from __future__ import annotations

import datetime

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone, translation

from scoring.rules import cards, dealing
from scoring.rules.movement import Movement, validate
from tests.fixtures.tournaments import TEST_SEED, make_players, stage_tournament
from tournaments.models import Club, Donne, Registration, Result, Seat, TableRound, Tournament
from tournaments.services.preparation import (
    PreparationError,
    seats_for_donne,
    tournament_generate,
    tournament_reveal_seed,
    tournament_verify,
)

pytestmark = pytest.mark.django_db


def test_generation_stores_a_valid_movement_and_fair_donnes():
    tournament = stage_tournament(players=16, rounds=4)
    movement = Movement.from_dict(tournament.movement)
    assert validate(movement) == []
    assert tournament.tables.count() == 4
    assert tournament.round_set.count() == 4
    assert Seat.objects.filter(round__tournament=tournament).count() == 16 * 4
    donnes = list(Donne.objects.filter(tournament=tournament).order_by("number"))
    assert len(donnes) == movement.donnes
    assert tournament.commitment == dealing.commitment(tournament.seed, tournament.identity)
    expected = dealing.generate_donne(TEST_SEED, tournament.identity, 1)
    assert cards.parse_hand(donnes[0].hand_n) == expected.hand("N")
    assert donnes[0].dealer == expected.dealer
    for row in donnes:
        assert row.etui_set.number == (row.number - 1) // 4 + 1
        hands = [cards.parse_hand(row.hand(p)) for p in "NESW"]
        every_card = [c for h in hands for c in h] + list(cards.parse_hand(row.chien))
        assert sorted(every_card) == sorted(cards.DECK)
        assert not any(cards.is_petit_sec(h) for h in hands)


def test_every_seat_matches_the_movement():
    tournament = stage_tournament(players=9, rounds=2)
    movement = Movement.from_dict(tournament.movement)
    five = tournament.tables.get(size=5)
    table_round = TableRound.objects.get(round__number=1, table=five)
    sitting = movement.round(1).sitting(five.number)
    assert table_round.sit_outs == "".join(sitting.sit_out)
    seats = {s.position: s.player for s in table_round.seats.select_related("player")}
    assert set(seats) == {"N", "E", "S", "W", "F"}
    for index, role in enumerate(table_round.sit_outs):
        donne = seats_for_donne(table_round, index)
        assert donne.sitter == seats[role]
        for position in "NESW":
            expected = seats["F"] if position == role else seats[position]
            assert donne.hands[position] == expected


def test_eleven_players_are_refused_with_a_message():
    tournament = stage_tournament(players=8)
    club = tournament.club
    extra = make_players(club, 3, start=100)
    now = timezone.now()
    Registration.objects.bulk_create(
        Registration(tournament=tournament, player=p, checked_in_at=now) for p in extra
    )
    with pytest.raises(PreparationError, match="11"):
        tournament_generate(tournament=tournament)
    # Nothing half-done: the previous seating is intact.
    assert Seat.objects.filter(round__tournament=tournament).count() == 8 * 2


def test_late_arrival_reseats_with_the_same_donnes():
    tournament = stage_tournament(players=8, status=Tournament.Status.REGISTRATION)
    before = {d.number: d.hand_n for d in tournament.donnes.all()}
    commitment = tournament.commitment
    late = make_players(tournament.club, 1, start=50)[0]
    Registration.objects.create(tournament=tournament, player=late, checked_in_at=timezone.now())
    tournament_generate(tournament=tournament)
    tournament.refresh_from_db()
    assert tournament.commitment == commitment
    assert Seat.objects.filter(round__tournament=tournament, player=late).count() == 2
    after = {d.number: d.hand_n for d in tournament.donnes.all()}
    assert all(after[n] == before[n] for n in before if n in after)


def test_regeneration_refused_once_results_exist(personas):
    tournament = stage_tournament(players=8, personas=personas)
    table_round = TableRound.objects.filter(round__tournament=tournament).first()
    donne = table_round.etui_set.donnes.first()
    Result.objects.create(
        tournament=tournament,
        table_round=table_round,
        table=table_round.table,
        donne=donne,
        status="all_passed",
        created_by=personas.arbiter,
        updated_by=personas.arbiter,
    )
    with translation.override("en"), pytest.raises(PreparationError, match="Results"):
        tournament_generate(tournament=tournament)
    with translation.override("fr"), pytest.raises(PreparationError, match="Des résultats"):
        tournament_generate(tournament=tournament)


def test_seed_revealed_only_after_the_event_and_verification():
    tournament = stage_tournament(players=8)
    with pytest.raises(PreparationError):
        tournament_reveal_seed(tournament=tournament)
    with pytest.raises(PreparationError):
        tournament_verify(tournament=tournament)
    Tournament.objects.filter(pk=tournament.pk).update(status="finished")
    tournament.refresh_from_db()
    tournament_reveal_seed(tournament=tournament)
    report = tournament_verify(tournament=tournament)
    assert report.ok and report.checked == tournament.donnes.count()

    # A tampered étui is caught.
    donne = tournament.donnes.get(number=2)
    donne.hand_n, donne.hand_e = donne.hand_e, donne.hand_n
    donne.save()
    report = tournament_verify(tournament=tournament)
    assert not report.ok and report.mismatched_numbers == (2,)


def test_verify_donnes_command(capsys):
    tournament = stage_tournament(players=8, status="finished")
    tournament_reveal_seed(tournament=tournament)
    call_command("verify_donnes", str(tournament.pk))
    out = capsys.readouterr().out
    assert "8" in out and "OK" in out
    donne = Donne.objects.get(tournament=tournament, number=1)
    Donne.objects.filter(pk=donne.pk).update(hand_n=donne.hand_s, hand_s=donne.hand_n)
    with pytest.raises(SystemExit) as exc:
        call_command("verify_donnes", str(tournament.pk))
    assert exc.value.code == 1
    assert "MISMATCH" in capsys.readouterr().out
    Donne.objects.filter(pk=donne.pk).update(chien="S:R")
    with pytest.raises(CommandError, match="chien"):
        call_command("verify_donnes", str(tournament.pk))


def test_public_verify_page(client):
    tournament = stage_tournament(players=8, status="published")
    response = client.get(f"/t/{tournament.pk}/verify/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert b"has not been revealed" in response.content
    tournament_reveal_seed(tournament=tournament)
    response = client.get(f"/t/{tournament.pk}/verify/", HTTP_ACCEPT_LANGUAGE="en")
    assert tournament.seed.encode() in response.content
    assert b"all 8 donnes" in response.content.lower() or b"8 donnes" in response.content


def test_draft_tournament_is_not_public(client):
    club = Club.objects.create(name="C", federation_number="4242")
    t = Tournament.objects.create(club=club, name="Secret", date=datetime.date(2026, 12, 1))
    assert client.get(f"/t/{t.pk}/").status_code in (302, 403)


def test_public_verify_page_names_the_tampered_donne_in_french(client):
    tournament = stage_tournament(players=8, status="published")
    tournament_reveal_seed(tournament=tournament)
    donne = Donne.objects.get(tournament=tournament, number=3)
    Donne.objects.filter(pk=donne.pk).update(hand_n=donne.hand_e, hand_e=donne.hand_n)
    html = client.get(f"/t/{tournament.pk}/verify/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Donne 3\u202f: la main de Nord diffère de 18 cartes" in html
    assert "differs" not in html
    html = client.get(f"/t/{tournament.pk}/verify/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Donne 3: hand N differs by 18 cards; hand E differs by 18 cards" in html
