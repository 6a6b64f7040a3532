"""The room screen's ranking poll (tarot_club/kit/cached_read.py): each page rendered once per
ranking version for every screen, a 304 to a screen that asks with the ETag of the page it
shows, a new ETag with a new result, and never a page to a reader who may not see it."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from tests.scoring.rankings.helpers import enter, tables_playing
from tests.tournaments.simultaneous.pages.test_cached_reads import shared_cache
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


@pytest.fixture
def ranked(running_tournament, personas) -> Tournament:
    """Donne 1 entered at both tables: the ranking has a current snapshot."""
    t = running_tournament
    for index, table in enumerate(tables_playing(t, 1)):
        enter(t, table, 1, personas.arbiter, points=40 + 10 * index)
    return t


def screen_url(t: Tournament) -> str:
    return reverse("room_screen_ranking", args=[t.pk]) + "?rows=40&every=120"


def test_an_unchanged_screen_gets_304_in_one_query(client, ranked, django_assert_num_queries):
    url = screen_url(ranked)
    client.get(url, **EN)  # the first read after the results catches the ranking up
    first = client.get(url, **EN)
    assert first.status_code == 200 and first["ETag"].startswith('W/"')
    with django_assert_num_queries(1):
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **EN)
    assert again.status_code == 304 and again["ETag"] == first["ETag"]
    cache.clear()  # another web process: the page from the shared cache, or rendered again
    other = client.get(url, **EN)
    assert other.content == first.content and other["ETag"] == first["ETag"]


def test_a_new_result_is_a_new_etag(client, ranked, personas):
    url = screen_url(ranked)
    client.get(url, **EN)
    before = client.get(url, **EN)
    version = before.content.decode().split('data-version="')[1].split('"')[0]
    enter(ranked, tables_playing(ranked, 2)[0], 2, personas.arbiter, points=70)
    # the first read after a result helps the ranking catch up: answered, never kept
    after = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"], **EN)
    assert after.status_code == 200 and after.get("ETag") is None
    assert f'data-version="{version}"' not in after.content.decode()
    kept = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"], **EN)
    assert kept.status_code == 200 and kept["ETag"] != before["ETag"]
    assert kept.content == after.content


def test_each_language_has_its_own_page_and_etag(client, ranked):
    url = screen_url(ranked)
    client.get(url, **EN)
    english = client.get(url, **EN)
    french = client.get(url, HTTP_IF_NONE_MATCH=english["ETag"], **FR)
    assert french.status_code == 200 and french["ETag"] != english["ETag"]
    assert "Live ranking" in english.content.decode()
    assert "Classement en direct" in french.content.decode()


def test_a_tournament_not_public_during_play_is_not_served_to_strangers(client, ranked, personas):
    Tournament.objects.filter(pk=ranked.pk).update(public_during_play=False)
    url = screen_url(ranked)
    client.force_login(personas.arbiter)
    client.get(url, **EN)
    arbiters = client.get(url, **EN)
    assert arbiters.status_code == 200
    assert client.get(url, HTTP_IF_NONE_MATCH=arbiters["ETag"], **EN).status_code == 304
    client.logout()
    anonymous = client.get(url, HTTP_IF_NONE_MATCH=arbiters["ETag"], **EN)
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    Tournament.objects.filter(pk=ranked.pk).update(public_during_play=True)
    assert client.get(url, **EN).status_code == 200


def test_redis_down_the_screen_still_answers(client, ranked):
    url = screen_url(ranked)
    with shared_cache("redis://127.0.0.1:1/0"):
        cache.clear()
        client.get(url, **EN)
        response = client.get(url, **EN)
        assert response.status_code == 200 and "screen-table" in response.content.decode()
