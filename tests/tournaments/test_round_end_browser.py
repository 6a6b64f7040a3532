"""In real Chromium, on a phone (390x844) and a desk screen (1280): the arbiter's entry chain
stops at the end of its round (issue 30.8). Enter on the round's last cell saves it and
goes back to the dashboard, which says the round is entered; the next round's cell says it
has not started, and Enter there sends nothing: it moves to the round's "open" button."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
from tests.tournaments.test_round_not_open import PASSED, cells, save
from tournaments.models import Result, Round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_the_entry_chain_stops_at_the_end_of_the_round(
    page, running_tournament, personas, width, height, tmp_path
):
    from playwright.sync_api import expect

    assert PASSED.status == "all_passed"
    t = running_tournament
    page.set_viewport_size({"width": width, "height": height})
    round_1 = cells(t, 1)
    for cell in round_1[:-1]:
        save(t, personas.arbiter, cell)
    last = reverse("arbiter_result", args=[t.pk, *round_1[-1]])
    page.goto(f"/login/?next={last}")
    page.fill("#id_username", personas.arbiter.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(re.compile(re.escape(last) + "$"))

    # "All passed", then Enter on the radio: saved, and back to the dashboard at round 1.
    radio = page.locator("input[name=contract][value=all_passed]")
    radio.check()
    radio.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/arbiter/#round-1$"))
    expect(page.get_by_text("Tous les résultats du tour 1 sont saisis.")).to_be_visible()
    assert Result.objects.filter(tournament=t).count() == len(round_1)
    assert Round.objects.get(tournament=t, number=2).state == Round.State.PENDING
    page.screenshot(path=str(tmp_path / f"dashboard-{width}.png"), full_page=True)

    # Round 2's first cell: the page says why, and Enter sends nothing.
    later = reverse("arbiter_result", args=[t.pk, *cells(t, 2)[0]])
    page.goto(later)
    notice = page.locator("#round-not-started")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Le tour 2 n’a pas commencé")
    assert page.locator("button[accesskey=s]").count() == 0
    radio = page.locator("input[name=contract][value=all_passed]")
    radio.check()
    radio.focus()
    page.keyboard.press("Enter")
    expect(notice.locator("button[type=submit]")).to_be_focused()
    assert page.url.endswith(later)
    assert Result.objects.filter(tournament=t).count() == len(round_1)
    fits = page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert fits, "the notice makes the page wider than the screen"
    page.screenshot(path=str(tmp_path / f"not-started-{width}.png"), full_page=True)

    # Opening it asks for the confirmation first.
    notice.locator("button[type=submit]").click()
    expect(page.locator("#round-open-confirm")).to_be_visible()
    assert Round.objects.get(tournament=t, number=2).state == Round.State.PENDING
