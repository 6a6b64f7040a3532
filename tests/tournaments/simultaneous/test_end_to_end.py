"""A simultaneous event end to end: a hub and three clubs as separate sites (their own
processes and databases, the hub with a real Celery worker on Redis, reached over HTTP on
the loopback).

Three clubs join with their tokens over HTTP and play the event's donnes with different
movements (8 players; 9 with a table of five; 12 on three tables). Round 1 is entered at the
tables (the table-entry services, both camps vouching), round 2 by the arbiters (API); a result
is corrected after its upload, a penalty given; one club's tampered hands are refused by the
hub, then fixed; one club loses the hub at the end of its session and uploads when it is
reachable again. Then: the hub's overall ranking is the pure ranking of every result pooled,
each club's own ranking is its own results' alone, and nothing was public before the
embargo ended.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from scoring.rules.ranking import Penalty, Play, compute_ranking
from tarot_club.health import redis_reachable
from tests.fixtures import services as service_fixtures

from .sites import PASSWORD, Databases, Proxy, Site, run_scripts, wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

ROUNDS, SETS, METHOD = 2, 3, "average"
CLUBS = {  # name: (federation number, first digit of its licences, players, Celery worker)
    "A": ("1001", "1", 8, False),
    "B": ("1002", "2", 9, False),
    "C": ("1003", "3", 12, True),
}

SETUP_HUB = """
import json, os
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from tournaments.models import Club
a = json.loads(os.environ["E2E_ARGS"])
user = get_user_model().objects.create_user("orga", password=a["password"])
Club.objects.create(name="Ligue", federation_number="9999").organisers.add(user)
print(json.dumps({"token": Token.objects.create(user=user).key}))
"""

SETUP_CLUB = """
import datetime, json, os
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token
from tournaments.models import Club, Player, Registration
from tournaments.services.tournaments import tournament_create, tournament_set_status
a = json.loads(os.environ["E2E_ARGS"])
user = get_user_model().objects.create_user("orga", password=a["password"])
club = Club.objects.create(name="Club " + a["club"], federation_number=a["fed"])
club.organisers.add(user)
names = ["Camille", "Louis", "Chloé", "Hugo", "Léa", "Jules", "Manon", "Arthur", "Inès"]
players = Player.objects.bulk_create(
    Player(first_name=names[i % 9], last_name="Joueur " + a["club"] + str(i), club=club,
           licence=a["digit"] + f"{i:06d}")
    for i in range(1, a["players"] + 1)
)
t = tournament_create(club=club, name="Simultané " + a["club"], date=datetime.date(2027, 1, 16),
                      rounds=a["rounds"], method=a["method"], user=user)
tournament_set_status(tournament=t, status="registration", user=user)
Registration.objects.bulk_create(
    Registration(tournament=t, player=p, checked_in_at=timezone.now()) for p in players)
print(json.dumps({"token": Token.objects.create(user=user).key, "tournament": t.pk}))
"""

# A result drawn from (club, table, donne): the same in the club's entry and nowhere else.
VALUES = """
import random
def values(club, table, donne):
    rng = random.Random(f"{club}-{table}-{donne}")
    bouts = rng.randint(0, 3)
    need = {0: 56, 1: 51, 2: 41, 3: 36}[bouts]
    return {"status": "played", "taker": rng.choice("NESW"),
            "contract": rng.choice(["prise", "garde", "garde_sans"]), "bouts": bouts,
            "points": max(0, min(91, need + rng.randint(-12, 12)))}
"""

TABLE_ENTRIES = (
    VALUES
    + """
import json, os
from decimal import Decimal
from tournaments.models import TableRound
from tournaments.services.preparation import seats_for_donne
from tournaments.services.results import ResultInput
from tournaments.services.table_entry import (Voucher, player_codes_get, table_access_issue,
    table_entry_confirm, table_entry_save)
a = json.loads(os.environ["E2E_ARGS"])
codes = None
saved = 0
for tr in TableRound.objects.filter(round__tournament_id=a["tournament"], round__number=a["round"]):
    codes = codes or player_codes_get(tournament=tr.round.tournament)
    access = table_access_issue(table_round=tr)
    for index, donne in enumerate(tr.etui_set.donnes.order_by("number")):
        v = values(a["club"], tr.table.number, donne.number)
        hands = seats_for_donne(tr, index).hands
        enterer = hands[v["taker"]]
        confirmer = hands[{"N": "E", "E": "S", "S": "W", "W": "N"}[v["taker"]]]
        data = ResultInput(status="played", taker=v["taker"], contract=v["contract"],
                           bouts=v["bouts"], points=Decimal(v["points"]))
        result, _ = table_entry_save(access=access, donne_number=donne.number, data=data,
            voucher=Voucher(player_id=enterer.pk, code=codes[enterer.pk]), expected_version=None)
        table_entry_confirm(access=access, donne_number=donne.number,
            voucher=Voucher(player_id=confirmer.pk, code=codes[confirmer.pk]), version=result.version)
        saved += 1
