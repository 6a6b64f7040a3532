"""The hub's field pages of a simultaneous event: the embargo (organisers only, then
everybody), the overall ranking page by page with "find me", a club's players, a player's card
across the field, the donnes and each donne's traveller with its frequency sheet."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.simultaneous.pages.builders import lift_embargo, make_event, small_field

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def people(make_user):
    return {"organiser": make_user("orga"), "stranger": make_user("stranger")}


@pytest.fixture
def field(people):
    return small_field(make_event(organisers=[people["organiser"]]))


def field_urls(field) -> list[str]:
    event = field.event
    return [
        reverse("simultaneous_ranking", args=[event.public_id]),
        reverse("simultaneous_club", args=[event.public_id, field.clubs[0].public_id]),
        reverse("simultaneous_player", args=[event.public_id, field.licences[0]]),
        reverse("simultaneous_donnes", args=[event.public_id]),
        reverse("simultaneous_traveller", args=[event.public_id, 1]),
        reverse("simultaneous_ranking_csv", args=[event.public_id]),
        reverse("simultaneous_results_csv", args=[event.public_id]),
        reverse("simultaneous_booklet", args=[event.public_id]),
    ]


def get(client, url, user=None, **extra):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(url, **EN, **extra)


def test_under_embargo_only_the_organisers_read_the_field(client, field, people):
    for url in field_urls(field):
        anonymous = get(client, url)
        assert anonymous.status_code == 302 and "/login/" in anonymous["Location"], url
        assert get(client, url, people["stranger"]).status_code == 403, url
        assert get(client, url, people["organiser"]).status_code == 200, url


def test_after_the_embargo_everybody_reads_the_field(client, field, people):
    lift_embargo(field.event)
    for url in field_urls(field):
        assert get(client, url).status_code == 200, url
        assert get(client, url, people["stranger"]).status_code == 200, url


def test_smoke_pages(client, field, people):
    for url in field_urls(field)[:5]:
        html = get(client, url, people["organiser"]).content.decode()
        assert "Traceback" not in html
