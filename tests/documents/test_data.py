"""The documents' bulk reads agree with the pages' reads: a printed score card is the player's
score-card page, whoever is asked and whatever state the tournament is in."""

from __future__ import annotations

import pytest

from scoring.documents.data import ranking_up_to_date, score_cards_bulk, tournament_players
from scoring.selectors import score_card
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Result
from tournaments.services.results import result_annul

from .play import play_results

pytestmark = pytest.mark.django_db


def assert_same_cards(tournament) -> None:
    view = ranking_up_to_date(tournament)
    players = tournament_players(tournament)
    bulk = score_cards_bulk(tournament, players, snapshot_id=view.snapshot_id)
    assert set(bulk) == {p.pk for p in players}
    for player in players:
        one = score_card(tournament, player, can_manage=True)
        assert bulk[player.pk] == one, player


def test_bulk_score_cards_equal_the_pages_cards_midway_with_an_annulment(personas):
    tournament = stage_tournament(players=9, rounds=2, personas=personas)
    play_results(tournament, personas.arbiter, rounds={1})
    result = Result.objects.filter(tournament=tournament).order_by("pk").first()
    result_annul(
        tournament=tournament,
        table=result.table,
        donne=result.donne,
        user=personas.arbiter,
        reason="Étui mélangé",
        expected_version=result.version,
    )
    tournament.refresh_from_db()
    assert_same_cards(tournament)
    statuses = {
        line.status
        for card in score_cards_bulk(
            tournament,
            tournament_players(tournament),
            snapshot_id=ranking_up_to_date(tournament).snapshot_id,
        ).values()
        for line in card.lines
    }
    assert {"played", "annulled", "sat_out", "pending"} <= statuses


def test_bulk_score_cards_equal_the_pages_cards_under_match_points(personas):
    tournament = stage_tournament(players=8, rounds=2, personas=personas, method="matchpoints")
    play_results(tournament, personas.arbiter)
    tournament.refresh_from_db()
    assert_same_cards(tournament)


def test_bulk_score_cards_before_any_result(personas):
    tournament = stage_tournament(players=8, rounds=1, personas=personas)
    assert_same_cards(tournament)
