"""CSV import of a club's players: all lines or none, every bad line reported with reasons."""

from __future__ import annotations

import pytest
from django.utils import translation

from tournaments.models import Club, Player
from tournaments.services.players import (
    ImportReport,
    PlayerImportError,
    player_create,
    player_update,
    players_import_csv,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def club() -> Club:
    return Club.objects.create(name="Tarot Club de Lyon", federation_number="0101", city="Lyon")


@pytest.fixture
def other_club() -> Club:
    return Club.objects.create(name="Tarot Club de Caen", federation_number="1402")


def refused(club: Club, text: str) -> dict[int, list[str]]:
    with pytest.raises(PlayerImportError) as caught:
        players_import_csv(club=club, text=text)
    return dict(caught.value.line_errors)


def test_good_file_creates_players_with_french_headers_semicolons_and_bom(club):
    text = "\ufefflicence;nom;prénom\r\n0123456;Arnaud;Camille\r\n0123457;Bernard; Louis \r\n"
    report = players_import_csv(club=club, text=text)
    assert report == ImportReport(created=2, updated=0, unchanged=0)
    assert list(club.players.values_list("licence", "last_name", "first_name")) == [
        ("0123456", "Arnaud", "Camille"),
        ("0123457", "Bernard", "Louis"),
    ]


def test_english_headers_commas_any_column_order_blank_lines_and_extra_columns(club):
    text = "first_name,last_name,licence,email\n\nCamille,Arnaud,0123456,c@example.org\n,,,\n"
    assert players_import_csv(club=club, text=text).created == 1
    assert Player.objects.get(licence="0123456").first_name == "Camille"


def test_prenom_without_accent_and_quoted_name_with_separator(club):
    text = 'licence,nom,prenom\n0123456,"Le Gall, dit Yann",Yann\n'
    players_import_csv(club=club, text=text)
    assert Player.objects.get().last_name == "Le Gall, dit Yann"


def test_existing_licences_of_the_club_get_the_new_names(club):
    Player.objects.create(club=club, licence="0123456", last_name="Arnau", first_name="Camille")
    Player.objects.create(club=club, licence="0123457", last_name="Bernard", first_name="Louis")
    text = "licence;nom;prenom\n0123456;Arnaud;Camille\n0123457;Bernard;Louis\n0123458;Roux;Zoé\n"
    report = players_import_csv(club=club, text=text)
    assert report == ImportReport(created=1, updated=1, unchanged=1)
    assert report.total == 3
    assert Player.objects.get(licence="0123456").last_name == "Arnaud"
    assert club.players.count() == 3


def test_a_file_with_any_bad_line_is_refused_whole_with_every_line_and_reason(club, other_club):
    Player.objects.create(club=other_club, licence="7777777", last_name="Morel", first_name="Jade")
    text = (
        "licence;nom;prenom\n"
        "0123456;Arnaud;Camille\n"  # 2: good
        "12345;Bernard;Louis\n"  # 3: short licence (leading zeros lost)
        "01234AB;;Hugo\n"  # 4: bad licence and no last name
        "0123456;Dubois;\n"  # 5: duplicate of line 2 and no first name
        "7777777;Morel;Jade\n"  # 6: belongs to another club
        "0123459;Fabre\n"  # 7: missing field
    )
    errors = refused(club, text)
    assert sorted(errors) == [3, 4, 5, 6, 7]
    assert "12345" in errors[3][0] and "leading zeros" in errors[3][0]
    assert any("7 digits" in r for r in errors[4])
    assert any("last name" in r for r in errors[4])
    assert any("line 2" in r for r in errors[5])
    assert any("first name" in r for r in errors[5])
    assert "Jade Morel" in errors[6][0] and "Tarot Club de Caen" in errors[6][0]
    assert "2 fields" in errors[7][0] and "3" in errors[7][0]
    assert not club.players.exists()  # nothing imported, not even line 2
    assert Player.objects.get(licence="7777777").club == other_club


def test_the_refusal_message_counts_the_bad_lines(club):
    with pytest.raises(PlayerImportError) as caught:
        players_import_csv(club=club, text="licence,nom,prenom\nabc,X,Y\n123,Z,W\n")
    assert "2 lines have errors" in caught.value.message
    assert str(caught.value) == caught.value.message


def test_a_bad_line_does_not_half_update_existing_players(club):
    Player.objects.create(club=club, licence="0123456", last_name="Arnau", first_name="Camille")
    refused(club, "licence,nom,prenom\n0123456,Arnaud,Camille\nbad,X,Y\n")
    assert Player.objects.get(licence="0123456").last_name == "Arnau"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "empty"),
        ("\ufeff\n\n", "empty"),
        ("licence;name;first\n0123456;A;B\n", "header"),
        ("0123456;Arnaud;Camille\n", "header"),
        ("licence;nom;prenom\n", "no player line"),
    ],
)
def test_missing_or_wrong_header_and_empty_files_are_explained(club, text, reason):
    errors = refused(club, text)
    assert list(errors) == [1]
    assert reason in " ".join(errors[1])


def test_names_longer_than_the_model_allows_are_refused(club):
    errors = refused(club, f"licence,nom,prenom\n0123456,{'A' * 81},B\n")
    assert "longer than 80" in errors[2][0]


def test_player_create_and_update_validate_the_licence(club):
    from django.core.exceptions import ValidationError

    player = player_create(club=club, licence=" 0123456 ", last_name="Arnaud", first_name="Camille")
    assert player.licence == "0123456"
    with pytest.raises(ValidationError) as caught:
        player_create(club=club, licence="123", last_name="Roux", first_name="Zoé")
    assert "licence" in caught.value.message_dict
    with pytest.raises(ValidationError):
        player_create(club=club, licence="0123456", last_name="Roux", first_name="Zoé")
    with pytest.raises(ValidationError):
        player_update(player=player, licence="12", last_name="Arnaud", first_name="Camille")
    player.refresh_from_db()
    assert player.licence == "0123456"
    player_update(player=player, licence="0123450", last_name="Arnaud", first_name="Camille")
    assert Player.objects.get(pk=player.pk).licence == "0123450"


def test_import_runs_in_a_fixed_number_of_queries(club, django_assert_max_num_queries):
    # One read of the known licences, the inserts (SQLite takes 999 parameters a query: 166
    # rows of 6 columns), one update, savepoints.
    Player.objects.create(club=club, licence="1000000", last_name="Nom", first_name="Prenom")
    lines = "\n".join(f"{1000000 + i},Nom{i},Prenom{i}" for i in range(200))
    with django_assert_max_num_queries(8):
        report = players_import_csv(club=club, text=f"licence,nom,prenom\n{lines}\n")
    assert (report.created, report.updated) == (199, 1)
