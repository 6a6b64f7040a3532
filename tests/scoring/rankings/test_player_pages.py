"""“Mon tarot” and the event report (issue 35): what they show, to whom, in how many queries,
and that nothing reveals a donne before it is complete, another player's report, or a licence."""

from __future__ import annotations

import datetime
import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.rankings.player_history import history_lines
from scoring.rankings.player_report import (
    EMBARGO,
    INCOMPLETE,
    OPEN,
    embargo_register,
    event_report,
    report_state,
)
from scoring.rankings.services import ranking_recompute
from scoring.rules.duplicate import differentials
from tests.scoring.rankings.builders import build_tournament, fill_results
from tournaments.models import Club, Player, PlayerLink, Result, Tournament
from tournaments.services.player_links import player_link_issue, player_link_revoke

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def finished(*, players=8, rounds=2, club=None, date=None, method="average", seed=1, share=1.0):
    built = build_tournament(
        players=players,
        rounds=rounds,
        club=club,
        date=date,
        method=method,
        seed=seed,
        status=Tournament.Status.FINISHED,
    )
    fill_results(built, seed=seed + 1, share=share)
    ranking_recompute(tournament_id=built.tournament.pk)
    built.tournament.refresh_from_db()
    return built


@pytest.fixture
def me():
    return get_user_model().objects.create_user("moi", password="x")


@pytest.fixture
def organiser():
    return get_user_model().objects.create_user("orga-club", password="x")


def get(client, url, user=None):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(url, **EN)


# --- "Mon tarot" ------------------------------------------------------------------------------


def test_mine_lists_every_started_event_newest_first(client, me):
    first = finished(date=datetime.date(2026, 10, 3))
    player = first.players[0]
    player.user = me
    player.save(update_fields=["user"])
    second = finished(club=first.tournament.club, date=datetime.date(2026, 11, 7), seed=5)
    # the same player in the second event: swap him into its first seat's registration
    from tournaments.models import Registration, Seat

    other = second.players[0]
    Registration.objects.filter(tournament=second.tournament, player=other).update(player=player)
    Seat.objects.filter(round__tournament=second.tournament, player=other).update(player=player)
    for result in Result.objects.filter(tournament=second.tournament):
        holders = {p: (player.pk if pid == other.pk else pid) for p, pid in result.holders.items()}
        Result.objects.filter(pk=result.pk).update(holders=holders)
    Tournament.objects.filter(pk=second.tournament.pk).update(
        results_version=second.tournament.results_version + 1
    )
    ranking_recompute(tournament_id=second.tournament.pk)
    draft = build_tournament(players=8, club=first.tournament.club, status="draft", seed=77)
    Registration.objects.create(tournament=draft.tournament, player=player)

    lines = history_lines(player)
    assert [line.tournament.pk for line in lines] == [second.tournament.pk, first.tournament.pk]
    assert all(line.rank and line.field_size == 8 for line in lines)

    response = get(client, reverse("mine"), me)
    assert response.status_code == 200
    body = response.content.decode()
    assert body.index(second.tournament.name) < body.rindex(first.tournament.name)
    assert 'id="history-chart"' in body and "<svg" in body
    assert player.licence not in body
    assert reverse("player_event_report", args=[player.pk, first.tournament.pk]) in body


def test_history_reads_three_queries_at_most_with_many_events(django_assert_max_num_queries):
    built = finished()
    player = built.players[0]
    club = built.tournament.club
    from tournaments.models import Registration

    for i in range(12):
        t = Tournament.objects.create(
            club=club, name=f"T{i}", date=datetime.date(2025, 1, 1 + i), status="published"
        )
        Registration.objects.create(tournament=t, player=player)
    player = Player.objects.select_related("club").get(pk=player.pk)
    with django_assert_max_num_queries(2):
        lines = history_lines(player)
    assert len(lines) == 13


