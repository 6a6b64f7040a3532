"""The rankings pages: who may see them, what they show, htmx polling, travellers kept hidden
until a donne is finished everywhere, the season ranking and a player's results."""

from __future__ import annotations

import datetime
import re
from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import translation

from scoring.models import RankingSnapshot
from scoring.rankings.services import ranking_recompute
from scoring.templatetags.rankings import signed
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.builders import build_tournament, fill_results
from tests.scoring.rankings.helpers import enter, schedule, tables_playing
from tournaments.models import Club, Donne, Player, Result, Seat, Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def get(client, url, user=None, **extra):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client.get(url, **EN, **extra)


def player_of(user) -> Player:
    return Player.objects.get(user=user)


def urls(tournament: Tournament, player: Player) -> list[str]:
    return [
        reverse("ranking", args=[tournament.pk]),
        reverse("score_card", args=[tournament.pk, player.pk]),
        reverse("donne_list", args=[tournament.pk]),
    ]


def test_permission_matrix_while_running(client, running_tournament, personas):
    player = player_of(personas.player_user)
    Tournament.objects.filter(pk=running_tournament.pk).update(public_during_play=False)
    for url in urls(running_tournament, player):
        assert get(client, url).status_code == 302, url  # anonymous: log in first
        assert "/login/" in get(client, url)["Location"]
        for user in (personas.stranger, personas.other_arbiter):
            assert get(client, url, user).status_code == 403, (url, user)
        for user in (personas.player_user, personas.arbiter, personas.organiser):
            assert get(client, url, user).status_code == 200, (url, user)


def test_published_results_are_public_and_registration_ones_are_not(client, personas):
    published = stage_tournament(personas=personas, status="published", name="Publié")
    player = Seat.objects.filter(round__tournament=published).first().player
    for url in urls(published, player):
        assert get(client, url).status_code == 200, url
    Tournament.objects.filter(pk=published.pk).update(status="registration")
    for url in urls(published, player):
        assert get(client, url, personas.player_user).status_code == 403, url
        assert get(client, url, personas.arbiter).status_code == 200, url


def test_ranking_page_shows_the_saved_results_and_when(client, running_tournament, personas):
    t = running_tournament
    first = tables_playing(t, 1)
    for table in first:
        enter(t, table, 1, personas.arbiter, points=40 + 10 * table)
    response = get(client, reverse("ranking", args=[t.pk]), personas.player_user)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Last update:" in html
    assert "being updated" not in html
    assert re.search(r'data-poll="\d+"', html)  # live while running
    t.refresh_from_db()
    assert RankingSnapshot.objects.get(tournament=t, results_version=t.results_version)
    rows = re.findall(r'<tr data-p="\d+"><td>(\d+)=?</td>', html)
    assert len(rows) == 8  # every seated player, ranked
    # the taker who made 60 points leads; his differential is shown signed
    winner = Result.objects.get(table__number=first[-1], donne__number=1)
    leader = Player.objects.get(pk=winner.holders["N"])
    assert html.index(leader.full_name) < html.index("</tbody>")
    assert rows[0] == "1"
    # the reader's own line stands out: marked by the page's script from data-me, so the
    # table itself is the same for every reader
    me = player_of(personas.player_user)
    assert f'data-me="{me.pk}"' in html and f'<tr data-p="{me.pk}">' in html
    assert 'class="me"' not in html


def test_stale_ranking_says_being_updated_and_poll_answers_204_when_unchanged(
    client, running_tournament, personas, settings
):
    t = running_tournament
    table = tables_playing(t, 1)[0]
    enter(t, table, 1, personas.arbiter)
    url = reverse("ranking", args=[t.pk])
    html = get(client, url, personas.arbiter).content.decode()
    snapshot = RankingSnapshot.objects.filter(tournament=t).latest("pk")
    since = re.search(r'data-since="(\d+)" data-cur="1"', html)
    assert since and int(since.group(1)) == snapshot.pk

    poll = get(client, f"{url}?since={snapshot.pk}&cur=1", personas.arbiter, HTTP_HX_REQUEST="true")
    assert poll.status_code == 204  # nothing new: htmx keeps the table

    # A result the ranking does not have yet: with a worker that has not answered, the page
    # must say so rather than show the old ranking as current.
    from tarot_club.celery import app

    settings.RANKING_STALE_AFTER = 3600
    app.conf.task_always_eager = False
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    from tests.fixtures.services import reset_connections

    reset_connections(app)
    try:
        enter(t, table, 2, personas.arbiter)
        poll = get(
            client, f"{url}?since={snapshot.pk}&cur=1", personas.arbiter, HTTP_HX_REQUEST="true"
        )
        fragment = poll.content.decode()
        assert poll.status_code == 200
        assert "being updated" in fragment
        assert "<html" not in fragment  # a fragment for htmx, not a full page
        assert 'data-cur="0"' in fragment
    finally:
        app.conf.task_always_eager = True
        app.conf.broker_url = settings.CELERY_BROKER_URL
        reset_connections(app)
    # in-process again (as without a broker): the next read catches up
    settings.RANKING_MIN_INTERVAL = 0
    fragment = get(client, url, personas.arbiter, HTTP_HX_REQUEST="true").content.decode()
    assert "being updated" not in fragment


