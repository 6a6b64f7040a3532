"""The players' rating as a stored subject of the derived-ranking mechanism
(`scoring.rankings.rating`): the same ratings as the pure rules over the results read
directly, published tournaments only, recomputed when a counted tournament changes and only
then, the club's and the site's switches, the sweep."""

from __future__ import annotations

import datetime

import pytest

from scoring.rankings.derived import sweep_subjects
from scoring.rankings.models import PlayerRating, RatingState
from scoring.rankings.rating import (
    PLAYER_RATING,
    SITE,
    club_rating_switch,
    history_decode,
    player_rating,
    rating_recompute,
)
from scoring.rankings.services import ranking_recompute
from scoring.rules.rating import RatingEvent, compute_ratings
from tests.scoring.rankings.builders import build_tournament, fill_results, save_result
from tests.scoring.rankings.test_club_season import share_players
from tournaments.models import Club, Result, Tournament
from tournaments.services.tournaments import tournament_set_status, tournament_update
from tournaments.signals import send_results_changed

pytestmark = pytest.mark.django_db


def events_read_directly(tournaments) -> list[RatingEvent]:
    """The reference: each tournament's saved results grouped by donne and position (who
    held the cards, their scores), annulled tables left out, without any snapshot."""
    events = []
    for tournament in tournaments:
        groups: dict = {}
        for result in Result.objects.filter(tournament=tournament).exclude(status="annulled"):
            for position, player in result.holders.items():
                groups.setdefault((result.donne_id, position), []).append(
                    (player, result.scores[position])
                )
        events.append(RatingEvent(tournament.pk, tournament.date, list(groups.values())))
    return events


def stored() -> dict:
    return {
        row.player_id: (row.rating, row.deviation, row.events, row.games)
        for row in PlayerRating.objects.all()
    }


def reference(tournaments) -> dict:
    table = compute_ratings(events_read_directly(tournaments))
    return {
        player: (round(r.rating, 2), round(r.deviation, 2), r.events, r.games)
        for player, r in table.players.items()
    }


def season(club=None, *, seed: int = 0) -> tuple[Club, list]:
    """A club with three tournaments sharing their first players: two published (4 and 11
    October), one still running (20 October), each ranked."""
    club = club or Club.objects.create(name="Club", federation_number=f"{seed + 10:04d}")
    built = []
    for day, status, players in ((4, "published", 8), (11, "published", 12), (20, "running", 8)):
        b = build_tournament(
            players=players,
            club=club,
            status=status,
            date=datetime.date(2026, 10, day),
            seed=day + seed,
        )
        if built:
            share_players(b, built[0].players)
        fill_results(b, seed=day + seed)
        ranking_recompute(tournament_id=b.tournament.pk)
        built.append(b)
    return club, built


def test_the_stored_ratings_are_the_rules_over_the_published_results():
    _club, built = season()
    rating_recompute()
    published = [b.tournament for b in built[:2]]
    assert stored() == reference(published)
    assert len(stored()) == 12  # 8 played both, 4 the second only; the running one counts not
    first = built[0].players[0].pk
    read = player_rating(first)
    assert [line.tournament for line in read.history] == [t.pk for t in published]
    assert read.history[1].rating_after == read.rating.rating
    assert read.history[1].rating_before == read.history[0].rating_after
    assert not read.updating
    state = RatingState.objects.get(pk=SITE)
    assert state.counted == {
        str(t.pk): [t.results_version, t.date.isoformat()] for t in _fresh(published)
    }
    assert state.players == 12 and state.computations == 1


def _fresh(tournaments):
    return [Tournament.objects.get(pk=t.pk) for t in tournaments]


def test_a_current_rating_is_not_computed_again(django_assert_max_num_queries):
    season()
    rating_recompute()
    before = list(PlayerRating.objects.order_by("pk").values_list("pk", "rating", "history"))
    with django_assert_max_num_queries(8):
        rating_recompute()
    assert RatingState.objects.get(pk=SITE).computations == 1
    assert list(PlayerRating.objects.order_by("pk").values_list("pk", "rating", "history")) == (
        before
    )


def test_publishing_a_tournament_brings_it_in_through_the_signals(
    django_capture_on_commit_callbacks,
):
    """Publishing goes through the status service: `results_changed`, the ranking task, then
    `ranking_computed` schedules the rating, computed in-process (no broker in the tests)."""
    _club, built = season()
    rating_recompute()
    running = built[2].tournament
    with django_capture_on_commit_callbacks(execute=True):
        tournament_set_status(tournament=running, status="finished", confirm_missing=True)
    assert str(running.pk) not in RatingState.objects.get(pk=SITE).counted  # finished: not yet
    with django_capture_on_commit_callbacks(execute=True):
        tournament_set_status(tournament=running, status="published", confirm_missing=True)
    state = RatingState.objects.get(pk=SITE)
    assert str(running.pk) in state.counted and state.stale_since is None
    assert stored() == reference([b.tournament for b in built])


