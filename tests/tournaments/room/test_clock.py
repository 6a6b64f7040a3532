"""The round's clock: computed from the times stored on the round, controlled by the arbiter."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from tournaments.models import Round, Tournament
from tournaments.services.clock import (
    clock_add_minutes,
    clock_pause,
    clock_reset,
    clock_start,
    clock_state,
    current_round,
)

pytestmark = pytest.mark.django_db
T0 = dt.datetime(2026, 12, 5, 14, 0, tzinfo=dt.UTC)


def _round(tournament: Tournament) -> Round:
    return tournament.round_set.get(number=1)


def test_the_clock_counts_down_pauses_and_takes_added_minutes(running_tournament):
    t = running_tournament
    r = _round(t)
    assert clock_state(round_=r, tournament=t, now=T0).phase == "idle"
    assert clock_state(round_=r, tournament=t, now=T0).display == "30:00"

    r.clock_started_at = T0
    state = clock_state(round_=r, tournament=t, now=T0 + dt.timedelta(minutes=10, seconds=5))
    assert (state.display, state.phase, state.running) == ("19:55", "running", True)
    state = clock_state(round_=r, tournament=t, now=T0 + dt.timedelta(minutes=26))
    assert (state.display, state.phase) == ("04:00", "warning")
    state = clock_state(round_=r, tournament=t, now=T0 + dt.timedelta(minutes=31))
    assert (state.display, state.phase, state.remaining_seconds) == ("00:00", "over", 0)

    r.clock_extra_seconds = 5 * 60
    state = clock_state(round_=r, tournament=t, now=T0 + dt.timedelta(minutes=31))
    assert (state.display, state.phase) == ("04:00", "warning")

    r.clock_started_at, r.clock_elapsed_seconds = None, 600
    state = clock_state(round_=r, tournament=t, now=T0 + dt.timedelta(hours=5))
    assert (state.display, state.phase) == ("25:00", "paused")


def test_the_services_store_start_pause_and_added_time(running_tournament):
    r = _round(running_tournament)
    clock_start(round_=r)
    r.refresh_from_db()
    started = r.clock_started_at
    assert started is not None
    clock_start(round_=r)  # already running: unchanged
    r.refresh_from_db()
    assert r.clock_started_at == started
    Round.objects.filter(pk=r.pk).update(clock_started_at=timezone.now() - dt.timedelta(seconds=90))
    clock_pause(round_=r)
    r.refresh_from_db()
    assert r.clock_started_at is None and 89 <= r.clock_elapsed_seconds <= 92
    clock_add_minutes(round_=r, minutes=3)
    r.refresh_from_db()
    assert r.clock_extra_seconds == 180
    with pytest.raises(ValueError):
        clock_add_minutes(round_=r, minutes=61)
    clock_reset(round_=r)
    r.refresh_from_db()
    assert (r.clock_started_at, r.clock_elapsed_seconds, r.clock_extra_seconds) == (None, 0, 0)


def test_the_current_round_is_the_open_one(running_tournament):
    t = running_tournament
    assert current_round(t).number == 1
    Round.objects.filter(tournament=t, number=1).update(state="closed")
    assert current_round(t).number == 1
    Round.objects.filter(tournament=t, number=2).update(state="open")
    assert current_round(t).number == 2


def test_only_the_arbiter_drives_the_clock(client, running_tournament, personas):
    t = running_tournament
    url = reverse("arbiter_clock_action", args=[t.pk, 1, "start"])
    client.force_login(personas.stranger)
    assert client.post(url).status_code == 403
    assert _round(t).clock_started_at is None
    client.force_login(personas.arbiter)
    assert client.post(url).status_code == 302
    assert _round(t).clock_started_at is not None
    assert (
        client.post(reverse("arbiter_clock_action", args=[t.pk, 1, "explode"])).status_code == 404
    )
    response = client.post(
        reverse("arbiter_clock_action", args=[t.pk, 1, "add"]),
        {"minutes": "4"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200 and "clock-panel-body" in response.content.decode()
    assert _round(t).clock_extra_seconds == 240
    client.post(reverse("arbiter_announcement", args=[t.pk]), {"announcement": "  Pause   café  "})
    t.refresh_from_db()
    assert t.announcement == "Pause café"
    dashboard = client.get(reverse("arbiter_dashboard", args=[t.pk])).content.decode()
    assert reverse("arbiter_clock", args=[t.pk]) in dashboard


def test_the_screen_is_public_during_play_and_follows_the_setting(client, running_tournament):
    t = running_tournament
    Tournament.objects.filter(pk=t.pk).update(announcement="Buffet à 19 h")
    response = client.get(reverse("room_screen", args=[t.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "30:00" in page and "Buffet à 19 h" in page and "Tour 1" in page
    clock = client.get(reverse("room_screen_clock", args=[t.pk])).content.decode()
    assert 'hx-swap-oob="true"' in clock and "Buffet à 19 h" in clock
    Tournament.objects.filter(pk=t.pk).update(public_during_play=False)
    assert client.get(reverse("room_screen", args=[t.pk])).status_code == 302
    assert client.get(reverse("room_screen_clock", args=[t.pk])).status_code == 302


def test_refusals_show_in_the_panel_beside_their_field(client, running_tournament, personas):
    """A refused announcement or minute count answers the panel again (422, which htmx is set
    to swap) with the reason tied to its field, the typed text kept, nothing saved."""
    t = running_tournament
    Tournament.objects.filter(pk=t.pk).update(announcement="Buffet")
    client.force_login(personas.arbiter)
    refused = client.post(
        reverse("arbiter_announcement", args=[t.pk]),
        {"announcement": "Pause\u200bcafé"},
        HTTP_HX_REQUEST="true",
    )
    page = refused.content.decode()
    assert refused.status_code == 422
    assert 'aria-invalid="true" aria-describedby="announcement-error"' in page
    assert 'id="announcement-error" role="alert"' in page
    assert 'value="Pause\u200bcafé"' in page
    t.refresh_from_db()
    assert t.announcement == "Buffet"
    refused_minutes = client.post(
        reverse("arbiter_clock_action", args=[t.pk, 1, "add"]),
        {"minutes": "beaucoup"},
        HTTP_HX_REQUEST="true",
    )
    assert refused_minutes.status_code == 422
    minutes = refused_minutes.content.decode()
    assert 'aria-describedby="clock-minutes-error"' in minutes
    assert 'id="clock-minutes-error" role="alert"' in minutes
    saved = client.post(
        reverse("arbiter_announcement", args=[t.pk]),
        {"announcement": "Pause café"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert 'role="status"' in saved and "aria-invalid" not in saved