def test_ranking_page_query_count_does_not_grow_with_the_field(
    client, django_assert_max_num_queries
):
    for players in (8, 40):
        built = build_tournament(players=players, rounds=2, status="published", seed=players)
        fill_results(built)
        ranking_recompute(tournament_id=built.tournament.pk)
        url = reverse("ranking", args=[built.tournament.pk])
        with django_assert_max_num_queries(4):
            response = client.get(url, **EN)
        assert response.status_code == 200
        assert response.content.decode().count("<tr data-p=") == players


def test_score_card_shows_scores_differentials_running_total_and_chart(
    client, running_tournament, personas, django_assert_max_num_queries
):
    t = running_tournament
    player = player_of(personas.player_user)
    for round_no, table, donne in schedule(t):
        if round_no == 1:
            enter(t, table, donne, personas.arbiter, points=35 + 3 * donne + 5 * table)
    url = reverse("score_card", args=[t.pk, player.pk])
    # The arbiter's view (provisional): no donne of round 1 is complete yet, so the room's
    # card counts none of them (see test_room_ranking.py).
    get(client, url, personas.arbiter)  # the ranking catches up in-process
    with django_assert_max_num_queries(18):  # session, permissions, then a fixed dozen
        response = client.get(url, **EN)
    html = response.content.decode()
    assert response.status_code == 200
    assert f"Score card of {player.full_name}" in html
    assert "<svg" in html and "<polyline" in html and "Running total" in html
    assert html.count('data-status="played"') == 4
    assert html.count('data-status="pending"') == 4
    # his own score among the four, per donne (once for phones, once for wider screens)
    assert html.count('class="mine"') == 2 * 4
    snapshot = RankingSnapshot.objects.filter(tournament=t).latest("pk")
    total = snapshot.data["rows"][f"p{player.pk}"][2]
    with translation.override("en"):
        assert signed(total) in html


def test_score_card_of_someone_not_in_the_tournament_is_404(client, running_tournament, personas):
    outsider = Player.objects.create(
        first_name="Paul", last_name="Ailleurs", licence="0999999", club=Club.objects.first()
    )
    response = get(
        client, reverse("score_card", args=[running_tournament.pk, outsider.pk]), personas.arbiter
    )
    assert response.status_code == 404
    assert "does not play in" in response.content.decode()


def test_traveller_hidden_until_every_scheduled_table_has_played_it(
    client, running_tournament, personas
):
    t = running_tournament
    tables = tables_playing(t, 1)
    assert len(tables) >= 2
    url = reverse("traveller", args=[t.pk, 1])
    enter(t, tables[0], 1, personas.arbiter)

    # players (those who played it and those still to play it) must not see it yet
    hidden = get(client, url, personas.player_user)
    assert hidden.status_code == 403
    assert "opens once every table" in hidden.content.decode()
    assert "hand-N" not in hidden.content.decode()
    listing = get(client, reverse("donne_list", args=[t.pk]), personas.player_user)
    assert url not in listing.content.decode()
    # arbiters see it, with a warning that it is not finished everywhere
    early = get(client, url, personas.arbiter).content.decode()
    assert "Not finished everywhere" in early and "hand-N" in early

    for table in tables[1:-1]:
        enter(t, table, 1, personas.arbiter)
    enter(t, tables[-1], 1, personas.arbiter, status="annulled")  # an annulment counts as done
    shown = get(client, url, personas.player_user)
    html = shown.content.decode()
    assert shown.status_code == 200
    for suit in ("♠", "♥", "♦", "♣"):
        assert suit in html
    assert 'class="sym suit-H"' in html  # red suits are coloured
    assert "Distribution of scores" in html and "Annulled" in html
    donne = Donne.objects.get(tournament=t, number=1)
    assert all(f'class="hand hand-{p}"' in html for p in "NESW")
    assert donne.hand_n.split()[0]  # the diagram comes from the stored hands
    listing = get(client, reverse("donne_list", args=[t.pk]), personas.player_user)
    assert url in listing.content.decode()


