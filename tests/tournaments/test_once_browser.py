"""In real Chromium: a double click on a writing form's button records it once, and the page
shows the outcome of the first copy."""

from __future__ import annotations

import re
import time

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
from tournaments.models import Penalty

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def login(page, user, target: str) -> None:
    page.goto(f"/login/?next={target}")
    page.fill("#id_username", user.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(re.compile(re.escape(target) + "$"))


def test_a_double_click_on_the_penalty_form_gives_one_penalty(
    page, running_tournament, personas, monkeypatch, settings
):
    from playwright.sync_api import expect

    from tournaments.views import arbiter

    # The form's token alone is tested: the service's own check of a penalty repeated within
    # PENALTY_REPEAT_SECONDS (tests/tournaments/test_penalty_repeat.py) is turned off, so each
    # of the three double clicks below records its penalty.
    settings.PENALTY_REPEAT_SECONDS = 0
    real = arbiter.penalty_record

    def slow_penalty_record(**kwargs):
        time.sleep(0.6)  # a busy server: the second click arrives while the first is processed
        return real(**kwargs)

    monkeypatch.setattr(arbiter, "penalty_record", slow_penalty_record)

    t = running_tournament
    player = personas.player_user.player
    target = reverse("arbiter_penalties", args=[t.pk])
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    login(page, personas.arbiter, target)
    tries = 3
    sent = []
    for _ in range(tries):
        posts.clear()
        page.goto(target)
        page.select_option("#id_player", str(player.pk))
        page.locator("#id_kind_0").check()  # early pickup, 100 points
        button = page.locator("#penalty-form button[type=submit]")
        # Two real clicks, the second once the first copy is on its way (an impatient double
        # click on a slow network).
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.click(x, y)
        page.wait_for_timeout(200)
        page.mouse.click(x, y)
        page.wait_for_url(re.compile(re.escape(target) + "$"))
        page.wait_for_load_state("load")
        # The outcome of the first copy, and the note that the form had already been sent.
        expect(page.locator(".messages")).to_contain_text(str(player))
        expect(page.locator(".messages")).to_contain_text("déjà été envoyé")
        sent.append(len([u for u in posts if u.endswith(target)]))
    # Chromium did send the form twice per double click; each double click counts once.
    assert sent == [2] * tries, sent
    assert Penalty.objects.filter(tournament=t).count() == tries
