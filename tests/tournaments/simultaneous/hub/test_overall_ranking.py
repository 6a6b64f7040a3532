"""The overall ranking equals ranking the same results as one tournament in one room."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.db import transaction
from django.test import override_settings
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules.ranking import Penalty, Play, compute_ranking, exact_value
from tournaments.simultaneous.hub import reads, services
from tournaments.simultaneous.hub.models import (
    OverallRankingClub,
    OverallRankingRow,
    OverallRankingState,
)
from tournaments.simultaneous.hub.ranking import overall_recompute

from .builders import annulled, played

pytestmark = pytest.mark.django_db

CONTRACTS = [
    dict(contract="garde", bouts=2, points="51"),
    dict(contract="prise", bouts=1, points="48", taker="E"),
    dict(contract="garde_sans", bouts=3, points="40", taker="S", poignees={"S": "simple"}),
    dict(contract="prise", bouts=0, points="50", taker="W"),
    dict(contract="garde", bouts=1, points="55", taker="N", petit_au_bout="attack"),
    dict(contract="garde_contre", bouts=2, points="30", taker="E"),
]


def lic(club: int, n: int) -> str:
    return f"{club}{n:06d}"


def field() -> dict[int, dict]:
    """Three clubs of 8, 5 and 4 players on donnes 1-4: two tables of four, a table of five
    (one player sits out each donne), an annulled table; penalties, one withdrawn."""
    a = [lic(1, n) for n in range(1, 9)]
    b = [lic(2, n) for n in range(1, 6)]
    c = [lic(3, n) for n in range(1, 5)]
    results = {0: [], 1: [], 2: []}
    k = 0
    for donne in range(1, 5):
        for table, players in ((1, a[:4]), (2, a[4:])):
            seats = players[donne % 4 :] + players[: donne % 4]
            results[0].append(played(table, donne, seats, **CONTRACTS[k % 6]))
            k += 1
        sitter = b[donne - 1]
        seats = [p for p in b if p != sitter]
        results[1].append(played(1, donne, seats, sitter=sitter, **CONTRACTS[k % 6]))
        k += 1
        if donne == 3:
            results[2].append(annulled(1, donne, c))
        else:
            results[2].append(played(1, donne, c[::-1] if donne % 2 else c, **CONTRACTS[k % 6]))
        k += 1
    penalties = {
        0: [{"ref": "p1", "licence": a[2], "points": 20, "donne": 2, "withdrawn": False}],
        1: [],
        2: [
            {"ref": "9", "licence": c[0], "points": 5, "donne": None, "withdrawn": False},
            {"ref": "10", "licence": c[1], "points": 50, "donne": None, "withdrawn": True},
        ],
    }
    return {
        i: {"licences": lic_, "results": results[i], "penalties": penalties[i]}
        for i, lic_ in enumerate((a, b, c))
    }


def one_room(clubs: dict[int, dict], method: str, rate: Fraction):
    """The same results as one tournament: tables numbered across the room."""
    plays, annulled_, sit_outs, penalties = [], [], [], []
    for i, club in clubs.items():
        for r in club["results"]:
            table = 10 * i + r["table"]
            for position, licence in r["holders"].items():
                score = r["scores"][position] if r["status"] == "played" else 0
                plays.append(Play(licence, r["donne"], position, table, score))
            if r["status"] == "annulled":
                annulled_.append((r["donne"], table))
            if r.get("sitter"):
                sit_outs.append((r["sitter"], r["donne"]))
        penalties += [
            Penalty(p["licence"], p["points"], p["donne"])
            for p in club["penalties"]
            if not p["withdrawn"]
        ]
    return compute_ranking(
        plays,
        method=method,
        annulled=annulled_,
        sit_outs=sit_outs,
        penalties=penalties,
        matchpoint_penalty_rate=rate,
    )


def card_of(event, licence):
    """The player's card as his page reads it."""
    found = reads.player_card(event, licence)
    assert found is not None
    return found[1]


