"""In real Chromium (issue 31.3): after an entry the arbiter's form refuses, the cursor is on
the field at fault, not back on the taker."""

from __future__ import annotations

import pytest

from tests.tournaments.test_arbiter_browser import (
    expect_cell,
    keys,
    known_hands,
    log_in_and_open_the_first_missing_result,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_refused_entry_puts_the_cursor_on_the_field_at_fault(page, running_tournament, personas):
    from playwright.sync_api import expect

    t = running_tournament
    known_hands(t)
    log_in_and_open_the_first_missing_result(page, t, personas.arbiter)
    keys(page, "n", "g", "2")
    assert page.evaluate("document.activeElement.id") == "id_points"
    page.keyboard.type("95")  # more than 91: refused by the form
    page.keyboard.press("Enter")
    expect(page.locator("#errors-points")).to_be_visible()
    page.wait_for_function("document.activeElement && document.activeElement.id === 'id_points'")
    assert page.locator("#id_taker_N").is_checked()

    # Corrected there and saved: the next cell starts on the taker again.
    page.fill("#id_points", "50")
    page.keyboard.press("Enter")
    expect_cell(page, 1, 2)
