"""A penalty sent twice is recorded once (RULES §8), by the service itself: the arbiter's form
rendered again, an API call retried without Idempotency-Key, two copies at the same moment."""

from __future__ import annotations

import datetime
import threading
import time

import pytest
from django.db import connection, connections, transaction
from django.db.models import F
from django.urls import reverse

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Donne, LedgerEntry, Penalty, Player, Tournament
from tournaments.services.penalties import (
    penalty_give,
    penalty_record,
    penalty_repeat_window,
    penalty_withdraw,
)

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


def player_of(t: Tournament) -> Player:
    return Player.objects.filter(registrations__tournament=t).order_by("pk").first()


def version(t: Tournament) -> int:
    return Tournament.objects.get(pk=t.pk).results_version


def age(penalty: Penalty, seconds: float) -> None:
    """As if the penalty had been given ``seconds`` earlier."""
    Penalty.objects.filter(pk=penalty.pk).update(
        given_at=F("given_at") - datetime.timedelta(seconds=seconds)
    )


def test_the_same_penalty_sent_twice_is_recorded_once(running_tournament, personas):
    t, player = running_tournament, player_of(running_tournament)
    donne = Donne.objects.get(tournament=t, number=1)
    what = {"kind": "other", "points": 30, "reason": "slow play", "donne": donne}
    first = penalty_record(tournament=t, player=player, user=personas.arbiter, **what)
    after_first = version(t)
    again = penalty_record(tournament=t, player=player, user=personas.organiser, **what)
    assert first.created and not again.created
    assert again.penalty.pk == first.penalty.pk
    assert Penalty.objects.count() == 1
    assert LedgerEntry.objects.filter(action="penalty_given").count() == 1
    assert version(t) == after_first  # the ranking does not move either
    # penalty_give answers the earlier penalty too.
    assert penalty_give(tournament=t, player=player, user=personas.arbiter, **what).pk == (
        first.penalty.pk
    )


def test_a_penalty_that_differs_in_anything_is_another_one(running_tournament, personas):
    t, player = running_tournament, player_of(running_tournament)
    other = Player.objects.filter(registrations__tournament=t).exclude(pk=player.pk).first()
    donnes = Donne.objects.filter(tournament=t).order_by("number")
    base = {"kind": "other", "points": 30, "reason": "slow play", "donne": donnes[0]}
    variants = [
        base,
        {**base, "points": 40},
        {**base, "reason": "talking during play"},
        {**base, "donne": donnes[1]},
        {**base, "donne": None},
        {"kind": "warning"},
        {"kind": "early_pickup"},
    ]
    for what in variants:
        assert penalty_record(tournament=t, player=player, user=personas.arbiter, **what).created
    assert penalty_record(tournament=t, player=other, user=personas.arbiter, **base).created
    assert Penalty.objects.count() == len(variants) + 1


def test_after_the_window_or_a_withdrawal_an_identical_penalty_is_recorded(
    running_tournament, personas
):
    t, player, arbiter = running_tournament, player_of(running_tournament), personas.arbiter
    first = penalty_give(tournament=t, player=player, kind="early_pickup", user=arbiter)
    window = penalty_repeat_window().total_seconds()
    assert window == 120  # the documented default
    age(first, window - 5)
    assert not penalty_record(
        tournament=t, player=player, kind="early_pickup", user=arbiter
    ).created
    age(first, 10)  # now older than the window: a deliberate second penalty
    second = penalty_record(tournament=t, player=player, kind="early_pickup", user=arbiter)
    assert second.created and second.penalty.pk != first.pk
    penalty_withdraw(penalty=second.penalty, user=arbiter, reason="given by mistake")
    third = penalty_record(tournament=t, player=player, kind="early_pickup", user=arbiter)
    assert third.created
    assert Penalty.objects.filter(withdrawn_at__isnull=True).count() == 2


def test_the_window_is_a_setting_and_zero_turns_the_check_off(
    running_tournament, personas, settings
):
    t, player, arbiter = running_tournament, player_of(running_tournament), personas.arbiter
    settings.PENALTY_REPEAT_SECONDS = 0
    penalty_give(tournament=t, player=player, kind="warning", user=arbiter)
    assert penalty_record(tournament=t, player=player, kind="warning", user=arbiter).created
    settings.PENALTY_REPEAT_SECONDS = 3600
    age(Penalty.objects.order_by("pk").last(), 1800)
    assert not penalty_record(tournament=t, player=player, kind="warning", user=arbiter).created
    assert Penalty.objects.count() == 2


def test_the_form_sent_again_says_the_penalty_was_already_given(
    client, running_tournament, personas
):
    """A new rendering of the form (a fresh one-time token, e.g. after going back) sent with
    the same penalty: nothing recorded, and the arbiter is told so, in French too."""
    t, player = running_tournament, player_of(running_tournament)
    client.force_login(personas.arbiter)
    path = reverse("arbiter_penalties", args=[t.pk])
    body = {"player": player.pk, "kind": "early_pickup"}
    first = client.post(path, body, follow=True, **EN).content.decode()
    assert f"Penalty of 100 points given to {player}" in first
    again = client.post(path, body, follow=True, **EN).content.decode()
    assert f"already given to {player} at" in again and "it is recorded once" in again
    assert "Penalty of 100 points given" not in again
    french = client.post(path, body, follow=True, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert f"déjà été donnée à {player}" in french
    assert Penalty.objects.count() == 1
    assert LedgerEntry.objects.filter(action="penalty_given").count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_copies_at_the_same_moment_record_one_penalty(personas):
    """A real race on PostgreSQL: both copies are sent while another writer holds the
    tournament row; each must wait for the lock before looking for an earlier penalty, so the
    second sees the first one's penalty once it commits."""
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent writers: SQLite serialises them (run with DATABASE_URL)")
    t = stage_tournament(personas=personas)
    player = player_of(t)
    outcomes: list[object] = []
    pids: list[int] = []

    def send() -> None:
        connection.ensure_connection()
        pids.append(connection.connection.info.backend_pid)
        try:
            outcomes.append(
                penalty_record(
                    tournament=t, player=player, kind="early_pickup", user=personas.arbiter
                ).created
            )
        except Exception as exc:  # pragma: no cover - reported by the assertion below
            outcomes.append(exc)
        finally:
            connections.close_all()

    copies = [threading.Thread(target=send) for _ in range(2)]
    with transaction.atomic():
        Tournament.objects.select_for_update().get(pk=t.pk)
        for copy in copies:
            copy.start()
        # Wait until both copies are blocked on a lock (or done, if nothing made them wait).
        deadline = time.monotonic() + 20
        with connection.cursor() as cursor:
            while time.monotonic() < deadline and len(outcomes) < 2:
                if len(pids) == 2:
                    cursor.execute(
                        "SELECT count(DISTINCT pid) FROM pg_locks "
                        "WHERE pid = ANY(%s) AND NOT granted",
                        [pids],
                    )
                    if cursor.fetchone()[0] == 2:
                        break
                time.sleep(0.02)
    for copy in copies:
        copy.join(20)
    assert sorted(outcomes, key=str) == [False, True], outcomes
    assert Penalty.objects.filter(tournament=t).count() == 1
    assert LedgerEntry.objects.filter(tournament=t, action="penalty_given").count() == 1