later = [[tr.table.number, d.number]
    for tr in TableRound.objects.filter(round__tournament_id=a["tournament"], round__number=a["round"] + 1)
    for d in tr.etui_set.donnes.order_by("number")]
print(json.dumps({"saved": saved, "next_round": later}))
"""
)

SWAP_HANDS = """
import json, os
from tournaments.models import Donne
a = json.loads(os.environ["E2E_ARGS"])
d = Donne.objects.get(tournament_id=a["tournament"], number=a["donne"])
Donne.objects.filter(pk=d.pk).update(hand_n=d.hand_e, hand_e=d.hand_n)
print(json.dumps({"swapped": d.number}))
"""

DUMP = """
import json, os
from tournaments.models import Penalty, Player, Result, Seat
a = json.loads(os.environ["E2E_ARGS"])
t = a["tournament"]
licence = dict(Player.objects.values_list("pk", "licence"))
results = [
    {"table": r.table.number, "donne": r.donne.number, "status": r.status,
     "holders": {p: licence[int(i)] for p, i in r.holders.items()},
     "sitter": licence[r.sitter_id] if r.sitter_id else None, "scores": r.scores}
    for r in Result.objects.counted().filter(tournament_id=t).select_related("table", "donne")
]
penalties = [[licence[p.player_id], p.points] for p in Penalty.objects.filter(
    tournament_id=t, withdrawn_at__isnull=True)]
