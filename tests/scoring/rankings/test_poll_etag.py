"""The live ranking's poll with ETags (tarot_club/kit/cached_read.py): the fragment carries
the ETag of what it shows (the snapshot, whether it is current, the audience, the language),
the page's script sends it back (ranking-live.js) and gets a 304 while nothing changed; the
arbiter's provisional ranking and another language never answer the public's poll."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from scoring.models import RankingSnapshot
from scoring.rankings.services import ranking_recompute
from tests.fixtures.tournaments import stage_tournament
from tests.scoring.rankings.builders import build_tournament, fill_results
from tests.scoring.rankings.helpers import enter, tables_playing
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}
SCRIPT = Path(__file__).parents[3] / "scoring/static/scoring/ranking-live.js"


@pytest.fixture
def room_tournament(personas) -> Tournament:
    """24 players over 3 rounds, three tables on each étui set; donnes 2 and 3 complete."""
    t = stage_tournament(players=24, rounds=3, personas=personas)
    for donne in (2, 3):
        for index, table in enumerate(tables_playing(t, donne)):
            enter(t, table, donne, personas.arbiter, points=41 + 6 * index + donne)
    return t


def published() -> tuple[Tournament, RankingSnapshot]:
    built = build_tournament(players=40, rounds=2, status="published", seed=11)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    return built.tournament, RankingSnapshot.objects.get(tournament=built.tournament)


def test_a_poll_that_names_its_fragment_gets_304_from_one_query(client, django_assert_num_queries):
    t, snapshot = published()
    url = reverse("ranking", args=[t.pk])
    fragment = client.get(f"{url}?partial=1&since=&cur=0", **EN)
    assert fragment.status_code == 200 and fragment["ETag"].startswith('W/"')
    poll = f"{url}?partial=1&since={snapshot.pk}&cur=1"
    with django_assert_num_queries(1):
        again = client.get(poll, HTTP_IF_NONE_MATCH=fragment["ETag"], **EN)
    assert again.status_code == 304 and again["ETag"] == fragment["ETag"]
    assert client.get(poll, **EN).status_code == 204  # a poller without the ETag
    # served by the poll middleware from the rendered fragment: the same ETag
    served = client.get(f"{url}?partial=1&since=&cur=0", **EN)
    assert served.content == fragment.content and served["ETag"] == fragment["ETag"]


def test_a_new_result_answers_the_old_etag_with_the_new_fragment(client, room_tournament, personas):
    t = room_tournament
    url = reverse("ranking", args=[t.pk])
    first = client.get(f"{url}?partial=1&since=&cur=0", **EN)
    since = first.content.decode().split('data-since="')[1].split('"')[0]
    for table in tables_playing(t, 1):
        enter(t, table, 1, personas.arbiter, points=61)
    poll = f"{url}?partial=1&since={since}&cur=1"
    after = client.get(poll, HTTP_IF_NONE_MATCH=first["ETag"], **EN)
    assert after.status_code == 200 and after["ETag"] != first["ETag"]
    assert f'data-since="{since}"' not in after.content.decode()


def test_the_arbiters_provisional_ranking_never_answers_the_public(
    client, room_tournament, personas
):
    """During play the arbiter's fragment counts a donne still being played; the public's
    does not. Each has its own ETag: the arbiter's never gets a 304 from the public's poll,
    and what the public is served (rendered or from the cache) is the room's ranking."""
    t = room_tournament
    first, second, _third = tables_playing(t, 1)
    enter(t, first, 1, personas.arbiter, points=81)
    enter(t, second, 1, personas.arbiter, points=21)
    url = reverse("ranking", args=[t.pk]) + "?partial=1&since=&cur=0"
    client.force_login(personas.arbiter)
    arbiters = client.get(url, **EN)
    assert 'data-view="provisional"' in arbiters.content.decode()
    client.logout()
    public = client.get(url, HTTP_IF_NONE_MATCH=arbiters["ETag"], **EN)
    assert public.status_code == 200 and public["ETag"] != arbiters["ETag"]
    assert 'data-view="room"' in public.content.decode()
    assert _rows(public) != _rows(arbiters)
    since = public.content.decode().split('data-since="')[1].split('"')[0]
    poll = reverse("ranking", args=[t.pk]) + f"?partial=1&since={since}&cur=1"
    assert client.get(poll, HTTP_IF_NONE_MATCH=arbiters["ETag"], **EN).status_code == 204
    assert client.get(poll, HTTP_IF_NONE_MATCH=public["ETag"], **EN).status_code == 304


