"""The table's page by keyboard and screen reader, in Chromium on a phone (390 × 844): the focus
stays where the player acts (after a save, a refusal, a confirmation) and is never taken by the
page's refresh; refused fields are marked invalid, described by their error and the errors said
in a live region; the tabs are named "Donne 5, à saisir"; the focus ring and the offline notice
meet their contrast; a page holding unsent results asks before it is reloaded, and only then."""

from __future__ import annotations

from typing import Any

import pytest

from tests.a11y.test_pages_by_hand import contrast
from tests.scoring.rankings.helpers import enter
from tests.tournaments.test_table_browser import fill_garde, numbers, open_table, prepare, sign_in
from tournaments.models import EntryStatus, Result
from tournaments.services.preparation import seats_for_donne
from tournaments.services.table_entry import player_codes_get, table_page_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WHITE = "rgb(255, 255, 255)"
CHOSEN = "rgb(231, 240, 251)"  # a chosen choice, the current tab


def active_id(page: Any) -> str:
    return page.evaluate("document.activeElement ? document.activeElement.id : ''")


def mark_focus(page: Any) -> None:
    """Tag the focused element: the same element, not a rebuilt copy, must keep the focus."""
    page.evaluate("document.activeElement.dataset.focusMark = '1'")


def focus_kept(page: Any) -> bool:
    return page.evaluate(
        "document.activeElement && document.activeElement.dataset.focusMark === '1'"
    )


def refresh_now(page: Any) -> None:
    """What the page does when it comes back to the foreground (and every 5 s for the queue):
    send the queue, read the table's state again and redraw."""
    with page.expect_response(lambda r: r.url.endswith("/state.json")):
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_timeout(300)  # the answer drawn


def wrong(code: str) -> str:
    return "0000" if code != "0000" else "1111"


def tab_names(page: Any) -> list[str]:
    """The donne tabs' accessible names as Chromium computes them for screen readers."""
    cdp = page.context.new_cdp_session(page)
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    cdp.detach()
    return [
        n["name"]["value"]
        for n in nodes
        if n.get("role", {}).get("value") == "button"
        and n.get("name", {}).get("value", "").startswith("Donne ")
    ]