seated = sorted({licence[i] for i in Seat.objects.filter(round__tournament_id=t).values_list("player_id", flat=True)})
print(json.dumps({"results": results, "penalties": penalties, "seated": seated}))
"""


def pure_ranking(clubs: dict[str, dict[str, Any]], method: str) -> dict[str, Fraction]:
    """compute_ranking over the given clubs' results, keyed by licence: tables are
    (club, table) so that donne k at every table of every club is one group."""
    plays, annulled, sit_outs = [], [], []
    penalties = []
    for club, data in clubs.items():
        for r in data["results"]:
            table = (club, r["table"])
            if r["sitter"]:
                sit_outs.append((r["sitter"], r["donne"]))
            if r["status"] == "annulled":
                annulled.append((r["donne"], table))
                continue
            for position, holder in r["holders"].items():
                score = 0 if r["status"] == "all_passed" else int(r["scores"][position])
                plays.append(Play(holder, r["donne"], position, table, score))
        penalties += [Penalty(lic, points) for lic, points in data["penalties"]]
        penalties += [Penalty(lic, 0) for lic in data["seated"]]
    ranking = compute_ranking(
        plays, method=method, annulled=annulled, sit_outs=sit_outs, penalties=penalties
    )
    return {row.player: row.total for row in ranking.rows}


def exact(value: Any) -> Fraction:
    return Fraction(str(value))


def hub_api_served() -> bool:
    """Whether this checkout serves the hub's API (branch i27-hub's api_urls, merged)."""
    from django.urls import Resolver404, resolve

    try:
        return resolve("/api/v1/simultaneous/club/event/").url_name == "api_simultaneous_club_event"
    except Resolver404:
        return False


@pytest.fixture
def sites():
    """The hub (PostgreSQL when DATABASE_URL is, a worker on Redis) and three clubs (their
    own databases; C with a worker of its own). Stopped and dropped afterwards."""
    if not hub_api_served():
        pytest.skip("the hub's API (/api/v1/simultaneous/, branch i27-hub) is not merged yet")
    redis = service_fixtures.test_redis_url()
    service_fixtures.require(
        f"Redis at {redis or '(empty REDIS_URL)'}", bool(redis) and redis_reachable(redis)
    )
    base = os.environ.get("DATABASE_URL", "")
    workdir = Path(tempfile.mkdtemp(prefix="tarot-e2e-"))
    dbs = Databases(base if base.startswith("postgres") else "", workdir)
    started: list[Site] = []
    clock = time.monotonic()

    def lap(what: str) -> None:
        print(f"e2e: {what} at {time.monotonic() - clock:.1f}s")

    try:
        template = dbs.template()
        lap("template migrated")
        redis_base = redis.rsplit("/", 1)[0]
        envs = {
            "hub": {
                "DATABASE_URL": dbs.clone(template, "hub"),
                "REDIS_URL": f"{redis_base}/14",
                "CELERY_EAGER": "0",
                "CELERY_QUEUE": f"{dbs.prefix}-hub",
                "RANKING_MIN_INTERVAL": "0.2",
            }
        }
        for name, (_fed, _digit, _players, worker) in CLUBS.items():
            envs[name] = {"DATABASE_URL": dbs.clone(template, name.lower())}
            if worker:
                envs[name].update(
                    {
                        "REDIS_URL": f"{redis_base}/15",
                        "CELERY_EAGER": "0",
                        "CELERY_QUEUE": f"{dbs.prefix}-{name}",
                        "RANKING_SWEEP_SECONDS": "1",
                    }
                )
            else:
                envs[name].update({"REDIS_URL": "", "CELERY_EAGER": "1"})
        setups = run_scripts(
            [(SETUP_HUB, envs["hub"], {"password": PASSWORD})]
            + [
                (
                    SETUP_CLUB,
                    envs[name],
                    {
                        "password": PASSWORD,
                        "club": name,
                        "fed": fed,
                        "digit": digit,
                        "players": players,
                        "rounds": ROUNDS,
                        "method": METHOD,
                    },
                )
                for name, (fed, digit, players, _worker) in CLUBS.items()
            ]
        )
        lap("sites set up")
        out: dict[str, Site] = {}
        for (name, env), setup in zip(envs.items(), setups, strict=True):
            site = Site(name, env, workdir)
            site.token = setup["token"]
            site.tournament = setup.get("tournament")  # type: ignore[attr-defined]
            site.start(worker=name == "hub" or CLUBS[name][3])
            started.append(site)
            out[name] = site
        for site in started:
            site.wait_ready()
        lap("sites serving")
        yield out
    except BaseException:
        for site in started:
            print(site.logs())
        raise
    finally:
        for site in started:
            site.stop()
        dbs.drop_all()
        shutil.rmtree(workdir, ignore_errors=True)


def enter_by_arbiter(club: Site, name: str, table: int, donne: int) -> dict:
    """The arbiter's entry through the API, confirming the warnings the hands raise."""
    from random import Random

    rng = Random(f"{name}-{table}-{donne}")
    bouts = rng.randint(0, 3)
    need = {0: 56, 1: 51, 2: 41, 3: 36}[bouts]
    data = {
        "status": "played",
        "taker": rng.choice("NESW"),
        "contract": rng.choice(["prise", "garde", "garde_sans"]),
        "bouts": bouts,
        "points": max(0, min(91, need + rng.randint(-12, 12))),
    }
    path = f"/api/v1/tournaments/{club.tournament}/results/{table}/{donne}/"
    status, body = club.request("PUT", path, data)
    if status == 422 and isinstance(body, dict) and body.get("warnings"):
        status, body = club.request("PUT", path, {**data, "confirm": list(body["warnings"])})
    assert status == 200, (status, body)
    return body


def link_state(club: Site) -> str:
    import re

    _status, page = club.request("GET", f"/t/{club.tournament}/simultaneous/", token="")
    found = re.search(r'id="link-state" data-state="([a-z]+)"', page)
    return found.group(1) if found else ""


def test_three_clubs_and_a_hub(sites):
    try:
        the_story(sites)
    except BaseException:
        for site in sites.values():  # the sites' own logs say what went wrong there
            print(site.logs())
        raise


def _event_with_invitations(hub: Site) -> tuple[dict, str, dict[str, str]]:
    """The event created on the hub and the three clubs invited: (event, its id, tokens)."""
    # The organiser creates the event on the hub and invites the three clubs.
    event = hub.api(
        "POST",
        "simultaneous/events/",
        {
            "name": "Simultané de janvier",
            "date": "2027-01-16",
            "rounds": ROUNDS,
            "sets": SETS,
            "method": METHOD,
        },
    )
    event_id = event.get("event") or event.get("id")
    tokens = {}
    for name, (fed, *_rest) in CLUBS.items():
        invited = hub.api(
            "POST",
            f"simultaneous/events/{event_id}/invitations/",
            {"club_name": f"Club {name}", "federation_number": fed},
        )
        tokens[name] = invited["token"]
    return event, event_id, tokens


