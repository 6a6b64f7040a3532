"""Throttles that cannot be dodged: the client is the connection's address unless trusted
proxies are configured (a new X-Forwarded-For per request changes nothing), failed logins
are counted per (user name, address) and per address (a stranger cannot lock the owner out,
only slow him down a little), and the counters live in the cache that
every process shares (not in one process's memory)."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tarot_club.kit.throttling import client_address
from tests.fixtures.people import PASSWORD
from tests.tournaments.api.test_auth import TOKEN_URL, rates

pytestmark = pytest.mark.django_db


def test_a_new_forwarded_for_per_attempt_does_not_dodge_the_login_throttle(personas):
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.9")
    wrong = {"username": "arbitre", "password": "guess"}
    with rates(login="3/min"):
        codes = [
            client.post(
                TOKEN_URL, wrong, format="json", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}"
            ).status_code
            for n in range(5)
        ]
    assert codes == [400, 400, 400, 429, 429]


def test_the_site_login_ignores_forwarded_for_too(personas):
    client = Client(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.10")
    with rates(login="2/min"):
        codes = [
            client.post(
                "/login/",
                {"username": "joueur", "password": "guess"},
                HTTP_X_FORWARDED_FOR=f"198.51.100.{n}",
            ).status_code
            for n in range(3)
        ]
    assert codes == [200, 200, 429]


def test_with_one_trusted_proxy_the_address_it_saw_is_the_client():
    class Request:
        META = {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": "6.6.6.6, 192.0.2.5"}

    assert client_address(Request()) == "10.0.0.1"
    with override_settings(TRUSTED_PROXIES=1):
        assert client_address(Request()) == "192.0.2.5"  # not the forged first entry
    with override_settings(TRUSTED_PROXIES=2):
        assert client_address(Request()) == "6.6.6.6"


def test_thirty_wrong_passwords_from_one_address_do_not_lock_the_owner_out(
    personas, monkeypatch, settings
):
    """Failures count per (name, address) and per address, never per name alone: a stranger
    is refused, the owner from another address gets in, at most a few seconds slower."""
    import time

    pauses: list[float] = []
    monkeypatch.setattr(time, "sleep", pauses.append)
    settings.LOGIN_SLOWDOWN_AFTER, settings.LOGIN_SLOWDOWN_SECONDS = 10, 2
    stranger = APIClient(REMOTE_ADDR="10.1.0.1")
    wrong = {"username": "arbitre", "password": "guess"}
    with rates(login="1000/min", login_ip="1000/min"):  # the failure counts alone
        codes = [stranger.post(TOKEN_URL, wrong, format="json").status_code for _n in range(30)]
        assert codes == [400] * 30 and len(pauses) == 20  # slowed after ten failures
        with rates(login_failures="20/hour"):
            assert stranger.post(TOKEN_URL, wrong, format="json").status_code == 429
        right = {"username": "arbitre", "password": PASSWORD}
        pauses.clear()
        owner = APIClient(REMOTE_ADDR="10.1.0.99").post(TOKEN_URL, right, format="json")
        assert owner.status_code == 200
        site = Client(REMOTE_ADDR="10.1.0.98").post("/login/", right)
        assert site.status_code == 302
        assert pauses == [2, 2]  # slowed, never refused
        ok = {"username": "orga", "password": PASSWORD}  # another name is not slowed
        pauses.clear()
        assert (
            APIClient(REMOTE_ADDR="10.1.0.1").post(TOKEN_URL, ok, format="json").status_code == 200
        )
        assert pauses == []


def test_failed_logins_from_one_address_are_limited_whatever_the_names(personas):
    client = APIClient(REMOTE_ADDR="10.4.0.1")
    with rates(login_address_failures="3/hour"):
        codes = [
            client.post(
                TOKEN_URL, {"username": f"name{n}", "password": "guess"}, format="json"
            ).status_code
            for n in range(4)
        ]
        assert codes == [400, 400, 400, 429]
        right = {"username": "arbitre", "password": PASSWORD}
        assert (
            APIClient(REMOTE_ADDR="10.4.0.2").post(TOKEN_URL, right, format="json").status_code
            == 200
        )
        assert Client(REMOTE_ADDR="10.4.0.1").post("/login/", right).status_code == 429


def test_the_pause_is_a_few_seconds_at_most(personas, settings):
    from tarot_club.kit.throttling import login_pause

    settings.LOGIN_SLOWDOWN_AFTER, settings.LOGIN_SLOWDOWN_SECONDS = 2, 60
    assert login_pause("inconnu") == 0
    with rates(login_failures="1000/hour"):
        for _n in range(2):
            APIClient(REMOTE_ADDR="10.5.0.1").post(
                TOKEN_URL, {"username": "inconnu", "password": "x"}, format="json"
            )
    assert login_pause("inconnu") == 5


def test_counters_are_kept_in_the_shared_cache_not_in_process_memory(personas):
    client = APIClient(REMOTE_ADDR="10.3.0.1")
    with rates(login="5/min"):
        client.post(TOKEN_URL, {"username": "arbitre", "password": "guess"}, format="json")
    shared = caches["shared"]
    assert shared.__class__.__name__ in ("DatabaseCache", "RedisCache")
    assert shared.get("throttle_login_ip_10.3.0.1")  # the per-address count, shared
