"""Wording people read: names in the order a reader expects, the table page's states in its
own language, the import help naming both encodings the import reads."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Player, Registration, TableRound, Tournament
from tournaments.services.table_entry import table_access_issue

pytestmark = pytest.mark.django_db

FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


def test_registrations_sort_accents_and_particles_as_a_reader_expects(client, personas):
    t = stage_tournament(players=8, status=Tournament.Status.REGISTRATION, personas=personas)
    Registration.objects.filter(tournament=t).delete()
    for last in ("Rousseau", "de La Tour", "Öztürk", "Arnaud", "Martin"):
        player = Player.objects.create(
            first_name="Zoé", last_name=last, licence=f"9{abs(hash(last)) % 10**6:06d}", club=t.club
        )
        Registration.objects.create(tournament=t, player=player)
    client.force_login(personas.organiser)
    html = client.get(reverse("organiser_registrations", args=[t.pk]), **FR).content.decode()
    found = [m for m in re.findall(r"Rousseau|de La Tour|Öztürk|Arnaud|Martin", html)]
    order = list(dict.fromkeys(found))
    assert order == ["Arnaud", "de La Tour", "Martin", "Öztürk", "Rousseau"]


def test_the_table_page_names_entry_states_in_its_own_language(client, running_tournament):
    """A result sent from the queue may be answered in another language: the page names its
    state from its own catalogue."""
    access = table_access_issue(
        table_round=TableRound.objects.filter(round__tournament=running_tournament).first()
    )
    html = client.get(f"/table/{access.secret}/", **FR).content.decode()
    data = re.search(r'<script id="table-i18n" type="application/json">(.*?)</script>', html, re.S)
    labels = json.loads(data.group(1))["entry_labels"]
    assert labels["awaiting"] == "En attente de confirmation"
    assert labels["confirmed"] != "Confirmed by an opponent"


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_import_help_names_both_encodings(client, personas, language):
    t = stage_tournament(players=8, personas=personas)
    client.force_login(personas.organiser)
    url = reverse("organiser_players_import", args=[t.club.pk])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert html.count("Windows-1252") >= 2  # the page's help and the field's
