"""In Chromium, in French: the arbiter's hands read with suit symbols and French ranks, the
scores' parts read with the camp they go to, and numbers use a decimal comma."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
from tests.tournaments.test_card_checks import deal, trumps
from tournaments.models import Donne, Result

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_arbiter_hands_use_suit_symbols_and_french_scores_use_a_comma(
    page, running_tournament, personas
):
    from playwright.sync_api import expect

    t = running_tournament
    for donne in Donne.objects.filter(tournament=t):
        hands, chien = deal(N=["T21", "EX", "SR", "SD", "SC", "SV"], E=trumps(*range(2, 11)))
        Donne.objects.filter(pk=donne.pk).update(
            hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
        )
    entry = reverse("arbiter_result", args=[t.pk, 1, 1])
    page.goto(f"/login/?next={entry}")
    page.fill("#id_username", personas.arbiter.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(re.compile(r"/donne/1/$"))

    page.locator("details.hands summary").click()
    north = page.locator('[data-hand="N"]')
    text = north.inner_text()
    assert text.startswith("Nord")
    assert "♠ R D C V 10" in " ".join(text.replace("pique\u202f:", "").split())
    assert "S:" not in text and "H:" not in text
    assert north.locator(".visually-hidden").first.text_content().startswith("pique")
    assert north.locator("[aria-hidden=true]").first.text_content() == "♠"
    assert page.locator('[data-hand="chien"]').inner_text().startswith("Chien")
    assert page.locator('[data-hand="W"]').inner_text().startswith("Ouest")

    # North, garde, 2 bouts, 40,5 points: lost by 1, (25 + 1) × 2 = 52 for the defence.
    page.locator("#id_taker_N").check()
    page.locator("#id_contract_garde").check()
    page.locator("#id_bouts_2").check()
    page.fill("#id_points", "40,5")
    expect(page.locator('[data-part="contract"]')).to_have_text("52")
    parts = page.locator("#score-parts").inner_text()
    assert "(25 + 1) × 2 = 52 pour la défense" in parts
    assert "Chaque défenseur reçoit 52" in parts
    assert "-52" not in parts
    page.locator("#id_points").press("Enter")
    page.wait_for_load_state()
    for box in page.locator("#warnings input[type=checkbox]").all():
        box.check()  # what the cards make unlikely is confirmed, as an arbiter would
    page.locator("#id_points").press("Enter")
    page.wait_for_url(re.compile(r"/donne/(?!1/)\d+/$"))
    result = Result.objects.get(table__number=1, donne__number=1, tournament=t)
    assert str(result.points) == "40.5"

    page.goto(entry)
    assert page.locator("#id_points").input_value() == "40,5"
    assert "40,5 points" in page.content()

    # English: K Q C J and a decimal point.
    page.get_by_role("button", name="EN", exact=True).click()
    page.wait_for_load_state()
    page.locator("details.hands summary").click()
    text = page.locator('[data-hand="N"]').inner_text()
    assert text.startswith("North: ") and " :" not in text  # English puts no space before ":"
    assert "♠ K Q C J 10" in " ".join(text.replace("spades:", "").split())
    assert "Contract: (25 + 1) × 2 = 52" in page.locator("#score-parts").inner_text()
    assert page.locator("#id_points").input_value() == "40.5"
