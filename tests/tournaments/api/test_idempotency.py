"""Safe retries: the same write with the same Idempotency-Key is answered once."""

from __future__ import annotations

import datetime
import io
import threading
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from tarot_club.models import IdempotencyRecord
from tests.tournaments.api.conftest import client_for
from tournaments.models import LedgerEntry, Penalty, Result, Tournament
from tournaments.services.checks import WARNING_CODES

ENTRY = {
    "table": 1,
    "donne": 1,
    "taker": "N",
    "contract": "garde",
    "bouts": 2,
    "points": 50,
    "confirm": list(WARNING_CODES),
}


def results_url(t: Tournament) -> str:
    return f"/api/v1/tournaments/{t.pk}/results/"


def post(client: Any, path: str, body: Any, key: str | None = None) -> Any:
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return client.post(path, body, format="json", **headers)


@pytest.mark.django_db
def test_a_repeated_write_returns_the_first_answer_and_changes_nothing(
    running_tournament, personas
) -> None:
    t = running_tournament
    arbiter = client_for(personas.arbiter)
    first = post(arbiter, results_url(t), ENTRY, key="tablet-7-donne-1")
    assert first.status_code == 201
    version = Tournament.objects.get(pk=t.pk).results_version
    # the same request again, keys of the body in another order
    again = post(arbiter, results_url(t), dict(reversed(list(ENTRY.items()))), "tablet-7-donne-1")
    assert again.status_code == 201
    assert again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["ETag"] == first.headers["ETag"]
    assert Result.objects.count() == 1 and LedgerEntry.objects.count() == 1
    assert Tournament.objects.get(pk=t.pk).results_version == version
    # without the key, the same request is a new one (and conflicts)
    assert post(arbiter, results_url(t), ENTRY).status_code == 409


