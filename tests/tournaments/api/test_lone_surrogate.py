"""A lone UTF-16 surrogate in a JSON body is a clear 400, never a 500 (issue 30.7 a).

Python's JSON parser accepts ``"\\ud800"``, but such a string cannot be encoded: the token
endpoint's throttle key and DRF's renderer echoing the value failed on it. The middleware
refuses it before any view, anonymous or not; a valid pair (an emoji) and an escaped
backslash followed by "ud800" are ordinary text and go through.
"""

from __future__ import annotations

import pytest

from tests.tournaments.api.conftest import client_for

pytestmark = pytest.mark.django_db

LONE = r'"\ud800"'
TRAILING = r'"x\udfff"'


def refused(response) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid_characters"
    assert "lone UTF-16 surrogate" in body["message"]


@pytest.mark.parametrize("value", [LONE, TRAILING, r'"\uD800\u0041"'])
def test_the_token_endpoint_refuses_it_anonymously(client, value):
    body = '{"username": @, "password": "x"}'.replace("@", value)
    refused(
        client.post(
            "/api/v1/auth/token/",
            body,
            content_type="application/json",
            HTTP_ACCEPT_LANGUAGE="en",
        )
    )


def test_writes_refuse_it_in_values_keys_and_lists(running_tournament, personas):
    api = client_for(personas.organiser)
    t = running_tournament
    for path, method, body in [
        ("/api/v1/tournaments/", "post", '{"club": #, "name": @, "date": "2026-12-24"}'),
        (f"/api/v1/tournaments/{t.pk}/", "patch", '{"venue": "x", "name": @}'),
        (f"/api/v1/tournaments/{t.pk}/", "patch", '{"arbiters": ["arbitre", @]}'),
        (f"/api/v1/tournaments/{t.pk}/", "patch", '{@: "x"}'),
    ]:
        text = body.replace("#", str(t.club_id)).replace("@", LONE)
        response = getattr(api, method)(
            path, text, content_type="application/json", HTTP_ACCEPT_LANGUAGE="en"
        )
        refused(response)


def test_a_valid_pair_and_an_escaped_backslash_go_through(running_tournament, personas):
    api = client_for(personas.organiser)
    t = running_tournament
    for name in [r'"Tarot \ud83d\ude00"', r'"Tarot \\ud800"']:
        body = '{"name": @}'.replace("@", name)
        response = api.patch(f"/api/v1/tournaments/{t.pk}/", body, content_type="application/json")
        assert response.status_code != 500
        assert response.json().get("code") != "invalid_characters", response.json()
