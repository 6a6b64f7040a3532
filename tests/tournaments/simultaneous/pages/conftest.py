"""People and a small field for the pages' tests."""

from __future__ import annotations

import pytest

from tests.tournaments.simultaneous.pages.builders import Field, small_field


@pytest.fixture
def people(make_user) -> dict:
    return {"organiser": make_user("federation"), "stranger": make_user("stranger")}


@pytest.fixture
def field(people) -> Field:
    return small_field(people["organiser"])
