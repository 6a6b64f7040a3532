"""On a phone (390 × 844) in real Chromium: the players of a table open its page from the QR
code's URL, the player who enters binds the phone to himself with his code once, enters the
relais, passes the phone and an opponent confirms with his code, and the ranking moves; a bound
phone is handed over for one entry and stays its owner's; an entry the cards contradict is answered like any other;
results entered while offline wait on the phone and are sent once when the connection returns;
a page reopened offline shows what was saved since it was first loaded; a reload weighs under
100 KB; five wrong codes lock the code."""

from __future__ import annotations

import re
import time

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
from tests.scoring.rankings.helpers import enter
from tests.tournaments.test_card_checks import deal
from tournaments.models import Donne, EntryStatus, LedgerEntry, Result, TableRound
from tournaments.services.preparation import seats_for_donne
from tournaments.services.table_entry import player_codes_get, table_page_url

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def prepare(tournament) -> TableRound:
    """Known hands (North holds the 21 and the Excuse: North's garde with 2 bouts raises no
    warning); the table round of table 1 in round 1."""
    for donne in Donne.objects.filter(tournament=tournament):
        hands, chien = deal(N=["T21", "EX"])
        Donne.objects.filter(pk=donne.pk).update(
            hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
        )
    return TableRound.objects.select_related("table", "round", "etui_set").get(
        round__tournament=tournament, round__number=1, table__number=1
    )


def numbers(table_round: TableRound) -> list[int]:
    return sorted(d.number for d in Donne.objects.filter(etui_set=table_round.etui_set))


def fill_garde(page, points: str = "50") -> None:
    page.locator('input[name="contract"][value="garde"]').check()
    page.locator('#takers input[value="N"]').check()
    page.locator('input[name="bouts"][value="2"]').check()
    page.fill("#points", points)


def sign_in(page, player, code: str) -> None:
    """Who enters, when the phone is not bound: his name and his personal code."""
    page.select_option("#player", str(player.pk))
    page.fill("#entry-code", code)


def open_table(page, url: str) -> None:
    page.set_viewport_size(PHONE)
    page.goto(url)
    page.wait_for_selector("#donne-tabs .tab")


