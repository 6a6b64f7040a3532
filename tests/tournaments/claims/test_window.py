"""The claims window (issue 34 §4): it opens when the last round closes, the ranking is
provisional until it ends, and final once it has passed with no claim open — made so by the
window's Celery task (eager here), by the workers' sweep, by the settling of the last claim,
or by the organiser closing early. Reopening a round to correct keeps the window's end."""

from __future__ import annotations

import datetime

import pytest
from celery import current_app
from django.utils import timezone, translation

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Claim, LedgerEntry, Round, Tournament
from tournaments.services.claims import (
    ClaimInvalid,
    claim_file,
    claim_settle,
    claims_close_early,
    claims_finalize,
    claims_sweep,
)
from tournaments.services.claims_window import claims_window
from tournaments.services.results import round_close, round_open
from tournaments.services.tournaments import tournament_set_status
from tournaments.tasks import claims_window_end

from .helpers import cell, close_every_round, window_passed

pytestmark = pytest.mark.django_db


def test_the_window_opens_when_the_last_round_closes(personas):
    t = stage_tournament(personas=personas)
    from tests.scoring.documents.play import play_results

    play_results(t, personas.arbiter)
    first, last = Round.objects.filter(tournament=t).order_by("number")
    round_close(round_=first, user=personas.arbiter)
    t.refresh_from_db()
    assert claims_window(t).state == "none"  # one round still open
    before = timezone.now()
    round_close(round_=last, user=personas.arbiter)
    t.refresh_from_db()
    window = claims_window(t)
    assert window.is_provisional and not window.is_final
    expected = before + datetime.timedelta(minutes=30)
    assert abs((window.closes_at - expected).total_seconds()) < 5
    # Reopened for a correction and closed again: the window keeps its end.
    round_open(round_=last, user=personas.arbiter)
    round_close(round_=last, user=personas.arbiter)
    t.refresh_from_db()
    assert claims_window(t).closes_at == window.closes_at


def test_a_window_of_zero_minutes_is_final_at_once_through_the_eager_task(
    personas, django_capture_on_commit_callbacks
):
    t = stage_tournament(personas=personas)
    Tournament.objects.filter(pk=t.pk).update(claims_window_minutes=0)
    assert current_app.conf.task_always_eager  # the test settings: CELERY_EAGER=1
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        close_every_round(t, personas.arbiter)
    assert any("claims_window_end_schedule" in repr(c) for c in callbacks)
    t.refresh_from_db()
    assert claims_window(t).is_final
    assert LedgerEntry.objects.filter(tournament=t, action="ranking_final").count() == 1


def test_the_task_makes_final_only_once_the_window_has_passed(personas):
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    assert claims_window_end.delay(t.pk).get() is False  # eager: 30 minutes to go
    t.refresh_from_db()
    assert claims_window(t).is_provisional
    window_passed(t)
    assert claims_window_end.delay(t.pk).get() is True
    t.refresh_from_db()
    assert claims_window(t).is_final
    assert claims_window_end.delay(t.pk).get() is False  # once only


def test_the_sweep_makes_final_what_the_task_missed_but_waits_for_open_claims(personas):
    t = stage_tournament(personas=personas)
    other = stage_tournament(personas=None, name="Autre")
    other.arbiters.add(personas.arbiter)
    close_every_round(t, personas.arbiter)
    close_every_round(other, personas.arbiter)
    table, donne, player = cell(t)
    claim = claim_file(
        tournament=t,
        table=table,
        donne=donne,
        kind="result",
        text="Le 21 était à nous",
        player=player,
    )
    window_passed(t)
    window_passed(other)
    assert claims_sweep() == [other.pk]  # t has a claim open
    t.refresh_from_db()
    assert claims_window(t).is_provisional
    # Settling the last claim after the window makes the ranking final there and then.
    claim_settle(claim=claim, user=personas.arbiter, state="rejected", reason="Feuille signée")
    t.refresh_from_db()
    assert claims_window(t).is_final
    assert claims_sweep() == []


def test_a_late_claim_is_refused_with_the_time_the_window_closed(personas):
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    window_passed(t, minutes=2)
    table, donne, player = cell(t)
    with pytest.raises(ClaimInvalid) as refused:
        claim_file(
            tournament=t,
            table=table,
            donne=donne,
            kind="result",
            text="Trop tard",
            player=player,
        )
    message = refused.value.errors["__all__"][0]
    assert timezone.localtime(t.claims_close_at).strftime("%H:%M") in message.replace("h", ":")
    assert not Claim.objects.exists()


def test_a_claim_before_the_last_round_closes_is_refused(personas):
    t = stage_tournament(personas=personas)
    table, donne, player = cell(t)
    with translation.override("en"), pytest.raises(ClaimInvalid) as refused:
        claim_file(
            tournament=t, table=table, donne=donne, kind="result", text="Déjà", player=player
        )
    assert "last round" in refused.value.errors["__all__"][0]


def test_the_organiser_closes_early(personas):
    t = stage_tournament(personas=personas)
    close_every_round(t, personas.arbiter)
    table, donne, player = cell(t)
    claim = claim_file(
        tournament=t, table=table, donne=donne, kind="result", text="Points faux", player=player
    )
    claims_close_early(tournament=t, user=personas.organiser)
    assert claims_window(t).is_provisional  # a claim is still open
    with pytest.raises(ClaimInvalid):
        claim_file(
            tournament=t, table=table, donne=donne, kind="result", text="Encore", player=player
        )
    claim_settle(claim=claim, user=personas.arbiter, state="accepted", reason="Recompté")
    t.refresh_from_db()
    assert claims_window(t).is_final
    assert not claims_finalize(tournament_id=t.pk)  # already final
    with pytest.raises(ClaimInvalid):
        claims_close_early(tournament=t, user=personas.organiser)


def test_finishing_with_a_round_open_opens_the_window(personas):
    t = stage_tournament(personas=personas)
    tournament_set_status(
        tournament=t, status="finished", user=personas.organiser, confirm_missing=True
    )
    t.refresh_from_db()
    assert claims_window(t).is_provisional
