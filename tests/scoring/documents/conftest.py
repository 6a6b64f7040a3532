"""Fixtures of the documents tests: a media folder per test, and a played tournament."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import translation

from tests.fixtures.tournaments import Personas, stage_tournament
from tournaments.models import Player, Tournament
from tournaments.services.penalties import penalty_give

from .play import play_results


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    """Messages raised by the services are checked in English (pages set their own language
    from the request, documents from their `language`)."""
    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path: Path) -> Path:
    """Documents are stored under a temporary MEDIA_ROOT, never in the project's var/."""
    root = tmp_path / "media"
    settings.MEDIA_ROOT = root
    return root


@pytest.fixture
def played_tournament(personas: Personas) -> Tournament:
    """9 players (a table of four and a table of five), 2 rounds, every result entered, one
    penalty of 100 points to the last player by name."""
    tournament = stage_tournament(players=9, rounds=2, personas=personas)
    play_results(tournament, personas.arbiter)
    last = Player.objects.filter(registrations__tournament=tournament).order_by(
        "-last_name", "-first_name"
    )[0]
    penalty_give(
        tournament=tournament,
        player=last,
        kind="early_pickup",
        user=personas.arbiter,
        reason="Cartes relevées avant la fin",
    )
    tournament.refresh_from_db()
    return tournament
