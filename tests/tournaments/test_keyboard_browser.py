"""In real Chromium, with real key presses: after a warning the cursor is on the box to
confirm; letters typed in a text field stay text; the Alt shortcuts reach their fields."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
from tests.tournaments.test_card_checks import deal, trumps
from tournaments.models import Donne, Result

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def active(page) -> str:
    return page.evaluate("document.activeElement ? document.activeElement.id : ''")


def checked(page, name: str) -> str | None:
    return page.evaluate(
        f"(document.querySelector('input[name={name}]:checked') || {{}}).value || null"
    )


def test_keyboard_flow_of_the_entry_form(page, running_tournament, personas):
    from playwright.sync_api import expect

    t = running_tournament
    for donne in Donne.objects.filter(tournament=t):
        hands, chien = deal(N=["T21", "EX"], E=trumps(*range(2, 11)))
        Donne.objects.filter(pk=donne.pk).update(
            hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
        )
    entry = reverse("arbiter_result", args=[t.pk, 1, 1])
    page.goto(f"/login/?next={entry}")
    page.fill("#id_username", personas.arbiter.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(re.compile(re.escape(entry) + "$"))
    page.wait_for_function("document.activeElement && document.activeElement.name === 'taker'")

    # North, garde, 2 bouts; then letters typed in the points field stay in the field.
    for key in ("n", "g", "2"):
        page.keyboard.press(key)
    assert active(page) == "id_points"
    page.keyboard.type("50,5ngo")
    assert page.input_value("#id_points") == "50,5ngo"
    assert (checked(page, "taker"), checked(page, "contract")) == ("N", "garde")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")

    # Alt shortcuts: away to the jump box and back to the points.
    page.keyboard.press("Alt+J")
    assert active(page) == "jump-table"
    page.keyboard.type("2e")  # a number field: no shortcut either
    assert (checked(page, "taker"), checked(page, "contract")) == ("N", "garde")
    page.keyboard.press("Alt+P")
    assert active(page) == "id_points"
    assert page.input_value("#id_points") == "50,5"

    # A half point at four players needs a confirmation: the cursor goes to its box.
    page.keyboard.press("Enter")
    expect(page.locator("#needs-confirmation")).to_be_visible()
    page.wait_for_function("document.activeElement && document.activeElement.name === 'confirm'")
    assert active(page) == "confirm-half_point"
    assert not Result.objects.exists()
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/table/1/donne/2/$"))
    assert Result.objects.get().confirmed_warnings == ["half_point"]

    # Alt+S saves, from anywhere.
    for key in ("e", "p", "1"):
        page.keyboard.press(key)
    page.keyboard.type("40")
    page.keyboard.press("Alt+S")
    page.wait_for_url(re.compile(r"/table/1/donne/3/$"))
    assert Result.objects.count() == 2
