"""The ranking as CSV: French (";", decimal comma) and English ("," and a point), UTF-8 with
a BOM, ties as "1=", text cells guarded against formulas, the ranking page's visibility rule
on the site and the API, read from the stored snapshot in a fixed number of queries."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from scoring.models import RankingSnapshot
from scoring.rankings.exports import text_cell
from scoring.rankings.selectors import ranking_snapshot, ranking_view
from scoring.rankings.services import ranking_recompute
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.builders import build_tournament, fill_results
from tests.scoring.rankings.helpers import enter, tables_playing
from tournaments.models import Club, Player, Tournament

pytestmark = pytest.mark.django_db

BOM = b"\xef\xbb\xbf"
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def parse(content: bytes, delimiter: str) -> list[list[str]]:
    assert content.startswith(BOM)
    text = content.decode("utf-8-sig")
    assert "\r\n" in text  # CRLF line ends, as spreadsheets write them
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


def published(players: int = 8, method: str = "average", seed: int = 3) -> Tournament:
    built = build_tournament(
        players=players, rounds=2, status="published", method=method, seed=seed
    )
    fill_results(built, seed=seed)
    ranking_recompute(tournament_id=built.tournament.pk)
    return built.tournament


def expected(tournament: Tournament) -> dict[str, tuple]:
    """Licence -> (rank text, differential total, total) from the stored snapshot."""
    snapshot, current = ranking_snapshot(tournament)
    assert current
    view = ranking_view(tournament, snapshot, current)
    return {
        line.player.licence: (
            f"{line.rank}{'=' if line.tied else ''}",
            line.differential_total,
            line.total,
        )
        for line in view.rows
    }


def organiser_of(tournament: Tournament):
    """An organiser of the tournament's club: he reads the licences' column."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(f"orga-{tournament.pk}", password="x")
    tournament.club.organisers.add(user)
    return user


def close(cell: str, value, decimal_sep: str) -> bool:
    other = "." if decimal_sep == "," else ","
    assert other not in cell, cell
    return abs(Decimal(cell.replace(decimal_sep, ".")) - Decimal(float(value))) <= Decimal("0.005")


@pytest.mark.parametrize(
    ("headers", "delimiter", "decimal_sep", "heading"),
    [
        (FR, ";", ",", ["Rang", "Nom", "Prénom", "Licence", "Club", "Points de match %"]),
        (EN, ",", ".", ["Rank", "Last name", "First name", "Licence", "Club", "Match points %"]),
    ],
)
def test_the_ranking_csv_in_french_and_english(client, headers, delimiter, decimal_sep, heading):
    tournament = published(method="matchpoints")
    client.force_login(organiser_of(tournament))  # the licences' column is theirs
    response = client.get(reverse("ranking_csv", args=[tournament.pk]), **headers)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment;") and disposition.endswith('.csv"')
    assert ("classement-" in disposition) == (headers is FR)
    assert response["X-Ranking-Current"] == "1"
    rows = parse(response.content, delimiter)
    assert rows[0][: len(heading)] == heading and len(rows[0]) == 10
    want = expected(tournament)
    assert len(rows) == 1 + len(want) == 9
    decimals = 0
    for row in rows[1:]:
        assert len(row) == 10
        rank, differential, total = want[row[3]]
        assert row[0] == rank
        assert close(row[5], differential, decimal_sep), row
        assert close(row[7], total, decimal_sep), row
        decimals += decimal_sep in row[5]
    assert decimals  # match point percentages have decimals: written with the language's mark


def test_ties_read_one_equals_and_the_page_links_to_the_file(client, personas):
    t = stage_tournament(personas=personas, status="published", name="Égalité")
    tables = tables_playing(t, 1)
    for table in tables:  # the same result everywhere: every differential is 0
        enter(t, table, 1, personas.arbiter, points=50)
    ranking_recompute(tournament_id=t.pk)
    rows = parse(client.get(reverse("ranking_csv", args=[t.pk]), **FR).content, ";")
    assert {row[0] for row in rows[1:]} == {"1="}
    assert {row[5] for row in rows[1:]} == {"0"}
    page = client.get(reverse("ranking", args=[t.pk]), **FR).content.decode()
    assert f'href="{reverse("ranking_csv", args=[t.pk])}"' in page
    assert "Télécharger le classement (CSV)" in page


