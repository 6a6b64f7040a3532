"""No critical, serious or moderate axe-core violation on the pages people use, at a laptop's
width and a phone's, with the demo data (a running tournament and a published one)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from scoring.rankings.models import RankingSnapshot
from scoring.rankings.services import ranking_recompute
from tests.a11y.axe import DESKTOP, EVERY_IMPACT, PHONE, violations, violations_at
from tests.fixtures.tournaments import stage_tournament
from tournaments.management.commands.load_demo import DEMO_PASSWORD
from tournaments.models import Penalty, Player, Round, TableRound, Tournament
from tournaments.services.penalties import penalty_give
from tournaments.services.table_entry import table_page_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def log_in(browser: Any, live_server: Any, username: str | None, viewport: dict) -> Any:
    # bypass_csp: axe is injected as an inline script, which the site's policy forbids.
    context = browser.new_context(
        locale="fr-FR", base_url=live_server.url, viewport=viewport, bypass_csp=True
    )
    page = context.new_page()
    page.set_default_timeout(15_000)
    if username:
        page.goto("/login/")
        page.fill("#id_username", username)
        page.fill("#id_password", DEMO_PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.wait_for_load_state("networkidle")
    return page


def demo_pages() -> dict[str | None, list[str]]:
    """Paths per persona (None: a visitor without an account)."""
    running = Tournament.objects.get(name="Tournoi de démonstration")
    # The players' table page exists while a round is open.
    Round.objects.filter(tournament=running, number=1).update(state=Round.State.OPEN)
    table_round = TableRound.objects.filter(round__tournament=running, round__number=1).first()
    table_page = urlsplit(table_page_url(table_round=table_round)).path
    past = Tournament.objects.get(name="Tournoi d'automne")
    player = Player.objects.get(user__username="joueur")
    club = running.club_id
    return {
        None: [
            "/",
            f"/t/{past.pk}/",
            f"/t/{past.pk}/ranking/",
            f"/t/{past.pk}/ranking/{player.pk}/",
            f"/t/{past.pk}/donnes/",
            f"/t/{past.pk}/donnes/1/",
            f"/t/{past.pk}/verify/",
            "/login/",
            "/signup/",
            "/players/",
            "/clubs/",
            "/aide/",
            "/aide/organiser/",
            "/aide/arbitrer/",
            "/aide/joueurs/",
            f"/t/{running.pk}/seats/?q=arnaud",
            f"/t/{running.pk}/screen/",
            table_page,
            "/table/",
        ],
        "joueur": [f"/t/{running.pk}/", f"/t/{running.pk}/ranking/", "/account/"],
        "arbitre": [
            f"/t/{running.pk}/arbiter/",
            f"/t/{running.pk}/arbiter/table/1/donne/1/",
            f"/t/{running.pk}/arbiter/penalties/",
            f"/t/{running.pk}/arbiter/ledger/",
            f"/t/{running.pk}/arbiter/tables/",
        ],
        "organisateur": [
            "/organiser/",
            f"/organiser/clubs/{club}/players/",
            f"/t/{running.pk}/edit/",
            f"/t/{running.pk}/registrations/",
            f"/t/{running.pk}/prepare/",
            f"/t/{running.pk}/seating/",
            f"/t/{running.pk}/documents/",
        ],
    }


def test_no_blocking_violation_on_the_demo_pages(browser, live_server, axe_source):
    """Every demo page at a phone's width and at a laptop's: loaded once at the first, audited,
    resized to the second and audited again (tests/a11y/axe.py, on widths)."""
    call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    found: list[str] = []
    for persona, paths in demo_pages().items():
        page = log_in(browser, live_server, persona, PHONE)
        try:
            for path in paths:
                response = page.goto(path)
                assert response is not None and response.ok, (path, response and response.status)
                # "load", not "networkidle": the room's screen and the ranking poll forever.
                page.wait_for_load_state("load")
                page.wait_for_timeout(300)
                found += violations_at(page, axe_source, [PHONE, DESKTOP])
        finally:
            page.context.close()
    assert found == [], "\n".join(found)


NARROW = {"width": 320, "height": 640}
MISSING_DESCRIPTIONS = """() => [...document.querySelectorAll('[aria-describedby]')].flatMap(e =>
    e.getAttribute('aria-describedby').split(/\\s+/).filter(id => !document.getElementById(id))
     .map(id => (e.id || e.name) + ' -> ' + id))"""


def test_no_blocking_violation_in_the_states_of_the_touched_pages(browser, live_server, axe_source):
    """The pages of issue 25 at a phone's width and at 320 px, in the states a check of the page
    as loaded misses: a refused penalty, a refused table entry, the confirmation step and the
    offline notice of the table page. Each state is audited at both widths (driven at 320 px,
    the narrower, and resized to 390 px for the second audit: tests/a11y/axe.py, on widths)."""
    widths = [NARROW, PHONE]
    call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    pages = demo_pages()
    running = Tournament.objects.get(name="Tournoi de démonstration")
    found: list[str] = []
    page = log_in(browser, live_server, "arbitre", NARROW)
    try:
        for path in ("/", *pages["arbitre"]):
            page.goto(path)
            page.wait_for_load_state("load")
            found += violations_at(page, axe_source, widths)
        page.goto(f"/t/{running.pk}/arbiter/penalties/")
        page.locator("#penalty-form button[type=submit]").click()
        page.wait_for_selector("#penalty-form .errorlist")
        assert page.evaluate(MISSING_DESCRIPTIONS) == []
        found += violations_at(page, axe_source, widths)
        # Given: the flash message is a list inside a status region, not a list made a status.
        page.locator("#penalty-form select[name=player]").select_option(index=1)
        page.locator('#penalty-form input[name=kind][value="warning"]').check()
        page.locator("#penalty-form button[type=submit]").click()
        page.wait_for_selector(".messages li")
        assert page.locator('div.messages[role="status"] > ul > li').count() >= 1
        assert page.locator("ul[role]").count() == 0
        found += violations_at(page, axe_source, widths)
    finally:
        page.context.close()
    page = log_in(browser, live_server, "organisateur", NARROW)
    try:
        page.goto("/organiser/")
        found += violations_at(page, axe_source, widths)
    finally:
        page.context.close()

    table = next(p for p in pages[None] if p.startswith("/table/") and p != "/table/")
    page = log_in(browser, live_server, None, NARROW)
    try:
        page.goto(table)
        page.wait_for_selector("#donne-tabs .tab")
        found += violations_at(page, axe_source, widths)
        # A refused entry: a name without its code.
        page.locator("#player").select_option(index=1)
        page.locator('input[name="contract"][value="all_passed"]').check()
        page.locator("#save").click()
        page.wait_for_selector('#entry-code[aria-invalid="true"]')
        assert page.evaluate(MISSING_DESCRIPTIONS) == []
        found += violations_at(page, axe_source, widths)
        page.context.set_offline(True)
        page.wait_for_selector("#net.off")
        found += violations_at(page, axe_source, widths)
        page.context.set_offline(False)
    finally:
        page.context.close()
    assert found == [], "\n".join(found)


def widen_demo() -> dict[str, Any]:
    """The demo, made as wide as a club's: a penalty in each tournament (the ranking gets its
    "Total" column, the penalties page its list), a player of a 56-character name, and a
    tournament of 13 players (tables of five) organised by the demo's organiser."""
    call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    running = Tournament.objects.get(name="Tournoi de démonstration")
    past = Tournament.objects.get(name="Tournoi d'automne")
    arbiter = get_user_model().objects.get(username="arbitre")
    players = list(Player.objects.filter(registrations__tournament=past).order_by("pk")[:3])
    long_name = players[2]
    long_name.first_name, long_name.last_name = "Marie-Bernadette", LONG_LAST_NAME
    long_name.save()
    # The published tournament's penalty, as an arbiter gave it before publication.
    Penalty.objects.create(
        tournament=past,
        player=players[0],
        kind="other",
        points=1000,
        reason="Test",
        given_by=arbiter,
    )
    RankingSnapshot.objects.filter(tournament=past).delete()
    ranking_recompute(tournament_id=past.pk)
    penalty_give(
        tournament=running,
        player=players[1],
        kind="other",
        user=arbiter,
        points=1000,
        reason="Cartes relevées trop tôt pendant la donne",
    )
    # a warning: 0 point, which French writes in the singular
    penalty_give(tournament=running, player=players[2], kind="warning", user=arbiter)
    # 13 players over 3 rounds: tables of five, the seating plan's widest routes table
    five = stage_tournament(players=13, rounds=3, name="Tournoi à treize")
    five.club.organisers.add(get_user_model().objects.get(username="organisateur"))
    return {"running": running, "past": past, "club": running.club_id, "five": five}


