"""WCAG 1.4.10 (reflow), issue 31.1: at 320 and 390 px no page scrolls sideways, and the
columns that matter stay in sight, in Chromium on the demo data made as wide as a club's: a
ranking with penalties (its "Total" column) and a 60-character name, the penalties page with a
penalty given, the arbiter's entry page of a donne already entered, the ledger, the organiser's
pages and the guide.

The ranking keeps rank, player and total on screen (its penalty and donnes columns move under
the name); the other wide tables reflow into one labelled block per row (``table.reflow``)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.a11y.test_axe import log_in, widen_demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Elements whose box goes past the window's right edge, or past
# the right edge of a box that clips them (a table scrolled inside its own box).
OUT_OF_SIGHT = """sel => [...document.querySelectorAll(sel)].filter(e => {
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return true;  // hidden
    let clip = window.innerWidth;
    for (let p = e.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o !== 'visible') clip = Math.min(clip, p.getBoundingClientRect().right);
    }
    return r.right > clip + 0.5 || r.left < -0.5;
  }).map(e => e.tagName + ' ' + (e.textContent || '').trim().slice(0, 30))"""


@pytest.fixture
def wide_demo(db: Any) -> dict[str, Any]:
    return widen_demo()


def wide_pages(demo: dict[str, Any]) -> dict[str | None, list[str]]:
    running, past, club = demo["running"], demo["past"], demo["club"]
    return {
        None: [f"/t/{past.pk}/ranking/", "/aide/", "/aide/organiser/", "/aide/arbitrer/"],
        "arbitre": [
            f"/t/{running.pk}/arbiter/penalties/",
            f"/t/{past.pk}/arbiter/table/1/donne/1/",
            f"/t/{past.pk}/arbiter/ledger/",
        ],
        "organisateur": [
            "/organiser/",
            f"/organiser/clubs/{club}/accounts/",
            f"/t/{running.pk}/registrations/",
            f"/t/{past.pk}/seating/",
            f"/t/{demo['five'].pk}/seating/",
        ],
    }


# Each page is loaded once at 320 px and resized to 390 px: the pages adapt to the width by
# CSS alone (tests/a11y/axe.py, on widths), so a resized page is the page loaded at that width.
WIDTHS = (320, 390)


def test_no_page_scrolls_sideways_and_key_columns_stay_in_sight(browser, live_server, wide_demo):
    wide: list[Any] = []
    for persona, paths in wide_pages(wide_demo).items():
        page = log_in(browser, live_server, persona, {"width": WIDTHS[0], "height": 800})
        try:
            for path in paths:
                page.goto(path)
                page.wait_for_load_state("load")
                for width in WIDTHS:
                    page.set_viewport_size({"width": width, "height": 800})
                    wide += sideways(page, f"{path} @{width}px")
                page.set_viewport_size({"width": WIDTHS[0], "height": 800})
        finally:
            page.context.close()
    assert wide == [], "\n".join(str(w) for w in wide)


def sideways(page: Any, where: str) -> list[Any]:
    """What goes past the right edge of the page as it is now: the page itself when it scrolls
    sideways, the cells of a reflowed table (every line of its labelled blocks) out of sight."""
    wide: list[Any] = []
    scroll = page.evaluate("document.scrollingElement.scrollWidth")
    if scroll > page.evaluate("window.innerWidth"):
        wide.append((where, scroll))
    hidden = page.evaluate(OUT_OF_SIGHT, "main table.reflow td")
    if hidden:
        wide.append((where, hidden[:5]))
    return wide


def test_the_ranking_keeps_rank_player_and_total_in_sight(browser, live_server, wide_demo):
    past = wide_demo["past"]
    page = log_in(browser, live_server, None, {"width": WIDTHS[0], "height": 800})
    try:
        page.goto(f"/t/{past.pk}/ranking/")
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 800})
            ranking_in_sight(page)
    finally:
        page.context.close()


def ranking_in_sight(page: Any) -> None:
    """Rank, player and total in sight on the ranking as it is now; the hidden columns' values
    under the name."""
    headers = page.locator("table.ranking thead th").all_inner_texts()
    assert headers[:2] == ["Rang", "Joueur"] and headers[5] == "Total", headers
    rows = page.locator("table.ranking tbody tr")
    assert rows.count() == 16
    for column in (1, 2, 4, 6):  # rank, player, differentials, total
        cells = f"table.ranking tbody td:nth-child({column}), table.ranking th:nth-child({column})"
        assert page.evaluate(OUT_OF_SIGHT, cells) == [], column
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth")
    # what the hidden columns said is under the name: the donnes played, the penalty
    penalised = page.locator("table.ranking tbody tr", has_text="1000")
    assert "8 donnes jouées · Pén.\u00a0\u22121000" in penalised.locator(".sub").inner_text()
    long_row = page.locator("table.ranking tbody tr", has_text="Montgolfier")
    assert long_row.locator("td").nth(1).is_visible()
