"""In Chromium: a phone that reloads the hub's overall ranking asks with the ETag of the page
it shows (the browser's own revalidation, `Cache-Control: no-cache`) and gets a 304 while
nothing changed: the page costs the hub one query and no rendering."""

from __future__ import annotations

import pytest

from tests.tournaments.simultaneous.pages.builders import lift_embargo, small_field

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reload_of_an_unchanged_ranking_is_a_304(browser, live_server, make_user):
    f = small_field(make_user("federation"))
    lift_embargo(f)
    path = f"/simultanes/{f.event.public_id}/classement/"
    context = browser.new_context(
        locale="fr-FR", base_url=live_server.url, viewport={"width": 390, "height": 844}
    )
    page = context.new_page()
    network = context.new_cdp_session(page)
    network.send("Network.enable")
    urls: dict[str, str] = {}
    asked: dict[str, str | None] = {}
    answered: dict[str, int] = {}
    network.on(
        "Network.requestWillBeSent", lambda e: urls.update({e["requestId"]: e["request"]["url"]})
    )
    network.on(
        "Network.requestWillBeSentExtraInfo",
        lambda e: asked.update({e["requestId"]: e["headers"].get("If-None-Match")}),
    )
    network.on(
        "Network.responseReceivedExtraInfo",
        lambda e: answered.update({e["requestId"]: e["statusCode"]}),
    )
    try:
        page.goto(path)
        rows = page.locator("table.ranking tbody tr").count()
        assert rows == 12
        page.reload()
        page.reload()
        assert page.locator("table.ranking tbody tr").count() == rows
        pages = [rid for rid, url in urls.items() if url.endswith(path)]
        assert len(pages) == 3
        first, *reloads = pages
        assert answered[first] == 200 and asked.get(first) is None
        for rid in reloads:
            assert asked[rid] and asked[rid].startswith('W/"'), asked
            assert answered[rid] == 304, answered
    finally:
        context.close()