def test_focus_follows_the_player_and_errors_are_tied_to_their_fields(
    page, live_server, running_tournament, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    first = numbers(tr)[0]
    seats = seats_for_donne(tr, 0).hands
    codes = player_codes_get(tournament=t)
    open_table(page, table_page_url(table_round=tr))
    assert tab_names(page) == [f"Donne {n}, à saisir" for n in numbers(tr)]

    # A tab that has the focus keeps it through the page's refresh.
    page.locator(f'#donne-tabs .tab[data-donne="{first}"]').focus()
    mark_focus(page)
    refresh_now(page)
    assert focus_kept(page)

    # A wrong code: refused, the code field marked, described by its error, focused and said.
    sign_in(page, seats["N"], wrong(codes[seats["N"].pk]))
    page.locator("#bind").check()  # North keeps his phone
    fill_garde(page)
    page.locator("#save").click()
    code = page.locator("#entry-code")
    expect(code).to_have_attribute("aria-invalid", "true")
    expect(code).to_be_focused()
    error = page.locator("#" + code.get_attribute("aria-describedby"))
    expect(error).to_contain_text("essais avant blocage")
    expect(page.locator("#announce")).to_contain_text(error.inner_text())

    # Points the rules refuse: the points field takes the focus, the code is no longer refused.
    page.fill("#entry-code", codes[seats["N"].pk])
    page.fill("#points", "95")
    page.locator("#save").click()
    points = page.locator("#points")
    expect(points).to_be_focused()
    expect(points).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#" + points.get_attribute("aria-describedby"))).not_to_be_empty()
    assert code.get_attribute("aria-invalid") is None

    # Saved: the focus on the status, which says what to do next.
    page.fill("#points", "50")
    page.locator("#save").click()
    status = page.locator("#result-status")
    expect(status).to_be_focused()
    expect(status).to_contain_text("Passez maintenant le téléphone")
    assert tab_names(page)[0] == f"Donne {first}, En attente de confirmation"

    # Corrected: the button goes, the focus goes to the form (the phone is bound now: to the
    # contract chosen); saved again, back on the status.
    page.locator("#correct").click()
    expect(page.locator('input[name="contract"][value="garde"]')).to_be_focused()
    page.locator("#save").click()
    expect(status).to_be_focused()

    # The confirm choice that has the focus keeps it through the refresh.
    east = page.locator(f'#confirm-players input[value="{seats["E"].pk}"]')
    east.check()
    east.focus()
    mark_focus(page)
    refresh_now(page)
    assert focus_kept(page)
    assert east.is_checked()

    # A wrong code to confirm: the code field is refused and focused, its text selected.
    page.fill("#confirm-code", wrong(codes[seats["E"].pk]))
    page.locator("#confirm-form button[type=submit]").click()
    confirm_code = page.locator("#confirm-code")
    expect(confirm_code).to_be_focused()
    expect(confirm_code).to_have_attribute("aria-invalid", "true")
    expect(confirm_code).to_have_attribute("aria-describedby", "confirm-errors")
    expect(page.locator("#confirm-errors")).to_contain_text("essai")
    expect(page.locator("#announce")).to_contain_text("essai")

    # Confirmed: the focus on the status.
    page.fill("#confirm-code", codes[seats["E"].pk])
    page.locator("#confirm-form button[type=submit]").click()
    expect(status).to_be_focused()
    expect(status).to_contain_text("Confirmé")
    assert Result.objects.get().entry_status == EntryStatus.CONFIRMED


def test_a_page_holding_unsent_results_asks_before_it_is_reloaded(
    page, live_server, running_tournament, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    north = seats_for_donne(tr, 0).hands["N"]
    open_table(page, table_page_url(table_round=tr))
    dialogs: list[str] = []

    def answer(dialog: Any) -> None:
        dialogs.append(dialog.type)
        dialog.dismiss()  # stay on the page

    page.on("dialog", answer)
    # Nothing waiting: a reload asks nothing (the player has touched the page, which Chromium
    # requires before it would ask).
    sign_in(page, north, player_codes_get(tournament=t)[north.pk])
    page.reload()
    page.wait_for_selector("#donne-tabs .tab")
    assert dialogs == []

    # Offline, a result saved waits in the queue: reloading now asks first.
    page.context.set_offline(True)
    sign_in(page, north, player_codes_get(tournament=t)[north.pk])
    fill_garde(page)
    page.locator("#save").click()
    expect(page.locator("#queue")).to_have_text("1 résultat en attente d’envoi")
    note = page.locator("#entry-note")
    expect(note).to_be_focused()
    expect(note).to_contain_text("Gardé sur ce téléphone")
    with pytest.raises(Exception):  # noqa: B017 — the reload is refused, so it never loads
        page.reload(timeout=3_000)
    assert dialogs == ["beforeunload"]
    expect(page.locator("#queue")).to_be_visible()  # still the same page, the queue kept

    # Sent once the connection returns: reloading asks nothing again.
    page.context.set_offline(False)
    expect(page.locator("#queue")).to_be_hidden(timeout=15_000)
    page.reload()
    page.wait_for_selector("#donne-tabs .tab")
    assert dialogs == ["beforeunload"]
    assert Result.objects.filter(table=tr.table).count() == 1


def test_focus_ring_and_offline_notice_meet_their_contrast(
    page, live_server, running_tournament, settings
):
    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    open_table(page, table_page_url(table_round=tr))
    ring = """e => { const box = e.closest('.choice') || e; const s = getComputedStyle(box);
        return [s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor]; }"""
    # From the keyboard (no mouse touched the page, so a focus given is shown as the keyboard's):
    # the first stop is the jump to calling the arbiter, the next a donne tab; then a choice
    # and a text field.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "call-jump"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('tab')")
    targets = ("#call-jump", "#donne-tabs .tab >> nth=0", 'input[name="contract"] >> nth=0')
    for target in (*targets, "#points"):
        element = page.locator(target)
        element.focus()
        style, width, color = element.evaluate(ring)
        assert style == "solid" and width >= 2, (target, style, width)
        for background in (WHITE, CHOSEN, "rgb(244, 246, 248)"):
            assert contrast(color, background) >= 3, (target, color, background)

    page.context.set_offline(True)
    net = page.locator("#net")
    net.wait_for(state="visible")
    page.wait_for_function("document.getElementById('net').classList.contains('off')")
    color, background = net.evaluate(
        "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]"
    )
    assert contrast(color, background) >= 4.5, (color, background)
    page.context.set_offline(False)


def test_a_field_hidden_by_a_result_from_elsewhere_hands_the_focus_to_the_status(
    page, live_server, running_tournament, personas, settings
):
    """The arbiter enters the donne while a player types in it: the refresh hides the form; the
    focus goes to the result shown in its place, not to <body>."""
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    open_table(page, table_page_url(table_round=tr))
    page.locator("#points").focus()
    enter(t, 1, numbers(tr)[0], personas.arbiter, points=60)
    refresh_now(page)
    expect(page.locator("#entry-form")).to_be_hidden()
    expect(page.locator("#result-status")).to_be_focused()
