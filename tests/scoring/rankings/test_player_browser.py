"""“Mon tarot” and the event report on a phone (issue 35): nothing scrolls sideways at 390 and
320 px, in French. With SHOT_DIR set, the pages are saved there as PNG to look at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tournaments.models import Tournament
from tournaments.services.player_links import player_link_issue

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = ((390, 844), (320, 640))


def overflow(page) -> int:
    return page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def test_mine_and_the_report_fit_a_phone(page, live_server):
    built = build_tournament(players=12, rounds=3, status=Tournament.Status.FINISHED, seed=4)
    fill_results(built, seed=5)
    ranking_recompute(tournament_id=built.tournament.pk)
    organiser = get_user_model().objects.create_user("shot-orga")
    built.tournament.club.organisers.add(organiser)
    link = player_link_issue(player=built.players[0], user=organiser)
    pages = {
        "mine": f"/moi/{link.token}/",
        "report": f"/moi/{link.token}/events/{built.tournament.pk}/",
    }
    page.set_default_navigation_timeout(30_000)  # a report is a long page on a busy machine
    shots = os.environ.get("SHOT_DIR")
    for width, height in WIDTHS:
        page.set_viewport_size({"width": width, "height": height})
        for name, url in pages.items():
            page.goto(url)
            assert page.locator("h1").count() == 1
            assert overflow(page) <= 0, (name, width)
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(Path(shots, f"{name}-{width}.png")), full_page=True)
    page.goto(pages["report"])
    assert page.locator(".report-hand.mine").count() == len(built.donnes)
    assert page.locator("svg.spread").count() >= 1