def test_running_event_shows_the_rooms_line(me):
    built = build_tournament(players=8, status=Tournament.Status.RUNNING)
    fill_results(built, share=0.5)
    ranking_recompute(tournament_id=built.tournament.pk)
    built.tournament.refresh_from_db()
    (line,) = history_lines(built.players[0])
    assert line.live and not line.report_open


def test_mine_without_a_player_and_anonymous(client, me):
    assert get(client, reverse("mine")).status_code == 302
    response = get(client, reverse("mine"), me)
    assert response.status_code == 404
    assert b"not linked to a player" in response.content


# --- the personal link ------------------------------------------------------------------------


def test_personal_link_opens_history_and_report_until_revoked(client, organiser):
    built = finished()
    built.tournament.club.organisers.add(organiser)
    player = built.players[1]
    link = player_link_issue(player=player, user=organiser)
    url = reverse("mine_link", args=[link.token])
    response = get(client, url)
    assert response.status_code == 200
    assert player.full_name in response.content.decode()
    report_url = reverse("mine_link_report", args=[link.token, built.tournament.pk])
    assert report_url in response.content.decode()
    assert get(client, report_url).status_code == 200

    new = player_link_issue(player=player, user=organiser)  # the old one stops
    gone = get(client, url)
    assert gone.status_code == 410
    assert b"revoked" in gone.content
    assert get(client, report_url).status_code == 410
    assert get(client, reverse("mine_link", args=[new.token])).status_code == 200
    player_link_revoke(player=player, user=organiser)
    assert get(client, reverse("mine_link", args=[new.token])).status_code == 410
    unknown = get(client, reverse("mine_link", args=["x" * 43]))
    assert unknown.status_code == 404
    assert b"opens nothing" in unknown.content


def test_only_the_clubs_organisers_issue_links(client, organiser, me):
    built = finished()
    built.tournament.club.organisers.add(organiser)
    player = built.players[0]
    url = reverse("organiser_player_link_issue", args=[built.tournament.club.pk, player.pk])
    client.force_login(me)
    assert client.post(url).status_code == 403
    assert not PlayerLink.objects.exists()
    client.force_login(organiser)
    assert client.post(url).status_code == 302
    assert PlayerLink.objects.filter(player=player, revoked_at=None).count() == 1


# --- the event report -------------------------------------------------------------------------


