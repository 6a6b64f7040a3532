"""The "provisional until HH:MM / final" line kept up to date without a reload (issue 34 §4):
the room screen's cached pages change with the window, not only with the results; the line's
own poll (`claims_window_line`, followed by claims-window.js) answers 204 while nothing
changed and the new line when the window passes, the organiser closes early or the ranking
becomes final; and in real Chromium the ranking page's line turns final by itself."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Tournament
from tournaments.services.claims import claim_file, claim_settle, claims_close_early
from tournaments.services.claims_window import claims_window

from .helpers import cell, close_every_round, window_passed

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


@pytest.fixture
def closed(personas) -> Tournament:
    """Every round closed: the ranking is provisional for 30 minutes."""
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    return t


def line_url(t: Tournament) -> str:
    return reverse("claims_window_line", args=[t.pk])


def stamp_of(html: str) -> str:
    found = re.search(r'data-stamp="([^"]*)"', html)
    assert found, html
    return found.group(1)


@pytest.mark.django_db
def test_the_room_screen_says_final_at_once_not_at_the_next_result(client, closed, personas):
    t = closed
    Tournament.objects.filter(pk=t.pk).update(status="published")
    url = reverse("room_screen_ranking", args=[t.pk]) + "?rows=40&every=120"
    client.get(url, **EN)  # the first read catches the ranking up
    first = client.get(url, **EN)
    assert first.status_code == 200 and 'data-claims="provisional"' in first.content.decode()
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **EN).status_code == 304
    claims_close_early(tournament=t, user=personas.organiser)
    after = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **EN)
    assert after.status_code == 200, "the screen would keep saying provisional"
    assert 'data-claims="final"' in after.content.decode()


@pytest.mark.django_db
def test_the_line_answers_204_until_the_window_changes(client, closed, personas):
    t = closed
    table, donne, player = cell(t)
    page = client.get(reverse("ranking", args=[t.pk]), **FR).content.decode()
    assert f'data-claims-live="{line_url(t)}"' in page and "claims-window.js" in page
    stamp = stamp_of(page)
    assert client.get(line_url(t), {"stamp": stamp}, **FR).status_code == 204
    claim = claim_file(
        tournament=t, table=table, donne=donne, kind="result", text="Oubli", player=player
    )
    window_passed(t)  # the time passes with a claim open: claims closed, not final yet
    passed = client.get(line_url(t), {"stamp": stamp}, **EN)
    html = passed.content.decode()
    assert passed.status_code == 200 and 'data-passed="1"' in html and "claims closed" in html
    assert client.get(line_url(t), {"stamp": stamp_of(html)}, **EN).status_code == 204
    claim_settle(claim=claim, user=personas.arbiter, state="rejected", reason="Rien à corriger")
    final = client.get(line_url(t), {"stamp": stamp_of(html)}, **FR)
    html = final.content.decode()
    assert final.status_code == 200 and 'data-claims="final"' in html
    assert "data-claims-live" not in html  # a final line asks no more


@pytest.mark.django_db
def test_the_stamp_changes_when_the_organiser_moves_the_closing_time(closed, personas):
    t = closed
    before = claims_window(t).stamp
    Tournament.objects.filter(pk=t.pk).update(
        claims_close_at=timezone.now() + datetime.timedelta(minutes=5)
    )
    t.refresh_from_db()
    assert claims_window(t).stamp != before and claims_window(t).accepts_claims()


@pytest.mark.django_db
def test_the_line_is_one_query_and_a_draft_is_not_found(
    client, closed, personas, django_assert_num_queries
):
    t = closed
    with django_assert_num_queries(1):
        assert client.get(line_url(t), {"stamp": "x"}, **EN).status_code == 200
    Tournament.objects.filter(pk=t.pk).update(status="draft")
    assert client.get(line_url(t), **EN).status_code == 404
    assert client.get(reverse("claims_window_line", args=[10**6]), **EN).status_code == 404


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_ranking_page_on_a_phone_turns_final_without_a_reload(
    page, live_server, personas, settings
):
    from playwright.sync_api import expect

    settings.SITE_URL = live_server.url
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    Tournament.objects.filter(pk=t.pk).update(status="published")
    page.set_viewport_size({"width": 375, "height": 812})
    page.add_init_script("window.claimsWindowEvery = 300")
    page.goto(reverse("ranking", args=[t.pk]))
    expect(page.locator("[data-claims='provisional']")).to_have_count(1)
    claims_close_early(tournament=t, user=personas.organiser)
    line = page.locator("[data-claims='final']")
    expect(line).to_have_count(1, timeout=8_000)
    assert "définitif" in line.inner_text().lower()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path="/tmp/calls-shots/ranking-final.png", full_page=True)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_tables_page_after_play_follows_the_window_and_drops_the_claim_link(
    page, live_server, personas, settings
):
    """At the table, on a 375 px phone, after the last round: the page says the ranking is
    provisional with the claim link; the organiser closes early; without a reload the line
    says final and the link goes."""
    from playwright.sync_api import expect

    from tournaments.models import Seat
    from tournaments.services.table_entry import table_page_url

    settings.SITE_URL = live_server.url
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    table, _donne, player = cell(t)
    table_round = Seat.objects.get(
        player=player, table_round__table=table, round__number=1
    ).table_round
    page.set_viewport_size({"width": 375, "height": 740})
    page.add_init_script("window.claimsWindowEvery = 300")
    page.goto(table_page_url(table_round=table_round))
    expect(page.locator("[data-claims='provisional']")).to_have_count(1)
    expect(page.locator("#claim-link")).to_be_visible()
    page.screenshot(path="/tmp/calls-shots/table-after-play.png", full_page=True)
    claims_close_early(tournament=t, user=personas.organiser)
    expect(page.locator("[data-claims='final']")).to_have_count(1, timeout=8_000)
    expect(page.locator("#claim-link")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path="/tmp/calls-shots/table-after-play-final.png", full_page=True)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_table_page_open_when_the_last_round_closes_says_so_and_leads_to_the_window(
    page, live_server, running_tournament, personas, settings
):
    """The table's page is open on a phone when the arbiter closes the last round: the page
    says the round is closed (it no longer follows a state it may not read) and its link
    leads to the page after play, with the provisional line and the claim form."""
    from playwright.sync_api import expect

    from tests.tournaments.test_table_browser import open_table, prepare
    from tournaments.services.table_entry import table_page_url

    t = running_tournament
    settings.SITE_URL = live_server.url
    table_round = prepare(t)
    open_table(page, table_page_url(table_round=table_round))
    page.set_viewport_size({"width": 375, "height": 740})
    expect(page.locator("#closed")).to_be_hidden()
    close_every_round(t, personas.arbiter)
    expect(page.locator("#closed")).to_be_visible(timeout=10_000)
    expect(page.locator("#closed-msg")).to_contain_text("tour est clos")
    page.screenshot(path="/tmp/calls-shots/table-round-closed.png", full_page=False)
    page.locator("#closed-reload").click()
    expect(page.locator("[data-claims='provisional']")).to_have_count(1)
    expect(page.locator("#claim-link")).to_be_visible()
