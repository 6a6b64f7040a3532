"""In Chromium: a phone without an account finds its seat and reads the live ranking; the
room's screen counts down, turns the ranking's pages and picks up a new result by itself."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from tests.scoring.rankings.helpers import enter, tables_playing
from tournaments.models import Round, Seat, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_anonymous_phone_finds_its_seat_and_reads_the_live_ranking(
    browser, live_server, running_tournament, personas
):
    t = running_tournament
    player = Seat.objects.filter(round__tournament=t).order_by("pk").first().player
    player.first_name, player.last_name = "Hélène", "Lefèvre"
    player.save()
    first = tables_playing(t, 1)
    for table in first:
        enter(t, table, 1, personas.arbiter, points=40 + 10 * table)

    context = browser.new_context(
        locale="fr-FR", base_url=live_server.url, viewport={"width": 390, "height": 844}
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        page.goto(f"/t/{t.pk}/")
        page.get_by_role("link", name="Où suis-je assis\u202f?").click()
        page.wait_for_load_state("load")  # htmx listens once its script has run
        page.get_by_role("searchbox").fill("helene lefevre")
        route = page.locator(".seat-route")
        route.wait_for()
        assert "Hélène Lefèvre" in route.locator("h2").inner_text()
        for seat in Seat.objects.filter(player=player).select_related("table_round__table"):
            row = route.locator(f'tr[data-round="{seat.round.number}"]')
            assert row.locator(".seat-table").inner_text() == str(seat.table_round.table.number)
            assert row.locator(".seat-position").inner_text() == seat.get_position_display()

        page.get_by_role("link", name="Classement en direct").click()
        page.wait_for_url(f"**/t/{t.pk}/ranking/")
        assert "/login/" not in page.url
        assert page.get_by_text("Lefèvre").first.is_visible()
    finally:
        context.close()


def test_the_room_screen_counts_down_turns_pages_and_follows_results(
    page, running_tournament, personas
):
    t = running_tournament
    Tournament.objects.filter(pk=t.pk).update(announcement="Buffet à 19 h")
    Round.objects.filter(tournament=t, number=1).update(state="open")
    first = tables_playing(t, 1)
    enter(t, first[0], 1, personas.arbiter, points=60)
    enter(t, first[1], 1, personas.arbiter, points=40)
    # The second table plays donne 1 in round 2: its result opened round 2, the round the
    # room's screen follows (the highest open one).
    Round.objects.filter(tournament=t).update(
        clock_started_at=timezone.now() - dt.timedelta(minutes=25, seconds=50)
    )

    page.goto(f"/t/{t.pk}/screen/?rows=4&every=2")
    clock = page.locator(".clock-time")
    start = clock.inner_text()
    assert re.fullmatch(r"0[34]:\d\d", start), start
    assert page.locator(".clock").get_attribute("data-phase") == "warning"
    assert "5 minutes" in page.locator(".clock-note").inner_text()
    page.wait_for_function(
        "s => document.querySelector('.clock-time').textContent !== s", arg=start
    )
    assert clock.inner_text() < start  # counting down, from the server's times
    assert page.locator("#screen-announcement").inner_text() == "Buffet à 19 h"

    # 8 players on pages of 4: both pages come round by themselves.
    seen = set()
    for _ in range(2):
        current = page.locator(".screen-ranking").get_attribute("data-page")
        seen.add(current)
        page.wait_for_function(
            "p => document.querySelector('.screen-ranking').dataset.page !== p", arg=current
        )
    seen.add(page.locator(".screen-ranking").get_attribute("data-page"))
    assert seen == {"1", "2"}
    assert "page" in page.locator(".screen-page").inner_text()

    # A new result reaches the screen without a click.
    version = page.locator(".screen-ranking").get_attribute("data-version")
    enter(t, first[0], 2, personas.arbiter, points=70)
    page.wait_for_function(
        "v => document.querySelector('.screen-ranking').dataset.version !== v", arg=version
    )

    # The arbiter's new announcement and the end of the round show by themselves.
    Tournament.objects.filter(pk=t.pk).update(announcement="Tour 2 dans 5 minutes")
    Round.objects.filter(tournament=t).update(
        clock_started_at=timezone.now() - dt.timedelta(minutes=31)
    )
    page.wait_for_function("() => document.querySelector('.clock').dataset.phase === 'over'")
    assert page.locator(".clock-time").inner_text() == "00:00"
    page.wait_for_function(
        "() => document.querySelector('#screen-announcement').textContent.includes('Tour 2')"
    )


SCREENS = [(1920, 1080), (1280, 720), (1024, 768), (1280, 900)]
LONG_ANNOUNCEMENT = (
    "Pause café après le tour 2 : la buvette est au fond de la salle, à côté du vestiaire. "
    "Les téléphones restent dans les sacs pendant le jeu. Remise des prix à 19 h 30 dans la "
    "grande salle, en présence du président du comité départemental."
)


@pytest.mark.parametrize(("width", "height"), SCREENS, ids=[f"{w}x{h}" for w, h in SCREENS])
def test_every_row_of_the_page_and_the_whole_announcement_show_on_any_screen(
    browser, live_server, width, height
):
    """16:9, 16:10 and 4:3 screens: the page's rows are never cut off under the announcement,
    a long announcement is read whole, and the type stays big (legible at 3 metres)."""
    from django.core.management import call_command

    call_command("load_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    past = Tournament.objects.get(name="Tournoi d'automne")  # 16 ranked players
    Tournament.objects.filter(pk=past.pk).update(announcement=LONG_ANNOUNCEMENT)
    context = browser.new_context(
        locale="fr-FR", base_url=live_server.url, viewport={"width": width, "height": height}
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    measure = """() => {
      const box = e => e.getBoundingClientRect();
      const note = document.querySelector('#screen-announcement');
      const rows = [...document.querySelectorAll('.screen-table tbody tr')];
      return {
        rows: rows.length,
        lowest: Math.max(...rows.map(r => box(r).bottom)),
        note_top: box(note).top, note_bottom: box(note).bottom,
        note_whole: note.scrollHeight <= note.clientHeight && note.scrollWidth <= note.clientWidth,
        note_text: note.textContent,
        row_px: parseFloat(getComputedStyle(rows[0]).fontSize),
        clock_px: parseFloat(getComputedStyle(document.querySelector('.clock-time')).fontSize),
      };
    }"""
    try:
        # The default pages of 12 (page 1: 12 rows; page 2: the 4 others), then all 16 at once.
        for query, expected in (("every=120", {12, 4}), ("rows=16&every=120", {16})):
            page.goto(f"/t/{past.pk}/screen/?{query}")
            got = page.evaluate(measure)
            assert got["rows"] in expected, (query, got)
            assert got["lowest"] <= got["note_top"] + 0.5, (query, got)
            assert got["note_bottom"] <= height + 0.5 and got["note_whole"], got
            assert got["note_text"] == LONG_ANNOUNCEMENT
            assert got["clock_px"] >= 0.1 * height
            if query == "every=120":
                assert got["row_px"] >= 0.025 * height, got
    finally:
        context.close()


def test_the_room_screen_asks_with_its_etag_and_keeps_its_page_on_304(
    page, running_tournament, personas
):
    """The screen's htmx poll sends the ETag of the ranking page it shows (etag-poll.js):
    the server answers 304 while nothing changed, and the page stays on the screen."""
    t = running_tournament
    for index, table in enumerate(tables_playing(t, 1)):
        enter(t, table, 1, personas.arbiter, points=40 + 10 * index)
    polls: list[tuple[str | None, int]] = []
    page.on(
        "requestfinished",
        lambda request: (
            "/screen/ranking/" in request.url
            and polls.append((request.headers.get("if-none-match"), request.response().status))
        ),
    )
    page.goto(f"/t/{t.pk}/screen/?rows=40&every=120")
    rows = page.locator(".screen-table tbody tr").count()
    assert rows == 8

    def wait_for(count: int) -> None:
        for _ in range(60):
            if len(polls) >= count:
                return
            page.wait_for_timeout(250)

    wait_for(1)  # the first poll: a 200 with the page's ETag, swapped in
    page.wait_for_timeout(500)
    page.evaluate("() => { document.querySelector('.screen-ranking').dataset.kept = '1'; }")
    wait_for(3)
    asked = polls[1:]
    assert all(status == 304 for _tag, status in asked), polls
    assert all(tag and tag.startswith('W/"') for tag, _status in asked), polls
    # a 304 swapped nothing: the section the page had is still there
    assert page.locator(".screen-ranking").get_attribute("data-kept") == "1"
    assert page.locator(".screen-table tbody tr").count() == rows
