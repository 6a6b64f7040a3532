"""In real Chromium (issue 34): a player calls the arbiter from his phone at 390 × 844, first
without a connection (the call waits on the phone, then goes once); the arbiter's dashboard
shows it in its live panel with the count in its title, he takes it and rules a penalty; the
table's page shows the ruling."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
from tests.tournaments.test_table_browser import (
    numbers,
    open_table,
    prepare,
    wait_until_kept_offline,
)
from tournaments.models import ArbiterCall, Penalty
from tournaments.services.preparation import seats_for_donne
from tournaments.services.table_entry import player_codes_get, table_page_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path("/tmp/h34calls-shots")


def test_a_call_from_a_phone_reaches_the_arbiter_who_rules_and_the_table_sees_it(
    page, browser, live_server, running_tournament, personas, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    first = numbers(tr)[0]
    seats = seats_for_donne(tr, 0).hands
    north, west = seats["N"], seats["W"]
    open_table(page, table_page_url(table_round=tr))
    wait_until_kept_offline(page)

    # The arbiter's dashboard is open on a laptop.
    laptop = browser.new_context(locale="fr-FR", base_url=live_server.url)
    arbiter = laptop.new_page()
    arbiter.goto(f"/login/?next={reverse('arbiter_dashboard', args=[t.pk])}")
    arbiter.fill("#id_username", personas.arbiter.username)
    arbiter.fill("#id_password", PASSWORD)
    arbiter.locator("form.card button[type=submit]").click()
    arbiter.wait_for_url(re.compile(r"/arbiter/$"))
    expect(arbiter.locator("#calls-none")).to_be_visible()

    # North calls without a connection: the call waits on his phone.
    page.context.set_offline(True)
    page.locator("#call-button").click()
    page.select_option("#call-player", str(north.pk))
    page.fill("#call-code", player_codes_get(tournament=t)[north.pk])
    page.select_option("#call-donne", str(first))
    page.locator('#call-kinds input[value="carte_exposee"]').check()
    page.fill("#call-trick", "4")
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "call-form.png"), full_page=True)
    page.locator("#call-send").click()
    expect(page.locator("#call-queue")).to_contain_text("Gardé sur ce téléphone")
    assert not ArbiterCall.objects.exists()

    page.context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(page.locator("#call-list li")).to_have_count(1, timeout=15_000)
    assert ArbiterCall.objects.count() == 1
    call = ArbiterCall.objects.get()
    assert call.phone_time is not None and call.called_by == north and call.trick == 4

    # The arbiter sees it within seconds, the count in the title; takes it, rules it.
    row = arbiter.locator(f'#calls-list li[data-call="{call.pk}"]')
    expect(row).to_be_visible(timeout=5_000)
    expect(row).to_contain_text("Carte exposée")
    expect(arbiter).to_have_title(re.compile(r"^\(1\) "))
    arbiter.screenshot(path=str(SHOTS / "dashboard.png"))
    row.locator("button").click()
    expect(row.locator(".badge.state-en_route")).to_be_visible()
    expect(page.locator("#call-list li")).to_contain_text("Arbitre en route", timeout=10_000)
    row.locator(f"#rule-{call.pk}").click()
    arbiter.locator('input[name="ruling"][value="penalty"]').check()
    arbiter.select_option("#id_player", str(west.pk))
    arbiter.locator('input[name="kind"][value="early_pickup"]').check()
    arbiter.locator("#rule-send").click()
    expect(arbiter.locator("#call-ruling")).to_contain_text("Pénalité")
    assert Penalty.objects.get().player == west

    # The table's page shows the call closed with the ruling.
    expect(page.locator("#call-list li")).to_contain_text("Tranché", timeout=10_000)
    expect(page.locator("#call-list li")).to_contain_text("Décision : Pénalité")
    page.screenshot(path=str(SHOTS / "table-ruled.png"), full_page=True)
    laptop.close()


def test_the_dashboard_ages_calls_by_the_servers_clock(
    page, live_server, running_tournament, personas, settings
):
    """The arbiter's laptop clock is ten minutes ahead: a call made a few seconds ago is
    still a few seconds old on his dashboard, not ten minutes."""
    import datetime

    from playwright.sync_api import expect

    from tests.tournaments.calls.conftest import call

    t = running_tournament
    settings.SITE_URL = live_server.url
    prepare(t)
    made = call(t)
    page.clock.set_system_time(datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=10))
    page.goto(f"/login/?next={reverse('arbiter_dashboard', args=[t.pk])}")
    page.fill("#id_username", personas.arbiter.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(re.compile(r"/arbiter/$"))
    age = page.locator(f'#calls-list li[data-call="{made.pk}"] .call-age')
    expect(age).to_have_text(re.compile(r"^\d+ s$"), timeout=5_000)
    page.wait_for_timeout(1500)  # a tick or two of the page's own clock
    assert "min" not in age.inner_text()
