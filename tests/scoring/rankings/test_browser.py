"""On a phone (390 px wide), in French, in real Chromium: a player follows the live ranking,
which updates without a reload when the arbiter saves a result, and reads his score card
with its chart."""

from __future__ import annotations

import pytest

from tests.fixtures.people import PASSWORD
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.helpers import enter, schedule, tables_playing
from tournaments.models import Player, Seat

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def play_everywhere(tournament, donne: int, arbiter) -> None:
    """Results of the donne at every table scheduled to play it, unlike each other."""
    for index, table in enumerate(tables_playing(tournament, donne)):
        enter(tournament, table, donne, arbiter, points=40 + 25 * index)


def test_player_follows_the_live_ranking_on_a_phone(page, personas, settings):
    settings.RANKING_POLL_SECONDS = 1
    tournament = stage_tournament(personas=personas)
    me = Player.objects.get(user=personas.player_user)
    my_table = Seat.objects.get(player=me, round__number=1).table_round.table.number
    cells = [(t, d) for r, t, d in schedule(tournament) if (r, t) == (1, my_table)]
    # the room's ranking counts a donne once both tables have played it (RULES §6.1)
    play_everywhere(tournament, cells[0][1], personas.arbiter)

    page.set_viewport_size(PHONE)
    polls: list[tuple[str | None, int]] = []  # the script's: (If-None-Match, status)
    page.on(
        "response",
        lambda response: (
            "/ranking/" in response.url
            and polls.append((response.request.headers.get("if-none-match"), response.status))
        ),
    )
    page.goto(f"/login/?next=/t/{tournament.pk}/ranking/")
    page.fill("#id_username", personas.player_user.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(f"**/t/{tournament.pk}/ranking/")

    live = page.locator("#ranking-live")
    assert page.locator("html").get_attribute("lang") == "fr"
    assert live.get_attribute("data-version") == "2"
    assert "après 1 donne complète sur 8" in live.inner_text()
    assert page.locator("table.ranking tbody tr").count() == 8
    assert page.locator("table.ranking tr.me").count() == 1
    assert no_horizontal_scroll(page)
    page.evaluate("window.__sameDocument = 'yes'")

    play_everywhere(tournament, cells[1][1], personas.arbiter)  # the arbiter saves results
    page.wait_for_selector("#ranking-live[data-version='4']", timeout=10_000)
    assert "après 2 donnes complètes sur 8" in live.inner_text()
    assert page.evaluate("window.__sameDocument") == "yes"  # updated in place, no reload
    assert live.locator("[data-state=current]").count() == 1
    # then the script asks with the ETag of the fragment it merged: 304, nothing to merge
    page.wait_for_timeout(3_500)
    merged = max(k for k, (_tag, status) in enumerate(polls) if status == 200)
    after = polls[merged + 1 :]
    assert len(after) >= 2 and all(status == 304 for _tag, status in after), polls
    assert all(tag and tag.startswith('W/"') for tag, _status in after), polls
    assert live.get_attribute("data-version") == "4"

    page.locator("table.ranking tr.me a").click()
    page.wait_for_url(f"**/t/{tournament.pk}/ranking/{me.pk}/")
    chart = page.locator("#running-total svg")
    assert chart.is_visible()
    assert chart.bounding_box()["width"] <= PHONE["width"]
    assert no_horizontal_scroll(page)
    assert me.full_name in page.locator("h1").inner_text()


def test_live_update_keeps_focus_on_the_row_announces_it_and_can_be_paused(
    page, personas, settings
):
    """A keyboard user on a ranking row keeps his place when a result arrives: only the
    changed rows are updated, in place; a polite live region says what changed; the pause
    button stops the updates until resumed."""
    from playwright.sync_api import expect

    settings.RANKING_POLL_SECONDS = 1
    tournament = stage_tournament(personas=personas)
    cells = [(t, d) for r, t, d in schedule(tournament) if r == 1]
    play_everywhere(tournament, cells[0][1], personas.arbiter)

    page.goto(f"/login/?next=/t/{tournament.pk}/ranking/")
    page.fill("#id_username", personas.player_user.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(f"**/t/{tournament.pk}/ranking/")
    live = page.locator("#ranking-live")
    assert live.get_attribute("data-version") == "2"

    last_row = page.locator("table.ranking tbody tr").last
    focused_player = last_row.get_attribute("data-p")
    last_row.locator("a").focus()
    page.evaluate("window.__table = document.querySelector('table.ranking')")

    play_everywhere(tournament, cells[1][1], personas.arbiter)  # the arbiter saves results
    page.wait_for_selector("#ranking-live[data-version='4']", timeout=10_000)
    focus = page.evaluate(
        "() => { const a = document.activeElement; const tr = a && a.closest('tr');"
        " return {tag: a.tagName, player: tr && tr.dataset.p,"
        " inTable: !!tr && tr.closest('table') === window.__table}; }"
    )
    assert focus == {"tag": "A", "player": focused_player, "inTable": True}
    news = page.locator("#ranking-news")
    assert news.get_attribute("aria-live") == "polite"
    # A locator's wait, not wait_for_function: the page's CSP forbids the eval that
    # wait_for_function's polling needs when the text is not there at the first look.
    expect(news).to_contain_text("Classement mis à jour", timeout=10_000)

    pause = page.locator("#ranking-pause")
    pause.click()
    assert pause.get_attribute("aria-pressed") == "true"
    enter(tournament, *cells[2], personas.arbiter, points=45)
    page.wait_for_timeout(2_500)  # two poll periods: nothing is fetched while paused
    assert live.get_attribute("data-version") == "4"
    pause.click()
    assert pause.get_attribute("aria-pressed") == "false"
    page.wait_for_selector("#ranking-live[data-version='5']", timeout=10_000)
