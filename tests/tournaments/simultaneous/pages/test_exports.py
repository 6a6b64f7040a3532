"""CSV exports of a simultaneous event: the overall ranking and every player's results by
donne, with licences and clubs, in the tournaments' CSV conventions (French ";" and decimal
comma, English "," and decimal point, a BOM, typed text guarded against formulas)."""

from __future__ import annotations

import csv
import io
from fractions import Fraction

import pytest
from django.urls import reverse

from tests.tournaments.simultaneous.pages.builders import (
    bulk_ranking_rows,
    lift_embargo,
    make_field,
)
from tournaments.simultaneous.hub.models import FieldResult, OverallRankingRow

pytestmark = pytest.mark.django_db


def download(client, name: str, field, language: str) -> tuple[list[list[str]], str]:
    response = client.get(
        reverse(name, args=[field.event.public_id]), HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode("utf-8")
    assert text.startswith("\ufeff") and text.count("\ufeff") == 1
    delimiter = ";" if language == "fr" else ","
    return list(csv.reader(io.StringIO(text[1:]), delimiter=delimiter)), response[
        "Content-Disposition"
    ]


def test_the_overall_ranking_in_french_and_in_english(client, field):
    lift_embargo(field)
    rows = OverallRankingRow.objects.filter(event=field.event).order_by("place")
    french, disposition = download(client, "simultaneous_ranking_csv", field, "fr")
    assert french[0][:5] == ["Rang", "Nom", "Prénom", "Licence", "Club"]
    assert 'filename="classement-general-simultane-dhiver-2027-01-16.csv"' in disposition
    assert [line[3] for line in french[1:]] == [row.licence for row in rows]
    lyon = [line for line in french[1:] if line[3].startswith("2")]
    # a club name starting like a formula is written as text
    assert {line[4] for line in lyon} == {"'=Tarot Club de Lyon"}
    english, _ = download(client, "simultaneous_ranking_csv", field, "en")
    assert english[0][0] == "Rank"
    for fr_line, en_line, row in zip(french[1:], english[1:], rows, strict=True):
        total = Fraction(row.total)
        assert abs(Fraction(en_line[7]) - total) <= Fraction(1, 200)
        assert fr_line[7] == en_line[7].replace(".", ",")
        assert fr_line[0].rstrip("=") == str(row.rank)
    assert any("," in line[7] for line in french[1:])  # thirds: a decimal comma


def test_every_players_results_by_donne(client, field):
    lift_embargo(field)
    lines, _ = download(client, "simultaneous_results_csv", field, "en")
    head, body = lines[0], lines[1:]
    assert head[:4] == ["Last name", "First name", "Licence", "Club"]
    assert len(body) == 12 * field.event.donne_count
    column = {name: k for k, name in enumerate(head)}
    results = {
        (r.invitation.club_name, r.table, r.donne): r
        for r in FieldResult.objects.filter(event=field.event).select_related("invitation")
    }
    for line in body:
        club = line[column["Club"]].removeprefix("'")
        result = results[(club, int(line[column["Table"]]), int(line[column["Donne"]]))]
        position = line[column["Position"]]
        assert result.holders[position] == line[column["Licence"]]
        assert int(line[column["Score"]]) == result.scores[position]
        assert line[column["Taker"]] == "N" and line[column["Status"]] == "Played"
        assert line[column["Tables compared"]] == "3"


def test_a_large_fields_results_are_streamed_in_one_file(client, people):
    f = make_field(people["organiser"])
    bulk_ranking_rows(f.event, 250, clubs=3)
    lift_embargo(f)
    response = client.get(reverse("simultaneous_results_csv", args=[f.event.public_id]))
    assert response.streaming
    lines, _ = download(client, "simultaneous_results_csv", f, "fr")
    assert len(lines) == 1 + 250 * 24
    assert lines[1][4:7] == ["1", "1", "N"] and lines[1][-3:] == ["204", "76,5", "40"]


def test_the_results_by_donne_list_players_in_the_sites_french_order(client, field):
    from tournaments.search import player_sort_name

    lift_embargo(field)
    rows = list(OverallRankingRow.objects.filter(event=field.event).order_by("place"))
    for row, last in zip(rows, ["Roussel", "Œuvray", "Ébrard", "Çelik", "N'Diaye"], strict=False):
        row.last_name = last
        row.save(update_fields=["last_name"])
    lines, _ = download(client, "simultaneous_results_csv", field, "en")
    people: list[tuple[str, str, str]] = []
    for line in lines[1:]:
        person = (line[0], line[1], line[2])
        if not people or people[-1] != person:
            people.append(person)
    assert len(people) == len(rows)
    assert people == sorted(
        people, key=lambda p: (player_sort_name(first_name=p[1], last_name=p[0]), p[2])
    )
    lasts = [p[0] for p in people]
    assert lasts.index("Çelik") < lasts.index("Ébrard") < lasts.index("N'Diaye")
    assert lasts.index("N'Diaye") < lasts.index("Œuvray") < lasts.index("Roussel")