def _join(hub: Site, clubs: dict[str, Site], tokens: dict[str, str]) -> Proxy:
    """Each club joins; club C through a relay (returned) that the test cuts later."""
    # Club C reaches the hub through a relay that the test cuts at the end of its session.
    relay = Proxy(hub.port)
    relay.start()
    hub_urls = {name: hub.url for name in CLUBS}
    hub_urls["C"] = f"http://127.0.0.1:{relay.port}"

    # Each club's organiser joins on the club's page (the club then asks the hub for the
    # event over HTTP); a wrong token is refused with the hub's reason.
    for name, club in clubs.items():
        club.login("orga")
        path = f"/t/{club.tournament}/simultaneous/"
        _status, page = club.request("GET", path, token="")
        if name == "A":
            status, answer = club.submit(path, page, {"hub_url": hub.url, "token": "wrong"})
            assert status == 400 and "simultaneous-join" in answer
            _status, page = club.request("GET", path, token="")
        status, page = club.submit(path, page, {"hub_url": hub_urls[name], "token": tokens[name]})
        assert status == 200 and 'id="simultaneous-link"' in page, page[-2000:]
    return relay


def _play(clubs: dict[str, Site], event: dict) -> list:
    """Both rounds played at every club, each club's state acknowledged by the hub; the
    cells of round 2 per club."""
    # Seating with the event's donnes, the tournament starts, round 1 opens.
    for club in clubs.values():
        t = club.tournament
        seated = club.api("POST", f"tournaments/{t}/generate/", {})
        assert seated["commitment"] == event["commitment"]
        club.api("POST", f"tournaments/{t}/status/", {"status": "running"})
        club.api("POST", f"tournaments/{t}/rounds/1/open/", {})
    # Round 1 at the tables: entered by the taker's holder, confirmed by an opponent.
    entered = run_scripts(
        [
            (TABLE_ENTRIES, club.env, {"tournament": club.tournament, "round": 1, "club": name})
            for name, club in clubs.items()
        ]
    )
    # Round 2 by the arbiters, through the API.
    cells = [done["next_round"] for done in entered]
    for (name, club), todo in zip(clubs.items(), cells, strict=True):
        club.api("POST", f"tournaments/{club.tournament}/rounds/1/close/", {})
        club.api("POST", f"tournaments/{club.tournament}/rounds/2/open/", {})
        for table, donne in todo:
            enter_by_arbiter(club, name, table, donne)
    # Every club's state reaches the hub (A and B in-process, C through its worker).
    for name, club in clubs.items():
        wait_for(f"club {name} acknowledged", lambda c=club: link_state(c) == "acknowledged")
    return cells


def _embargoed(hub: Site, event_id: str, tokens: dict[str, str]) -> None:
    """Nothing leaks before the embargo ends: the field is the organisers'."""
    for path in (
        f"simultaneous/events/{event_id}/ranking/",
        f"simultaneous/events/{event_id}/",
    ):
        status, _body = hub.request("GET", "/api/v1/" + path, token="")
        assert status in (401, 403, 404), (path, status)
    status, body = hub.request(
        "GET",
        "/api/v1/simultaneous/club/event/",
        token="",
        headers={"Authorization": f"Bearer {tokens['A']}"},
    )
    assert status == 200 and body["seed"] is None


def _correct_and_penalise(clubs: dict[str, Site], cells: list) -> None:
    # A correction after the upload: version 2 replaces the hub's copy.
    a = clubs["A"]
    table, donne = cells[0][0]  # a result of round 2, still open
    cell = f"/api/v1/tournaments/{a.tournament}/results/{table}/{donne}/"
    _status, first = a.request("GET", cell)
    corrected = {k: first[k] for k in ("status", "taker", "contract", "bouts")}
    points = int(Fraction(str(first["points"])))
    corrected.update(
        points=points + 5 if points < 80 else points - 5,
        version=first["version"],
        reason="Feuille mal lue",
    )
    status, body = a.request("PUT", cell, corrected)
    if status == 422 and body.get("warnings"):
        status, body = a.request("PUT", cell, {**corrected, "confirm": list(body["warnings"])})
    assert status == 200 and body["version"] == first["version"] + 1, body
    # A penalty at club B.
    b = clubs["B"]
    player = b.api("GET", f"tournaments/{b.tournament}/registrations/")["results"][0]["player"]
    b.api("POST", f"tournaments/{b.tournament}/penalties/", {"player": player["id"], "kind": "other", "points": 20, "reason": "Retard"})  # fmt: skip
    wait_for("club A acknowledged again", lambda: link_state(a) == "acknowledged")
    wait_for("club B acknowledged again", lambda: link_state(b) == "acknowledged")


