"""On a phone (390 × 844) in real Chromium, during the claims window: the table's page of a
closed round offers "Déposer une réclamation"; the player picks the donne, says what is wrong,
gives his name and code and files it; the arbiter then sees it on his claims page and rejects
it, and the tournament's page says the ranking is provisional until the window's end."""

from __future__ import annotations

import re

import pytest

from tests.fixtures.people import PASSWORD
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Claim, Seat
from tournaments.services.table_entry import player_codes_get, table_page_url

from .helpers import cell, close_every_round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
SHOTS = "/tmp/h34claims-shots"


def test_a_player_files_a_claim_from_his_phone_and_the_arbiter_settles_it(
    page, browser, live_server, personas, settings
):
    settings.SITE_URL = live_server.url
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    table, donne, player = cell(t)
    table_round = Seat.objects.get(
        player=player, table_round__table=table, round__number=1
    ).table_round
    code = player_codes_get(tournament=t)[player.pk]

    page.set_viewport_size(PHONE)
    page.goto(table_page_url(table_round=table_round))
    page.locator("#claim-link").click()
    page.wait_for_selector("#claim-form")
    assert page.locator("[data-claims='provisional']").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.select_option("#id_donne", str(donne.number))
    page.locator("input[name='kind'][value='result']").check()
    page.fill("#id_text", "La poignée de Nord n’a pas été comptée")
    page.select_option("#id_player", str(player.pk))
    page.fill("#id_code", code)
    page.screenshot(path=f"{SHOTS}/table-claim.png", full_page=True)
    page.locator("#claim-form button[type=submit]").click()
    page.wait_for_selector("#claim-filed")
    claim = Claim.objects.get()
    assert claim.filed_by == player and claim.donne == donne and claim.is_open

    arbiter = browser.new_context(locale="fr-FR", base_url=live_server.url, viewport=PHONE)
    desk = arbiter.new_page()
    desk.goto(f"/login/?next=/t/{t.pk}/arbiter/claims/")
    desk.fill("#id_username", personas.arbiter.username)
    desk.fill("#id_password", PASSWORD)
    desk.locator("form.card button[type=submit]").click()
    desk.wait_for_url(re.compile(r"/arbiter/claims/$"))
    item = desk.locator(f"article[data-claim='{claim.pk}']")
    assert "poignée de Nord" in item.inner_text()
    item.locator("input[name='state'][value='rejected']").check()
    item.locator("input[name='reason']").fill("Poignée non annoncée : rien à compter")
    desk.screenshot(path=f"{SHOTS}/arbiter-claims.png", full_page=True)
    item.locator("button[type=submit]").click()
    desk.wait_for_selector("#settled-claims")
    claim.refresh_from_db()
    assert claim.state == "rejected" and claim.settled_by == personas.arbiter
    arbiter.close()
