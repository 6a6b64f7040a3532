"""On a phone (390 × 844), in French, in real Chromium: a player reads the indice on "Mon
tarot", the club's organiser the rating column of the players' list, and switches it off."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model

from scoring.rankings.models import PlayerRating
from scoring.rankings.rating import rating_recompute
from scoring.rankings.services import ranking_recompute
from tests.fixtures.people import PASSWORD
from tests.scoring.rankings.builders import build_tournament, fill_results
from tournaments.models import Club

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def login(page, username: str, path: str) -> None:
    page.goto(f"/login/?next={path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(f"**{path}")


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_indice_on_a_phone(page, tmp_path):
    users = get_user_model().objects
    me = users.create_user("joueuse", password=PASSWORD)
    organiser = users.create_user("orga-indice", password=PASSWORD)
    club = Club.objects.create(name="Club des Tarotiers de Lyon", federation_number="0440")
    club.organisers.add(organiser)
    built = None
    for day in (3, 10):
        built = build_tournament(
            players=8,
            club=club,
            status="published",
            date=datetime.date(2026, 10, day),
            name=f"Tournoi du {day} octobre",
            seed=day,
        )
        fill_results(built, seed=day)
        ranking_recompute(tournament_id=built.tournament.pk)
    rating_recompute()
    player = built.players[0]
    player.user = me
    player.save(update_fields=["user"])
    stored = PlayerRating.objects.get(player=player)

    page.set_viewport_size(PHONE)
    login(page, me.username, "/moi/")
    rating = page.locator("#rating")
    assert str(round(stored.rating)) in rating.inner_text()
    assert "pas le classement de la fédération" in rating.inner_text()
    assert "Attendu / obtenu" in page.locator("#history").inner_text()
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(tmp_path / "mine.png"), full_page=True)

    page.context.clear_cookies()
    path = f"/organiser/clubs/{club.pk}/players/"
    login(page, organiser.username, path)
    table = page.locator("#club-players")
    assert "Indice" in table.locator("thead").inner_text()
    assert str(round(stored.rating)) in table.inner_text()
    page.screenshot(path=str(tmp_path / "club.png"), full_page=True)
    assert no_horizontal_scroll(page)
    page.locator("#club-rating button").click()
    page.wait_for_selector("text=Activer l’indice")
    assert "Indice" not in page.locator("#club-players thead").inner_text()