def test_table_enters_a_relais_confirms_with_codes_and_the_ranking_moves(
    page, browser, live_server, running_tournament, personas, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    # Table 2 plays the same étui set in round 2: the arbiter enters it, so table 1's
    # results are compared with something once they count.
    for n in numbers(tr):
        enter(t, 2, n, personas.arbiter, points=60)
    url = table_page_url(table_round=tr)
    assert url.startswith(live_server.url + "/table/")

    # The ranking as the arbiter sees it before.
    arbiter = browser.new_context(locale="fr-FR", base_url=live_server.url)
    ranking = arbiter.new_page()
    ranking.goto(f"/login/?next={reverse('ranking', args=[t.pk])}")
    ranking.fill("#id_username", personas.arbiter.username)
    ranking.fill("#id_password", PASSWORD)
    ranking.locator("form.card button[type=submit]").click()
    ranking.wait_for_url(re.compile(r"/ranking/$"))
    before = ranking.locator("#ranking-live").inner_text()

    open_table(page, url)
    weight = page.evaluate(
        """() => performance.getEntriesByType('navigation').concat(
             performance.getEntriesByType('resource')).reduce((s, e) => s + e.transferSize, 0)"""
    )
    assert 0 < weight < 100_000
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    small = page.evaluate(
        """() => [...document.querySelectorAll('.choice, .btn, .tab, #player')]
             .filter(e => e.offsetParent && e.getBoundingClientRect().height < 44).length"""
    )
    assert small == 0
    # Opened, the announcements still fit the phone's width (four poignée sizes do not).
    page.locator("details[data-played] > summary").click()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    past = page.evaluate(
        """() => [...document.querySelectorAll('#entry-form .choice')].filter(e => {
             const r = e.getBoundingClientRect(); return r.right > window.innerWidth; }).length"""
    )
    assert past == 0
    page.locator("details[data-played] > summary").click()

    codes = player_codes_get(tournament=t)
    for index, n in enumerate(numbers(tr)):
        seats = seats_for_donne(tr, index).hands
        page.locator(f'#donne-tabs .tab[data-donne="{n}"]').click()
        expect(page.locator("#entry-title")).to_have_text(f"Donne {n}")
        if index == 0:  # North keeps the phone as his (unticked the first time), code once
            expect(page.locator("#bind")).not_to_be_checked()
            sign_in(page, seats["N"], codes[seats["N"].pk])
            page.locator("#bind").check()
        else:
            expect(page.locator("#bound-who")).to_have_text(
                f"Ce téléphone est celui de {seats['N']}\u202f: aucun code à taper."
            )
            expect(page.locator("#who-enters")).to_be_hidden()
        fill_garde(page)
        expect(page.locator('#preview tr[data-position="N"] [data-score]')).to_have_text("+204")
        page.locator("#save").click()
        expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")
        # The phone passes to East, who confirms with his code.
        page.locator(f'#confirm-players input[value="{seats["E"].pk}"]').check()
        page.fill("#confirm-code", codes[seats["E"].pk])
        page.locator("#confirm-form button[type=submit]").click()
        expect(page.locator("#result-status")).to_contain_text("Confirmé")
        expect(page.locator('#result-scores tr[data-position="N"] [data-score]')).to_have_text(
            "+204"
        )

    rows = Result.objects.filter(table=tr.table)
    assert rows.count() == 4
    assert set(rows.values_list("entry_status", flat=True)) == {EntryStatus.CONFIRMED}
    assert set(rows.values_list("entered_by", flat=True)) == {seats["N"].pk}
    ranking.reload()
    expect(ranking.locator("#ranking-live")).not_to_have_text(before)
    arbiter.close()


def wait_until_kept_offline(page, timeout: float = 15.0) -> None:
    """Wait until the service worker controls the page and keeps a copy of it.

    Polled with evaluate, which awaits the promise: wait_for_function would take the
    promise object itself for a truthy answer and return at once."""
    deadline = time.monotonic() + timeout
    check = """async () => Boolean(navigator.serviceWorker.controller)
        && (await caches.match(location.href, {ignoreVary: true})) !== undefined"""
    while not page.evaluate(check):
        assert time.monotonic() < deadline, "the service worker never kept the page"
        page.wait_for_timeout(100)


def test_results_entered_offline_are_sent_once_when_the_connection_returns(
    page, live_server, running_tournament, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    open_table(page, table_page_url(table_round=tr))
    first, second = numbers(tr)[:2]
    north = seats_for_donne(tr, 0).hands["N"]
    code = player_codes_get(tournament=t)[north.pk]
    page.select_option("#player", str(north.pk))
    expect(page.locator("#preview-note")).to_have_text("")

    # The service worker keeps the page and its assets: it opens again without a connection.
    wait_until_kept_offline(page)
    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#donne-tabs .tab")
    expect(page.locator("#net")).to_contain_text("Pas de connexion")
    for n in (first, second):
        page.locator(f'#donne-tabs .tab[data-donne="{n}"]').click()
        sign_in(page, north, code)  # kept with the entry in the queue, checked when sent
        page.locator("#bind").check()  # North keeps his phone
        fill_garde(page)
        page.locator("#save").click()
    expect(page.locator("#queue")).to_have_text("2 résultats en attente d’envoi")
    assert Result.objects.count() == 0

    page.context.set_offline(False)
    expect(page.locator("#queue")).to_be_hidden(timeout=15_000)
    assert Result.objects.filter(table=tr.table).count() == 2
    assert LedgerEntry.objects.filter(action="result_created").count() == 2
    assert set(Result.objects.values_list("entry_status", flat=True)) == {EntryStatus.AWAITING}
    assert set(Result.objects.values_list("entered_by", flat=True)) == {north.pk}
    # The first answer bound the phone to North: the page says so.
    expect(page.locator("#bound-who")).to_contain_text(str(north))
    # The page, reloaded, shows both as waiting for a confirmation.
    page.reload()
    expect(page.locator(f'#donne-tabs .tab[data-donne="{first}"]')).to_have_attribute(
        "data-status", "awaiting"
    )


def test_a_page_reopened_offline_shows_the_results_saved_since_its_first_load(
    page, live_server, running_tournament, settings
):
    """The worker's copy of the page was printed before any result: the phone's own memory
    of the table's state says which donnes wait for a confirmation."""
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    open_table(page, table_page_url(table_round=tr))
    first, second = numbers(tr)[:2]
    north = seats_for_donne(tr, 0).hands["N"]
    wait_until_kept_offline(page)
    sign_in(page, north, player_codes_get(tournament=t)[north.pk])
    page.locator("#bind").check()  # North keeps his phone
    fill_garde(page)
    page.locator("#save").click()
    expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")

    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#donne-tabs .tab")
    expect(page.locator("#net")).to_contain_text("Pas de connexion")
    tab = page.locator(f'#donne-tabs .tab[data-donne="{first}"]')
    expect(tab).to_have_attribute("data-status", "awaiting")
    tab.click()
    expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")
    expect(page.locator("#entry-form")).to_be_hidden()

    # An entry made now says where it is: on the phone, not lost in a hidden form.
    page.locator(f'#donne-tabs .tab[data-donne="{second}"]').click()
    fill_garde(page)
    page.locator("#save").click()
    expect(page.locator("#entry-note")).to_have_text(
        "Gardé sur ce téléphone\u202f: il sera envoyé au retour de la connexion."
    )
    expect(page.locator("#entry-form")).to_be_hidden()
    page.context.set_offline(False)
    expect(page.locator("#queue")).to_be_hidden(timeout=15_000)
    expect(page.locator("#entry-note")).to_be_hidden()
    assert Result.objects.filter(table=tr.table).count() == 2


def test_the_table_page_weighs_under_100_kb_when_reloaded(
    page, live_server, running_tournament, settings
):
    """Every byte the page receives on a reload, from the network or its service worker:
    bodies as sent plus headers, an upper bound of what the phone downloads."""
    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    url = table_page_url(table_round=tr)
    open_table(page, url)
    wait_until_kept_offline(page)
    received: list[tuple[str, int]] = []

    def count(response) -> None:
        try:
            body = len(response.body())
        except Exception:  # a redirect or an aborted request has no body
            body = 0
        headers = sum(len(k) + len(v) + 4 for k, v in response.headers.items())
        received.append((response.url, body + headers))

    page.on("response", count)
    # The last request of a load: the live preview of the donne on screen.
    with page.expect_response(lambda r: r.url.endswith("/preview/")):
        page.reload()
    page.wait_for_selector("#donne-tabs .tab")
    page.remove_listener("response", count)
    urls = {u.split("?")[0] for u, _n in received}
    assert url in urls
    assert any(u.endswith("/table/table.js") for u in urls)
    assert any(u.endswith("/table/table.css") for u in urls)
    total = sum(n for _u, n in received)
    print(f"table page reload: {total} bytes in {len(received)} responses")
    assert 20_000 < total < 100_000, received


def test_from_the_phone_a_table_page_cannot_write_another_table_and_a_closed_round_refuses(
    page, live_server, running_tournament, settings
):
    """What the phone's browser can do with table 1's secret: nothing at table 2, and nothing
    once the round is closed (the page says so)."""
    from playwright.sync_api import expect

    from tournaments.models import Round

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    url = table_page_url(table_round=tr)
    open_table(page, url)
    other = TableRound.objects.get(round=tr.round, table__number=2)
    theirs = numbers(other)[0]
    north = seats_for_donne(tr, 0).hands["N"]
    body = f"contract=garde&taker=N&bouts=2&points=50&player={north.pk}"
    status = page.evaluate(
        """([url, body]) => fetch(url, {method: "POST", body: body,
             headers: {"Content-Type": "application/x-www-form-urlencoded"}}).then(r => r.status)""",
        [f"{url}donne/{theirs}/save/", body],
    )
    assert status == 403
    assert "hand" not in page.content().lower()
    assert not Result.objects.exists()

    Round.objects.filter(pk=tr.round_id).update(state=Round.State.CLOSED)
    page.goto(url)
    expect(page.locator(".alert")).to_contain_text("Ce tour est clos")
    status = page.evaluate(
        """([url, body]) => fetch(url, {method: "POST", body: body,
             headers: {"Content-Type": "application/x-www-form-urlencoded"}}).then(r => r.status)""",
        [f"{url}donne/{numbers(tr)[0]}/save/", body],
    )
    assert status == 403
    assert not Result.objects.exists()


def test_five_wrong_codes_lock_confirmation_for_a_minute(
    page, live_server, running_tournament, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    seats = seats_for_donne(tr, 0).hands
    open_table(page, table_page_url(table_round=tr))
    sign_in(page, seats["N"], player_codes_get(tournament=t)[seats["N"].pk])
    fill_garde(page)
    page.locator("#save").click()
    expect(page.locator("#confirm-form")).to_be_visible()
    good = player_codes_get(tournament=t)[seats["E"].pk]
    wrong = "0000" if good != "0000" else "1111"
    page.locator(f'#confirm-players input[value="{seats["E"].pk}"]').check()
    for attempt in range(5):
        page.fill("#confirm-code", wrong)
        page.locator("#confirm-form button[type=submit]").click()
        if attempt < 4:
            expect(page.locator("#confirm-errors")).to_contain_text(f"{4 - attempt} essai")
    expect(page.locator("#confirm-errors")).to_contain_text("bloqué")
    page.fill("#confirm-code", good)
    page.locator("#confirm-form button[type=submit]").click()
    expect(page.locator("#confirm-errors")).to_contain_text("bloqué")
    assert Result.objects.get().entry_status == EntryStatus.AWAITING


def test_an_entry_against_the_cards_is_answered_like_any_other_and_a_late_one_is_kept(
    page, live_server, running_tournament, personas, settings
):
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    second = numbers(tr)[1]
    seats = seats_for_donne(tr, 0).hands
    codes = player_codes_get(tournament=t)
    open_table(page, table_page_url(table_round=tr))
    sign_in(page, seats["E"], codes[seats["E"].pk])

    # East takes with 3 bouts, but North holds the 21 and the Excuse: the page says nothing of
    # it, the entry waits for an opponent like any other; the arbiter is told.
    page.locator('input[name="contract"][value="garde"]').check()
    page.locator('#takers input[value="E"]').check()
    page.locator('input[name="bouts"][value="3"]').check()
    page.fill("#points", "40")
    expect(page.locator('#preview tr[data-position="E"] [data-score]')).to_have_text("+174")
    expect(page.locator("#preview-note")).to_have_text("")
    page.locator("#save").click()
    expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")
    expect(page.locator("#call-arbiter")).to_be_hidden()
    expect(page.locator("#confirm-form")).to_be_visible()
    saved = Result.objects.get()
    assert saved.entry_status == EntryStatus.AWAITING and saved.card_flags

    # While the table types the next donne, the arbiter enters it himself: the page follows
    # within a few seconds, keeps what was typed beside his result, and says it counts.
    page.locator(f'#donne-tabs .tab[data-donne="{second}"]').click()
    fill_garde(page)
    enter(t, 1, second, personas.arbiter, points=60)
    expect(page.locator("#kept-note")).to_contain_text("compte déjà", timeout=10_000)
    expect(page.locator("#points")).to_have_value("50")
    expect(page.locator("#result-summary")).to_be_visible()
    expect(page.locator("#save")).to_be_hidden()
    saved = Result.objects.get(table=tr.table, donne__number=second)
    assert saved.points == 60 and saved.entry_status == EntryStatus.ARBITER


def test_a_bound_phone_confirms_in_one_tap_and_is_handed_over(
    page, browser, live_server, running_tournament, settings
):
    """North's phone enters; East's own phone, bound to East, confirms with one tap; then
    North hands his phone over to South, who types his own code."""
    from playwright.sync_api import expect

    t = running_tournament
    settings.SITE_URL = live_server.url
    tr = prepare(t)
    first, second = numbers(tr)[:2]
    seats = seats_for_donne(tr, 0).hands
    codes = player_codes_get(tournament=t)
    url = table_page_url(table_round=tr)
    open_table(page, url)
    sign_in(page, seats["N"], codes[seats["N"].pk])
    page.locator("#bind").check()  # North keeps his phone
    fill_garde(page)
    page.locator("#save").click()
    expect(page.locator("#result-status")).to_contain_text("En attente de confirmation")

    east = browser.new_context(locale="fr-FR", viewport=PHONE)
    phone = east.new_page()
    phone.goto(url)
    phone.wait_for_selector("#donne-tabs .tab")
    phone.locator(f'#donne-tabs .tab[data-donne="{second}"]').click()
    sign_in(phone, seats["E"], codes[seats["E"].pk])  # East binds his phone with an all-passed
    phone.locator("#bind").check()
    phone.locator('input[name="contract"][value="all_passed"]').check()
    phone.locator("#save").click()
    expect(phone.locator("#bound-who")).to_contain_text(str(seats["E"]))
    phone.locator(f'#donne-tabs .tab[data-donne="{first}"]').click()
    expect(phone.locator("#confirm-as")).to_have_text(
        f"Je confirme ce résultat, en tant que {seats['E']}"
    )
    phone.locator("#confirm-as").click()
    expect(phone.locator("#result-status")).to_contain_text("Confirmé")
    east.close()
    done = Result.objects.get(donne__number=first, table=tr.table)
    assert done.entry_status == EntryStatus.CONFIRMED and done.confirmed_by == seats["E"]

    # North hands his phone to South for one entry: South types his own code, and the phone
    # stays North's (it never takes South's binding).
    page.locator(f'#donne-tabs .tab[data-donne="{numbers(tr)[2]}"]').click()
    page.locator("#unbind").click()
    expect(page.locator("#who-enters")).to_be_visible()
    expect(page.locator("#bind-choice")).to_be_hidden()
    sign_in(page, seats["S"], codes[seats["S"].pk])
    page.locator('input[name="contract"][value="all_passed"]').check()
    page.locator("#save").click()
    tab = page.locator(f'#donne-tabs .tab[data-donne="{numbers(tr)[2]}"]')
    expect(tab).to_have_attribute("data-status", "awaiting")
    expect(page.locator("#bound-who")).to_contain_text(str(seats["N"]))
    page.locator(f'#donne-tabs .tab[data-donne="{numbers(tr)[3]}"]').click()
    expect(page.locator("#unbind")).to_have_text(
        f"Vous n’êtes pas {seats['N']}\u202f? Libérez ce téléphone"
    )
    page.screenshot(path="/tmp/table-bound.png")
    assert Result.objects.get(donne__number=numbers(tr)[2], table=tr.table).entered_by == seats["S"]
