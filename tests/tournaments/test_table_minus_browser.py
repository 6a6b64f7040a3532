"""The table page writes a defender's score as the other pages do: "−68" with the minus sign
(U+2212), in its live preview and in the saved result (its script formats the numbers)."""

from __future__ import annotations

import pytest

from tests.tournaments.test_table_browser import fill_garde, open_table, prepare, sign_in
from tournaments.services.preparation import seats_for_donne
from tournaments.services.table_entry import player_codes_get, table_page_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_table_page_writes_negative_scores_with_a_minus_sign(
    page, live_server, running_tournament, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    seats = seats_for_donne(tr, 0).hands
    codes = player_codes_get(tournament=t)
    open_table(page, table_page_url(table_round=tr))
    sign_in(page, seats["N"], codes[seats["N"].pk])
    fill_garde(page)  # North's garde, 2 bouts, 50 points: +204, and −68 for each defender
    expect(page.locator('#preview tr[data-position="N"] [data-score]')).to_have_text("+204")
    for position in ("E", "S", "W"):
        expect(page.locator(f'#preview tr[data-position="{position}"] [data-score]')).to_have_text(
            "\u221268"
        )
    page.locator("#save").click()
    expect(page.locator('#result-scores tr[data-position="E"] [data-score]')).to_have_text(
        "\u221268"
    )
    assert "-68" not in page.locator("main").inner_text()
