"""Starting a tournament: no round opens before it runs; the arbiter's dashboard of a
tournament not yet running says what is missing and offers the action; no error box is ever
empty."""

from __future__ import annotations

import re
import threading
import time

import pytest
from django.db import connection, connections, transaction
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from tests.fixtures.tournaments import make_players, stage_tournament
from tests.tournaments.test_arbiter_views import GARDE
from tournaments.models import LedgerEntry, Registration, Round, Tournament
from tournaments.services.results import ResultInvalid, round_open
from tournaments.services.tournaments import tournament_set_status

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def seated(personas):
    """Registration still open, 8 players checked in and seated: only the start is missing."""
    return stage_tournament(players=8, status=Tournament.Status.REGISTRATION, personas=personas)


def steps(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-step="(\w+)" data-done="(true|false)"', html))


def test_a_round_cannot_be_opened_before_the_tournament_runs(client, seated, personas):
    round_ = Round.objects.get(tournament=seated, number=1)
    with translation.override("en"), pytest.raises(ResultInvalid) as info:
        round_open(round_=round_, user=personas.arbiter)
    assert "has not started" in " ".join(info.value.errors["__all__"])
    client.force_login(personas.arbiter)
    response = client.post(
        reverse("arbiter_round_open", args=[seated.pk, 1]), follow=True, **EN
    ).content.decode()
    assert "round 1 can be opened once it is running" in response
    api = APIClient()
    api.force_authenticate(personas.arbiter)
    answer = api.post(f"/api/v1/tournaments/{seated.pk}/rounds/1/open/", **EN)
    assert answer.status_code == 400
    assert Round.objects.get(pk=round_.pk).state == Round.State.PENDING


def test_round_open_reads_the_status_from_the_database_not_the_callers_copy(personas):
    """The caller's tournament may be older than a status change (another arbiter put it
    back to registration meanwhile): the service reads the status itself, under the lock."""
    t = stage_tournament(players=8, personas=personas)
    round_ = Round.objects.select_related("tournament").get(tournament=t, number=1)
    assert round_.tournament.status == Tournament.Status.RUNNING
    tournament_set_status(
        tournament=t, status=Tournament.Status.REGISTRATION, user=personas.arbiter
    )
    with translation.override("en"), pytest.raises(ResultInvalid) as info:
        round_open(round_=round_, user=personas.arbiter)
    assert "has not started" in " ".join(info.value.errors["__all__"])
    assert Round.objects.get(pk=round_.pk).state == Round.State.PENDING
    assert not LedgerEntry.objects.filter(tournament=t, action="round_opened").exists()


@pytest.mark.django_db(transaction=True)
def test_a_status_change_at_the_same_moment_cannot_slip_past_round_open(personas):
    """A real race on PostgreSQL: the tournament goes back to registration in a transaction
    still open when round_open starts. round_open waits for the tournament's lock, then sees
    the new status and refuses; checking before locking would have opened the round."""
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent writers: SQLite serialises them (run with DATABASE_URL)")
    t = stage_tournament(players=8, personas=personas)
    round_ = Round.objects.select_related("tournament").get(tournament=t, number=1)
    outcome: dict[str, object] = {}

    def open_round() -> None:
        connection.ensure_connection()
        outcome["pid"] = connection.connection.info.backend_pid
        try:
            with translation.override("en"):
                round_open(round_=round_, user=personas.arbiter)
            outcome["opened"] = True
        except ResultInvalid as exc:
            outcome["refused"] = " ".join(exc.errors["__all__"])
        except Exception as exc:  # pragma: no cover - reported by the assertion below
            outcome["error"] = exc
        finally:
            connections.close_all()

    opener = threading.Thread(target=open_round)
    with transaction.atomic():
        tournament_set_status(
            tournament=t, status=Tournament.Status.REGISTRATION, user=personas.arbiter
        )
        opener.start()
        # Wait until round_open is blocked on a lock (or done, if nothing made it wait).
        deadline = time.monotonic() + 20
        with connection.cursor() as cursor:
            while time.monotonic() < deadline and opener.is_alive():
                cursor.execute(
                    "SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted",
                    [outcome.get("pid", 0)],
                )
                if cursor.fetchone()[0]:
                    break
                time.sleep(0.02)
    opener.join(20)
    assert "error" not in outcome and "opened" not in outcome, outcome
    assert "has not started" in outcome["refused"]
    assert Round.objects.get(pk=round_.pk).state == Round.State.PENDING


def test_a_result_refused_before_the_start_says_how_to_start(client, seated, personas):
    """The form and the API say where the tournament is started, not only that it is not."""
    client.force_login(personas.arbiter)
    response = client.post(reverse("arbiter_result", args=[seated.pk, 1, 1]), GARDE, **EN)
    assert response.status_code == 400
    assert "Start it from the arbiter&#x27;s dashboard" in response.content.decode()
    api = APIClient()
    api.force_authenticate(personas.arbiter)
    body = {**GARDE, "table": 1, "donne": 1, "bouts": int(GARDE["bouts"])}
    answer = api.post(
        f"/api/v1/tournaments/{seated.pk}/results/", body, format="json", HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert answer.status_code == 400
    assert "Démarrez-le depuis le tableau de bord" in answer.json()["details"]["__all__"][0]


def test_the_dashboard_says_what_is_missing_and_starts_the_tournament(client, seated, personas):
    client.force_login(personas.arbiter)
    dashboard = reverse("arbiter_dashboard", args=[seated.pk])
    html = client.get(dashboard, **EN).content.decode()
    assert "This tournament has not started" in html
    assert steps(html) == {
        "registration": "true",
        "players": "true",
        "seating": "true",
        "start": "false",
    }
    assert "Start the tournament" in html
    assert "Open the round" not in html  # no round action before it runs
    section = html[html.index('id="start-steps"') :]
    start = re.search(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', section, re.S)
    action, body = start.group(1), start.group(2)
    data = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', body))
    response = client.post(action, data, **EN)
    assert response["Location"] == dashboard
    assert Tournament.objects.get(pk=seated.pk).status == Tournament.Status.RUNNING
    html = client.get(dashboard, **EN).content.decode()
    assert "has not started" not in html and "Open the round" in html


def test_a_draft_without_players_lists_every_step(client, personas):
    t = stage_tournament(players=8, status=Tournament.Status.REGISTRATION, personas=personas)
    Registration.objects.filter(tournament=t).update(checked_in_at=None)
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.DRAFT)
    client.force_login(personas.organiser)
    html = client.get(reverse("arbiter_dashboard", args=[t.pk]), **EN).content.decode()
    assert steps(html) == {
        "registration": "false",
        "players": "false",
        "seating": "false",
        "start": "false",
    }
    assert "Open registration" in html
    assert "0 players checked in: at least 8 are needed" in html
    assert reverse("organiser_registrations", args=[t.pk]) in html
    assert "Start the tournament" not in html  # not possible yet
    # Eleven players cannot be seated: said plainly.
    for player in make_players(t.club, 11, start=500):
        Registration.objects.create(tournament=t, player=player, checked_in_at=t.created_at)
    html = client.get(reverse("arbiter_dashboard", args=[t.pk]), **EN).content.decode()
    assert "11 cannot be seated" in html


BOX = re.compile(
    r'<(div|p|ul|section)[^>]*class="[^"]*\b(error-box|errors|errorlist|messages)\b[^"]*"[^>]*>'
    r"(.*?)</\1>",
    re.S,
)


def assert_no_empty_box(html: str, where: str) -> int:
    boxes = BOX.findall(html)
    for _tag, kind, inner in boxes:
        text = re.sub(r"<[^>]+>", "", inner).strip()
        assert text, f"empty {kind} box on {where}"
    return len(boxes)


def test_no_error_box_is_ever_empty(client, seated, personas):
    """The screens in their error states: every box shown holds a message."""
    client.force_login(personas.arbiter)
    t = seated
    shown = 0
    # The reported case: saving a result while the tournament has not started.
    entry = reverse("arbiter_result", args=[t.pk, 1, 1])
    response = client.post(entry, GARDE, **EN)
    html = response.content.decode()
    assert "The tournament has not started" in html
    shown += assert_no_empty_box(html, "result entry, not started")
    preview = reverse("arbiter_result_preview", args=[t.pk, 1, 1])
    for data in (GARDE, {**GARDE, "points": "cinquante"}, {"taker": "N"}, {**GARDE, "bouts": 9}):
        html = client.post(preview, data, HTTP_HX_REQUEST="true", **EN).content.decode()
        shown += assert_no_empty_box(html, f"preview {data}")
    html = client.post(
        reverse("arbiter_round_open", args=[t.pk, 1]), follow=True, **EN
    ).content.decode()
    shown += assert_no_empty_box(html, "dashboard after a refused round")
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.RUNNING)
    for data in (
        {**GARDE, "points": "cinquante"},
        {**GARDE, "bouts": "1", "points": "52", "chelem": "unannounced_made"},
        {**GARDE, "poignee_E": "triple"},
        {"taker": "N"},
    ):
        html = client.post(entry, data, **EN).content.decode()
        shown += assert_no_empty_box(html, f"result entry {data}")
    penalties = reverse("arbiter_penalties", args=[t.pk])
    for data in ({}, {"kind": "other"}, {"player": 999999, "kind": "warning"}):
        html = client.post(penalties, data, **EN).content.decode()
        shown += assert_no_empty_box(html, f"penalties {data}")
    html = client.post(
        reverse("arbiter_result_annul", args=[t.pk, 1, 1]), {"reason": ""}, follow=True, **EN
    ).content.decode()
    shown += assert_no_empty_box(html, "annulment without a reason")
    client.force_login(personas.organiser)
    for page in (
        reverse("organiser_tournament_edit", args=[t.pk]),
        reverse("organiser_player_create", args=[t.club.pk]),
        reverse("organiser_players_import", args=[t.club.pk]),
    ):
        html = client.post(page, {}, **EN).content.decode()
        shown += assert_no_empty_box(html, page)
    assert shown >= 10