LONG_LAST_NAME = "de La Tour-Saint-Maximilien-Montgolfier"


def test_no_violation_at_all_on_the_pages_of_issue_31(browser, live_server, axe_source):
    """Issue 31.9: not even a minor one (an empty table header) on the organiser's pages, the
    registrations, the penalties, the seating plan, the ledger and the ranking with penalties;
    no table scrolled in a box the keyboard cannot reach. At 320, 390 and 1280 px, each page
    loaded once and resized (tests/a11y/axe.py, on widths)."""
    widths = [{"width": width, "height": 800} for width in (320, 390, 1280)]
    demo = widen_demo()
    running, past, club = demo["running"], demo["past"], demo["club"]
    pages = {
        None: [f"/t/{past.pk}/ranking/", "/aide/", "/aide/organiser/"],
        "arbitre": [
            f"/t/{running.pk}/arbiter/penalties/",
            f"/t/{past.pk}/arbiter/table/1/donne/1/",
            f"/t/{past.pk}/arbiter/ledger/",
        ],
        "organisateur": [
            "/organiser/",
            f"/organiser/clubs/{club}/accounts/",
            f"/organiser/clubs/{club}/players/",
            f"/t/{running.pk}/registrations/",
            f"/t/{past.pk}/registrations/",
            f"/t/{running.pk}/seating/",
            f"/t/{past.pk}/seating/",
            f"/t/{demo['five'].pk}/seating/",
        ],
    }
    found: list[str] = []
    for persona, paths in pages.items():
        page = log_in(browser, live_server, persona, widths[0])
        try:
            for path in paths:
                page.goto(path)
                page.wait_for_load_state("load")
                found += violations_at(page, axe_source, widths, EVERY_IMPACT)
        finally:
            page.context.close()
    assert found == [], "\n".join(found)


