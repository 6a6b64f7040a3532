"""The field pages' polls (tarot_club/kit/cached_read.py): rendered once per results version
and served from the shared cache, a 304 when nothing changed, a new ETag as soon as the
results or the stored ranking change, and never an answer to a reader who may not see it
(the embargo, another language), nor an error when Redis does not answer."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import reverse

from tests.fixtures.services import private_redis_db
from tests.tournaments.simultaneous.hub.builders import played, player
from tests.tournaments.simultaneous.pages.builders import lift_embargo

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
FR = {"HTTP_ACCEPT_LANGUAGE": "fr"}


def shared_cache(location: str) -> Any:
    """The shared cache on Redis at `location`, with keys of this test's own."""
    shared = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": location,
        "KEY_PREFIX": f"test-{uuid.uuid4().hex[:8]}",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
    return override_settings(CACHES={**settings.CACHES, "shared": shared})


def page_urls(field) -> list[str]:
    public_id = field.event.public_id
    return [
        reverse("simultaneous_ranking", args=[public_id]),
        reverse("simultaneous_ranking", args=[public_id]) + f"?page=1&me={field.licences[0]}",
        reverse("simultaneous_field_club", args=[public_id, field.clubs[1].public_id]),
        reverse("simultaneous_player", args=[public_id, field.licences[4]]),
    ]


def correct_donne_1(field) -> None:
    """Club A sends a newer state (donne 1 corrected) and the hub ranks it again."""
    seats = field.licences[0:4]
    correction = played(1, 1, seats, contract="garde_contre", points="60", bouts=2, version=2)
    field.send(0, [correction], [player(lic) for lic in seats], sequence=2)
    field.rank()


def test_an_unchanged_poll_gets_304_and_a_served_page_costs_one_query(
    client, field, redis_url, django_assert_num_queries
):
    lift_embargo(field)
    with shared_cache(private_redis_db(redis_url)):
        for url in page_urls(field):
            first = client.get(url, **EN)
            assert first.status_code == 200, url
            tag = first["ETag"]
            assert tag.startswith('W/"') and "no-cache" in first["Cache-Control"]
            # what the poller does: asks with the ETag it holds
            with django_assert_num_queries(1):  # the event with its stored ranking's state
                again = client.get(url, HTTP_IF_NONE_MATCH=tag, **EN)
            assert again.status_code == 304 and again["ETag"] == tag and not again.content
            # another web process (nothing in its memory), another phone (no ETag yet):
            # the page from Redis, around a shell of its own, in one query as well
            cache.clear()
            with django_assert_num_queries(1):
                other = Client().get(url, **EN)
            assert other.status_code == 200
            assert _rows(other) == _rows(first), url


def _rows(response) -> list[str]:
    return re.findall(r'<tr id="p(\d+)"[^>]*>.*?</tr>', response.content.decode(), re.S)


def test_a_new_computation_is_a_new_etag_at_the_next_poll(client, field, people):
    client.force_login(people["organiser"])  # a closed event takes no upload: during play
    url = reverse("simultaneous_player", args=[field.event.public_id, field.licences[0]])
    before = client.get(url, **EN)
    assert client.get(url, HTTP_IF_NONE_MATCH=before["ETag"], **EN).status_code == 304
    correct_donne_1(field)
    after = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"], **EN)
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert "Garde contre" in after.content.decode()
    assert "Garde contre" not in before.content.decode()


def test_an_applied_upload_not_yet_ranked_changes_the_answer(client, field, people):
    client.force_login(people["organiser"])
    url = reverse("simultaneous_ranking", args=[field.event.public_id])
    before = client.get(url, **EN)
    seats = field.licences[0:4]
    correction = played(1, 1, seats, contract="garde_contre", points="60", bouts=2, version=2)
    field.send(0, [correction], [player(lic) for lic in seats], sequence=2)
    after = client.get(url, HTTP_IF_NONE_MATCH=before["ETag"], **EN)
    assert after.status_code == 200 and "The ranking is being updated" in after.content.decode()


