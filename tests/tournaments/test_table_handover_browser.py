"""Issue 30, point 1, in real Chromium on a phone (390 × 844, then 320 px wide): North's phone
is bound to North; "Pas North ? Passer le téléphone" lends it to East for one entry, every
default left as the page sets it. Afterwards the phone holds nothing of East's: no binding in
its storage or on the server, its next entry is North's, and it cannot confirm as East."""

from __future__ import annotations

import json

import pytest

from tests.tournaments.test_table_browser import (
    PHONE,
    fill_garde,
    numbers,
    open_table,
    prepare,
    sign_in,
)
from tournaments.models import EntryStatus, PhoneBinding, Result
from tournaments.services.preparation import seats_for_donne
from tournaments.services.table_entry import player_codes_get, table_page_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def saved(page, donne: int) -> None:
    """Wait until the donne's entry is saved and awaits its confirmation."""
    from playwright.sync_api import expect

    tab = page.locator(f'#donne-tabs .tab[data-donne="{donne}"]')
    expect(tab).to_have_attribute("data-status", "awaiting")
    expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")


def test_a_phone_handed_over_with_its_defaults_cannot_act_in_the_borrowers_name(
    page, live_server, running_tournament, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    _first, second, third, fourth = numbers(tr)
    seats = seats_for_donne(tr, 0).hands
    north, east = seats["N"], seats["E"]
    codes = player_codes_get(tournament=t)
    open_table(page, table_page_url(table_round=tr))
    assert page.viewport_size == PHONE

    # North's own phone: the box is not ticked the first time (whoever types a code first on
    # a phone is not always its owner); North ticks it and types his code, once.
    expect(page.locator("#bind")).not_to_be_checked()
    sign_in(page, north, codes[north.pk])
    page.locator("#bind").check()
    fill_garde(page)
    page.locator("#save").click()
    expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")

    # East enters the next donne on North's phone through the page's hand-over, defaults
    # untouched: the box is neither offered nor ticked.
    page.locator(f'#donne-tabs .tab[data-donne="{second}"]').click()
    expect(page.locator("#bound-who")).to_contain_text(str(north))
    page.locator("#unbind").click()
    expect(page.locator("#who-enters")).to_be_visible()
    expect(page.locator("#bind-choice")).to_be_hidden()
    expect(page.locator("#bind")).not_to_be_checked()
    sign_in(page, east, codes[east.pk])
    page.screenshot(path="/tmp/table-handover-390.png", full_page=True)
    fill_garde(page)
    page.locator("#save").click()
    saved(page, second)
    assert Result.objects.get(table=tr.table, donne__number=second).entered_by == east

    # The phone is North's again and holds nothing of East's.
    expect(page.locator("#bound-who")).to_contain_text(str(north))
    kept = json.loads(page.evaluate(f"localStorage.getItem('tarot-table-binding:{t.pk}')"))
    assert kept["player"] == north.pk
    assert not PhoneBinding.objects.filter(player=east).exists()
    assert PhoneBinding.objects.get(player=north, ended_at=None)

    # Its next entry, defaults again, is North's; it can confirm only as North.
    page.locator(f'#donne-tabs .tab[data-donne="{third}"]').click()
    expect(page.locator("#who-enters")).to_be_hidden()
    fill_garde(page)
    page.locator("#save").click()
    saved(page, third)
    assert Result.objects.get(table=tr.table, donne__number=third).entered_by == north
    page.locator(f'#donne-tabs .tab[data-donne="{second}"]').click()
    expect(page.locator("#confirm-as")).to_have_text(
        f"Je confirme ce résultat, en tant que {north}"
    )
    page.locator("#confirm-as").click()  # North confirms East's entry: both truly vouched
    expect(page.locator("#result-status")).to_contain_text("Confirmé")
    done = Result.objects.get(table=tr.table, donne__number=second)
    assert done.entry_status == EntryStatus.CONFIRMED
    assert (done.entered_by, done.confirmed_by) == (east, north)
    assert set(Result.objects.values_list("entered_by", flat=True)) == {north.pk, east.pk}
    assert not Result.objects.filter(donne__number=fourth).exists()

    page.set_viewport_size({"width": 320, "height": 700})
    page.locator(f'#donne-tabs .tab[data-donne="{fourth}"]').click()
    page.locator("#unbind").click()
    expect(page.locator("#bind-choice")).to_be_hidden()
    # Nothing of the hand-over's own controls is wider than the phone.
    wide = page.evaluate(
        """() => [...document.querySelectorAll('#entry-form, #entry-form *')].filter(e =>
             e.offsetParent && e.getBoundingClientRect().right > window.innerWidth).length"""
    )
    assert wide == 0
    page.screenshot(path="/tmp/table-handover-320.png", full_page=True)


def test_a_phone_an_opponent_uses_first_takes_no_binding_by_default(
    page, live_server, running_tournament, settings
):
    """North's phone, never bound, handed to East before North typed anything on it: the box
    is not ticked, so East's entry with its defaults leaves East's binding nowhere."""
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    first = numbers(tr)[0]
    east = seats_for_donne(tr, 0).hands["E"]
    codes = player_codes_get(tournament=t)
    open_table(page, table_page_url(table_round=tr))
    sign_in(page, east, codes[east.pk])
    expect(page.locator("#bind")).not_to_be_checked()
    fill_garde(page)
    page.locator("#save").click()
    saved(page, first)
    assert Result.objects.get(table=tr.table, donne__number=first).entered_by == east
    assert not PhoneBinding.objects.filter(player=east).exists()
    assert page.evaluate(f"localStorage.getItem('tarot-table-binding:{t.pk}')") is None
    page.locator(f'#donne-tabs .tab[data-donne="{numbers(tr)[1]}"]').click()
    expect(page.locator("#who-enters")).to_be_visible()  # the next entry asks for a code again
