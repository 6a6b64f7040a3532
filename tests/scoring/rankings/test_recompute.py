"""The ranking computation: from Result rows to a stored snapshot (computation)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scoring.models import RankingSnapshot, RankingState
from scoring.rankings import services as ranking_service
from scoring.rankings.selectors import ranking_current, score_card
from scoring.rankings.services import (
    ranking_inputs,
    ranking_method_changed,
    ranking_recompute,
    ranking_table_encode,
)
from scoring.rules.ranking import compute_ranking_table
from tests.scoring.rankings.builders import build_tournament, fill_results, save_result
from tests.scoring.rankings.helpers import ranking_read
from tournaments.models import Penalty, Result, Tournament

pytestmark = pytest.mark.django_db

GARDE_WON = {"taker": "N", "contract": "garde", "bouts": 2, "points": 50}  # N +204, others -68
GARDE_LOST = {"taker": "N", "contract": "garde", "bouts": 2, "points": 35}  # N -186, others +62


def snapshot_of(tournament: Tournament) -> RankingSnapshot:
    tournament.refresh_from_db()
    return RankingSnapshot.objects.get(
        tournament=tournament, results_version=tournament.results_version
    )


def row(snapshot: RankingSnapshot, player_id: int) -> list:
    return snapshot.data["rows"][f"p{player_id}"]


def card(snapshot: RankingSnapshot, player_id: int) -> dict[int, list]:
    return {line[0]: line for line in snapshot.cards[f"p{player_id}"]}


def test_snapshot_holds_exact_differentials_of_saved_results():
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0, deal=GARDE_WON)  # table 1 plays set 1 in round 1
    save_result(built, 2, 2, 0, deal=GARDE_LOST)  # table 2 plays set 1 in round 2
    version = ranking_recompute(tournament_id=built.tournament.pk)

    snapshot = snapshot_of(built.tournament)
    assert version == built.tournament.results_version == 2
    north_1 = built.seats[(1, 1)]["N"]
    north_2 = built.seats[(2, 2)]["N"]
    east_1 = built.seats[(1, 1)]["E"]
    donne = built.donnes[1].pk
    # average: 204 - mean(204, -186) = 195; the group sums to zero.
    assert Fraction(row(snapshot, north_1)[2]) == 195
    assert Fraction(row(snapshot, north_2)[2]) == -195
    assert Fraction(row(snapshot, east_1)[2]) == (-68 - 62) / 2
    assert row(snapshot, north_1)[0] == 1  # rank
    line = card(snapshot, north_1)[donne]
    assert line[1:5] == ["N", built.tables[0].pk, 204, 195]
    assert line[6:] == ["played", 2]
    # everyone seated is ranked, even before his first result
    assert snapshot.data["players"] == 8


def test_all_passed_is_a_real_zero_in_the_comparison():
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0, status=Result.Status.ALL_PASSED)
    save_result(built, 2, 2, 0, deal=GARDE_WON)
    ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = snapshot_of(built.tournament)
    assert Fraction(row(snapshot, built.seats[(1, 1)]["N"])[2]) == -102  # 0 - mean(0, 204)
    assert Fraction(row(snapshot, built.seats[(2, 2)]["N"])[2]) == 102
    assert row(snapshot, built.seats[(1, 1)]["N"])[4] == 1  # donnes played


def test_annulled_table_leaves_the_group_with_zero():
    built = build_tournament(players=12, rounds=2)  # three tables; tables 1 and 3 play set 1
    save_result(built, 1, 1, 0, deal=GARDE_WON)
    save_result(built, 1, 3, 0, status=Result.Status.ANNULLED)
    save_result(built, 2, 2, 0, deal=GARDE_LOST)
    ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = snapshot_of(built.tournament)
    annulled_north = built.seats[(1, 3)]["N"]
    assert Fraction(row(snapshot, annulled_north)[2]) == 0
    assert card(snapshot, annulled_north)[built.donnes[1].pk][6] == "annulled"
    # the two remaining tables are compared with each other only
    assert Fraction(row(snapshot, built.seats[(1, 1)]["N"])[2]) == 195


def test_sitter_at_a_table_of_five_gets_zero_for_that_donne():
    built = build_tournament(players=10, rounds=2)  # two tables of five
    result = save_result(built, 1, 1, 0, deal=GARDE_WON)
    save_result(built, 2, 2, 0, deal=GARDE_LOST)
    assert result.sitter_id is not None
    ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = snapshot_of(built.tournament)
    line = card(snapshot, result.sitter_id)[built.donnes[1].pk]
    assert line[6] == "sat_out" and Fraction(line[4]) == 0
    fifth = built.seats[(1, 1)]["F"]
    assert fifth in result.holders.values()  # the fifth player held the sitter's hand
    assert row(snapshot, fifth)[4] == 1


def test_active_penalties_come_off_the_total_withdrawn_ones_do_not():
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0, deal=GARDE_WON)
    save_result(built, 2, 2, 0, deal=GARDE_LOST)
    north = built.seats[(1, 1)]["N"]
    east = built.seats[(1, 1)]["E"]
    Penalty.objects.create(
        tournament=built.tournament,
        player_id=north,
        kind="early_pickup",
        points=100,
        given_by=built.user,
    )
    Penalty.objects.create(
        tournament=built.tournament,
        player_id=east,
        kind="early_pickup",
        points=100,
        given_by=built.user,
        withdrawn_at=timezone.now(),
        withdrawn_by=built.user,
    )
    ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = snapshot_of(built.tournament)
    assert row(snapshot, north)[1:4] == [95, 195, 100]
    assert row(snapshot, east)[3] == 0


def test_recompute_is_idempotent_for_one_version():
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0, deal=GARDE_WON)
    first = ranking_recompute(tournament_id=built.tournament.pk)
    second = ranking_recompute(tournament_id=built.tournament.pk)
    assert first == second
    assert RankingSnapshot.objects.filter(tournament=built.tournament).count() == 1
    assert RankingState.objects.get(pk=built.tournament.pk).computations == 1


def count_queries(players: int, rounds: int) -> int:
    built = build_tournament(players=players, rounds=rounds, seed=players)
    fill_results(built)
    with CaptureQueriesContext(connection) as ctx:
        ranking_recompute(tournament_id=built.tournament.pk)
    assert RankingSnapshot.objects.filter(tournament=built.tournament).exists()
    return len(ctx.captured_queries)


def test_recompute_uses_a_fixed_number_of_queries_whatever_the_size():
    small = count_queries(8, 2)
    large = count_queries(60, 6)  # 15 tables, 24 donnes, 360 results
    assert small == large
    assert large <= 12


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's bulk write")
def test_cards_written_through_jsonb_object_are_the_fields_own_document():
    """The lines sent as a text[] of keys and JSON texts make the very jsonb the field writes
    (each player's lines one JSON string, which a score card reads by its key)."""
    built = build_tournament(players=10, rounds=3, status="published")
    fill_results(built, seed=3)
    Penalty.objects.create(
        tournament=built.tournament,
        player=built.players[0],
        kind="early_pickup",
        points=10,
        given_by=built.user,
    )
    inputs = ranking_inputs(tournament_id=built.tournament.pk)
    assert inputs is not None and inputs.plays
    table = compute_ranking_table(
        inputs.plays,
        method=inputs.method,
        annulled=inputs.annulled,
        sit_outs=inputs.sit_outs,
        penalties=inputs.penalties,
        matchpoint_penalty_rate=Fraction(inputs.rate),
    )
    _data, expected = ranking_table_encode(table)
    ranking_recompute(tournament_id=built.tournament.pk)
    snapshot = snapshot_of(built.tournament)
    assert len(snapshot.cards) == 10
    assert snapshot.cards == expected
    field = RankingSnapshot._meta.get_field("cards")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT cards = %s, (SELECT count(*) FROM jsonb_each(cards) "
            "WHERE jsonb_typeof(value) <> 'string') FROM scoring_rankingsnapshot WHERE id = %s",
            [field.get_db_prep_value(expected, connection), snapshot.pk],
        )
        assert cursor.fetchone() == (True, 0)


def test_snapshot_never_claims_a_version_it_did_not_read():
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0, deal=GARDE_WON)
    ranking_recompute(tournament_id=built.tournament.pk)
    save_result(built, 2, 2, 0, deal=GARDE_LOST)  # version 2, not ranked yet
    built.tournament.refresh_from_db()
    view = ranking_current(built.tournament)
    assert view.version == 1 and view.results_version == 2
    assert not view.is_current


