"""A season: a club, its organiser, published tournaments sharing players, a simultaneous
event of the hub whose field holds some of the same licences."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import TestCase

from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import Built, build_tournament, fill_results
from tests.scoring.rankings.test_club_season import share_players
from tests.tournaments.simultaneous.hub.conftest import Hub, hub  # noqa: F401 (a fixture)
from tournaments.championships import services
from tournaments.championships.models import Championship
from tournaments.models import Club, Tournament

START, END = dt.date(2026, 9, 1), dt.date(2027, 8, 31)
RULE = {"kind": "places", "places": [25, 20, 16, 13, 11, 10, 9, 8], "places_beyond": 1}


def published(
    club: Club,
    day: dt.date,
    *,
    players: int = 8,
    method: str = "average",
    seed: int = 1,
    share_with: Built | None = None,
) -> Built:
    """A published tournament of `club` with every result and its current snapshot."""
    built = build_tournament(
        players=players, club=club, status="published", method=method, date=day, seed=seed
    )
    if share_with is not None:
        share_players(built, share_with.players)
    fill_results(built, seed=seed)
    ranking_recompute(tournament_id=built.tournament.pk)
    return built


@dataclass
class Season:
    club: Club
    organiser: Any
    tournaments: list[Built]


@pytest.fixture
def season(make_user) -> Season:
    organiser = make_user("organisatrice")
    club = Club.objects.create(name="Tarot Club de Lyon", federation_number="0690")
    club.organisers.add(organiser)
    first = published(club, dt.date(2026, 10, 3), seed=3)
    second = published(club, dt.date(2026, 11, 7), players=12, seed=7, share_with=first)
    third = published(club, dt.date(2026, 12, 5), seed=5, share_with=first)
    return Season(club, organiser, [first, second, third])


def create(season: Season, **values: Any) -> Championship:
    fields = {"name": "Championnat du club", "season_start": START, "season_end": END, **RULE}
    fields.update(values)
    with TestCase.captureOnCommitCallbacks(execute=True):
        return services.championship_create(user=season.organiser, club=season.club, **fields)


def add(championship: Championship, user: Any, tournament: Tournament | None = None, **kw: Any):
    with TestCase.captureOnCommitCallbacks(execute=True):
        return services.event_add(championship, user=user, tournament=tournament, **kw)