def test_club_season_ranking_over_a_date_range(client, personas):
    club = Club.objects.create(name="Club saison", federation_number="4242")
    built = []
    for day, status in ((10, "published"), (20, "published"), (25, "running")):
        b = build_tournament(
            players=8,
            rounds=2,
            club=club,
            status=status,
            date=datetime.date(2026, 10, day),
            seed=day,
        )
        fill_results(b, seed=day)
        built.append(b)
    outside = build_tournament(
        players=8, rounds=2, club=club, status="published", date=datetime.date(2025, 1, 5), seed=99
    )
    fill_results(outside)
    url = reverse("club_season", args=[club.pk])
    response = get(client, f"{url}?start=2026-09-01&end=2027-08-31&method=average")
    html = response.content.decode()
    assert response.status_code == 200
    assert "2 published tournaments" in html
    # each player of the first two tournaments, with the sum of his two totals
    for b in built[:2]:
        ranking_recompute(tournament_id=b.tournament.pk)
    expected = {}
    for b in built[:2]:
        b.tournament.refresh_from_db()
        snap = RankingSnapshot.objects.get(
            tournament=b.tournament, results_version=b.tournament.results_version
        )
        for key, values in snap.data["rows"].items():
            expected[int(key[1:])] = values[1]
    assert html.count('class="rank num"') == len(expected) == 16
    best = max(expected, key=lambda pid: Fraction(expected[pid]))
    best_player = Player.objects.get(pk=best)
    line = re.search(rf"{re.escape(best_player.full_name)}</a>.*?</tr>", html, re.S).group(0)
    with translation.override("en"):
        assert signed(expected[best]) in line
    assert built[2].players[0].full_name not in html  # running: not in the season
    assert outside.players[0].full_name not in html

    bad = get(client, f"{url}?start=2027-01-01&end=2026-01-01&method=average")
    assert bad.status_code == 400
    assert "The end date must be on or after the start date" in bad.content.decode()


def test_player_results_page_lists_visible_tournaments_with_rank(client, personas):
    published = stage_tournament(personas=personas, status="published", name="Coupe publiée")
    player = player_of(personas.player_user)
    for round_no, table, donne in schedule(published):
        if round_no == 1:
            Tournament.objects.filter(pk=published.pk).update(status="running")
            published.refresh_from_db()
            enter(published, table, donne, personas.arbiter)
    Tournament.objects.filter(pk=published.pk).update(status="published")
    published.refresh_from_db()
    ranking_recompute(tournament_id=published.pk)
    html = get(client, reverse("player_results", args=[player.pk])).content.decode()
    assert "Coupe publiée" in html
    assert re.search(r"\d+ of 8", html)
    assert reverse("score_card", args=[published.pk, player.pk]) in html


def test_tournament_page_links_to_the_results_for_its_players(client, running_tournament, personas):
    Tournament.objects.filter(pk=running_tournament.pk).update(public_during_play=False)
    url = running_tournament.get_absolute_url()
    html = get(client, url, personas.player_user).content.decode()
    assert reverse("ranking", args=[running_tournament.pk]) in html
    assert "My score card" in html
    html = get(client, url, personas.stranger).content.decode()
    assert reverse("ranking", args=[running_tournament.pk]) not in html


def test_pages_speak_french_by_default(client, running_tournament, personas):
    client.force_login(personas.player_user)
    html = client.get(reverse("ranking", args=[running_tournament.pk])).content.decode()
    assert '<html lang="fr"' in html


