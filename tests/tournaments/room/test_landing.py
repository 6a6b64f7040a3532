"""After login each user lands where he works: the arbiter of today's tournament on its
dashboard, an organiser on his club's tournaments, a player on his tournaments."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def _login(client, user, password, next_url: str = "") -> str:
    data = {"username": user.get_username(), "password": password}
    url = reverse("login") + (f"?next={next_url}" if next_url else "")
    response = client.post(url, data, follow=True)
    assert response.status_code == 200
    return response.redirect_chain[-1][0]


def test_each_user_lands_where_he_works(client, running_tournament, personas):
    t = running_tournament
    Tournament.objects.filter(pk=t.pk).update(date=timezone.localdate())
    pw = personas.password
    assert _login(client, personas.arbiter, pw) == reverse("arbiter_dashboard", args=[t.pk])
    client.logout()
    assert _login(client, personas.organiser, pw) == reverse("organiser_home")
    client.logout()
    player = personas.player_user.player
    assert _login(client, personas.player_user, pw) == reverse("player_detail", args=[player.pk])
    client.logout()
    assert _login(client, personas.stranger, pw) == reverse("home")
    client.logout()
    # An explicit ?next= still wins.
    assert _login(client, personas.arbiter, pw, next_url="/clubs/") == "/clubs/"


def test_an_arbiter_without_a_tournament_today_lands_on_his_tournaments(
    client, running_tournament, personas
):
    Tournament.objects.filter(pk=running_tournament.pk).update(date="2020-01-01")
    assert _login(client, personas.arbiter, personas.password) == reverse("organiser_home")