def test_report_compares_each_donne_with_the_field(me):
    built = finished(players=16)
    player = built.players[0]
    report = event_report(built.tournament, player)
    assert report is not None
    assert [line.number for line in report.lines] == sorted(d for d in built.donnes)
    for line in report.lines:
        if not line.compared:
            continue
        at = [
            r
            for r in Result.objects.filter(donne=line.donne).exclude(status="annulled")
            if line.position in r.holders
        ]
        scores = [r.score_of(line.position) for r in at]
        assert sum(o.tables for o in line.outcomes) == len(at) == line.comparison.tables
        mine = next(r for r in at if r.holders[line.position] == player.pk)
        expected = differentials(scores, "average")[at.index(mine)]
        assert line.differential == expected
        assert line.best is not None and line.best.tables >= -(-len(at) // 3)
        assert sum(n for _s, n in line.spread_counts) == len(at)
    assert len(report.gained) <= 3 and len(report.lost) <= 3
    assert all(line.differential > 0 for line in report.gained)
    assert all(line.differential < 0 for line in report.lost)


def test_report_page_marks_his_hand_and_hides_licences(client, me, organiser):
    built = finished()
    player = built.players[0]
    player.user = me
    player.save(update_fields=["user"])
    url = reverse("player_event_report", args=[player.pk, built.tournament.pk])
    response = get(client, url, me)
    assert response.status_code == 200
    body = response.content.decode()
    assert body.count('class="report-hand mine"') == len(built.donnes)
    assert 'id="swings"' in body and "<svg" in body
    assert not re.search(r"\b8\d{6}\b", body)  # no licence of anybody


def test_another_players_report_is_refused(client, me, organiser):
    built = finished()
    mine, other = built.players[0], built.players[1]
    mine.user = me
    mine.save(update_fields=["user"])
    url = reverse("player_event_report", args=[other.pk, built.tournament.pk])
    assert get(client, url, me).status_code == 403
    assert get(client, url).status_code == 302  # anonymous: log in
    built.tournament.club.organisers.add(organiser)
    assert get(client, url, organiser).status_code == 200  # the event's organisers see anyone's
    missing = reverse("player_event_report", args=[other.pk, 10**8])
    assert get(client, missing, organiser).status_code == 404


def test_report_waits_for_every_donne(client, me):
    built = build_tournament(players=8, status=Tournament.Status.RUNNING)
    fill_results(built, share=1.0)
    ranking_recompute(tournament_id=built.tournament.pk)
    assert report_state(built.tournament) == OPEN
    Result.objects.filter(tournament=built.tournament).order_by("pk").first().delete()
    assert report_state(built.tournament) == INCOMPLETE
    player = built.players[0]
    player.user = me
    player.save(update_fields=["user"])
    response = get(
        client, reverse("player_event_report", args=[player.pk, built.tournament.pk]), me
    )
    assert response.status_code == 403
    body = response.content.decode()
    assert "once every table has played every donne" in body
    assert "report-hand" not in body and "hand-suit" not in body


def test_report_waits_for_the_embargo():
    built = finished()
    held = {built.tournament.pk}

    def check(tournament):
        return tournament.pk in held

    embargo_register(check)
    try:
        assert report_state(built.tournament) == EMBARGO
        held.clear()
        assert report_state(built.tournament) == OPEN
    finally:
        from scoring.rankings import player_report

        player_report._EMBARGO_CHECKS.remove(check)


def test_report_query_count_does_not_grow_with_the_field(django_assert_max_num_queries):
    small = finished(players=8)
    large = finished(players=32, rounds=4, seed=9)  # another builder's seed: another user
    for built in (small, large):
        player = Player.objects.get(pk=built.players[0].pk)
        # the donnes and the complete ones (4), the embargo (1), donnes and results (2)
        with django_assert_max_num_queries(7):
            assert report_state(built.tournament) == OPEN
            assert event_report(built.tournament, player) is not None


# --- the club's players -----------------------------------------------------------------------


def test_club_players_page_and_csv(client, organiser, me):
    built = finished(date=datetime.date.today())
    club = built.tournament.club
    club.organisers.add(organiser)
    page = get(client, reverse("organiser_club_players", args=[club.pk]), organiser)
    assert page.status_code == 200
    body = page.content.decode()
    assert built.tournament.name in body
    assert reverse("player_tarot", args=[built.players[0].pk]) in body
    csv_url = reverse("organiser_club_players_csv", args=[club.pk])
    response = get(client, csv_url, organiser)
    assert response.status_code == 200
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeffLast name,First name,Licence,Events this season")
    assert built.players[0].licence in text
    assert f",1,{built.tournament.name}," in text
    # a licence never goes to the public nor to another club's organiser
    assert get(client, csv_url).status_code == 302
    assert get(client, csv_url, me).status_code == 403
    other = Club.objects.create(name="Autre", federation_number="4321")
    other.organisers.add(me)
    assert get(client, csv_url, me).status_code == 403


def test_a_clubs_simultaneous_event_waits_for_the_hubs_seed(client, me):
    from tournaments.simultaneous.club.models import SimultaneousLink

    built = finished()
    link = SimultaneousLink.objects.create(
        tournament=built.tournament,
        hub_url="https://hub.example",
        token="t" * 40,
        event="ev1",
        invitation="inv1",
        sets=2,
    )
    assert report_state(built.tournament) == EMBARGO
    player = built.players[0]
    player.user = me
    player.save(update_fields=["user"])
    url = reverse("player_event_report", args=[player.pk, built.tournament.pk])
    closed = get(client, url, me)
    assert closed.status_code == 403
    assert b"every club has played" in closed.content
    SimultaneousLink.objects.filter(pk=link.pk).update(seed="ab" * 32)
    assert report_state(built.tournament) == OPEN
    assert get(client, url, me).status_code == 200
