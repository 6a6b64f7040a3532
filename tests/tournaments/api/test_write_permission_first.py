"""Permission before validation: a write by someone who may not make it gets the same
answer whatever the body says, so its errors cannot reveal which user names exist."""

from __future__ import annotations

import re

import pytest

from tests.tournaments.api.conftest import client_for

pytestmark = pytest.mark.django_db

URL = "/api/v1/tournaments/"


def body(club: int, arbiter: str) -> dict:
    return {"club": club, "name": "Sonde", "date": "2026-12-05", "rounds": 2, "arbiters": [arbiter]}


def test_anonymous_gets_401_for_known_and_unknown_arbiter_names(running_tournament, personas):
    client = client_for(None)
    club = running_tournament.club_id
    known = client.post(URL, body(club, "arbitre"), format="json")
    unknown = client.post(URL, body(club, "personne-de-ce-nom"), format="json")
    assert known.status_code == unknown.status_code == 401
    assert known.json() == unknown.json()


def test_a_player_gets_403_for_known_and_unknown_names_and_clubs(running_tournament, personas):
    client = client_for(personas.player_user)
    club = running_tournament.club_id
    answers = [
        client.post(URL, body(club, "arbitre"), format="json"),
        client.post(URL, body(club, "personne-de-ce-nom"), format="json"),
        client.post(URL, body(987654, "arbitre"), format="json"),
    ]
    assert [a.status_code for a in answers] == [403, 403, 403]
    assert answers[0].json() == answers[1].json() == answers[2].json()


def test_the_organiser_still_gets_the_validation_error(running_tournament, personas):
    client = client_for(personas.organiser)
    response = client.post(
        URL, body(running_tournament.club_id, "personne-de-ce-nom"), format="json"
    )
    assert response.status_code == 400


def _write_routes():
    """(path template, view class, methods) of every API v1 route that accepts a write: those
    of tournaments.api.urls and of the rankings' and documents' api modules, as the site's
    URL configuration serves them under /api/v1/."""
    from django.urls import URLResolver, get_resolver

    def walk(patterns, prefix):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                yield prefix + str(pattern.pattern), pattern

    routes = []
    for route, pattern in walk(get_resolver().url_patterns, ""):
        view = getattr(pattern.callback, "view_class", None)
        if view is None or not route.startswith("api/v1/"):
            continue
        methods = [m for m in ("post", "put", "patch", "delete") if hasattr(view, m)]
        if methods:
            routes.append((route.removeprefix("api/v1/"), view, methods))
    return routes


PUBLIC_WRITES = {"auth/token/"}  # logging in is the one write open to anyone
# Those who may read a tournament may ask for its public documents: the kind asked decides,
# so a reader gets the body's 400 (the same for every unknown kind), a stranger the 401.
READER_WRITES = {"tournaments/<id:tournament>/documents/"}
# Any signed-in user may create a club: he gets the body's 400; its body names nothing that
# exists, so the two bodies' answers may differ (each says what is wrong with it).
SIGNED_IN_WRITES = {"clubs/"}
# A registered player files their own claim (issue 34): they get the body's 400; what it names
# (a table, a donne of the tournament) they may read anyway, so the two answers may differ.
PLAYER_WRITES = {"tournaments/<id:tournament>/claims/"}
# A club's upload to a simultaneous event authenticates with the club's token, not a user:
# every caller without it gets the 401.
CLUB_TOKEN_WRITES = {"simultaneous/club/uploads/"}
# A call to the arbiter is made by a player of the table, who proves himself in the body (his
# code or his phone's binding): any signed-in reader gets the body's 400 (issue 34).
PROOF_IN_BODY_WRITES = {"tournaments/<id:tournament>/calls/"}


def _path(template: str, tournament) -> str:
    from tournaments.models import Player

    player = Player.objects.filter(club=tournament.club).first()
    values = {
        "tournament": tournament.pk,
        "club": tournament.club_id,
        "player": player.pk if player else 1,
        "table": 1,
        "donne": 1,
        "number": 1,
        "penalty": 1,
        "document": 1,
    }
    return "/api/v1/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values.get(m[1], 1)), template)


BODIES = [
    {"name": "x", "arbiters": ["arbitre"], "player": 1, "table": 1, "donne": 1},
    {"name": "\u202e", "arbiters": ["personne-de-ce-nom"], "player": 987654, "table": 99},
]


def test_every_api_write_checks_who_asks_before_reading_the_body(running_tournament, personas):
    """Anonymous: 401; a registered player without the right: 403 — the same answer for
    bodies naming existing and unknown things, on every write route."""
    routes = [r for r in _write_routes() if r[0] not in PUBLIC_WRITES]
    assert len(routes) > 10
    leaks = []
    for who, expected in ((None, 401), (personas.player_user, 403)):
        client = client_for(who)
        for template, _view, methods in routes:
            url = _path(template, running_tournament)
            for method in methods:
                answers = [getattr(client, method)(url, b, format="json") for b in BODIES]
                codes = [a.status_code for a in answers]
                wanted = 401 if template in CLUB_TOKEN_WRITES else expected
                if who is not None and template in READER_WRITES | SIGNED_IN_WRITES | PLAYER_WRITES:
                    wanted = 400
                if who is not None and template in PROOF_IN_BODY_WRITES:
                    wanted = 400
                same = answers[0].json() == answers[1].json() or template in (
                    SIGNED_IN_WRITES | PROOF_IN_BODY_WRITES | PLAYER_WRITES
                )
                if codes != [wanted, wanted] or not same:
                    leaks.append(f"{method.upper()} {url} as {who or 'anonymous'}: {codes}")
    assert not leaks, leaks