@pytest.mark.parametrize("method", ["average", "pairwise", "matchpoints"])
def test_pooled_ranking_equals_one_room(hub, method):
    hub.event.method = method
    hub.event.save()
    clubs = field()
    for i, club in clubs.items():
        hub.send(i, hub.upload(i, club["results"], club["licences"], penalties=club["penalties"]))
    state = OverallRankingState.objects.get(pk=hub.event.pk)
    hub.event.refresh_from_db()
    assert state.results_version == hub.event.results_version == 3
    assert state.stale_since is None
    expected = one_room(clubs, method, Fraction(hub.event.matchpoint_penalty_rate))
    stored = list(OverallRankingRow.objects.filter(event=hub.event).order_by("place"))
    assert len(stored) == len(expected.rows) == 17
    for row, want in zip(stored, expected.rows, strict=True):
        assert (row.licence, row.rank, row.total, row.differential_total) == (
            want.player,
            want.rank,
            str(exact_value(want.total)),
            str(exact_value(want.differential_total)),
        )
        assert (row.penalty_points, row.donnes_played, row.donnes_compared) == (
            want.penalty_points,
            want.donnes_played,
            want.donnes_compared,
        )
        assert row.total_value == pytest.approx(float(want.total))
        card = {line[0]: line for line in card_of(hub.event, row.licence)}
        assert set(card) == set(want.per_donne)
        for donne, line in want.per_donne.items():
            got = card[donne]
            assert (got[1], got[7]) == (line.position, line.status.value)
            assert got[5] == exact_value(line.differential)
    club_of = {row.licence: row.club_name for row in stored}
    assert club_of[lic(2, 1)] == "Club B" and club_of[lic(3, 2)] == "Club C"
    # the sitter of a table of five has a sat-out line, the annulled table annulled ones
    b1 = next(r for r in stored if r.licence == lic(2, 1))
    assert {line[7] for line in card_of(hub.event, b1.licence)} == {"played", "sat_out"}
    c1 = next(r for r in stored if r.licence == lic(3, 1))
    assert [line[7] for line in card_of(hub.event, c1.licence)][2] == "annulled"


def test_a_correction_moves_the_ranking_and_a_stored_version_is_not_computed_again(hub):
    clubs = field()
    for i, club in clubs.items():
        hub.send(i, hub.upload(i, club["results"], club["licences"]))
    before = {r.licence: r.total for r in OverallRankingRow.objects.all()}
    state = OverallRankingState.objects.get()
    computations = state.computations
    assert overall_recompute(event_id=hub.event.pk) == 3
    assert OverallRankingState.objects.get().computations == computations
    corrected = [dict(r) for r in clubs[2]["results"]]
    corrected[0] = played(1, 1, clubs[2]["licences"], contract="garde_contre", version=2)
    hub.send(2, hub.upload(2, corrected, clubs[2]["licences"], sequence=2))
    after = {r.licence: r.total for r in OverallRankingRow.objects.all()}
    assert after != before and OverallRankingState.objects.get().results_version == 4


@override_settings(SIMULTANEOUS_RANKING_INLINE=False)
def test_a_card_matches_its_stored_ranking_and_only_changed_clubs_are_kept_again(hub):
    """A club's results are kept as ranked: after a correction not yet ranked, the card still
    shows the ranked score (it matches the stored totals); once ranked, the corrected one.
    Only the corrected club's copy is written again; a revoked club's is removed."""
    clubs = field()
    for i, club in clubs.items():
        hub.send(i, hub.upload(i, club["results"], club["licences"], penalties=club["penalties"]))
    overall_recompute(event_id=hub.event.pk)
    kept = {c.invitation_id: c.pk for c in OverallRankingClub.objects.filter(event=hub.event)}
    assert len(kept) == 3
    taker = clubs[2]["licences"][0]
    ranked = card_of(hub.event, taker)[0]
    corrected = [dict(r) for r in clubs[2]["results"]]
    corrected[0] = played(1, 1, clubs[2]["licences"], contract="garde_contre", version=2)
    hub.send(2, hub.upload(2, corrected, clubs[2]["licences"], sequence=2))
    assert card_of(hub.event, taker)[0] == ranked  # not ranked yet: the card as ranked
    overall_recompute(event_id=hub.event.pk)
    line = card_of(hub.event, taker)[0]
    assert line[4] != ranked[4] and line[4] == corrected[0]["scores"][line[1]]
    again = {c.invitation_id: c.pk for c in OverallRankingClub.objects.filter(event=hub.event)}
    changed = {inv for inv in kept if again.get(inv) != kept[inv]}
    assert changed == {hub.clubs[2][0].pk}  # the two others were not written again
    services.invitation_revoke(invitation=hub.clubs[1][0])
    overall_recompute(event_id=hub.event.pk)
    assert set(
        OverallRankingClub.objects.filter(event=hub.event).values_list("invitation_id", flat=True)
    ) == {hub.clubs[0][0].pk, hub.clubs[2][0].pk}


