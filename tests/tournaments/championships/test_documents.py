"""The championship's ranking PDF: in French and English, long names laid out without
overprinting (read back word by word by poppler), events not counted in brackets, non classés
apart, "provisional" on every page naming the event it waits for, one série apart."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from django.test import TestCase
from django.urls import reverse
from django.utils import translation

from tests.scoring.documents.layout import layout_problems, vocabulary
from tests.scoring.documents.pdf import page_texts, pdf_text
from tests.scoring.documents.test_layout import CLUBS, PLAYERS, TITLE
from tests.scoring.rankings.builders import build_tournament
from tournaments.championships import services
from tournaments.championships.documents import ChampionshipRenderer, championship_pdf
from tournaments.championships.models import Championship
from tournaments.championships.ranking import championship_caught_up
from tournaments.models import Club, Player

from .conftest import add, create

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.urls("tests.tournaments.championships.download_urls"),
]


def counted(season, **values) -> Championship:
    championship = create(season, best_of=2, minimum_events=2, **values)
    for built in season.tournaments:
        add(championship, season.organiser, built.tournament)
    championship.refresh_from_db()
    return championship


def long_names(season) -> None:
    """The club's and the players' names 60–90 characters long, with accents."""
    Club.objects.filter(pk=season.club.pk).update(name=CLUBS[0])
    players = list(Player.objects.order_by("pk")[: len(PLAYERS)])
    for player, (first, last) in zip(players, PLAYERS, strict=False):
        player.first_name, player.last_name = first, last
    Player.objects.bulk_update(players, ["first_name", "last_name"])


def test_the_pdf_in_french_from_the_site(season, client):
    championship = counted(season, qualify_top=3, final_name="Finale régionale")
    response = client.get(
        reverse("championship_ranking_pdf", args=[championship.pk]), HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["X-Provisional"] == "0"
    text = pdf_text(response.content)
    for words in (
        "Classement du championnat",
        "Championnat du club",
        "Saison du 1 septembre 2026 au 31 août 2027",
        "Points par place : 25, 20, 16, 13, 11, 10, 9, 8, puis 1",
        "Seules les 2 meilleures épreuves comptent",
        "Épreuves comptées",
        "Non classés (trop peu d’épreuves)",
        "Finale régionale",
    ):
        assert words in text, words
    lines = championship_caught_up(championship).scope(None)
    three = next(line for line in lines if len(line.events) == 3)
    dropped = next(s for s in three.events if not s.counted)
    number = 1 + [e.key for e in sorted_entries(championship)].index(dropped.event)
    assert f"(E{number}" in text


def sorted_entries(championship: Championship):
    entries = list(championship.events.select_related("tournament"))
    return sorted(entries, key=lambda e: (e.tournament.date, e.key))


def test_the_pdf_in_english_and_one_serie_apart(season):
    championship = counted(season)
    licences = [p.licence for p in season.tournaments[0].players]
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.series_set(
            championship, [(licences[0], "2e"), (licences[1], "2e")], user=season.organiser
        )
    _name, content, provisional = championship_pdf(championship, "en")
    assert not provisional
    text = pdf_text(content)
    assert "Championship ranking" in text and "Only the best 2 events count" in text
    name, content, _p = championship_pdf(championship, "en", serie="2e")
    assert name.endswith(".pdf")
    assert "Série 2e" in pdf_text(content)


@pytest.mark.parametrize("language", ["fr", "en"])
def test_long_names_are_laid_out_without_overprinting(season, language):
    long_names(season)
    championship = counted(season, name=TITLE, qualify_top=2, final_name=CLUBS[1])
    with translation.override(language):
        standing = championship_caught_up(championship)
        _name, _mime, content = ChampionshipRenderer(championship, standing).render()
    names = [f"{first} {last}" for first, last in PLAYERS]
    typed = [TITLE, *CLUBS, *names, "tarot_club", "Tournoi construit"]
    typed += [f"{p.first_name} {p.last_name}" for p in Player.objects.all()]
    problems = layout_problems(
        content,
        texts=[TITLE, CLUBS[0], *names],
        on_every_page=[TITLE],
        known=vocabulary(typed, language),
    )
    if os.environ.get("LAYOUT_DUMP_DIR"):  # to look at the pages by eye
        Path(os.environ["LAYOUT_DUMP_DIR"], f"championship-{language}.pdf").write_bytes(content)
    assert not problems, "\n".join(problems[:40])


def test_a_provisional_ranking_names_the_event_on_every_page(season):
    championship = counted(season)
    running = build_tournament(
        players=8,
        club=season.club,
        status="running",
        date=dt.date(2027, 1, 9),
        seed=9,
        name="Tournoi des Rois en cours",
    )
    add(championship, season.organiser, running.tournament)
    _name, content, provisional = championship_pdf(championship, "fr")
    assert provisional
    pages = page_texts(content)
    assert "Classement du championnat, provisoire" in pages[0]
    for page in pages:
        assert "Provisoire" in page and "E4 Tournoi des Rois en cours" in page