def test_text_cells_starting_like_a_formula_are_guarded_numbers_are_not(client):
    assert text_cell("=1+1") == "'=1+1"
    assert [text_cell(s) for s in ("+33", "-x", "@SUM(A1)", "\tx", "\rx")] == [
        "'+33",
        "'-x",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
    ]
    assert text_cell("Éloïse") == "Éloïse" and text_cell("a=b") == "a=b"
    built = build_tournament(players=8, rounds=2, status="published", seed=11)
    fill_results(built, seed=11)
    first, second = built.players[0], built.players[1]
    Player.objects.filter(pk=first.pk).update(
        last_name='=HYPERLINK("http://x.example";"clic")', first_name="@moi"
    )
    Player.objects.filter(pk=second.pk).update(last_name="-Dupont", first_name="+Léa")
    Club.objects.filter(pk=first.club_id).update(name="=1+2")
    ranking_recompute(tournament_id=built.tournament.pk)
    client.force_login(organiser_of(built.tournament))
    response = client.get(reverse("ranking_csv", args=[built.tournament.pk]), **FR)
    rows = {row[3]: row for row in parse(response.content, ";")[1:]}
    assert rows[first.licence][1:3] == ['\'=HYPERLINK("http://x.example";"clic")', "'@moi"]
    assert rows[first.licence][4] == "'=1+2"
    assert rows[second.licence][1:3] == ["'-Dupont", "'+Léa"]
    negatives = [row[5] for row in rows.values() if row[5].startswith("-")]
    assert negatives  # differentials below zero stay numbers: a minus, no apostrophe
    for row in rows.values():
        for cell in (row[0], row[5], row[6], row[7], row[8], row[9]):
            assert not cell.startswith("'"), row


def api(user=None) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def site(client, url, user=None):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(url, **EN)


@pytest.mark.parametrize(
    ("name", "api_name"),
    [("ranking_csv", "api_ranking_csv"), ("score_cards_csv", "api_score_cards_csv")],
)
def test_permission_matrix_site_and_api(client, running_tournament, personas, name, api_name):
    t = running_tournament
    url = reverse(name, args=[t.pk])
    api_url = reverse(api_name, args=[t.pk])
    Tournament.objects.filter(pk=t.pk).update(public_during_play=False)
    response = site(client, url)
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert api().get(api_url).status_code == 401
    for user in (personas.stranger, personas.other_arbiter):
        assert site(client, url, user).status_code == 403
        answer = api(user).get(api_url)
        assert answer.status_code == 403 and answer["Content-Type"] == "application/json"
    for user in (personas.player_user, personas.arbiter, personas.organiser):
        assert site(client, url, user).status_code == 200
        answer = api(user).get(api_url)
        assert answer.status_code == 200 and answer.content.startswith(BOM)
    # public during play: the room reads it without an account
    Tournament.objects.filter(pk=t.pk).update(public_during_play=True)
    assert site(client, url).status_code == 200
    assert api().get(api_url).status_code == 200
    # published: everyone; back to registration: the managers only
    Tournament.objects.filter(pk=t.pk).update(status="published", public_during_play=False)
    assert site(client, url).status_code == 200
    assert site(client, url, personas.stranger).status_code == 200
    Tournament.objects.filter(pk=t.pk).update(status="registration")
    assert site(client, url, personas.player_user).status_code == 403
    assert site(client, url, personas.arbiter).status_code == 200
    assert api(personas.player_user).get(api_url).status_code == 403
    assert api(personas.organiser).get(api_url).status_code == 200


def test_the_api_file_is_the_pages_file_in_the_language_asked(client):
    tournament = published(seed=4)
    page = client.get(reverse("ranking_csv", args=[tournament.pk]), **FR).content
    api_url = reverse("api_ranking_csv", args=[tournament.pk])
    assert api().get(api_url, {"language": "fr"}).content == page
    english = api().get(api_url, HTTP_ACCEPT="text/csv")
    assert english.status_code == 200 and english["Content-Type"].startswith("text/csv")
    assert parse(english.content, ",")[0][0] == "Rank"
    bad = api().get(api_url, {"language": "de"})
    assert bad.status_code == 400 and bad.json()["details"]["language"]


def test_the_file_is_read_from_the_snapshot_in_a_fixed_number_of_queries(
    client, django_assert_max_num_queries, personas
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for players in (8, 40):
        tournament = published(players=players, seed=players)
        url = reverse("ranking_csv", args=[tournament.pk])
        with django_assert_max_num_queries(3):  # the tournament, the snapshot, the players
            response = client.get(url, **FR)
        assert len(parse(response.content, ";")) == players + 1
        with CaptureQueriesContext(connection) as ctx:
            client.get(url, **EN)
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1]

    # A saved result the snapshot has not got: the file is the stored one, said stale, and
    # the request computes nothing.
    t = stage_tournament(personas=personas, status="running", name="En cours")
    table = tables_playing(t, 1)[0]
    enter(t, table, 1, personas.arbiter)
    ranking_recompute(tournament_id=t.pk)
    enter(t, tables_playing(t, 1)[-1], 1, personas.arbiter)
    snapshots = RankingSnapshot.objects.filter(tournament=t).count()
    client.force_login(personas.arbiter)
    response = client.get(reverse("ranking_csv", args=[t.pk]), **FR)
    assert response.status_code == 200 and response["X-Ranking-Current"] == "0"
    assert RankingSnapshot.objects.filter(tournament=t).count() == snapshots


SCORE_CARD_HEADING = {
    "fr": ["Nom", "Prénom", "Licence", "Tour", "Donne", "Table", "Position", "Statut"],
    "en": ["Last name", "First name", "Licence", "Round", "Donne", "Table", "Position", "Status"],
}