def test_another_players_card_hides_donnes_not_finished_everywhere(
    client, running_tournament, personas, django_user_model
):
    t = running_tournament
    me = player_of(personas.player_user)
    my_table = Seat.objects.get(player=me, round__number=1).table_round.table.number
    donne = next(d for r, tb, d in schedule(t) if (r, tb) == (1, my_table))
    enter(t, my_table, donne, personas.arbiter, points=60)
    neighbour = Seat.objects.filter(round__tournament=t).exclude(player=me).first().player
    neighbour.user = django_user_model.objects.create_user("voisin", password="x-secret-9")
    neighbour.save()
    url = reverse("score_card", args=[t.pk, me.pk])
    # played, or for the room "pending" until every table has played it (RULES §6.1)
    row = rf'<tr data-donne="{donne}" data-status="\w+">.*?</tr>'

    own = re.search(row, get(client, url, personas.player_user).content.decode(), re.S).group(0)
    assert "Garde" in own and 'class="mine"' in own  # his own card: all of it
    other = re.search(row, get(client, url, neighbour.user).content.decode(), re.S).group(0)
    assert "Hidden until every table has played it" in other
    assert "Garde" not in other and 'class="mine"' not in other
    arbiter = re.search(row, get(client, url, personas.arbiter).content.decode(), re.S).group(0)
    assert "Garde" in arbiter

    for table in tables_playing(t, donne):
        if table != my_table:
            enter(t, table, donne, personas.arbiter)
    other = re.search(row, get(client, url, neighbour.user).content.decode(), re.S).group(0)
    assert "Garde" in other and "Hidden" not in other  # finished everywhere: shown


def test_travellers_of_every_donne_in_three_queries(django_assert_num_queries):
    from scoring.rankings.selectors import traveller, travellers

    built = build_tournament(players=40, rounds=2, status="published", seed=5)
    fill_results(built)
    tournament = built.tournament
    donnes = list(Donne.objects.filter(tournament=tournament).order_by("number"))
    with django_assert_num_queries(3):
        views = travellers(tournament, donnes)
    assert [v.donne.pk for v in views] == [d.pk for d in donnes]
    for view in views[:3]:
        alone = traveller(tournament, view.donne)
        assert alone.rows == view.rows
        assert alone.distribution == view.distribution
        assert alone.complete == view.complete


def test_the_ranking_table_is_rendered_once_per_snapshot_and_language(
    client, django_assert_max_num_queries
):
    """Every reader after the first gets the cached table: no player query, no rendering;
    a new snapshot (a new result) renders it again; French and English are kept apart."""
    from django.core.cache import cache

    cache.clear()
    built = build_tournament(players=40, rounds=2, status="published", seed=3)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    url = reverse("ranking", args=[built.tournament.pk])
    first = client.get(url, **EN).content.decode()
    with django_assert_max_num_queries(2):  # the tournament and its latest snapshot
        second = client.get(url, **EN).content.decode()
    assert second.count("<tr data-p=") == 40

    def table(html: str) -> str:
        return html[html.index("<table") : html.index("</table>")]

    assert table(first) == table(second)
    french = client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Classement" in french and "Differentials" not in french
    assert "Differentials" in client.get(url, **EN).content.decode()


def test_a_poll_with_nothing_new_is_a_204_from_one_query(client, django_assert_num_queries):
    built = build_tournament(players=40, rounds=2, status="published", seed=4)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = RankingSnapshot.objects.get(tournament=built.tournament)
    url = reverse("ranking", args=[built.tournament.pk])
    with django_assert_num_queries(1):
        poll = client.get(f"{url}?partial=1&since={snapshot.pk}&cur=1", **EN)
    assert poll.status_code == 204 and poll.content == b""
    # an older snapshot than the latest: the fragment to merge, not the page
    fragment = client.get(f"{url}?partial=1&since={snapshot.pk - 1}&cur=1", **EN)
    assert fragment.status_code == 200
    html = fragment.content.decode()
    assert html.startswith('<div id="ranking-live"') and "<html" not in html
    assert f'data-since="{snapshot.pk}"' in html


def test_a_public_poll_is_answered_before_the_session_is_read(client, django_assert_num_queries):
    """A logged-in reader's poll with nothing new costs the one query too: no session, no
    user (RankingPollMiddleware); a tournament that is not public still asks who reads."""
    from django.contrib.auth import get_user_model

    built = build_tournament(players=40, rounds=2, status="published", seed=7)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = RankingSnapshot.objects.get(tournament=built.tournament)
    url = reverse("ranking", args=[built.tournament.pk])
    poll = f"{url}?partial=1&since={snapshot.pk}&cur=1"
    client.force_login(get_user_model().objects.create_user("reader", password="x"))
    with django_assert_num_queries(1):
        assert client.get(poll, **EN).status_code == 204

    Tournament.objects.filter(pk=built.tournament.pk).update(
        status="running", public_during_play=False
    )
    assert client.get(poll, **EN).status_code == 403  # a stranger, logged in
    client.logout()
    assert client.get(poll, **EN).status_code == 302  # anonymous: the login page


