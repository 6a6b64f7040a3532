"""In real Chromium, in French, on a phone (390×844): the organiser registers players by
ticking them and by pasting a list (a bad line reported, nothing saved), and the arbiter
closes a round by annulling what it misses, giving the reason and confirming."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model

from tests.fixtures.tournaments import make_players, stage_tournament
from tournaments.models import Registration, Result, Round, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "tarot-secret-42"
# SCREENSHOT_DIR=/tmp/x keeps screenshots of the steps to look at.
SHOTS = os.environ.get("SCREENSHOT_DIR", "")


def shot(page, name: str, full_page: bool = True) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=full_page)


def log_in(page, username: str, next_url: str) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/login/?next={next_url}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(f"**{next_url}")


def test_registering_by_ticking_and_pasting_on_a_phone(page, live_server):
    organiser = get_user_model().objects.create_user("orga", password=PASSWORD)
    t = stage_tournament(players=8, status=Tournament.Status.REGISTRATION)
    t.club.organisers.add(organiser)
    a, b, c = make_players(t.club, 3, start=500)
    url = f"/t/{t.pk}/registrations/"
    log_in(page, "orga", url)

    page.locator(f"#register-tick input[name=players][value='{a.pk}']").check()
    page.locator(f"#register-tick input[name=players][value='{b.pk}']").check()
    shot(page, "register-tick")
    page.locator("#register-ticked").click()
    page.wait_for_url(f"**{url}")
    assert "2 joueurs inscrits." in page.content()
    assert Registration.objects.filter(tournament=t, player__in=[a, b]).count() == 2

    page.locator("#register-paste summary").click()
    page.fill("#register-paste textarea", f"{c.licence}\nPersonne Inconnue")
    page.locator("#register-pasted").click()
    problems = page.locator("#bulk-problems li")
    assert problems.count() == 1
    assert "Ligne 2" in problems.first.inner_text()
    assert "aucun joueur ne porte ce nom" in problems.first.inner_text()
    shot(page, "register-paste-error")
    assert not Registration.objects.filter(tournament=t, player=c).exists()
    # The pasted text is kept: correct the bad line and send again.
    page.fill("#register-paste textarea", c.licence)
    page.locator("#register-pasted").click()
    page.wait_for_url(f"**{url}")
    assert Registration.objects.filter(tournament=t, player=c).exists()


def test_closing_a_round_by_annulling_what_is_missing_on_a_phone(page, live_server):
    arbiter = get_user_model().objects.create_user("arbitre", password=PASSWORD)
    t = stage_tournament(players=8)
    t.arbiters.add(arbiter)
    Round.objects.filter(tournament=t, number=1).update(state="open")
    url = f"/t/{t.pk}/arbiter/"
    log_in(page, "arbitre", url)

    block = page.locator("#round-1 [data-testid=missing-cells]")
    assert block.locator("li").count() == 8
    assert "Table 1, donne 1 — aucun résultat saisi" in block.inner_text()
    page.locator("#annul-reason-1").fill("La table a manqué de temps")
    # Without the confirmation box the browser does not send the form.
    block.locator("button.danger").click()
    assert Round.objects.get(tournament=t, number=1).state == "open"
    block.locator("input[name=confirm]").check()
    block.locator("input[name=confirm]").scroll_into_view_if_needed()
    shot(page, "close-annulling", full_page=False)
    block.locator("button.danger").click()
    page.wait_for_selector("#round-1[data-state=closed]")
    assert Round.objects.get(tournament=t, number=1).state == "closed"
    assert Result.objects.filter(tournament=t, status="annulled").count() == 8
