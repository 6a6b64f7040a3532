"""In real Chromium: an arbiter enters a full relais at two tables from the keyboard, sees the
live scores, is refused an impossible poignée, corrects a result with a reason, gives the
100-point penalty, and finds all of it in the ledger."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
from tests.tournaments.test_card_checks import deal, trumps
from tournaments.models import Donne, LedgerEntry, Penalty, Player, Result, TableRound

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def score(page, position: str):
    return page.locator(f'#preview tr[data-position="{position}"] [data-score]')


def keys(page, *presses: str) -> None:
    for key in presses:
        page.keyboard.press(key)


def expect_cell(page, table: int, donne: int) -> None:
    """On the entry page of that cell, with the cursor on the taker (autofocus)."""
    page.wait_for_url(re.compile(rf"/arbiter/table/{table}/donne/{donne}/$"))
    page.wait_for_function("document.activeElement && document.activeElement.name === 'taker'")


def known_hands(t) -> None:
    """Known hands on every donne (the dealt ones depend on the tournament's id): North
    holds the 21 and the Excuse, East 9 trumps (no poignée possible), West the other 11
    trumps."""
    for donne in Donne.objects.filter(tournament=t):
        hands, chien = deal(N=["T21", "EX"], E=trumps(*range(2, 11)))
        Donne.objects.filter(pk=donne.pk).update(
            hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
        )
    assert set(
        TableRound.objects.filter(round__number=1, round__tournament=t).values_list(
            "table__number", "etui_set__number"
        )
    ) == {(1, 1), (2, 2)}


def log_in_and_open_the_first_missing_result(page, t, arbiter) -> None:
    """Through the login page (French), then the dashboard's "next missing result"."""
    page.goto(f"/login/?next={reverse('arbiter_dashboard', args=[t.pk])}")
    page.fill("#id_username", arbiter.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(re.compile(r"/arbiter/$"))
    assert page.locator("html").get_attribute("lang") == "fr"
    page.locator("a.button.primary").first.click()  # the next missing result
    expect_cell(page, 1, 1)


def enter_table_1_round_1(page) -> None:
    """Donnes 1 to 4 at table 1 from the keyboard, a refused poignée on the way."""
    from playwright.sync_api import expect

    # Table 1, donne 1, from the keyboard: North, garde, 2 bouts, 50 points; live scores.
    assert page.evaluate("document.activeElement.id") == "id_taker_N"
    keys(page, "n", "g", "2")
    assert page.evaluate("document.activeElement.id") == "id_points"
    page.keyboard.type("50")
    expect(score(page, "N")).to_have_text("+204")
    expect(score(page, "E")).to_have_text("\u221268")
    expect(page.locator('[data-part="contract"]')).to_have_text("68")
    page.keyboard.press("Enter")
    expect_cell(page, 1, 2)

    # Donne 2: East cannot show a poignée with 9 trumps: shown live, then refused on saving.
    keys(page, "n", "p", "2")
    page.keyboard.type("45")
    page.locator("#id_poignee_E_simple").check()
    expect(page.locator("#preview-errors")).to_be_visible()
    expect(score(page, "N")).to_have_text("—")
    page.locator("button[type=submit][form=result-form]").click()
    expect(page.locator("#errors-poignee_E")).to_be_visible()
    assert "/donne/2/" in page.url
    assert not Result.objects.filter(donne__number=2).exists()
    # West held 11 trumps: his poignée is fine. Prise won by 4: 29 + 20 = 49 per defender.
    page.locator("#id_poignee_E_none").check()
    page.locator("#id_poignee_W_simple").focus()
    page.keyboard.press("1")  # the shortcut for "simple" in West's row
    expect(page.locator("#id_poignee_W_simple")).to_be_checked()
    expect(score(page, "N")).to_have_text("+147")
    page.keyboard.press("Enter")
    expect_cell(page, 1, 3)

    # Donne 3: all passed (0 for everyone): Tab to the contract, 0 goes to Save, Enter.
    keys(page, "Tab", "0")
    expect(score(page, "N")).to_have_text("0")
    assert page.evaluate("document.activeElement.getAttribute('form')") == "result-form"
    page.keyboard.press("Enter")
    expect_cell(page, 1, 4)

    # Donne 4: South, garde sans, 1 bout, 55 points: won by 4, (25 + 4) × 4 = 116.
    keys(page, "s", "s", "1")
    page.keyboard.type("55")
    expect(score(page, "S")).to_have_text("+348")
    page.keyboard.press("Enter")


def enter_table_2_round_1(page) -> None:
    """Donnes 5 to 8 at table 2, each score checked live."""
    from playwright.sync_api import expect

    # Table 2 plays donnes 5 to 8: saving moved on to it.
    expect_cell(page, 2, 5)
    for donne, (taker, contract, bouts, points, expected) in zip(
        range(5, 9),
        [
            ("n", "g", "2", "41", "+150"),  # garde won by 0: 25 × 2 × 3
            ("n", "c", "3", "36", "+450"),  # garde contre, 3 bouts, won by 0: 25 × 6 × 3
            ("n", "p", "2", "40", "\u221278"),  # prise lost by 1
            ("w", "g", "1", "51", "+150"),  # West, 1 bout (the Petit), won by 0
        ],
        strict=True,
    ):
        expect_cell(page, 2, donne)
        keys(page, taker, contract, bouts)
        page.keyboard.type(points)
        expect(score(page, taker.upper())).to_have_text(expected)
        page.keyboard.press("Enter")
    # Round 1 is entered: the chain stops at its end (round 2 is not open), on the dashboard.
    page.wait_for_url(re.compile(r"/arbiter/#round-1$"))


def correct_table_1_donne_1(page) -> None:
    """Through the dashboard's "go to" box; refused without a reason, saved with one."""
    from playwright.sync_api import expect

    # A correction: table 1, donne 1 through the "go to" box; points 35, a reason needed.
    page.fill("#jump-table", "1")
    page.fill("#jump-donne", "1")
    page.keyboard.press("Enter")
    expect_cell(page, 1, 1)
    page.fill("#id_points", "35")
    expect(score(page, "N")).to_have_text("\u2212186")
    page.locator("button[type=submit][form=result-form]").click()
    expect(page.locator("#errors-reason")).to_be_visible()
    assert Result.objects.get(table__number=1, donne__number=1).version == 1
    page.fill("#id_reason", "feuille de marque mal lue")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/arbiter/#round-1$"))  # round 1 has no missing result left
    corrected = Result.objects.get(table__number=1, donne__number=1)
    assert corrected.version == 2 and corrected.scores["N"] == -186


def give_the_early_pickup_penalty(page, t) -> Player:
    """The 100-point penalty to the first player by name, who is returned."""
    from playwright.sync_api import expect

    # The 100-point penalty for picking up the cards early.
    player = Player.objects.filter(registrations__tournament=t).order_by("last_name").first()
    page.goto(reverse("arbiter_penalties", args=[t.pk]))
    page.select_option("#id_player", str(player.pk))
    page.locator('input[name=kind][value="early_pickup"]').check()
    page.locator("#penalty-form button[type=submit]").click()
    expect(page.locator('#penalties tr[data-penalty] td.num:has-text("100")')).to_be_visible()
    assert Penalty.objects.get().points == 100

    return player


def test_arbiter_enters_a_relais_corrects_penalises_and_reads_the_ledger(
    page, running_tournament, personas
):
    from playwright.sync_api import expect

    t = running_tournament
    known_hands(t)
    log_in_and_open_the_first_missing_result(page, t, personas.arbiter)
    enter_table_1_round_1(page)
    enter_table_2_round_1(page)
    assert Result.objects.filter(tournament=t).count() == 8

    # The dashboard: round 1 complete, 8 entered.
    page.goto(reverse("arbiter_dashboard", args=[t.pk]))
    expect(page.locator("#round-1")).to_have_attribute("data-state", "complete")
    assert page.locator('#round-1 a.cell[data-state="entered"]').count() == 8

    correct_table_1_donne_1(page)
    player = give_the_early_pickup_penalty(page, t)

    # The ledger has all of it.
    page.goto(reverse("arbiter_ledger", args=[t.pk]))
    rows = page.locator("#ledger tbody tr")
    expect(rows).to_have_count(10)
    actions = [rows.nth(i).get_attribute("data-action") for i in range(10)]
    assert actions[:2] == ["penalty_given", "result_changed"]
    assert actions[2:].count("result_created") == 8
    ledger = page.locator("#ledger").inner_text()
    assert "feuille de marque mal lue" in ledger
    assert str(player) in ledger
    assert LedgerEntry.objects.filter(tournament=t).count() == 10

    # The history of the corrected result shows both versions.
    page.goto(reverse("arbiter_result", args=[t.pk, 1, 1]))
    history = page.locator("#history li")
    expect(history).to_have_count(2)
    expect(history.nth(1)).to_contain_text("feuille de marque mal lue")