def test_no_violation_at_all_on_a_simultaneous_events_pages_at_a_phones_width(
    browser, live_server, axe_source
):
    """The hub's traveller lists every table of the field in 7 columns: at 320 px it scrolls in
    its own box, which the keyboard reaches (a labelled region), as every other of its pages.
    At 320 and 390 px, each page loaded once and resized (tests/a11y/axe.py, on widths)."""
    from tests.tournaments.simultaneous.pages.builders import small_field
    from tournaments.simultaneous.hub import services

    call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    organiser = get_user_model().objects.get(username="organisateur")
    field = small_field(organiser, name="Simultané d’hiver")
    services.event_close(event=field.event, user=organiser)
    event = f"/simultanes/{field.event.public_id}/"
    found: list[str] = []
    page = log_in(browser, live_server, "organisateur", {"width": 320, "height": 800})
    try:
        for path in ("/simultanes/", event, f"{event}classement/", f"{event}donnes/1/"):
            page.goto(path)
            page.wait_for_load_state("load")
            for width in (320, 390):
                page.set_viewport_size({"width": width, "height": 800})
                fits = page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
                assert fits, (path, width)
                found += [f"@{width}px {v}" for v in violations(page, axe_source, EVERY_IMPACT)]
            page.set_viewport_size({"width": 320, "height": 800})
    finally:
        page.context.close()
    assert found == [], "\n".join(found)