def test_matchpoints_and_changing_the_method_recomputes(django_capture_on_commit_callbacks):
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0, deal=GARDE_WON)
    save_result(built, 2, 2, 0, deal=GARDE_LOST)
    ranking_recompute(tournament_id=built.tournament.pk)
    tournament = built.tournament
    tournament.refresh_from_db()
    assert ranking_current(tournament).is_current

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        Tournament.objects.filter(pk=tournament.pk).update(method="matchpoints")
        ranking_method_changed(tournament_id=tournament.pk)
    assert len(callbacks) == 1
    tournament.refresh_from_db()
    view = ranking_current(tournament)
    assert view.is_current and view.method == "matchpoints"
    north = built.seats[(1, 1)]["N"]
    top = view.rows[0]
    assert top.player.pk == north
    assert top.differential_total == 100  # beat the only other North: 100 %
    assert RankingSnapshot.objects.filter(tournament=tournament).count() == 2


def test_method_change_without_the_hook_is_noticed_by_the_pages():
    built = build_tournament(players=8, rounds=2)
    save_result(built, 1, 1, 0, deal=GARDE_WON)
    ranking_recompute(tournament_id=built.tournament.pk)
    Tournament.objects.filter(pk=built.tournament.pk).update(method="pairwise")
    built.tournament.refresh_from_db()
    assert not ranking_current(built.tournament).is_current
    view = ranking_read(built.tournament)  # in-process without a broker: catches up
    assert view.is_current and view.method == "pairwise"


