"""Fixtures of the documents tests: a media folder per test, and a played tournament."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.utils import translation

from tests.fixtures.shared import copy_for_the_test, module_shares, rolled_back
from tests.fixtures.tournaments import Personas, make_personas, stage_tournament
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


def play_a_tournament(personas: Personas) -> Tournament:
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


@pytest.fixture(scope="module")
def played_of_the_module(
    request, django_db_setup, django_db_blocker
) -> Iterator[tuple[Personas, Tournament] | None]:
    """The personas and their played tournament, made once for the module when it may share
    them (tests/fixtures/shared.py, `module_shares`), else None (each test makes its own)."""
    if not module_shares(request, "played_tournament"):
        yield None
        return
    with rolled_back(django_db_blocker):
        with django_db_blocker.unblock(), translation.override("en"):
            personas = make_personas()
            made = (personas, play_a_tournament(personas))
        yield made


@pytest.fixture
def played_for_the_test(played_of_the_module, db) -> tuple[Personas, Tournament] | None:
    """The test's copy of the module's personas and played tournament, if it has them."""
    if played_of_the_module is None:
        return None
    return copy_for_the_test(played_of_the_module)


@pytest.fixture
def personas(played_for_the_test, db) -> Personas:
    """The personas: the module's (with its played tournament) or the test's own."""
    if played_for_the_test is not None:
        return played_for_the_test[0]
    return make_personas()


@pytest.fixture
def played_tournament(played_for_the_test, personas: Personas) -> Tournament:
    """9 players (a table of four and a table of five), 2 rounds, every result entered, one
    penalty of 100 points to the last player by name: made once for the module when every
    test that uses the personas uses it too (and none is transactional), else per test."""
    if played_for_the_test is not None:
        return played_for_the_test[1]
    return play_a_tournament(personas)