@override_settings(SIMULTANEOUS_RANKING_INLINE=False)
def test_without_inline_computation_the_ranking_is_stale_until_computed(hub):
    clubs = field()
    hub.send(0, hub.upload(0, clubs[0]["results"], clubs[0]["licences"]))
    state = OverallRankingState.objects.get()
    assert state.stale_since is not None and state.results_version is None
    assert not OverallRankingRow.objects.exists()
    overall_recompute(event_id=hub.event.pk)
    state.refresh_from_db()
    assert state.stale_since is None and state.results_version == 1
    assert OverallRankingRow.objects.count() == 8


def test_the_sweep_computes_an_event_left_stale(hub, settings):
    from tournaments.simultaneous.hub.ranking import overall_rankings_sweep

    settings.SIMULTANEOUS_RANKING_INLINE = False
    settings.SIMULTANEOUS_RANKING_SWEEP_AFTER = 0
    clubs = field()
    hub.send(1, hub.upload(1, clubs[1]["results"], clubs[1]["licences"]))
    assert overall_rankings_sweep() == [hub.event.pk]
    assert OverallRankingRow.objects.count() == 5
    assert overall_rankings_sweep() == []


def test_players_without_results_are_listed_with_nothing(hub):
    licences = [lic(1, n) for n in range(1, 6)]
    hub.send(0, hub.upload(0, [played(1, 1, licences[:4])], licences))
    row = OverallRankingRow.objects.get(licence=licences[4])
    assert (row.donnes_played, row.total, card_of(hub.event, row.licence)) == (0, "0", [])
    assert services.can_see_field(hub.organiser, hub.event)


@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),  # club
            st.integers(1, 3),  # table
            st.integers(1, 4),  # donne
            st.sampled_from(["played", "played", "all_passed", "annulled"]),
            st.integers(-400, 400),
        ),
        min_size=1,
        max_size=30,
        unique_by=lambda t: (t[0], t[1], t[2]),
    ),
    st.sampled_from(["average", "pairwise", "matchpoints"]),
)
def test_pooling_is_one_room_with_tables_told_apart_by_club(rows, method):
    """Property: whatever the clubs' tables, pooling by (donne, position) across clubs ranks
    as one room whose tables are numbered apart."""
    import json

    from tournaments.simultaneous.hub.ranking import OverallInputs, _pool, overall_compute

    inputs = OverallInputs(1, 1, method, Fraction(1, 10))
    db_rows, plays, annulled_ = [], [], []
    for club, table, donne, status, score in rows:
        holders = {p: f"{club}{table}{i}0000" for i, p in enumerate("NESW")}
        scores = {"N": 3 * score, "E": -score, "S": -score, "W": -score}
        db_rows.append((club, table, donne, status, json.dumps(holders), json.dumps(scores), ""))
        room_table = 10 * club + table
        for p, licence in holders.items():
            plays.append(
                Play(licence, donne, p, room_table, scores[p] if status == "played" else 0)
            )
        if status == "annulled":
            annulled_.append((donne, room_table))
    _pool(inputs, db_rows)
    table = overall_compute(inputs)
    expected = compute_ranking(plays, method=method, annulled=annulled_)
    assert [(p, v[0], v[1]) for p, v in table.rows] == [
        (r.player, r.rank, exact_value(r.total)) for r in expected.rows
    ]


