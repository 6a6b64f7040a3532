"""In real Chromium (issue 31.3): after an entry the arbiter's form refuses, the cursor is on
the field at fault, not back on the taker."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
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


def test_a_cell_awaiting_the_table_is_confirmed_as_entered_from_its_page(
    page, running_tournament, personas
):
    from playwright.sync_api import expect

    from tests.tournaments.test_results_service import GARDE_WON
    from tests.tournaments.test_table_entry import by_code, first_donne, holders, table_round
    from tournaments.models import EntryStatus, Result
    from tournaments.services.table_entry import table_access_issue, table_entry_save

    t = running_tournament
    known_hands(t)
    access = table_access_issue(table_round=table_round(t, 1))
    donne = first_donne(t, 1)
    table_entry_save(
        access=access,
        donne_number=donne,
        data=GARDE_WON,
        voucher=by_code(t, holders(t, 1, donne)["N"]),
        expected_version=None,
    )
    page.goto(f"/login/?next={reverse('arbiter_result', args=[t.pk, 1, donne])}")
    page.fill("#id_username", personas.arbiter.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(f"**/arbiter/table/1/donne/{donne}/")
    box = page.locator("#table-entry")
    expect(box.locator("h2")).to_have_text("En attente de la confirmation de la table")
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 844})
        page.screenshot(path=f"/tmp/arbiter-awaiting-{width}.png", full_page=True)
    box.get_by_role("button", name="Confirmer tel que saisi").click()
    page.wait_for_url(f"**/arbiter/table/1/donne/{donne}/")
    expect(page.locator("#table-entry")).to_have_count(0)
    assert Result.objects.get(table=access.table_round.table, donne__number=donne).entry_status == (
        EntryStatus.ARBITER
    )