def _rows(response) -> str:
    html = response.content.decode()
    return html[html.index("<tbody>") : html.index("</tbody>")]


def test_each_language_has_its_own_etag(client):
    t, snapshot = published()
    url = reverse("ranking", args=[t.pk]) + "?partial=1&since=&cur=0"
    english = client.get(url, **EN)
    french = client.get(url, HTTP_IF_NONE_MATCH=english["ETag"], **FR)
    assert french.status_code == 200 and french["ETag"] != english["ETag"]
    assert "Differentials" in english.content.decode()
    assert "Differentials" not in french.content.decode()
    poll = reverse("ranking", args=[t.pk]) + f"?partial=1&since={snapshot.pk}&cur=1"
    assert client.get(poll, HTTP_IF_NONE_MATCH=english["ETag"], **FR).status_code == 204


def test_the_pages_script_sends_the_etag_it_holds():
    """ranking-live.js keeps the ETag of the fragment it merged and sends it back (the
    browser tests of tests/scoring/rankings/test_browser.py run the script)."""
    script = SCRIPT.read_text()
    assert 'headers["If-None-Match"] = etag' in script
    assert 'etag = response.headers.get("ETag")' in script


def test_an_unpublished_tournament_is_never_answered_to_strangers(
    client, room_tournament, personas, make_user
):
    """A tournament that is neither published nor public during play: the arbiter's poll
    gets its 304; an anonymous poll with his ETag the login page, a stranger's 403."""
    t = room_tournament
    Tournament.objects.filter(pk=t.pk).update(public_during_play=False)
    url = reverse("ranking", args=[t.pk])
    client.force_login(personas.arbiter)
    arbiters = client.get(f"{url}?partial=1&since=&cur=0", **EN)
    since = arbiters.content.decode().split('data-since="')[1].split('"')[0]
    poll = f"{url}?partial=1&since={since}&cur=1"
    tag = {"HTTP_IF_NONE_MATCH": arbiters["ETag"]}
    assert client.get(poll, **tag, **EN).status_code == 304
    client.logout()
    anonymous = client.get(poll, **tag, **EN)
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    client.force_login(make_user("passer-by"))
    assert client.get(poll, **tag, **EN).status_code == 403


def test_the_poll_query_built_once_reads_each_tournament_as_it_is_now():
    """`ranking_poll_tournament` narrows one queryset built once per process: each call reads
    its own tournament, its latest snapshot and state as they are at the call."""
    from scoring.rankings.selectors import ranking_poll_tournament

    first, snapshot = published()
    second = build_tournament(players=8, rounds=1, status="published", seed=12).tournament
    polled = ranking_poll_tournament(first.pk)
    assert polled is not None and polled.pk == first.pk
    assert polled.latest_snapshot_id == snapshot.pk
    assert polled.latest_snapshot_version == snapshot.results_version
    other = ranking_poll_tournament(second.pk)
    assert other is not None and other.pk == second.pk and other.latest_snapshot_id is None
    Tournament.objects.filter(pk=first.pk).update(results_version=snapshot.results_version + 1)
    again = ranking_poll_tournament(first.pk)
    assert again is not None and again.results_version == snapshot.results_version + 1
    assert ranking_poll_tournament(max(first.pk, second.pk) + 1000) is None
