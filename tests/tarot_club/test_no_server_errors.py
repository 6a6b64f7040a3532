"""Bad input answers 4xx, never 500: numbers out of range, NUL bytes in multipart fields,
odd table-card tokens, OPTIONS on the API, oversized or broken CSV fields."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from tests.tournaments.api.conftest import client_for
from tests.tournaments.test_table_entry import first_donne, holders, table_round
from tournaments.models import Result
from tournaments.services.table_entry import table_access_issue

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
HUGE = {"taker": "N", "contract": "garde", "bouts": "2", "points": "1e999"}


def quiet(client: Client) -> Client:
    client.raise_request_exception = False
    return client


@pytest.mark.parametrize("name", ["arbiter_result_preview", "arbiter_result"])
def test_huge_points_on_the_arbiters_form(client, personas, running_tournament, name):
    quiet(client).force_login(personas.arbiter)
    url = reverse(name, args=[running_tournament.pk, 1, 1])
    response = client.post(url, HUGE, **EN)
    assert response.status_code in (200, 400, 422), response.status_code
    assert not Result.objects.exists()


@pytest.mark.parametrize("name", ["table_preview", "table_save"])
def test_huge_points_on_the_tables_page(client, running_tournament, name):
    t = running_tournament
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    body = {**HUGE, "player": holders(t, 1, d)["N"].pk}
    response = quiet(client).post(reverse(name, args=[access.secret, d]), body, **EN)
    assert 400 <= response.status_code < 500 or response.status_code == 200, response.status_code
    assert not Result.objects.exists()


@pytest.mark.parametrize("points", ["1e999", 1e999])
def test_huge_points_in_the_api(personas, running_tournament, points):
    body = json.dumps({"table": 1, "donne": 1, **HUGE, "bouts": 2, "points": "__P__"})
    body = body.replace('"__P__"', json.dumps(points) if isinstance(points, str) else "1e999")
    api = client_for(personas.arbiter)
    api.raise_request_exception = False
    url = f"/api/v1/tournaments/{running_tournament.pk}/results/"
    response = api.post(url, body, content_type="application/json")
    assert 400 <= response.status_code < 500, response.status_code
    preview = api.post(url + "preview/", body, content_type="application/json")
    assert 400 <= preview.status_code < 500, preview.status_code


def test_options_on_a_result(personas, running_tournament):
    api = client_for(personas.arbiter)
    api.raise_request_exception = False
    response = api.options(f"/api/v1/tournaments/{running_tournament.pk}/results/1/1/")
    assert response.status_code < 500, response.status_code


@pytest.mark.parametrize("token", ["é", "1-é", "²-abc", "١-" + "0" * 32])
def test_odd_table_card_tokens(client, token):
    response = quiet(client).get(f"/table/card/{token}/")
    assert 400 <= response.status_code < 500, response.status_code


def test_nul_in_a_multipart_field_is_refused(client, personas, running_tournament):
    from tournaments.models import Tournament

    t = running_tournament
    quiet(client).force_login(personas.arbiter)
    url = reverse("arbiter_announcement", args=[t.pk])
    response = client.post(url, {"announcement": "Pause\x00", "f": ("x.txt", b"x")}, **EN)
    assert response.status_code == 400, response.status_code
    assert Tournament.objects.get(pk=t.pk).announcement == ""


def test_nul_in_a_contest_note_is_refused(client, personas, running_tournament):
    from tests.tournaments.test_table_entry import _enter

    t = running_tournament
    access = table_access_issue(table_round=table_round(t))
    d = first_donne(t)
    seats = holders(t, 1, d)
    result = _enter(t, access, d, seats["N"])
    body = {"player": seats["E"].pk, "note": "Prise\x00", "version": result.version}
    response = quiet(client).post(reverse("table_contest", args=[access.secret, d]), body, **EN)
    assert response.status_code == 400, response.status_code
    assert Result.objects.get(pk=result.pk).contest_note == ""


CSV_CASES = {
    "long": "licence;nom;prenom\n0999011;" + "x" * 140_000 + ";Zoé\n",
    "quote": 'licence;nom;prenom\n0999011;"Lefèvre;Zoé\n0999012;Martin;Léa\n',
    "quote_at_end": 'licence;nom;prenom\n0999011;Lefèvre;"Zoé',
}


@pytest.mark.parametrize("case", sorted(CSV_CASES))
def test_a_broken_csv_field_is_reported_with_its_line(client, personas, running_tournament, case):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tournaments.models import Player

    before = Player.objects.count()
    text = CSV_CASES[case]
    quiet(client).force_login(personas.organiser)
    url = reverse("organiser_players_import", args=[running_tournament.club_id])
    upload = SimpleUploadedFile("joueurs.csv", text.encode(), content_type="text/csv")
    page = client.post(url, {"file": upload}, **EN)
    assert page.status_code in (200, 400, 422), page.status_code
    assert "line 2" in page.content.decode().lower().replace("&#x27;", "'")
    api = client_for(personas.organiser)
    api.raise_request_exception = False
    answer = api.post(
        f"/api/v1/clubs/{running_tournament.club_id}/players/import/",
        json.dumps({"csv": text}),
        content_type="application/json",
    )
    assert answer.status_code == 400, answer.status_code
    assert "csv.2" in answer.json()["details"]
    assert Player.objects.count() == before
