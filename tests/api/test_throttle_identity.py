"""Throttles that cannot be dodged: the client is the connection's address unless trusted
proxies are configured (a new X-Forwarded-For per request changes nothing), failed logins
are also counted per user name from any address, and the counters live in the cache that
every process shares (not in one process's memory)."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.api.test_auth import TOKEN_URL, rates
from tests.fixtures.people import PASSWORD
from tournaments.api.throttling import client_address

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


def test_failed_logins_per_user_name_from_many_addresses_are_limited(personas):
    wrong = {"username": "arbitre", "password": "guess"}
    with rates(login_failures="3/hour"):
        codes = [
            APIClient(REMOTE_ADDR=f"10.1.0.{n}").post(TOKEN_URL, wrong, format="json").status_code
            for n in range(4)
        ]
        assert codes == [400, 400, 400, 429]
        right = {"username": "arbitre", "password": PASSWORD}
        late = APIClient(REMOTE_ADDR="10.1.0.99").post(TOKEN_URL, right, format="json")
        assert late.status_code == 429  # even the right password waits: the name is locked
        site = Client(REMOTE_ADDR="10.1.0.98").post("/login/", right)
        assert site.status_code == 429
        # another name is untouched, and successes are not counted
        for n in range(5):
            ok = {"username": "orga", "password": PASSWORD}
            response = APIClient(REMOTE_ADDR=f"10.2.0.{n}").post(TOKEN_URL, ok, format="json")
            assert response.status_code == 200


def test_counters_are_kept_in_the_shared_cache_not_in_process_memory(personas):
    client = APIClient(REMOTE_ADDR="10.3.0.1")
    with rates(login="5/min"):
        client.post(TOKEN_URL, {"username": "arbitre", "password": "guess"}, format="json")
    shared = caches["shared"]
    assert shared.__class__.__name__ in ("DatabaseCache", "RedisCache")
    assert shared.get("throttle_login_ip_10.3.0.1")  # the per-address count, shared
