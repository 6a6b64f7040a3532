"""Starting a tournament: no round opens before it runs; the arbiter's dashboard of a
tournament not yet running says what is missing and offers the action; no error box is ever
empty."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

from tests.fixtures.tournaments import make_players, stage_tournament
from tests.tournaments.test_arbiter_views import GARDE
from tournaments.models import Registration, Round, Tournament
from tournaments.services.results import ResultInvalid, round_open

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
