"""Two phones on the same table's page (issue 31.2, 31.3), in real Chromium at 390 × 844: the
second phone follows what the first saves within a few seconds, without reloading nor taking
the focus from what its player types (the poll answers 304 while nothing changes); an entry
refused by a conflict stays on screen beside the saved one, so its player compares and
confirms the saved one instead; who confirms is chosen already when only one may, and
confirming with nobody chosen says so in the page's words."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.tournaments.test_table_browser import PHONE, fill_garde, numbers, prepare, sign_in
from tournaments.models import EntryStatus, Result
from tournaments.services.preparation import seats_for_donne
from tournaments.services.table_entry import player_codes_get, table_page_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOLLOWS = 10_000  # ms: the page asks every 3 s; a slow machine may take longer to answer


@pytest.fixture
def second_phone(browser, live_server) -> Iterator[object]:
    """Another phone: its own browser context (its own storage, no binding shared)."""
    context = browser.new_context(locale="fr-FR", base_url=live_server.url, viewport=PHONE)
    phone = context.new_page()
    phone.set_default_timeout(10_000)
    try:
        yield phone
    finally:
        with contextlib.suppress(Exception):
            phone.goto("about:blank", timeout=5_000)  # stop its polls before the flush
        context.close()


def open_phone(phone, url: str) -> list[int]:
    """Opens the table's page; returns the list its state polls' statuses are added to."""
    statuses: list[int] = []
    phone.on("response", lambda r: statuses.append(r.status) if "/state.json" in r.url else None)
    phone.set_viewport_size(PHONE)
    phone.goto(url)
    phone.wait_for_selector("#donne-tabs .tab")
    phone.evaluate("window.sameLoad = true")  # gone if the page reloads
    return statuses


def test_the_second_phone_follows_a_save_without_reloading_nor_taking_the_focus(
    page, second_phone, live_server, running_tournament, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    first, second = numbers(tr)[:2]
    seats = seats_for_donne(tr, 0).hands
    codes = player_codes_get(tournament=t)
    url = table_page_url(table_round=tr)
    open_phone(page, url)
    statuses = open_phone(second_phone, url)
    tab = second_phone.locator(f'#donne-tabs .tab[data-donne="{first}"] small')
    expect(tab).to_have_text("à saisir")

    # Phone 2's player types the next donne's points meanwhile.
    second_phone.locator(f'#donne-tabs .tab[data-donne="{second}"]').click()
    second_phone.locator('input[name="contract"][value="garde"]').check()
    second_phone.locator("#points").click()
    second_phone.keyboard.type("4")

    # Phone 1: East enters North's garde on the first donne.
    sign_in(page, seats["E"], codes[seats["E"].pk])
    fill_garde(page)
    page.locator("#save").click()
    expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")

    expect(tab).to_have_text("En attente de confirmation", timeout=FOLLOWS)
    assert second_phone.evaluate("window.sameLoad === true")  # not reloaded
    assert second_phone.evaluate("document.activeElement.id") == "points"
    assert second_phone.locator("#points").input_value() == "4"
    assert 200 in statuses  # the poll after the save brought the new state
    # Nothing changes now: the next poll costs no body.
    second_phone.wait_for_event(
        "response",
        predicate=lambda r: "/state.json" in r.url and r.status == 304,
        timeout=FOLLOWS,
    )

    # Phone 1 opens its entry to correct it: typing there, its own polls (nothing new) do not
    # call it "saved meanwhile".
    page.locator("#correct").click()
    page.fill("#points", "51")
    page.wait_for_event(
        "response", predicate=lambda r: "/state.json" in r.url and r.status == 304, timeout=FOLLOWS
    )
    expect(page.locator("#kept")).to_be_hidden()

    # On the first donne, phone 2 may confirm: East entered, so only North (the taker's camp)
    # may, and he is chosen already.
    second_phone.locator(f'#donne-tabs .tab[data-donne="{first}"]').click()
    expect(second_phone.locator("#confirm-form")).to_be_visible()
    radios = second_phone.locator('#confirm-players input[name="player"]')
    expect(radios).to_have_count(1)
    expect(radios.first).to_be_checked()
    assert radios.first.get_attribute("value") == str(seats["N"].pk)
    second_phone.fill("#confirm-code", codes[seats["N"].pk])
    second_phone.locator("#confirm-form button[type=submit]").click()
    expect(second_phone.locator("#result-status")).to_contain_text("Confirmé")
    # Phone 1 follows too; the correction it was typing stays, and it is told why it cannot.
    expect(page.locator("#result-status")).to_contain_text("Confirmé", timeout=FOLLOWS)
    expect(page.locator("#kept-note")).to_contain_text("compte déjà")
    expect(page.locator("#points")).to_have_value("51")
    assert page.evaluate("window.sameLoad === true")
    assert Result.objects.get(table=tr.table, donne__number=first).entry_status == (
        EntryStatus.CONFIRMED
    )


def test_an_entry_refused_by_a_conflict_stays_beside_the_saved_one_to_confirm_it(
    page, second_phone, live_server, running_tournament, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    first = numbers(tr)[0]
    seats = seats_for_donne(tr, 0).hands
    codes = player_codes_get(tournament=t)
    url = table_page_url(table_round=tr)
    open_phone(page, url)
    open_phone(second_phone, url)

    # Phone 2: South types North's garde with 41 points, not yet saved.
    sign_in(second_phone, seats["S"], codes[seats["S"].pk])
    fill_garde(second_phone, points="41")
    second_phone.locator("#points").focus()

    # Phone 1: North saves his garde with 50 points first.
    sign_in(page, seats["N"], codes[seats["N"].pk])
    fill_garde(page, points="50")
    page.locator("#save").click()
    expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")

    # Phone 2 is told while its player types; her entry and the focus stay.
    expect(second_phone.locator("#kept-note")).to_contain_text(
        "Un autre téléphone a enregistré cette donne", timeout=FOLLOWS
    )
    expect(second_phone.locator("#result-summary")).to_be_visible()
    assert second_phone.evaluate("document.activeElement.id") == "points"
    assert second_phone.locator("#points").input_value() == "41"

    # She saves anyway: refused (the donne changed meanwhile), and kept beside the saved one.
    second_phone.locator("#save").click()
    expect(second_phone.locator("#conflicts")).to_be_visible()
    expect(second_phone.locator("#kept-note")).to_contain_text("n’a pas été enregistrée")
    expect(second_phone.locator("#points")).to_have_value("41")
    expect(second_phone.locator('#takers input[value="N"]')).to_be_checked()
    expect(second_phone.locator("#result-summary")).to_be_visible()
    expect(second_phone.locator('#preview tr[data-position="N"] [data-score]')).to_have_text("+150")
    expect(second_phone.locator('#result-scores tr[data-position="N"] [data-score]')).to_have_text(
        "+204"
    )
    second_phone.screenshot(path="/tmp/table-kept-390.png", full_page=True)
    saved = Result.objects.get(table=tr.table, donne__number=first)
    assert saved.points == 50 and saved.entry_status == EntryStatus.AWAITING

    # Reloaded, the page still shows what she typed (kept on the phone).
    second_phone.reload()
    second_phone.wait_for_selector("#donne-tabs .tab")
    second_phone.locator(f'#donne-tabs .tab[data-donne="{first}"]').click()
    expect(second_phone.locator("#points")).to_have_value("41")
    expect(second_phone.locator("#kept-note")).to_contain_text("n’a pas été enregistrée")
    kept = second_phone.evaluate(
        """() => Object.keys(localStorage).filter(k => k.startsWith('tarot-table-state:'))
             .map(k => JSON.parse(localStorage.getItem(k)).donnes.filter(d => d.kept)
             .map(d => d.kept)).flat()"""
    )
    assert len(kept) == 1 and "points=41" in kept[0]
    assert "code=" not in kept[0] and "binding=" not in kept[0]  # her entry, not her proofs

    # The saved one is right: she confirms it instead. Nobody chosen: the page's own words.
    second_phone.fill("#confirm-code", codes[seats["E"].pk])
    second_phone.locator("#confirm-form button[type=submit]").click()
    expect(second_phone.locator("#confirm-err-player")).to_have_text(
        "Choisissez qui confirme\u202f: touchez votre nom."
    )
    assert second_phone.evaluate("document.activeElement.name") == "player"
    second_phone.locator(f'#confirm-players input[value="{seats["E"].pk}"]').check()
    expect(second_phone.locator("#confirm-err-player")).to_have_text("")
    second_phone.locator("#confirm-form button[type=submit]").click()
    expect(second_phone.locator("#result-status")).to_contain_text("Confirmé")
    expect(second_phone.locator("#entry-form")).to_be_hidden()  # nothing kept any more
    saved.refresh_from_db()
    assert saved.points == 50 and saved.entry_status == EntryStatus.CONFIRMED


BROKEN_WORDS = """() => {
  // Words of the names beside the takers and who may confirm that the line breaks inside
  // (after a hyphen, as in print, is not inside: "N'Diaye-" then "Kouyaté").
  const out = [];
  document.querySelectorAll('#takers .who, #confirm-players label').forEach(el => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /[^\\s-]+-?/g;
      let m;
      while ((m = re.exec(node.data))) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  });
  return out;
}"""


@pytest.mark.parametrize("width", [320, 390])
def test_long_names_beside_the_takers_wrap_at_spaces_only(
    page, live_server, running_tournament, settings, width
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    seats = seats_for_donne(tr, 0).hands
    names = {
        "N": ("Aïssatou", "N'Diaye-Kouyaté"),
        "E": ("Jérôme", "de La Tour d'Auvergne"),
        "S": ("Marie-Christine", "Œuvray"),
        "W": ("Anne", "Ébrard"),
    }
    for position, (first_name, last_name) in names.items():
        player = seats[position]
        player.first_name, player.last_name = first_name, last_name
        player.save()
    codes = player_codes_get(tournament=t)
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(table_page_url(table_round=tr))
    page.wait_for_selector("#donne-tabs .tab")
    expect(page.locator('#takers .who[data-seat="N"]')).to_contain_text("Aïssatou")
    page.screenshot(path=f"/tmp/table-takers-{width}.png", full_page=True)
    assert page.evaluate(BROKEN_WORDS) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # Who confirms, after South's entry: the three others, one a row.
    sign_in(page, seats["S"], codes[seats["S"].pk])
    page.locator('input[name="contract"][value="all_passed"]').check()
    page.locator("#save").click()
    expect(page.locator("#confirm-form")).to_be_visible()
    page.screenshot(path=f"/tmp/table-confirm-{width}.png", full_page=True)
    assert page.evaluate(BROKEN_WORDS) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
