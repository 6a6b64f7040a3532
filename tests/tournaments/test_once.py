"""Every site form that writes is acted on once (tournaments.once): the same form posted
twice (double click, resend) changes nothing the second time and shows the first outcome."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.fixtures.tournaments import stage_tournament
from tests.tournaments.test_arbiter_views import GARDE, requests_for, state
from tests.tournaments.test_arbiter_views import t as t
from tests.tournaments.test_organiser_views import SCREENS, scene, snapshot  # noqa: F401
from tournaments.models import Penalty, Result, Seat, Tournament
from tournaments.once import FIELD, once_token

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
REPLAY_NOTE = "This form had already been sent"


def twice(client, path: str, data: dict, **extra):
    """Post the same form (same token) twice; the two responses."""
    data = {**data, FIELD: once_token()}
    first = client.post(path, data, **extra, **EN)
    second = client.post(path, data, **extra, **EN)
    return first, second


def same_outcome(first, second) -> None:
    assert second.status_code == first.status_code
    assert second.get("Location") == first.get("Location")
    if first.status_code == 200:
        assert second.content == first.content


# --- the arbiter's forms ----------------------------------------------------------------------

ARBITER_WRITES = [
    "arbiter_result",
    "arbiter_result_annul",
    "arbiter_round_open",
    "arbiter_round_close",
    "arbiter_penalties",
    "arbiter_penalty_withdraw",
]


@pytest.mark.parametrize("index", range(len(ARBITER_WRITES)), ids=ARBITER_WRITES)
def test_each_arbiter_form_sent_twice_acts_once(client, t, personas, index):
    client.force_login(personas.arbiter)
    # Something to act on: results on table 1 (so round 1 can close) and a penalty.
    from tests.tournaments.test_arbiter_views import save
    from tournaments.services.penalties import penalty_give

    name = ARBITER_WRITES[index]
    cells = [(1, 1), (1, 4)]
    if name == "arbiter_round_close":  # every cell of round 1 entered
        cells = [(1, d) for d in (1, 2, 3, 4)] + [(2, d) for d in (5, 6, 7, 8)]
    for table, donne in cells:
        save(t, personas.arbiter, table, donne)
    penalty_give(
        tournament=t, player=personas.player_user.player, kind="warning", user=personas.arbiter
    )
    writes = [r for r in requests_for(t) if r[0] == "post" and "preview" not in r[1]]
    _, path, data = writes[index]
    before = state(t)
    first, second = twice(client, path, data)
    after_first = state(t)
    assert after_first != before, "the first copy changes something"
    assert state(t) == after_first
    same_outcome(first, second)
    if first.status_code == 302:
        page = client.get(second["Location"], **EN).content.decode()
        assert REPLAY_NOTE in page


def test_a_double_penalty_is_recorded_once_and_the_second_shows_the_first(client, t, personas):
    client.force_login(personas.arbiter)
    player = personas.player_user.player
    path = reverse("arbiter_penalties", args=[t.pk])
    _first, second = twice(client, path, {"player": player.pk, "kind": "early_pickup"})
    assert Penalty.objects.count() == 1
    page = client.get(second["Location"], **EN).content.decode()
    assert f"Penalty of 100 points given to {player}" in page
    assert REPLAY_NOTE in page
    # A new rendering of the form is a new penalty.
    client.post(path, {"player": player.pk, "kind": "warning", FIELD: once_token()})
    assert Penalty.objects.count() == 2


def test_a_refused_form_can_be_sent_again(client, t, personas):
    client.force_login(personas.arbiter)
    path = reverse("arbiter_result", args=[t.pk, 1, 1])
    first, second = twice(client, path, {**GARDE, "points": "cinquante"})
    assert first.status_code == second.status_code == 400
    assert REPLAY_NOTE not in second.content.decode()
    assert not Result.objects.exists()


def test_the_same_token_with_other_content_is_judged_on_its_own(client, t, personas):
    client.force_login(personas.arbiter)
    player = personas.player_user.player
    path = reverse("arbiter_penalties", args=[t.pk])
    token = once_token()
    client.post(path, {"player": player.pk, "kind": "early_pickup", FIELD: token})
    client.post(path, {"player": player.pk, "kind": "warning", FIELD: token})
    assert sorted(Penalty.objects.values_list("kind", flat=True)) == ["early_pickup", "warning"]


# --- the organiser's forms --------------------------------------------------------------------

ORGANISER_WRITES = [s for s in SCREENS if "POST" in s.methods and s.changes]


@pytest.mark.parametrize("screen", ORGANISER_WRITES, ids=[s.name for s in ORGANISER_WRITES])
def test_each_organiser_form_sent_twice_acts_once(client, scene, screen):  # noqa: F811
    client.force_login(scene.personas.organiser)
    path = reverse(screen.name, args=screen.args(scene) if screen.args else None)
    before = snapshot(scene)
    data = {**(screen.post(scene) if screen.post else {}), FIELD: once_token()}
    first = client.post(path, data, **EN)
    after_first = snapshot(scene)
    if screen.post and "file" in data:
        data["file"] = screen.post(scene)["file"]  # a fresh upload of the same file
    second = client.post(path, data, **EN)
    assert after_first != before or screen.name == "organiser_prepare_generate"
    assert snapshot(scene) == after_first
    same_outcome(first, second)


def test_registration_by_htmx_sent_twice_registers_once(client, scene):  # noqa: F811
    client.force_login(scene.personas.organiser)
    path = reverse("organiser_registration_add", args=[scene.tournament.pk])
    first, second = twice(
        client, path, {"player": scene.outsider.pk, "q": "x"}, HTTP_HX_REQUEST="true"
    )
    assert scene.tournament.registrations.filter(player=scene.outsider).count() == 1
    assert first.status_code == second.status_code == 200
    assert second.content == first.content
    assert "already registered" not in second.content.decode()


def test_generation_sent_twice_seats_once(client, scene):  # noqa: F811
    client.force_login(scene.personas.organiser)
    path = reverse("organiser_prepare_generate", args=[scene.tournament.pk])
    data = {FIELD: once_token()}
    client.post(path, data)
    seats = list(Seat.objects.order_by("pk").values_list("pk", "player_id", "position"))
    client.post(path, data)
    assert list(Seat.objects.order_by("pk").values_list("pk", "player_id", "position")) == seats


def test_a_seating_swap_sent_twice_swaps_once(client, personas):
    from tests.tournaments.test_seating_edit import valid_north_swap

    tournament = stage_tournament(players=16, rounds=2, personas=personas)
    client.force_login(personas.organiser)
    a, b = valid_north_swap(tournament)
    path = reverse("organiser_seating_swap", args=[tournament.pk])
    data = {"round": 2, "player_a": a.player_id, "player_b": b.player_id}
    where = (a.table_round_id, a.position)
    first, second = twice(client, path, data)
    a = Seat.objects.get(table_round_id=where[0], position=where[1])
    assert first.status_code == 302
    page = client.get(second["Location"], **EN).content.decode()
    assert REPLAY_NOTE in page
    # Swapped once: the second copy did not swap them back.
    assert a.player_id == data["player_b"]


def test_every_writing_form_carries_a_one_time_token(client, t, personas):
    """The pages whose forms write: each such form holds a fresh ``_once`` field."""
    client.force_login(personas.organiser)
    pages = [
        reverse("arbiter_dashboard", args=[t.pk]),
        reverse("arbiter_result", args=[t.pk, 1, 1]),
        reverse("arbiter_penalties", args=[t.pk]),
        reverse("organiser_prepare", args=[t.pk]),
        reverse("organiser_tournament_edit", args=[t.pk]),
        reverse("organiser_tournament_create"),
        reverse("organiser_players_import", args=[t.club.pk]),
        reverse("organiser_player_create", args=[t.club.pk]),
    ]
    Tournament.objects.filter(pk=t.pk).update(status="registration")
    pages.append(reverse("organiser_registrations", args=[t.pk]) + "?q=a")
    seen = []
    for page in pages:
        html = client.get(page, **EN).content.decode()
        forms = re.findall(r'<form method="post".*?</form>', html, re.S)
        for form in forms:
            if "logout" in form or "set_language" in form or "/i18n/" in form:
                continue
            seen.append(form[:80])
            assert re.search(rf'name="{FIELD}" value="[0-9a-f]{{32}}"', form), (page, form[:200])
    assert len(seen) >= 8
