"""Bad input on the player's pages and answers (issue 35) answers a clear, translated 4xx,
never 500: unknown or oversized ids, an unknown or revoked link, another player's report."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.rankings.services import ranking_recompute
from tests.scoring.rankings.builders import build_tournament, fill_results
from tournaments.services.player_links import player_link_issue, player_link_revoke

pytestmark = pytest.mark.django_db

HUGE = "9" * 25  # beyond a bigint


@pytest.fixture
def setting():
    users = get_user_model().objects
    built = build_tournament(players=8, status="finished", seed=61)
    fill_results(built, seed=62)
    ranking_recompute(tournament_id=built.tournament.pk)
    me, organiser = users.create_user("me-bad"), users.create_user("orga-bad")
    built.tournament.club.organisers.add(organiser)
    player = built.players[0]
    player.user = me
    player.save(update_fields=["user"])
    link = player_link_issue(player=player, user=organiser)
    return built, me, organiser, link


@pytest.mark.parametrize("language", ["fr", "en"])
def test_pages(client, setting, language):
    built, me, _organiser, link = setting
    t, player, other = built.tournament, built.players[0], built.players[1]
    client.force_login(me)
    headers = {"HTTP_ACCEPT_LANGUAGE": language}
    cases = {
        f"/players/{HUGE}/tarot/": 404,
        f"/players/{player.pk}/events/{HUGE}/report/": 404,
        f"/players/{player.pk}/events/{HUGE}/report.pdf": 404,
        f"/players/{other.pk}/events/{t.pk}/report/": 403,
        f"/players/{other.pk}/events/{t.pk}/report.pdf": 403,
        f"/players/{other.pk}/tarot/": 403,
        f"/moi/{link.token}/events/{HUGE}/": 404,
        f"/moi/{link.token}/events/{HUGE}/report.pdf": 404,
        f"/moi/{'x' * 300}/": 404,
        f"/moi/{link.token}/events/{t.pk}/report.pdf?lang=xx": 200,  # the page's language
    }
    for url, status in cases.items():
        response = client.get(url, **headers)
        assert response.status_code == status, (url, response.status_code)
        if status >= 400:
            assert response["Content-Type"].startswith("text/html"), url
    player_link_revoke(player=player, user=_organiser)
    gone = client.get(reverse("mine_link_report_pdf", args=[link.token, t.pk]), **headers)
    assert gone.status_code == 410
    assert ("révoqué" if language == "fr" else "revoked") in gone.content.decode()


def test_api(client, setting):
    built, me, _organiser, _link = setting
    player = built.players[0]
    client.force_login(me)
    for url in (
        f"/api/v1/players/{HUGE}/history/",
        f"/api/v1/players/{player.pk}/events/{HUGE}/report/",
        f"/api/v1/players/{HUGE}/rating/",
        f"/api/v1/players/{HUGE}/",
    ):
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="fr")
        assert response.status_code == 404, (url, response.status_code)
        assert response.json()["code"] == "not_found"