def score_card_csv(client, t, user=None, headers=FR) -> list[list[str]]:
    client.logout()
    if user is not None:
        client.force_login(user)
    response = client.get(reverse("score_cards_csv", args=[t.pk]), **headers)
    assert response.status_code == 200
    return parse(response.content, ";" if headers is FR else ",")


def test_results_by_donne_hide_what_the_score_cards_hide(client, running_tournament, personas):
    """Donne 1 played at one table only: the other players' lines on it say hidden (to a
    visitor, and to a player for lines not his); his own lines and the arbiter's file are
    complete. Positions read N E S O in French, N E S W in English."""
    t = running_tournament
    table = tables_playing(t, 1)[0]
    result = enter(t, table, 1, personas.arbiter, points=61)
    ranking_recompute(tournament_id=t.pk)
    me = Player.objects.get(user=personas.player_user)
    at_table = {int(pid) for pid in result.holders.values()}
    hidden_fr = "Masquée tant que toutes les tables ne l’ont pas jouée"

    by_name = {(p.last_name, p.first_name): p.pk for p in Player.objects.all()}

    def donne_one(rows):
        return {by_name[(r[0], r[1])]: r for r in rows[1:] if r[4] == "1"}

    arbiter = score_card_csv(client, t, personas.arbiter)
    assert arbiter[0][:8] == SCORE_CARD_HEADING["fr"] and len(arbiter[0]) == 13
    assert len(arbiter) == 1 + 8 * 8  # eight players, eight donnes each
    lines = donne_one(arbiter)
    for pid in at_table:
        row = lines[pid]
        assert row[7] == "Jouée" and row[8] == "Garde" and row[9] in "NESO"
        assert row[10] and row[11] and row[12], row
    assert {r[6] for r in arbiter[1:]} - {""} == {"N", "E", "S", "O"}  # "": not played yet
    assert any(r[10].startswith("-") for r in arbiter[1:])  # the defence's scores: numbers
    assert {r[2] for r in arbiter[1:]} == set(
        Player.objects.filter(pk__in=lines).values_list("licence", flat=True)
    )
    visitor_rows = score_card_csv(client, t)
    assert visitor_rows[0][2] == "Licence" and {r[2] for r in visitor_rows[1:]} == {""}
    visitor = donne_one(visitor_rows)
    for pid in at_table:
        assert visitor[pid][7] == hidden_fr and visitor[pid][8:] == ["", "", "", "", ""]
    player = donne_one(score_card_csv(client, t, personas.player_user))
    for pid in at_table:
        if pid == me.pk:  # his own line; its differential counts once donne 1 is complete
            assert player[pid][7] == "Comptée quand toutes les tables l’auront jouée"
            assert player[pid][8] == "Garde" and player[pid][11] == "", player[pid]
        else:
            assert player[pid][7] == hidden_fr and player[pid][11] == ""
    others = [pid for pid in lines if pid not in at_table]
    assert others and all(visitor[pid][7] == "Pas encore jouée" for pid in others)
    english = score_card_csv(client, t, personas.arbiter, EN)
    assert english[0][:8] == SCORE_CARD_HEADING["en"]
    assert {r[6] for r in english[1:]} - {""} == {"N", "E", "S", "W"}
    assert {r[7] for r in english[1:]} == {"Played", "Not played yet"}


def test_results_by_donne_in_a_fixed_number_of_queries(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for players in (8, 40):
        tournament = published(players=players, method="matchpoints", seed=players + 1)
        url = reverse("score_cards_csv", args=[tournament.pk])
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(url, **FR)
        rows = parse(response.content, ";")
        assert rows[0][11:] == ["Points de match %", "Moyenne"]
        assert len(rows) == 1 + players * 8
        assert any("," in row[12] for row in rows[1:])  # running averages: decimal comma
        counts.append(len(ctx.captured_queries))
    # the tournament, the snapshot, its cards, seats, players, donnes, results and the three
    # reads of which donnes are finished everywhere
    assert counts[0] == counts[1] <= 10


def test_the_licences_column_is_empty_for_the_public_and_other_players(client, personas):
    """A licence never goes to the public (issue 35): the column stays, empty, for a visitor
    and a signed-in player who does not manage the tournament; filled for its managers."""
    tournament = published(seed=7)
    url = reverse("ranking_csv", args=[tournament.pk])
    api_url = reverse("api_ranking_csv", args=[tournament.pk])
    licences = set(
        Player.objects.filter(registrations__tournament=tournament).values_list(
            "licence", flat=True
        )
    )
    for user in (None, personas.player_user):
        client.logout()
        if user is not None:
            client.force_login(user)
        for address in (url, api_url):
            rows = parse(client.get(address, **EN).content, ",")
            assert rows[0][3] == "Licence" and {row[3] for row in rows[1:]} == {""}
    client.force_login(organiser_of(tournament))
    rows = parse(client.get(url, **EN).content, ",")
    assert {row[3] for row in rows[1:]} == licences
