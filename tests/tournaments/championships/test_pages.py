"""The championships' pages: the public ranking (paged by 100, the accent-blind search, each
line expandable to its events, dropped ones struck through, the handicap column, non classés
apart, "provisoire" naming the event not final), under 80 KB at 12,000 players; the
organiser's pages (create, add an event, séries from a CSV file) and who may open them."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from tournaments.championships import services
from tournaments.championships.models import Championship, ChampionshipEvent, SeasonSerie
from tournaments.models import Club, Player
from tournaments.simultaneous.hub import services as hub_services
from tournaments.simultaneous.hub.models import OverallRankingRow, OverallRankingState

from .conftest import add, create, published

pytestmark = pytest.mark.django_db


def login(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    client.force_login(user)
    return client


def test_the_public_page_shows_events_dropped_struck_handicaps_and_provisional(season):
    championship = create(season, best_of=2, minimum_events=2, handicaps={"2e": "3"})
    for built in season.tournaments:
        add(championship, season.organiser, built.tournament)
    star = season.tournaments[0].players[0]
    Player.objects.filter(pk=star.pk).update(first_name="Hélène", last_name="Lefèvre")
    services.series_set(championship, [(star.licence, "2e")], user=season.organiser)
    running = published(season.club, dt.date(2027, 3, 6), seed=31).tournament
    running.status = "running"
    running.save()
    add(championship, season.organiser, running)
    page = Client(HTTP_ACCEPT_LANGUAGE="fr").get(f"/championships/{championship.pk}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "Provisoire" in html and running.name in html
    assert html.count("<s>") == 8  # the 8 who played three events: one dropped each
    assert "Handicap" in html
    assert "Non classés" in html  # the 4 who played one event only
    found = Client().get(f"/championships/{championship.pk}/", {"q": "helene lefevre"})
    assert found.content.decode().count('<details class="line">') == 1
    assert "Lefèvre" in found.content.decode()


def big_season(players: int, events: int) -> tuple[Championship, list]:
    """A championship over `events` simultaneous events whose stored overall rankings hold
    `players` licences each (rows as the hub stores them)."""
    organiser = get_user_model().objects.create_user("federation-big")
    Club.objects.create(name="Comité", federation_number="0999").organisers.add(organiser)
    rng = random.Random(7)
    created = []
    for number in range(events):
        event = hub_services.event_create(
            user=organiser, name=f"Simultané {number + 1}", date=dt.date(2026, 10, 1 + number),
            rounds=2, sets=2,
        )  # fmt: skip
        event.embargo_lifted_at = timezone.now()
        event.results_version = 1
        event.save()
        order = list(range(players))
        rng.shuffle(order)
        OverallRankingRow.objects.bulk_create(
            [
                OverallRankingRow(
                    event=event,
                    results_version=1,
                    place=place,
                    rank=place,
                    licence=f"{5000000 + who:07d}",
                    first_name=f"Prénom{who}",
                    last_name=f"Nom{who}",
                    club_name="Club",
                    total=str(players - place),
                    total_value=players - place,
                    differential_total="0",
                    donnes_compared=8,
                )
                for place, who in enumerate(order, start=1)
            ],
            batch_size=4000,
        )
        OverallRankingState.objects.create(event=event, results_version=1)
        created.append(event)
    championship = services.championship_create(
        user=organiser, name="Circuit fédéral", season_start=dt.date(2026, 9, 1),
        season_end=dt.date(2027, 8, 31), kind="places", places=[25, 20, 16, 13], places_beyond=1,
        best_of=2, planned_events=events,
    )  # fmt: skip
    for event in created:
        services.event_add(championship, user=organiser, simultaneous_event=event)
    return championship, created


def test_the_page_of_a_12000_player_season_is_under_80_kb(django_assert_max_num_queries):
    championship, _events = big_season(12_000, 3)
    client = Client(HTTP_ACCEPT_LANGUAGE="fr")
    first = client.get(f"/championships/{championship.pk}/")  # computes and stores it
    assert first.status_code == 200
    with django_assert_max_num_queries(10):
        page = client.get(f"/championships/{championship.pk}/", {"page": 3})
    assert len(page.content) < 80_000, len(page.content)
    assert page.content.decode().count('<details class="line">') == 100
    assert "<s>" in page.content.decode()  # best of 2 over 3 events


def test_an_organiser_creates_adds_an_event_and_imports_series(season):
    client = login(season.organiser)
    answer = client.post(
        "/championships/new/",
        {
            "name": "Championnat", "season_start": "2026-09-01", "season_end": "2027-08-31",
            "club": season.club.pk, "kind": "places", "places_text": "25, 20, 16",
            "places_beyond": "1", "minimum_events": "0", "series_text": "2e, 3e",
        },
    )  # fmt: skip
    assert answer.status_code == 302, answer.content.decode()[:2000]
    championship = Championship.objects.get()
    manage = f"/championships/{championship.pk}/manage/"
    tournament = season.tournaments[0].tournament
    assert client.post(manage, {"tournament": tournament.pk}).status_code == 302
    assert ChampionshipEvent.objects.get().agreed
    twice = client.post(manage, {"tournament": tournament.pk})
    assert twice.status_code == 400 and "compte déjà" in twice.content.decode()
    bad = client.post(manage, {"save_rule": "1", "name": "Championnat",
                               "season_start": "2026-09-01", "season_end": "2027-08-31",
                               "kind": "places", "places_text": "10, 20", "places_beyond": "1",
                               "minimum_events": "0", "series_text": "2e, 3e"})  # fmt: skip
    # the rule is frozen: its fields are disabled, what is posted for them is not taken
    assert bad.status_code == 302
    championship.refresh_from_db()
    assert championship.places == [25, 20, 16]
    assert "figée" in client.get(manage).content.decode()
    licence = season.tournaments[0].players[0].licence
    upload = SimpleUploadedFile("series.csv", f"licence;serie\n{licence};2e\n".encode())
    series = f"/championships/{championship.pk}/series/"
    assert client.post(series, {"file": upload}).status_code == 302
    assert SeasonSerie.objects.get().serie == "2e"
    refused = client.post(series, {"lines": "1234;2e"})
    assert refused.status_code == 400 and "Ligne 1" in refused.content.decode()


def test_strangers_cannot_manage(season, make_user):
    championship = create(season)
    stranger = make_user("curieux")
    assert login(stranger).get(f"/championships/{championship.pk}/manage/").status_code == 403
    assert login(stranger).get("/championships/new/").status_code == 403
    assert Client().get(f"/championships/{championship.pk}/manage/").status_code == 302
    assert Client().get(f"/championships/{championship.pk}/").status_code == 200