def test_a_rendered_fragment_is_served_from_the_poll_state_alone(
    client, settings, django_assert_num_queries
):
    """Once a snapshot's fragment is rendered, a public poll gets it for the one query of
    the poll state, and with RANKING_POLL_CACHE_SECONDS a process reuses that state."""
    from scoring.rankings import views

    built = build_tournament(players=40, rounds=2, status="published", seed=8)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = RankingSnapshot.objects.get(tournament=built.tournament)
    url = reverse("ranking", args=[built.tournament.pk])
    old = f"{url}?partial=1&since={snapshot.pk - 1}&cur=1"
    first = client.get(old, HTTP_ACCEPT_ENCODING="gzip", **EN)  # the view renders it
    assert first.status_code == 200 and first["Content-Encoding"] == "gzip"
    with django_assert_num_queries(1):
        again = client.get(old, HTTP_ACCEPT_ENCODING="gzip", **EN)
    assert again.content == first.content and again["Content-Encoding"] == "gzip"
    assert "Accept-Language" in again["Vary"]
    french = client.get(old, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Pén.\u202f: points de pénalité" in french and "Differentials" not in french

    settings.RANKING_POLL_CACHE_SECONDS = 60
    views._POLLED.clear()
    try:
        with django_assert_num_queries(1):
            assert client.get(old, HTTP_ACCEPT_ENCODING="gzip", **EN).content == first.content
        with django_assert_num_queries(0):
            assert client.get(old, HTTP_ACCEPT_ENCODING="gzip", **EN).content == first.content
            now = f"{url}?partial=1&since={snapshot.pk}&cur=1"
            assert client.get(now, **EN).status_code == 204
    finally:
        views._POLLED.clear()


def test_the_ranking_is_compressed_and_a_thousand_rows_stay_small(client):
    import gzip

    built = build_tournament(players=1000, rounds=1, status="published", seed=5)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    url = reverse("ranking", args=[built.tournament.pk])
    response = client.get(url, HTTP_ACCEPT_ENCODING="gzip", **EN)
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    body = gzip.decompress(response.content).decode()
    assert body.count("<tr data-p=") == 1000
    assert len(response.content) < 80 * 1024


def test_the_api_ranking_rows_are_built_once_per_snapshot(client):
    """The API's ranking JSON reads the players once per snapshot, not once per reader."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    built = build_tournament(players=40, rounds=2, status="published", seed=6)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    url = f"/api/v1/tournaments/{built.tournament.pk}/ranking/"
    assert client.get(url).status_code == 200
    with CaptureQueriesContext(connection) as ctx:
        second = client.get(url)
    assert second.status_code == 200
    assert len(second.json()["rows"]) == 40
    assert not [q for q in ctx.captured_queries if "tournaments_player" in q["sql"]]


def test_names_in_the_ranking_rows_are_escaped(client):
    built = build_tournament(players=8, rounds=2, status="published", seed=8)
    fill_results(built)
    Player.objects.filter(pk=built.players[0].pk).update(last_name='<b onmouseover="x">')
    Club.objects.filter(pk=built.players[0].club_id).update(name="A & <i>B</i>")
    ranking_recompute(tournament_id=built.tournament.pk)
    html = client.get(reverse("ranking", args=[built.tournament.pk]), **EN).content.decode()
    assert "<b onmouseover" not in html and "&lt;b onmouseover=&quot;x&quot;&gt;" in html
    assert "<i>B</i>" not in html and "A &amp; &lt;i&gt;B&lt;/i&gt;" in html


def test_the_live_fragment_is_the_same_bytes_for_every_reader(client, personas):
    """Compressed once per snapshot: the reader's own row is not in the fragment (the page's
    script keeps it from the page), so a player and a visitor get the same bytes."""
    built = build_tournament(players=40, rounds=2, status="published", seed=9)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    url = reverse("ranking", args=[built.tournament.pk]) + "?partial=1&since=0&cur=1"
    visitor = client.get(url, HTTP_ACCEPT_ENCODING="gzip", **EN)
    client.force_login(personas.player_user)
    player = client.get(url, HTTP_ACCEPT_ENCODING="gzip", **EN)
    assert visitor["Content-Encoding"] == player["Content-Encoding"] == "gzip"
    assert visitor.content == player.content
    assert b"data-me" not in __import__("gzip").decompress(player.content)