def test_the_embargo_is_never_served_from_the_cache(client, field, people):
    """During the embargo an organiser's read is cached; a stranger with its ETag gets what
    the site answers him (the login page, 403), never the page nor a 304; once the embargo
    is lifted everybody gets the public page (without the embargo's notice), a new ETag."""
    url = reverse("simultaneous_ranking", args=[field.event.public_id])
    client.force_login(people["organiser"])
    organisers = client.get(url, **EN)
    assert organisers.status_code == 200 and 'data-embargo="on"' in organisers.content.decode()
    tag = organisers["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH=tag, **EN).status_code == 304
    client.logout()
    anonymous = client.get(url, HTTP_IF_NONE_MATCH=tag, **EN)
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    client.force_login(people["stranger"])
    assert client.get(url, HTTP_IF_NONE_MATCH=tag, **EN).status_code == 403
    lift_embargo(field)
    client.logout()
    public = client.get(url, **EN)
    assert public.status_code == 200 and 'data-embargo="on"' not in public.content.decode()
    client.force_login(people["organiser"])
    after = client.get(url, HTTP_IF_NONE_MATCH=tag, **EN)
    assert after.status_code == 200 and 'data-embargo="on"' not in after.content.decode()


def test_each_language_has_its_own_page_and_etag(client, field):
    lift_embargo(field)
    for url in page_urls(field):
        french = client.get(url, **FR)
        english = client.get(url, HTTP_IF_NONE_MATCH=french["ETag"], **EN)
        assert english.status_code == 200, url
        assert english["ETag"] != french["ETag"]
        assert english.content != french.content
        assert 'lang="en"' in english.content.decode()
        assert 'lang="fr"' in french.content.decode()
    ranking = client.get(page_urls(field)[0], **FR).content.decode()
    assert "Classement général" in ranking and "Overall ranking" not in ranking


def test_the_shell_is_the_readers_own(client, field, people):
    """What is cached holds nothing of a reader: the next reader's page has his own name and
    no one else's, and his own ETag (a 304 never keeps another's shell in his browser)."""
    lift_embargo(field)
    url = page_urls(field)[0]
    client.force_login(people["organiser"])
    organisers = client.get(url, **EN)
    assert "federation" in organisers.content.decode()
    client.force_login(people["stranger"])
    strangers = client.get(url, HTTP_IF_NONE_MATCH=organisers["ETag"], **EN)
    assert strangers.status_code == 200 and strangers["ETag"] != organisers["ETag"]
    html = strangers.content.decode()
    assert "stranger" in html and "federation" not in html


@pytest.mark.parametrize("location", ["redis://127.0.0.1:1/0"])
def test_redis_down_the_pages_still_answer(client, field, location):
    lift_embargo(field)
    with shared_cache(location):
        for url in page_urls(field):
            cache.clear()
            response = client.get(url, **EN)
            assert response.status_code == 200, url
            assert client.get(url, HTTP_IF_NONE_MATCH=response["ETag"], **EN).status_code == 304


def test_unknown_player_or_club_is_404_and_not_cached(client, field):
    lift_embargo(field)
    public_id = field.event.public_id
    for url in (
        reverse("simultaneous_player", args=[public_id, "9999999"]),
        reverse("simultaneous_field_club", args=[public_id, "nope"]),
    ):
        assert client.get(url, **EN).status_code == 404
        assert client.get(url, **EN).status_code == 404


def test_the_api_ranking_answers_304_to_its_etag_and_only_after_the_access_check(
    client, field, people
):
    url = reverse("api_simultaneous_ranking", args=[field.event.public_id])
    client.force_login(people["organiser"])
    organisers = client.get(url, **EN)
    assert organisers.status_code == 200 and organisers["ETag"].startswith('W/"')
    again = client.get(url, HTTP_IF_NONE_MATCH=organisers["ETag"], **EN)
    assert (
        again.status_code == 304 and again["X-Ranking-Version"] == organisers["X-Ranking-Version"]
    )
    assert client.get(url + "?limit=5", HTTP_IF_NONE_MATCH=organisers["ETag"]).status_code == 200
    client.logout()
    assert client.get(url, HTTP_IF_NONE_MATCH=organisers["ETag"], **EN).status_code == 401
    client.force_login(people["organiser"])
    correct_donne_1(field)
    changed = client.get(url, HTTP_IF_NONE_MATCH=organisers["ETag"], **EN)
    assert changed.status_code == 200 and changed["ETag"] != organisers["ETag"]