def _tamper_and_restore(b: Site) -> None:
    # Tampered hands at club B: the hub refuses, the club shows why and does not retry.
    run_scripts([(SWAP_HANDS, b.env, {"tournament": b.tournament, "donne": 2})])
    path = f"/t/{b.tournament}/simultaneous/"
    _status, page = b.request("GET", path, token="")
    b.submit(path + "send/", page, {})
    assert link_state(b) == "refused"
    _status, page = b.request("GET", path, token="")
    assert 'id="link-error"' in page and "2" in page
    run_scripts([(SWAP_HANDS, b.env, {"tournament": b.tournament, "donne": 2})])  # put back
    _status, page = b.request("GET", path, token="")
    b.submit(path + "send/", page, {})
    wait_for("club B accepted again", lambda: link_state(b) == "acknowledged")


def _finish(
    hub: Site, clubs: dict[str, Site], relay: Proxy, event_id: str, tokens: dict[str, str]
) -> None:
    # End of the sessions: C loses the hub, A and B finish, then C.
    relay.stop()
    for club in clubs.values():
        club.api("POST", f"tournaments/{club.tournament}/status/", {"status": "finished", "confirm_missing": True})  # fmt: skip
    c = clubs["C"]
    wait_for("club C failing", lambda: link_state(c) == "failing")
    _embargoed(hub, event_id, tokens)  # C's session has not ended for the hub: still under embargo
    relay.start()
    wait_for("club C's final upload", lambda: link_state(c) == "acknowledged", timeout=60)


def _overall_is_pooled(
    hub: Site, clubs: dict[str, Site], event_id: str, tokens: dict[str, str]
) -> dict:
    """The overall ranking, public now, is the pure pooled ranking; the seed is revealed and
    club A's check of its donnes passes. The clubs' dumps."""
    # The embargo is over: the overall ranking is public and is the pure pooled ranking.
    dumps = dict(
        zip(
            clubs,
            run_scripts(
                [(DUMP, club.env, {"tournament": club.tournament}) for club in clubs.values()]
            ),
            strict=True,
        )
    )
    expected = pure_ranking(dumps, METHOD)

    def overall() -> dict[str, Fraction] | None:
        status, body = hub.request(
            "GET", f"/api/v1/simultaneous/events/{event_id}/ranking/", token=""
        )
        if status != 200:
            return None
        rows = body.get("rows") or body.get("results") or []
        got = {row["licence"]: exact(row.get("total_exact", row["total"])) for row in rows}
        return got if got == expected else None

    wait_for("the hub's overall ranking", overall, timeout=40)
    _status, body = hub.request(
        "GET",
        "/api/v1/simultaneous/club/event/",
        token="",
        headers={"Authorization": f"Bearer {tokens['A']}"},
    )
    assert body["seed"], body
    # Club A asks the hub again: the revealed seed deals the donnes it played.
    a = clubs["A"]
    path = f"/t/{a.tournament}/simultaneous/"
    _status, page = a.request("GET", path, token="")
    a.submit(path + "refresh/", page, {})
    _status, page = a.request("GET", path, token="")
    assert 'id="verification" data-ok="true"' in page, page[-3000:]
    return dumps


def _own_rankings(clubs: dict[str, Site], dumps: dict) -> None:
    # Each club's own ranking is its own results' alone, whatever the others played.
    for name, club in clubs.items():
        own = pure_ranking({name: dumps[name]}, METHOD)

        def club_ranking(club: Site = club, own: dict = own) -> bool:
            body = club.api("GET", f"tournaments/{club.tournament}/ranking/")
            if not body["is_current"]:
                return False
            got = {row["player"]["licence"]: exact(row["total_exact"]) for row in body["rows"]}
            assert got == own
            return True

        wait_for(f"club {name}'s ranking", club_ranking)


def the_story(sites: dict[str, Site]) -> None:
    """The event told in order (see the module's docstring)."""
    hub = sites["hub"]
    clubs = {name: sites[name] for name in CLUBS}
    event, event_id, tokens = _event_with_invitations(hub)
    relay = _join(hub, clubs, tokens)
    cells = _play(clubs, event)
    _embargoed(hub, event_id, tokens)
    _correct_and_penalise(clubs, cells)
    _tamper_and_restore(clubs["B"])
    _finish(hub, clubs, relay, event_id, tokens)
    dumps = _overall_is_pooled(hub, clubs, event_id, tokens)
    _own_rankings(clubs, dumps)