def test_deleting_an_event_or_an_invitation_deletes_its_stored_ranking(hub):
    """The rows have no foreign key constraint in the database: Django's deletions cascade."""
    for i, club in field().items():
        hub.send(i, hub.upload(i, club["results"], club["licences"]))
    invitation = hub.clubs[0][0]
    assert OverallRankingRow.objects.filter(invitation=invitation).count() == 8
    invitation.delete()
    assert not OverallRankingRow.objects.filter(invitation_id=invitation.pk).exists()
    assert not OverallRankingClub.objects.filter(invitation_id=invitation.pk).exists()
    hub.event.delete()
    assert not OverallRankingRow.objects.exists() and not OverallRankingClub.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_kept_pools_rank_as_a_full_read_and_only_changed_clubs_are_read(hub):
    """A process keeps each club's pool: after a correction and a revocation, the next
    computation reads those two clubs again and reuses the third's, and ranks exactly as a
    computation that reads every club. Inside a transaction, nothing is kept."""
    from tournaments.simultaneous.hub.pools import KeptPools
    from tournaments.simultaneous.hub.ranking import group_rows, overall_compute, overall_inputs
    from tournaments.simultaneous.hub.ranking import overall_rows as rows_of

    clubs = field()
    for i, club in clubs.items():
        hub.send(i, hub.upload(i, club["results"], club["licences"], penalties=club["penalties"]))
    kept = KeptPools(2)
    first = overall_inputs(event_id=hub.event.pk, kept=kept)
    corrected = [dict(r) for r in clubs[2]["results"]]
    corrected[1] = played(1, 2, clubs[2]["licences"], contract="garde_sans", version=2)
    hub.send(2, hub.upload(2, corrected, clubs[2]["licences"], sequence=2))
    services.invitation_revoke(invitation=hub.clubs[1][0])
    warm = overall_inputs(event_id=hub.event.pk, kept=kept)
    cold = overall_inputs(event_id=hub.event.pk, kept=None)
    a, b, c = (club[0].pk for club in hub.clubs)
    assert warm.pools[a] is first.pools[a]  # unchanged: not read again
    assert warm.pools[b] is not first.pools[b] and warm.pools[b].results == []
    assert warm.pools[c] is not first.pools[c]
    assert warm.pools[c].results == cold.pools[c].results
    warm_table, cold_table = overall_compute(warm), overall_compute(cold)
    assert rows_of(warm, warm_table) == rows_of(cold, cold_table)
    assert sorted(group_rows(warm, warm_table)) == sorted(group_rows(cold, cold_table))
    other = KeptPools(1)  # an event more than it keeps: the oldest is dropped
    overall_inputs(event_id=hub.event.pk, kept=other)
    other.put((0, "x"), {})
    assert other.get((hub.event.pk, hub.event.public_id)) == {}
    with transaction.atomic():
        inside = KeptPools(2)
        overall_inputs(event_id=hub.event.pk, kept=inside)
        assert inside.get((hub.event.pk, hub.event.public_id)) == {}


def test_the_kept_events_come_from_the_settings(settings):
    """SIMULTANEOUS_RANKING_KEPT_EVENTS: how many events a process keeps; 0 keeps none."""
    from tournaments.simultaneous.hub.pools import ClubPool, KeptPools

    kept = KeptPools()
    pools = {1: ClubPool(3, [])}
    settings.SIMULTANEOUS_RANKING_KEPT_EVENTS = 1
    kept.put((1, "a"), pools)
    kept.put((2, "b"), pools)
    assert kept.get((1, "a")) == {} and kept.get((2, "b")) == pools
    settings.SIMULTANEOUS_RANKING_KEPT_EVENTS = 0
    kept.put((3, "c"), pools)
    assert kept.get((3, "c")) == {} and kept.get((2, "b")) == {}