def test_score_card_reads_one_player_and_orders_by_round():
    built = build_tournament(players=8, rounds=2)
    fill_results(built)
    ranking_recompute(tournament_id=built.tournament.pk)
    built.tournament.refresh_from_db()
    player = built.players[4]  # table 2: set 2 in round 1, set 1 in round 2
    sheet = score_card(built.tournament, player, can_manage=False)
    assert sheet is not None and sheet.is_current
    assert [line.donne_number for line in sheet.lines] == [5, 6, 7, 8, 1, 2, 3, 4]
    played = [line for line in sheet.lines if line.status == "played"]
    assert sheet.lines[-1].running_total == sum(line.differential for line in played)
    assert sheet.row is not None
    assert sheet.row.differential_total == sheet.lines[-1].running_total
    assert sheet.field_size == 8


def test_no_garbage_collection_runs_during_a_recomputation():
    """The collector is paused while the ranking is built (no collection storms on large
    tournaments) and is on again afterwards, even when the computation fails."""
    import gc

    built = build_tournament(players=40, rounds=2)
    fill_results(built)
    collections: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    assert gc.isenabled()
    gc.callbacks.append(note)
    try:
        ranking_recompute(tournament_id=built.tournament.pk)
    finally:
        gc.callbacks.remove(note)
    assert collections == []
    assert gc.isenabled()
    Result.objects.filter(tournament=built.tournament).update(scores={"N": "x"})
    Tournament.objects.filter(pk=built.tournament.pk).update(results_version=999)
    with pytest.raises(ValueError):
        ranking_recompute(tournament_id=built.tournament.pk)
    assert gc.isenabled()


def synchronous_commit() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL setting")
@pytest.mark.django_db(transaction=True)
def test_only_the_computations_own_transaction_commits_without_waiting(monkeypatch):
    """The snapshot's own transaction does not wait for the WAL flush; the setting ends with
    it, and a caller's transaction (which may hold other writes) keeps waiting."""
    built = build_tournament(players=8, rounds=2)
    fill_results(built)
    seen: list[str] = []
    insert = ranking_service._snapshot_insert
    monkeypatch.setattr(
        ranking_service,
        "_snapshot_insert",
        lambda snapshot: seen.append(synchronous_commit()) or insert(snapshot),
    )
    RankingSnapshot.objects.filter(tournament=built.tournament).delete()  # if scheduled
    ranking_recompute(tournament_id=built.tournament.pk)
    assert seen == ["off"]
    assert synchronous_commit() == "on"
    assert RankingSnapshot.objects.filter(tournament=built.tournament).count() == 1
    with transaction.atomic():
        save_result(built, 1, 1, 0, deal=GARDE_WON)
        ranking_recompute(tournament_id=built.tournament.pk)
        assert seen == ["off", "on"]