def test_a_correction_after_publication_changes_the_rating(django_capture_on_commit_callbacks):
    _club, built = season()
    rating_recompute()
    first = built[0]
    before = stored()
    with django_capture_on_commit_callbacks(execute=True):
        save_result(first, 1, 1, 0, status=Result.Status.ANNULLED)  # the arbiter annuls a donne
    assert stored() != before
    assert stored() == reference([b.tournament for b in built[:2]])
    assert RatingState.objects.get(pk=SITE).computations == 2


def test_a_date_change_reorders_the_events_and_recomputes(django_capture_on_commit_callbacks):
    """Events are rated in date order: moving the first published event after the second
    (the organiser's edit form goes through `tournament_update`) sends `results_changed`
    without a new results version, the ranking task's `ranking_computed` schedules the
    rating, and the rating computed is the rules' over the new order."""
    _club, built = season()
    rating_recompute()
    first, second = _fresh(b.tournament for b in built[:2])
    before = stored()
    version = first.results_version
    with django_capture_on_commit_callbacks(execute=True):
        tournament_update(tournament=first, date=datetime.date(2026, 10, 18))
    first.refresh_from_db()
    assert first.results_version == version  # its own ranking stays current
    state = RatingState.objects.get(pk=SITE)
    assert state.computations == 2 and state.stale_since is None
    assert state.counted[str(first.pk)] == [version, "2026-10-18"]
    assert stored() != before
    assert stored() == reference([second, first])
    shared = built[0].players[0].pk
    assert [line.tournament for line in player_rating(shared).history] == [second.pk, first.pk]
    with django_capture_on_commit_callbacks(execute=True):  # the same date: nothing to do
        tournament_update(tournament=first, date=datetime.date(2026, 10, 18))
    assert RatingState.objects.get(pk=SITE).computations == 2


def test_results_during_play_schedule_nothing(django_capture_on_commit_callbacks):
    _club, built = season()
    rating_recompute()
    with django_capture_on_commit_callbacks(execute=True):
        save_result(built[2], 1, 1, 1)  # the running tournament
    state = RatingState.objects.get(pk=SITE)
    assert state.stale_since is None and state.queued_at is None and state.computations == 1


def test_the_sweep_computes_a_rating_left_stale(settings):
    settings.RATING_INLINE = False  # scheduling only marks it stale
    _club, built = season()
    send_results_changed(built[0].tournament.pk)
    state = RatingState.objects.get(pk=SITE)
    assert state.stale_since is not None and state.computations == 0
    assert player_rating(built[0].players[0].pk).updating
    settings.RATING_SWEEP_AFTER = 0
    assert sweep_subjects(where="sweep")[PLAYER_RATING.task_name] == [SITE]
    assert RatingState.objects.get(pk=SITE).stale_since is None
    assert stored() == reference([b.tournament for b in built[:2]])


def test_a_club_switched_off_is_not_counted(django_capture_on_commit_callbacks):
    club, built = season()
    other, other_built = season(seed=50)
    rating_recompute()
    assert set(stored()) >= {p.pk for p in other_built[0].players}
    with django_capture_on_commit_callbacks(execute=True):
        assert club_rating_switch(club_id=other.pk, enabled=False)
    assert not club_rating_switch(club_id=other.pk, enabled=False)  # no change, no task
    assert stored() == reference([b.tournament for b in built[:2]])
    assert not set(stored()) & {p.pk for p in other_built[0].players}
    with django_capture_on_commit_callbacks(execute=True):
        club_rating_switch(club_id=other.pk, enabled=True)
    assert stored() == reference([b.tournament for b in (*built[:2], *other_built[:2])])
    assert club.pk != other.pk


def test_the_site_switch_counts_nothing_and_schedules_nothing(settings):
    settings.RATING_ENABLED = False
    _club, built = season()
    send_results_changed(built[0].tournament.pk)
    assert not RatingState.objects.exists()
    rating_recompute()
    assert not PlayerRating.objects.exists()


def test_history_is_in_date_order_and_round_trips():
    _club, built = season()
    rating_recompute()
    row = PlayerRating.objects.get(player=built[0].players[0])
    lines = history_decode(row.history)
    dates = [Tournament.objects.get(pk=line.tournament).date for line in lines]
    assert dates == sorted(dates)
    for line in lines:
        assert 0 <= line.expected <= 100 and 0 <= line.achieved <= 100
        assert line.change == line.rating_after - line.rating_before
    assert row.games == sum(line.games for line in lines)
