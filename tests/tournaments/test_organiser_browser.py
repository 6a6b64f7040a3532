"""In real Chromium, in French: an organiser imports his players from a CSV file, creates a
tournament, registers and checks in 8 players with htmx, generates the seating and reads the
plan."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from tournaments.models import Club, Registration, Seat, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "tarot-secret-42"
PLAYERS = [
    ("0999001", "Arnaud", "Camille"),
    ("0999002", "Bernard", "Louis"),
    ("0999003", "Chevalier", "Chloé"),
    ("0999004", "Dubois", "Hugo"),
    ("0999005", "Durand", "Léa"),
    ("0999006", "Fabre", "Jules"),
    ("0999007", "Garnier", "Manon"),
    ("0999008", "Lefèvre", "Nathan"),
]


def test_organiser_prepares_a_tournament_in_french(page, live_server):
    organiser = get_user_model().objects.create_user("orga", password=PASSWORD)
    club = Club.objects.create(name="Tarot Club de Lyon", federation_number="0101", city="Lyon")
    club.organisers.add(organiser)

    page.goto("/login/?next=/organiser/")
    assert page.locator("html").get_attribute("lang") == "fr"
    page.fill("#id_username", "orga")
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url("**/organiser/")

    # 1. Import the club's players (French headers, semicolons, UTF-8 with BOM).
    page.locator(f"a[href='/organiser/clubs/{club.pk}/players/import/']").first.click()
    csv = "\ufefflicence;nom;prénom\n" + "".join(
        f"{lic};{last};{first}\n" for lic, last, first in PLAYERS
    )
    page.set_input_files(
        "input[type=file]",
        files=[{"name": "joueurs.csv", "mimeType": "text/csv", "buffer": csv.encode("utf-8")}],
    )
    page.locator("form[enctype] button[type=submit]").click()
    page.wait_for_url(f"**/organiser/clubs/{club.pk}/players/")
    assert page.locator("#club-players tbody tr").count() == 8
    assert "Lefèvre" in page.locator("#club-players").inner_text()

    # 2. Create the tournament.
    page.goto(f"/organiser/tournaments/new/?club={club.pk}")
    page.fill("#id_name", "Tournoi de la Saint-Sylvestre")
    page.fill("#id_date", "2026-12-31")
    page.fill("#id_venue", "Salle des fêtes")
    page.fill("#id_rounds", "2")
    page.locator("#tournament-form button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/t/\d+/prepare/$"))
    tournament = Tournament.objects.get(name="Tournoi de la Saint-Sylvestre")
    assert page.locator("#tournament-status").get_attribute("data-status") == "draft"
    page.locator("#status-card button[value=registration]").click()
    page.wait_for_load_state()
    assert page.locator("#tournament-status").get_attribute("data-status") == "registration"
    assert "Inscriptions" in page.locator("#tournament-status").inner_text()

    # 3. Register the 8 players through the htmx search (the licences share a prefix).
    page.goto(f"/t/{tournament.pk}/registrations/")
    page.fill("#registration-q", "09990")
    rows = page.locator("#search-table tbody tr")
    rows.first.wait_for()
    assert rows.count() == 8
    for licence, _last, _first in PLAYERS:
        row = page.locator("#search-table tbody tr", has_text=licence)
        row.locator("button[name=register]").click()
        row = page.locator("#search-table tbody tr", has_text=licence)
        row.locator(".badge").wait_for()
    page.locator("#registration-table tbody tr").nth(7).wait_for()
    assert page.locator("#registration-table tbody tr").count() == 8
    assert Registration.objects.filter(tournament=tournament).count() == 8

    # ... check in two of them one by one, then everyone else at once.
    for licence in ("0999001", "0999002"):
        row = page.locator("#registration-table tbody tr", has_text=licence)
        row.locator("button.check-in").click()
        page.locator(
            "#registration-table tbody tr[data-checked-in=yes]", has_text=licence
        ).wait_for()
    page.locator("#check-in-all").click()
    page.locator("#check-in-all").wait_for(state="detached")
    assert page.locator("#registration-table tbody tr[data-checked-in=yes]").count() == 8
    assert page.locator("#seating-state").get_attribute("data-state") == "none"

    # 4. Generate the seating, movement and donnes.
    page.goto(f"/t/{tournament.pk}/prepare/")
    page.locator("#generate").click()
    page.wait_for_load_state()
    assert page.locator("#seating-state").get_attribute("data-state") == "current"
    assert page.locator(".msg-success").is_visible()
    tournament.refresh_from_db()
    assert page.locator("#commitment").inner_text() == tournament.commitment
    assert Seat.objects.filter(round__tournament=tournament).count() == 16

    # 5. The seating plan, in French.
    page.locator("#seating-plan-link").click()
    page.wait_for_url(f"**/t/{tournament.pk}/seating/")
    for number in (1, 2):
        heading = page.locator(f"#round-{number} h2").inner_text()
        assert heading == f"Tour {number}"
        for table in (1, 2):
            card = page.locator(f"#round-{number}-table-{table}")
            assert card.locator("h3").inner_text() == f"Table {table}"
            positions = card.locator("th[scope=row]").all_inner_texts()
            assert positions == ["Nord", "Est", "Sud", "Ouest"]
    plan = page.locator("main").inner_text()
    for _licence, last, first in PLAYERS:
        assert plan.count(f"{first} {last}") == 2
