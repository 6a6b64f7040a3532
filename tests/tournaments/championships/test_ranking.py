"""The championship ranking as a subject of the derived-ranking mechanism: site tournaments
and a simultaneous event add up by licence, a correction after publication flows in, only
the championships counting a changed event go stale, and a computation and a read take a
fixed number of queries whatever the season's size."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest
from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext

from scoring.rankings.derived import ranking_computed
from scoring.rankings.services import TOURNAMENT_RANKING
from tests.tournaments.simultaneous.hub.test_overall_ranking import field
from tournaments.championships import services
from tournaments.championships.models import ChampionshipRanking
from tournaments.championships.ranking import (
    championship_caught_up,
    championship_recompute,
    counted_entries,
)
from tournaments.models import Player
from tournaments.services.penalties import penalty_give

from .conftest import add, create, published

pytestmark = pytest.mark.django_db


def points_of(standing, licence: str) -> Fraction:
    line = next(x for x in standing.scope(None) if x.player == f"L{licence}")
    return line.points


def test_places_points_add_up_over_the_counted_events(season):
    championship = create(season)
    for built in season.tournaments:
        add(championship, season.organiser, built.tournament)
    standing = championship_caught_up(championship)
    lines = standing.scope(None)
    assert len(lines) == 12  # the first tournament's 8 played all three, 4 more the second
    assert sorted(len(x.events) for x in lines) == [1] * 4 + [3] * 8
    # every event hands out the table's points to its field
    for built in season.tournaments:
        key = f"t:{built.tournament.pk}"
        handed = sum(e.points for x in lines for e in x.events if e.event == key)
        field_size = len(built.players)
        table = [25, 20, 16, 13, 11, 10, 9, 8] + [1] * 12
        assert handed == sum(table[:field_size])
    assert standing.provisional == [] and standing.pending == []
    championship.refresh_from_db()
    assert championship.frozen_at is not None


def test_a_simultaneous_event_counts_by_licence_with_the_site_tournaments(season, hub):
    clubs = field()
    site = season.tournaments[0].players
    for player, licence in zip(site, clubs[0]["licences"], strict=False):
        Player.objects.filter(pk=player.pk).update(licence=licence)
    championship = create(season)
    add(championship, season.organiser, season.tournaments[0].tournament)
    for i, club in clubs.items():
        hub.send(i, hub.upload(i, club["results"], club["licences"], final=True))
    hub.event.refresh_from_db()
    assert hub.event.embargo_over
    championship.organisers.add(hub.organiser)
    add(championship, hub.organiser, simultaneous_event=hub.event)
    standing = championship_caught_up(championship)
    both = [x for x in standing.scope(None) if len(x.events) == 2]
    assert len(both) == 8  # the club's 8 players were club A of the field
    assert {e.event for e in both[0].events} == {
        f"t:{season.tournaments[0].tournament.pk}",
        f"s:{hub.event.pk}",
    }
    assert len(standing.scope(None)) == 8 + 5 + 4


def test_a_correction_after_publication_flows_into_the_championship(season, settings):
    settings.RANKING_MIN_INTERVAL = 0  # the tasks run on commit (no broker), not at a read
    settings.CHAMPIONSHIP_MIN_INTERVAL = 0
    championship = create(season)
    built = season.tournaments[0]
    add(championship, season.organiser, built.tournament)
    before = championship_caught_up(championship)
    leader = before.scope(None)[0]
    player = Player.objects.get(licence=leader.player[1:])
    computations = ChampionshipRanking.objects.get(pk=championship.pk).computations
    with TestCase.captureOnCommitCallbacks(execute=True):
        penalty_give(
            tournament=built.tournament, player=player, kind="other", points=5000,
            user=season.organiser, reason="Correction après publication",
        )  # fmt: skip
    stored = ChampionshipRanking.objects.get(pk=championship.pk)
    assert stored.computations == computations + 1  # the task, not the read
    after = championship_caught_up(championship)
    assert points_of(after, player.licence) < leader.points
    assert after.scope(None)[0].player != leader.player


def test_only_the_championships_counting_the_event_go_stale(season):
    counting = create(season, name="Compte")
    other = create(season, name="Autre")
    add(counting, season.organiser, season.tournaments[0].tournament)
    add(other, season.organiser, season.tournaments[1].tournament)
    ChampionshipRanking.objects.update(stale_since=None)
    ranking_computed.send(sender=TOURNAMENT_RANKING, pk=season.tournaments[0].tournament.pk)
    # without a broker the computation ran in-process: it was marked and computed
    states = dict(ChampionshipRanking.objects.values_list("pk", "computations"))
    assert states[counting.pk] >= 1
    computations_other = states[other.pk]
    add(counting, season.organiser, season.tournaments[2].tournament)
    assert ChampionshipRanking.objects.get(pk=other.pk).computations == computations_other


def test_a_computation_takes_at_most_ten_queries_for_one_event_or_four(season, hub):
    small = create(season, name="Petit")
    add(small, season.organiser, season.tournaments[0].tournament)
    big = create(season, name="Grand")
    for built in season.tournaments:
        add(big, season.organiser, built.tournament)
    clubs = field()
    for i, club in clubs.items():
        hub.send(i, hub.upload(i, club["results"], club["licences"], final=True))
    big.organisers.add(hub.organiser)
    add(big, hub.organiser, simultaneous_event=hub.event)
    counts = []
    for championship in (small, big):
        # Its state row exists (a first computation made it, whether or not the coalescing
        # clock let the scheduled one run yet); then it counts nothing current.
        championship_recompute(championship.pk)
        ChampionshipRanking.objects.filter(pk=championship.pk).update(counted=None)
        with CaptureQueriesContext(connection) as captured:
            championship_recompute(championship.pk)
        counts.append(len(captured.captured_queries))
    assert counts[0] <= counts[1] <= 10  # the hub's rows: two more, whatever their size


def test_a_current_championship_is_read_in_four_queries(season, django_assert_max_num_queries):
    championship = create(season)
    for built in season.tournaments:
        add(championship, season.organiser, built.tournament)
    championship_caught_up(championship)
    with django_assert_max_num_queries(4):
        standing = championship_caught_up(championship)
    assert len(standing.scope(None)) == 12


def test_an_event_not_final_makes_it_provisional_and_is_not_counted(season):
    championship = create(season)
    add(championship, season.organiser, season.tournaments[0].tournament)
    running = published(season.club, dt.date(2027, 3, 6), seed=31)
    running.tournament.status = "running"
    running.tournament.save()
    add(championship, season.organiser, running.tournament)
    standing = championship_caught_up(championship)
    assert [e.tournament for e in standing.provisional] == [running.tournament]
    assert {e.event for x in standing.scope(None) for e in x.events} == {
        f"t:{season.tournaments[0].tournament.pk}"
    }
    assert len(counted_entries(championship.pk)) == 2


def test_a_rule_or_series_change_computes_the_ranking_again(season):
    championship = create(season)
    add(championship, season.organiser, season.tournaments[0].tournament)
    before = championship_caught_up(championship)
    assert before.series() == []
    licence = season.tournaments[0].players[0].licence
    services.series_set(championship, [(licence, "2e")], user=season.organiser)
    championship.refresh_from_db()
    after = championship_caught_up(championship)
    assert after.series() == ["2e"] and len(after.scope("2e")) == 1
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.championship_edit(championship, user=season.organiser, name="Renommé")
    championship.refresh_from_db()
    assert championship_caught_up(championship).counted["revision"] == championship.revision