@pytest.mark.django_db
def test_the_same_key_with_another_request_is_refused(running_tournament, personas) -> None:
    t = running_tournament
    arbiter = client_for(personas.arbiter)
    assert post(arbiter, results_url(t), ENTRY, key="k1").status_code == 201
    other = post(arbiter, results_url(t), {**ENTRY, "donne": 2}, key="k1")
    assert other.status_code == 422
    assert other.json()["code"] == "idempotency_key_reused"
    assert Result.objects.count() == 1
    elsewhere = arbiter.post(
        f"/api/v1/tournaments/{t.pk}/penalties/",
        {"player": personas.player_user.player.pk, "kind": "warning"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k1",
    )
    assert elsewhere.status_code == 422 and not Penalty.objects.exists()


@pytest.mark.django_db
def test_keys_belong_to_their_user(running_tournament, personas) -> None:
    t = running_tournament
    assert post(client_for(personas.arbiter), results_url(t), ENTRY, "shared").status_code == 201
    organiser = post(client_for(personas.organiser), results_url(t), ENTRY, "shared")
    assert organiser.status_code == 409  # his own request, run: the result exists
    assert "Idempotent-Replayed" not in organiser.headers
    assert IdempotencyRecord.objects.filter(key="shared").count() == 2


@pytest.mark.django_db
def test_a_refusal_is_replayed_too_and_a_fixed_request_needs_a_new_key(
    running_tournament, personas
) -> None:
    t = running_tournament
    arbiter = client_for(personas.arbiter)
    bad = {**ENTRY, "points": 95}
    first = post(arbiter, results_url(t), bad, "k-bad")
    assert first.status_code == 400
    again = post(arbiter, results_url(t), bad, "k-bad")
    assert again.status_code == 400 and again.json() == first.json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert post(arbiter, results_url(t), ENTRY, "k-bad").status_code == 422
    assert post(arbiter, results_url(t), ENTRY, "k-good").status_code == 201


@pytest.mark.django_db
def test_refused_callers_and_reads_store_nothing(running_tournament, personas) -> None:
    t = running_tournament
    assert post(client_for(None), results_url(t), ENTRY, "anon").status_code == 401
    assert post(client_for(personas.stranger), results_url(t), ENTRY, "x").status_code == 403
    arbiter = client_for(personas.arbiter)
    assert arbiter.get(results_url(t), HTTP_IDEMPOTENCY_KEY="read").status_code == 200
    assert not IdempotencyRecord.objects.exists()
    too_long = post(arbiter, results_url(t), ENTRY, "k" * 300)
    assert too_long.status_code == 400 and too_long.json()["code"] == "invalid_idempotency_key"
    assert not Result.objects.exists()


@pytest.mark.django_db
def test_records_expire(running_tournament, personas) -> None:
    t = running_tournament
    arbiter = client_for(personas.arbiter)
    assert post(arbiter, results_url(t), ENTRY, "old").status_code == 201
    with override_settings(API_IDEMPOTENCY_TTL=-1):
        # expired: the key is free again; the request runs and meets the existing result
        assert post(arbiter, results_url(t), ENTRY, "old").status_code == 409


@pytest.mark.django_db(transaction=True)
def test_two_copies_sent_at_once_write_once(personas) -> None:
    """A retry that overtakes the first attempt: both get the first answer, one write."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite serialises writers: the race needs PostgreSQL (run in CI)")
    from tests.fixtures.tournaments import stage_tournament

    t = stage_tournament(personas=personas)
    barrier = threading.Barrier(4)
    answers: list[Any] = []

    clients = [client_for(personas.arbiter) for _ in range(4)]

    def send(client: Any) -> None:
        try:
            barrier.wait()
            answers.append(post(client, results_url(t), ENTRY, "same-instant"))
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(answers) == 4
    assert {a.status_code for a in answers} == {201}
    assert len({a.json()["id"] for a in answers}) == 1
    assert Result.objects.count() == 1 and LedgerEntry.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 1


def _record(user: Any, key: str, age: datetime.timedelta) -> IdempotencyRecord:
    record = IdempotencyRecord.objects.create(
        user=user, key=key, method="POST", path="/api/v1/x/", fingerprint="f", status_code=201
    )
    IdempotencyRecord.objects.filter(pk=record.pk).update(created_at=timezone.now() - age)
    return record


@pytest.mark.django_db
def test_purge_command_deletes_the_expired_records_only(personas) -> None:
    day = datetime.timedelta(days=1, minutes=1)
    _record(personas.arbiter, "old", day)
    _record(personas.organiser, "old", day)
    _record(personas.arbiter, "fresh", datetime.timedelta(hours=1))
    out = io.StringIO()
    call_command("purge_idempotency", stdout=out)
    assert "Deleted 2 expired idempotency records" in out.getvalue()
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    with override_settings(API_IDEMPOTENCY_TTL=1800):
        call_command("purge_idempotency", stdout=out)
    assert not IdempotencyRecord.objects.exists()


@pytest.mark.django_db
def test_storing_a_record_purges_that_users_expired_ones_after_commit(
    running_tournament, personas, django_capture_on_commit_callbacks
) -> None:
    t = running_tournament
    day = datetime.timedelta(days=2)
    _record(personas.arbiter, "stale-1", day)
    _record(personas.arbiter, "stale-2", day)
    _record(personas.organiser, "stale-other-user", day)
    _record(personas.arbiter, "recent", datetime.timedelta(hours=2))
    # A web process purges a user's records at most every API_IDEMPOTENCY_PURGE_EVERY
    # seconds; 0 here, since earlier tests of this process may have purged this user's.
    with (
        override_settings(API_IDEMPOTENCY_PURGE_EVERY=0),
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = post(client_for(personas.arbiter), results_url(t), ENTRY, "new")
        assert response.status_code == 201
    keys = set(IdempotencyRecord.objects.values_list("user__username", "key"))
    assert keys == {
        (personas.arbiter.username, "recent"),
        (personas.arbiter.username, "new"),
        (personas.organiser.username, "stale-other-user"),
    }
    # Within the interval the next write of the same user does not purge again.
    _record(personas.arbiter, "stale-3", day)
    with django_capture_on_commit_callbacks(execute=True):
        entry = {**ENTRY, "donne": 2}
        assert post(client_for(personas.arbiter), results_url(t), entry, "next").status_code == 201
    assert IdempotencyRecord.objects.filter(key="stale-3").exists()


@pytest.mark.django_db
def test_a_write_without_a_key_purges_nothing(
    running_tournament, personas, django_capture_on_commit_callbacks
) -> None:
    _record(personas.arbiter, "stale", datetime.timedelta(days=2))
    with django_capture_on_commit_callbacks(execute=True):
        response = post(client_for(personas.arbiter), results_url(running_tournament), ENTRY)
    assert response.status_code == 201
    assert IdempotencyRecord.objects.filter(key="stale").exists()
