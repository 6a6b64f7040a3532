"""Invisible characters (format characters such as zero-width spaces, bidirectional
controls and the byte-order mark; line and paragraph separators) are refused in names,
announcements, notes and reasons, by one validator, with a message naming the character and
its position; nothing is saved."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from tests.tournaments.api.conftest import client_for
from tests.tournaments.test_results_service import GARDE_WON, cell
from tests.tournaments.test_table_entry import _enter, first_donne, holders, table_round
from tournaments.models import LedgerEntry, Penalty, Player, Result, Tournament
from tournaments.services.checks import WARNING_CODES
from tournaments.services.players import PlayerImportError, player_create, players_import_csv
from tournaments.services.results import result_save
from tournaments.services.table_entry import table_access_issue
from tournaments.validators import validate_free_text, validate_plain_text

pytestmark = pytest.mark.django_db

RLO = "U+202E RIGHT-TO-LEFT OVERRIDE"
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.mark.parametrize(
    ("char", "label"),
    [
        ("\u200b", "U+200B ZERO WIDTH SPACE"),
        ("\u200d", "U+200D ZERO WIDTH JOINER"),
        ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        ("\u2028", "U+2028 LINE SEPARATOR"),
        ("\u2029", "U+2029 PARAGRAPH SEPARATOR"),
        ("\u202e", RLO),
        ("\u2066", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ],
)
def test_one_validator_names_the_character_and_where(char, label):
    for validate in (validate_plain_text, validate_free_text):
        with translation.override("en"):
            with pytest.raises(ValidationError) as caught:
                validate("Anne" + char + "Marie")
            assert caught.value.messages[0].endswith(f"({label}) at position 5: remove it.")
    validate_free_text("Two lines\nand a\ttab")  # free text keeps its line breaks


def test_the_french_message(running_tournament):
    with translation.override("fr"):
        with pytest.raises(ValidationError) as caught:
            validate_plain_text("Anne\u202eMarie")
        assert caught.value.messages == [
            f"Le nom contient un caractère invisible ({RLO}) en position 5\u202f: supprimez-le."
        ]


def test_names_of_players_and_tournaments_and_the_csv_line(running_tournament, personas):
    club = running_tournament.club
    with translation.override("en"):
        with pytest.raises(ValidationError) as caught:
            player_create(club=club, licence="0123456", last_name="Mer\u200bcier", first_name="Zoé")
        assert "U+200B ZERO WIDTH SPACE" in " ".join(caught.value.messages)
    text = "licence;nom;prénom\n0123456;Arnaud;Camille\n0123457;Ber\ufeffnard;Louis\n"
    with translation.override("en"), pytest.raises(PlayerImportError) as caught:
        players_import_csv(club=club, text=text)
    errors = dict(caught.value.line_errors)
    assert (
        list(errors) == [3] and "(U+FEFF ZERO WIDTH NO-BREAK SPACE) at position 4" in errors[3][0]
    )
    api = client_for(personas.organiser)
    body = {"club": club.pk, "name": "Open\u202e", "date": "2026-12-05", "rounds": 2}
    response = api.post("/api/v1/tournaments/", body, format="json")
    assert response.status_code == 400
    assert RLO in response.json()["details"]["name"][0]
    assert not Player.objects.filter(licence__in=["0123456", "0123457"]).exists()
    assert not Tournament.objects.filter(name__startswith="Open").exists()


def test_an_announcement_with_an_override_is_not_shown(client, personas, running_tournament):
    t = running_tournament
    client.force_login(personas.arbiter)
    url = reverse("arbiter_announcement", args=[t.pk])
    answer = client.post(url, {"announcement": "Pause\u202e 10 min"}, HTTP_HX_REQUEST="true", **EN)
    assert answer.status_code == 422
    assert "(U+202E RIGHT-TO-LEFT OVERRIDE) at position 6" in answer.content.decode()
    plain = client.post(url, {"announcement": "Pause\u2029"}, follow=True, **EN)
    assert "U+2029 PARAGRAPH SEPARATOR" in plain.content.decode()
    assert Tournament.objects.get(pk=t.pk).announcement == ""
    screen = client.get(reverse("room_screen", args=[t.pk]))
    assert "\u202e" not in screen.content.decode()


def test_a_contest_note_is_refused(client, running_tournament):
    t = running_tournament
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    result = _enter(t, access, d, seats["N"])
    body = {"player": seats["E"].pk, "note": "Prise\u200b", "version": result.version}
    answer = client.post(reverse("table_contest", args=[access.secret, d]), body, **EN)
    assert answer.status_code == 400
    assert "U+200B ZERO WIDTH SPACE" in answer.json()["errors"]["note"][0]
    assert Result.objects.get(pk=result.pk).contest_note == ""


def test_reasons_of_corrections_annulments_penalties_and_withdrawals(
    client, personas, running_tournament
):
    t = running_tournament
    saved = result_save(
        **cell(t, 1, 1),
        data=GARDE_WON,
        user=personas.arbiter,
        expected_version=None,
        confirmed=WARNING_CODES,
    )
    entries = LedgerEntry.objects.count()
    api = client_for(personas.arbiter)
    base = f"/api/v1/tournaments/{t.pk}/"
    bad = "Erreur\u202e"
    calls = [
        ("put", "results/1/1/", {"status": "all_passed", "version": saved.version, "reason": bad}),
        ("post", "results/1/1/annul/", {"reason": bad, "version": saved.version}),
        ("post", "penalties/", {"player": seats_player(t), "kind": "warning", "reason": bad}),
    ]
    for method, path, body in calls:
        response = getattr(api, method)(
            base + path, json.dumps(body), content_type="application/json"
        )
        assert response.status_code == 400, (path, response.content)
        assert RLO in json.dumps(response.json()["details"], ensure_ascii=False), path
    client.force_login(personas.arbiter)
    page = client.post(
        reverse("arbiter_result_annul", args=[t.pk, 1, 1]),
        {"reason": bad, "version": saved.version},
        follow=True,
        **EN,
    )
    assert RLO in page.content.decode()
    assert LedgerEntry.objects.count() == entries and not Penalty.objects.exists()
    assert Result.objects.get(pk=saved.pk).version == saved.version


def seats_player(t: Tournament) -> int:
    return holders(t, 1, 1)["N"].pk
