"""One validation checks the cards once: the table page's preview and its save each call
`checks.card_checks` one time (the real function, counted)."""

from __future__ import annotations

import pytest

from tests.tournaments.test_table_entry import (
    EN,
    GARDE_N,
    _donnes,
    _url,
    code_of,
    first_donne,
    holders,
    table_round,
)
from tests.tournaments.test_table_entry import t as t
from tournaments.services import checks
from tournaments.services.table_entry import table_access_issue

pytestmark = pytest.mark.django_db


@pytest.fixture
def counted(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = checks.card_checks

    def card_checks(**kwargs):
        calls.append(1)
        return real(**kwargs)

    monkeypatch.setattr(checks, "card_checks", card_checks)
    return calls


def test_the_table_page_checks_the_cards_once_per_validation(t, client, counted):
    access = table_access_issue(table_round=table_round(t))
    first = _donnes(t)[0]
    north = holders(t, 1, first_donne(t))["N"]
    body = GARDE_N | {"player": north.pk, "code": code_of(t, north)}
    assert client.post(_url("table_preview", access, first), GARDE_N, **EN).status_code == 200
    assert len(counted) == 1
    assert client.post(_url("table_save", access, first), body, **EN).status_code == 200
    assert len(counted) == 2
