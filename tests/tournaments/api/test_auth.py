"""Authentication (token and session), the account page's token, and the throttles on
logging in and on writes."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client, override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.fixtures.people import PASSWORD
from tests.tournaments.api.conftest import client_for
from tournaments.models import Penalty

pytestmark = pytest.mark.django_db

TOKEN_URL = "/api/v1/auth/token/"


def rates(**changed: str) -> Any:
    """REST_FRAMEWORK with other throttle rates (read per request by our throttles)."""
    conf = dict(settings.REST_FRAMEWORK)
    conf["DEFAULT_THROTTLE_RATES"] = {**conf["DEFAULT_THROTTLE_RATES"], **changed}
    return override_settings(REST_FRAMEWORK=conf)


def test_a_token_for_a_user_name_and_password(personas) -> None:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post(TOKEN_URL, {"username": "arbitre", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    key = response.json()["token"]
    assert Token.objects.get(user=personas.arbiter).key == key
    wrong = client.post(TOKEN_URL, {"username": "arbitre", "password": "nope"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["code"] == "invalid_credentials"

    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    me = client.get("/api/v1/me/").json()
    assert me["username"] == "arbitre" and me["has_token"] is True
    assert client.delete(TOKEN_URL).status_code == 204
    revoked = client.get("/api/v1/me/")
    assert revoked.status_code == 401 and revoked.json()["code"] == "authentication_failed"


def test_session_authentication_needs_csrf_on_writes(running_tournament, personas) -> None:
    t = running_tournament
    client = APIClient(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    assert client.login(username="arbitre", password=PASSWORD)
    assert client.get(f"/api/v1/tournaments/{t.pk}/penalties/").status_code == 200
    body = {"player": personas.player_user.player.pk, "kind": "warning"}
    path = f"/api/v1/tournaments/{t.pk}/penalties/"
    refused = client.post(path, body, format="json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["message"]
    assert not Penalty.objects.exists()
    client.get("/account/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    assert client.post(path, body, format="json", HTTP_X_CSRFTOKEN=token).status_code == 201


def test_logins_are_throttled(personas) -> None:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR="10.0.0.7")
    with rates(login="3/min"):
        for _ in range(3):
            wrong = {"username": "arbitre", "password": "guess"}
            assert client.post(TOKEN_URL, wrong, format="json").status_code == 400
        blocked = client.post(
            TOKEN_URL, {"username": "arbitre", "password": PASSWORD}, format="json"
        )
        assert blocked.status_code == 429
        assert blocked.json()["code"] == "throttled"
        assert int(blocked.headers["Retry-After"]) == blocked.json()["retry_after"] > 0
        # another user name from the same address is not blocked by this rate
        other = {"username": "orga", "password": PASSWORD}
        assert client.post(TOKEN_URL, other, format="json").status_code == 200
    with rates(login_ip="2/min"):
        other_addr = APIClient(REMOTE_ADDR="10.0.0.8")
        for name in ("a", "b"):
            other_addr.post(TOKEN_URL, {"username": name, "password": "x"}, format="json")
        assert (
            other_addr.post(
                TOKEN_URL, {"username": "c", "password": "x"}, format="json"
            ).status_code
            == 429
        )


def test_the_site_login_is_throttled(personas) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    with rates(login="2/min"):
        for _ in range(2):
            page = client.post("/login/", {"username": "joueur", "password": "guess"})
            assert page.status_code == 200  # the form again, with the error
        blocked = client.post("/login/", {"username": "joueur", "password": PASSWORD})
        assert blocked.status_code == 429
        assert "Too many login attempts" in blocked.content.decode()
        assert "_auth_user_id" not in client.session
    ok = client.post("/login/", {"username": "orga", "password": PASSWORD})
    assert ok.status_code == 302


def test_writes_are_throttled_not_reads(running_tournament, personas) -> None:
    t = running_tournament
    arbiter = client_for(personas.arbiter)
    path = f"/api/v1/tournaments/{t.pk}/penalties/"
    player = personas.player_user.player.pk

    def body(n: int) -> dict[str, object]:
        # Distinct penalties: an identical one sent again would be a repeat (RULES §8).
        return {"player": player, "kind": "other", "points": n, "reason": f"Slow play {n}"}

    with rates(write="2/min"):
        for _ in range(5):
            assert arbiter.get(path).status_code == 200
        assert arbiter.post(path, body(1), format="json").status_code == 201
        assert arbiter.post(path, body(2), format="json").status_code == 201
        third = arbiter.post(path, body(3), format="json")
        assert third.status_code == 429 and third.json()["code"] == "throttled"
        # another user has his own allowance
        organiser = client_for(personas.organiser)
        assert organiser.post(path, body(3), format="json").status_code == 201
    assert Penalty.objects.count() == 3


def test_the_account_page_creates_and_revokes_the_token(personas) -> None:
    client = Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(personas.player_user)
    page = client.get("/account/")
    assert "You have no API token." in page.content.decode()
    csrf = client.cookies["csrftoken"].value
    assert client.post("/account/", {"action": "create"}).status_code == 403  # no CSRF token
    assert not Token.objects.exists()
    created = client.post("/account/", {"action": "create", "csrfmiddlewaretoken": csrf})
    key = Token.objects.get(user=personas.player_user).key
    assert created.status_code == 200 and key in created.content.decode()
    shown_later = client.get("/account/").content.decode()
    assert key not in shown_later and key[:4] in shown_later
    assert (
        client_for(None).get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {key}").json()["username"]
        == "joueur"
    )
    replaced = client.post("/account/", {"action": "create", "csrfmiddlewaretoken": csrf})
    assert replaced.status_code == 200
    assert Token.objects.get(user=personas.player_user).key != key
    revoked = client.post("/account/", {"action": "revoke", "csrfmiddlewaretoken": csrf})
    assert revoked.status_code == 302 and not Token.objects.exists()


def test_anonymous_posts_to_the_account_page_change_nothing(personas) -> None:
    response = Client().post("/account/", {"action": "create"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert not Token.objects.exists()
