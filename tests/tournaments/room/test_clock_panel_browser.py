"""In Chromium: the arbiter types an announcement while the clock panel refreshes itself, and
a refused announcement shows its reason beside the field."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.fixtures.people import PASSWORD
from tournaments.models import Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_typing_survives_the_clock_refresh_and_a_refusal_shows_beside_the_field(
    page, running_tournament, personas
):
    t = running_tournament
    page.goto(f"/login/?next={reverse('arbiter_dashboard', args=[t.pk])}")
    page.fill("#id_username", personas.arbiter.username)
    page.fill("#id_password", PASSWORD)
    page.locator("form.card button[type=submit]").click()
    page.wait_for_url(re.compile(r"/arbiter/$"))

    field = page.locator("#announcement")
    field.click()
    field.type("Pause\u200b café")
    # The clock part polls every 5 s: wait for a refresh, the field is left alone.
    with page.expect_response(lambda r: r.url.endswith(reverse("arbiter_clock", args=[t.pk]))):
        pass
    page.wait_for_timeout(200)
    assert page.evaluate("document.activeElement.id") == "announcement"
    assert field.input_value() == "Pause\u200b café"

    page.get_by_role("button", name=re.compile("Afficher")).click()
    error = page.locator("#announcement-error")
    error.wait_for()
    assert "U+200B" in error.inner_text()
    assert page.locator("#announcement").get_attribute("aria-invalid") == "true"
    assert Tournament.objects.get(pk=t.pk).announcement == ""

    page.locator("#announcement").fill("Pause café")
    page.get_by_role("button", name=re.compile("Afficher")).click()
    page.locator("#announcement-form [role=status]").wait_for()
    assert Tournament.objects.get(pk=t.pk).announcement == "Pause café"
