"""The championship's CSV files: the ranking (everyone, a série), the qualifiers with licences
and clubs, in the French and English dialects, provisional named, read from the stored lines."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from django.test import TestCase
from django.urls import reverse

from scoring.rules import display
from tests.scoring.rankings.builders import build_tournament
from tournaments.championships import services
from tournaments.championships.exports import qualifiers_csv, ranking_csv
from tournaments.championships.ranking import championship_caught_up
from tournaments.models import Club, Player

from .conftest import add, create

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.urls("tests.tournaments.championships.download_urls"),
]

FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


def counted(season, **rule):
    """The season's three tournaments counted under places, best of 2, two events at least,
    the top 2 overall and the first of each série qualified; séries set for four players."""
    championship = create(
        season,
        best_of=2,
        minimum_events=2,
        qualify_top=2,
        qualify_top_per_serie=1,
        final_name="Finale régionale",
        **rule,
    )
    licences = [p.licence for p in season.tournaments[0].players]
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.series_set(
            championship,
            [(licences[0], "1re"), (licences[1], "2e"), (licences[2], "2e"), (licences[3], "1re")],
            user=season.organiser,
        )
    for built in season.tournaments:
        add(championship, season.organiser, built.tournament)
    championship.refresh_from_db()
    return championship


def rows_of(content: bytes, separator: str) -> list[list[str]]:
    text = content.decode()
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:]), delimiter=separator))


def test_the_ranking_csv_is_the_stored_lines_in_french(season, client):
    championship = counted(season)
    lines = championship_caught_up(championship).scope(None)
    response = client.get(reverse("championship_ranking_csv", args=[championship.pk]), **FR)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["X-Provisional"] == "0"
    assert "classement-championnat-du-club" in response["Content-Disposition"]
    head, *rows = rows_of(response.content, ";")
    assert head[:11] == [
        "Rang",
        "Nom",
        "Prénom",
        "Licence",
        "Club",
        "Série",
        "Épreuves jouées",
        "Épreuves comptées",
        "Handicap",
        "Points",
        "Qualifié",
    ]
    assert head[11].startswith("E1 2026-10-03") and head[13].startswith("E3 2026-12-05")
    assert head[-1] == "Non retenues"
    assert len(rows) == len(lines) > 8
    players = {p.licence: p for p in Player.objects.all()}
    for row, line in zip(rows, lines, strict=True):
        licence = row[3]
        assert line.player == f"L{licence}"
        assert row[1] == players[licence].last_name and row[4] == "Tarot Club de Lyon"
        assert row[9] == display.decimal_text(line.points, "fr", minus="-")
        assert row[6:8] == [str(len(line.events)), str(line.counted)]
        if line.rank is None:
            assert row[0] == "non classé" and len(line.events) < 2
        else:
            assert row[0].rstrip("=") == str(line.rank)
        dropped = [s for s in line.events if not s.counted]
        assert (row[-1] != "") == bool(dropped)
    three = [row for row in rows if row[6] == "3"]
    assert three and all(len(row[-1].split()) == 1 for row in three)  # best of 2: one dropped
    assert any(row[10] == "général" for row in rows)


def test_the_english_csv_and_a_serie_apart(season):
    championship = counted(season)
    made = ranking_csv(championship, "en", serie="2e")
    head, *rows = rows_of(made.content, ",")
    assert head[0] == "Rank" and head[9] == "Points"
    assert [row[5] for row in rows] == ["2e", "2e"]
    assert [row[0].rstrip("=") for row in rows if row[0] != "not ranked"] in (["1", "2"], ["1"])
    assert made.filename.endswith("-2e.csv")


def test_an_unknown_serie_or_championship_is_a_404(season, client):
    championship = counted(season)
    url = reverse("championship_ranking_csv", args=[championship.pk])
    assert client.get(url, {"serie": "Élite"}, **FR).status_code == 404
    assert client.get(url, {"serie": "2e"}, **FR).status_code == 200
    missing = reverse("championship_qualifiers_csv", args=[championship.pk + 1000])
    assert client.get(missing, **FR).status_code == 404


def test_the_qualifiers_with_licences_clubs_and_ties_at_the_cut(season, client):
    championship = counted(season)
    standing = championship_caught_up(championship)
    overall = [line for line in standing.scope(None) if line.rank is not None and line.rank <= 2]
    response = client.get(reverse("championship_qualifiers_csv", args=[championship.pk]), **FR)
    head, *rows = rows_of(response.content, ";")
    assert head == [
        "Finale",
        "Qualifié par",
        "Rang",
        "Nom",
        "Prénom",
        "Licence",
        "Club",
        "Série",
        "Points",
    ]
    by_licence = {row[5]: row for row in rows}
    assert len(by_licence) == len(rows)  # each player once
    for line in overall:
        row = by_licence[line.player[1:]]
        assert row[0] == "Finale régionale" and row[1].startswith("général")
        assert row[6] == "Tarot Club de Lyon"
    for serie in ("1re", "2e"):
        first = [line for line in standing.scope(serie) if line.rank == 1]
        for line in first:
            assert serie in by_licence[line.player[1:]][1] or line in overall
    assert len(rows) >= 2


def test_a_provisional_ranking_says_so_in_its_file_name(season):
    championship = counted(season)
    running = build_tournament(
        players=8, club=season.club, status="running", date=dt.date(2027, 1, 9), seed=9
    )
    add(championship, season.organiser, running.tournament)
    made = qualifiers_csv(championship, "fr")
    assert made.provisional and "provisoire" in made.filename


def test_a_club_typed_like_a_formula_is_made_harmless(season):
    Club.objects.filter(pk=season.club.pk).update(name='=HYPERLINK("x")')
    championship = counted(season)
    _head, *rows = rows_of(ranking_csv(championship, "fr").content, ";")
    assert {row[4] for row in rows} == {'\'=HYPERLINK("x")'}


def test_a_download_reads_the_stored_lines_in_a_few_queries(
    season, client, django_assert_max_num_queries
):
    championship = counted(season)
    championship_caught_up(championship)
    url = reverse("championship_ranking_csv", args=[championship.pk])
    with django_assert_max_num_queries(12):
        assert client.get(url, **FR).status_code == 200
