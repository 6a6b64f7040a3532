"""The result service: validation, card checks, ledger, concurrency, permissions,
annulments, penalties and rounds — through tournaments.services.results (penalties through
tournaments.services.penalties, which imports results, not the other way round)."""

from __future__ import annotations

import threading
import time
from decimal import Decimal

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import connection, connections, transaction
from django.utils import translation

from tests.fixtures.tournaments import stage_tournament
from tests.tournaments.test_card_checks import deal, trumps
from tournaments.models import (
    Donne,
    LedgerEntry,
    Penalty,
    Player,
    Result,
    Round,
    Table,
    TableRound,
    Tournament,
)
from tournaments.services.checks import WARNING_CODES
from tournaments.services.penalties import PenaltyInvalid, penalty_give, penalty_withdraw
from tournaments.services.preparation import seats_for_donne
from tournaments.services.results import (
    ResultConflict,
    ResultInput,
    ResultInvalid,
    ResultNeedsConfirmation,
    result_annul,
    result_describe,
    result_preview,
    result_save,
    result_snapshot,
    round_close,
    round_open,
)

pytestmark = pytest.mark.django_db

GARDE_WON = ResultInput(status="played", taker="N", contract="garde", bouts=2, points=Decimal(50))


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def cell(tournament: Tournament, table: int, donne: int) -> dict:
    return {
        "tournament": tournament,
        "table": Table.objects.get(tournament=tournament, number=table),
        "donne": Donne.objects.get(tournament=tournament, number=donne),
    }


def set_hands(donne: Donne, the_deal: tuple[dict[str, str], str]) -> None:
    hands, chien = the_deal
    Donne.objects.filter(pk=donne.pk).update(
        hand_n=hands["N"], hand_e=hands["E"], hand_s=hands["S"], hand_w=hands["W"], chien=chien
    )
    donne.refresh_from_db()


def version(tournament: Tournament) -> int:
    return Tournament.objects.get(pk=tournament.pk).results_version


@pytest.fixture
def t(running_tournament):
    """The running tournament, with the same hands for every donne on every database (the
    dealt hands depend on the tournament's id): North holds the 21 and the Excuse, so the
    usual garde of North with 2 bouts raises no warning."""
    for donne in Donne.objects.filter(tournament=running_tournament):
        set_hands(donne, deal(N=["T21", "EX"]))
    return running_tournament


@pytest.fixture
def arbiter(personas):
    return personas.arbiter


# --- saving a result --------------------------------------------------------------------------


def test_a_valid_result_is_saved_with_scores_holders_and_a_ledger_line(
    t, arbiter, django_capture_on_commit_callbacks
):
    where = cell(t, 1, 1)
    table_round = TableRound.objects.get(table=where["table"], round__number=1)
    expected_holders = {p: pl.pk for p, pl in seats_for_donne(table_round, 0).hands.items()}
    before = version(t)
    with django_capture_on_commit_callbacks() as callbacks:
        result = result_save(**where, data=GARDE_WON, user=arbiter, expected_version=None)
    assert result.status == "played"
    assert result.scores == {"N": 204, "E": -68, "S": -68, "W": -68}
    assert result.holders == expected_holders
    assert result.sitter is None
    assert result.version == 1
    assert result.points == Decimal("50.0")
    assert version(t) == before + 1
    assert len(callbacks) == 1  # the ranking is scheduled once committed
    [entry] = LedgerEntry.objects.filter(result=result)
    assert entry.action == "result_created"
    assert entry.actor == arbiter
    assert entry.before is None
    assert entry.after["scores"] == result.scores
    assert entry.after["contract"] == "garde"
    assert Round.objects.get(tournament=t, number=1).state == "open"


def test_all_passed_scores_zero_for_the_four(t, arbiter):
    result = result_save(
        **cell(t, 1, 2), data=ResultInput(status="all_passed"), user=arbiter, expected_version=None
    )
    assert result.status == "all_passed"
    assert result.scores == {"N": 0, "E": 0, "S": 0, "W": 0}
    assert result.contract == "" and result.points is None
    assert len(result.holders) == 4


def test_all_passed_with_a_contract_is_refused(t, arbiter):
    data = ResultInput(status="all_passed", taker="N", contract="garde")
    with pytest.raises(ResultInvalid) as exc:
        result_save(**cell(t, 1, 2), data=data, user=arbiter, expected_version=None)
    assert {"taker", "contract"} <= set(exc.value.errors)
    assert not Result.objects.exists()


def test_missing_fields_are_each_named(t, arbiter):
    with pytest.raises(ResultInvalid) as exc:
        result_save(
            **cell(t, 1, 1), data=ResultInput(status="played"), user=arbiter, expected_version=None
        )
    errors = exc.value.errors
    assert set(errors) == {"taker", "contract", "bouts", "points"}
    assert "taker" in errors["taker"][0]
    assert not Result.objects.exists()
    assert not LedgerEntry.objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"points": Decimal(92)}, "points", "between 0 and 91"),
        ({"bouts": 3, "points": Decimal(10)}, "points", "With 3 bouts"),
        ({"bouts": 5}, "bouts", "0, 1, 2 or 3"),
        ({"contract": "petite"}, "contract", "Unknown contract"),
        ({"taker": "X"}, "taker", "North, East, South or West"),
        ({"petit_au_bout": "both"}, "petit_au_bout", "attack or defence"),
        ({"chelem": "defence"}, "chelem", "defence means the contract is lost"),
        ({"poignees": {"E": "huge"}}, "poignees.E", "simple, double or triple"),
    ],
)
def test_impossible_entries_say_which_field_and_why(t, arbiter, change, field, words):
    data = ResultInput(**{**GARDE_WON.__dict__, **change})
    before = version(t)
    with pytest.raises(ResultInvalid) as exc:
        result_save(**cell(t, 1, 1), data=data, user=arbiter, expected_version=None)
    assert field in exc.value.errors, exc.value.errors
    assert any(words in m for m in exc.value.errors[field]), exc.value.errors
    assert not Result.objects.exists()
    assert version(t) == before


def test_errors_are_in_the_language_of_the_request(t, arbiter):
    """Messages are translated when raised, in the active language (French by default)."""
    from scoring.rules.errors import InvalidPoints

    data = ResultInput(status="played", points=Decimal(92))
    with translation.override("fr"), pytest.raises(ResultInvalid) as exc:
        result_save(**cell(t, 1, 1), data=data, user=arbiter, expected_version=None)
    with translation.override("fr"):
        taker = translation.gettext("Choose the taker (the player who won the bidding).")
        points = translation.gettext(InvalidPoints.templates["points_out_of_range"]) % {
            "value": "92"
        }
    assert exc.value.errors["taker"] == [taker]
    assert exc.value.errors["points"] == [points]


def test_a_table_that_does_not_play_the_donne_is_refused(t, arbiter):
    # Table 1 plays étui set 1 (donnes 1-4) and set 2 (5-8) over the two rounds: make a donne
    # of a set nobody plays.
    other = Donne.objects.get(tournament=t, number=1)
    from tournaments.models import EtuiSet

    lonely = EtuiSet.objects.create(tournament=t, number=99)
    Donne.objects.filter(pk=other.pk).update(etui_set=lonely)
    with pytest.raises(ResultInvalid) as exc:
        result_save(**cell(t, 1, 1), data=GARDE_WON, user=arbiter, expected_version=None)
    assert "does not play donne 1" in exc.value.errors["__all__"][0]


def test_a_table_of_another_tournament_is_refused(t, arbiter, personas):
    other = stage_tournament(players=8, name="Autre")
    other.arbiters.add(arbiter)
    where = cell(t, 1, 1)
    where["table"] = Table.objects.get(tournament=other, number=1)
    with pytest.raises(ResultInvalid):
        result_save(**where, data=GARDE_WON, user=arbiter, expected_version=None)


def test_results_wait_for_the_tournament_to_run(personas):
    tournament = stage_tournament(personas=personas, status="registration")
    with pytest.raises(ResultInvalid) as exc:
        result_save(
            **cell(tournament, 1, 1), data=GARDE_WON, user=personas.arbiter, expected_version=None
        )
    assert "running" in exc.value.errors["__all__"][0]


# --- card checks through the service ----------------------------------------------------------


def test_an_impossible_poignee_is_refused_and_nothing_saved(t, arbiter):
    where = cell(t, 1, 1)
    set_hands(where["donne"], deal(E=trumps(*range(1, 10))))
    data = ResultInput(**{**GARDE_WON.__dict__, "poignees": {"E": "simple"}})
    before = version(t)
    with pytest.raises(ResultInvalid) as exc:
        result_save(**where, data=data, user=arbiter, expected_version=None)
    assert "held 9 trumps" in exc.value.errors["poignees.E"][0]
    assert not Result.objects.exists() and not LedgerEntry.objects.exists()
    assert version(t) == before


def test_a_possible_poignee_scores_for_the_winners(t, arbiter):
    where = cell(t, 1, 1)
    set_hands(where["donne"], deal(E=trumps(*range(1, 11)), N=["T21", "EX"]))
    data = ResultInput(**{**GARDE_WON.__dict__, "poignees": {"E": "simple"}})
    result = result_save(**where, data=data, user=arbiter, expected_version=None)
    # Garde won by 9: (25 + 9) × 2 + 20 = 88 per defender.
    assert result.scores == {"N": 264, "E": -88, "S": -88, "W": -88}
    assert result.poignees == {"E": "simple"}


def test_unlikely_bouts_need_a_confirmation_which_is_stored(t, arbiter):
    where = cell(t, 1, 1)
    set_hands(where["donne"], deal(E=["T21"], N=["T1", "EX"]))
    data = ResultInput(status="played", taker="N", contract="garde", bouts=3, points=Decimal(50))
    with pytest.raises(ResultNeedsConfirmation) as exc:
        result_save(**where, data=data, user=arbiter, expected_version=None)
    assert list(exc.value.warnings) == ["bouts_held_by_defence"]
    assert not Result.objects.exists()
    result = result_save(
        **where,
        data=data,
        user=arbiter,
        expected_version=None,
        confirmed=["bouts_held_by_defence", "something_else"],
    )
    assert result.confirmed_warnings == ["bouts_held_by_defence"]


def test_a_half_point_needs_a_confirmation(t, arbiter):
    where = cell(t, 1, 1)
    set_hands(where["donne"], deal(N=["T21", "T1"], E=["EX"]))
    data = ResultInput(
        status="played", taker="N", contract="prise", bouts=2, points=Decimal("40.5")
    )
    with pytest.raises(ResultNeedsConfirmation) as exc:
        result_save(**where, data=data, user=arbiter, expected_version=None)
    assert set(exc.value.warnings) == {"half_point"}
    result = result_save(
        **where, data=data, user=arbiter, expected_version=None, confirmed=["half_point"]
    )
    # Lost by a half point, rounded to 1: -(25 + 1) × 1 = -26 per defender... for the attack.
    assert result.scores == {"N": -78, "E": 26, "S": 26, "W": 26}


def test_the_preview_gives_scores_parts_and_problems_without_writing(t, arbiter):
    where = cell(t, 1, 1)
    set_hands(where["donne"], deal(E=trumps(*range(2, 12)), N=["T21", "T1"], W=["EX"]))
    data = ResultInput(
        status="played",
        taker="N",
        contract="garde",
        bouts=3,
        points=Decimal(50),
        petit_au_bout="attack",
        poignees={"E": "simple"},
    )
    preview = result_preview(**where, data=data)
    # Won by 14 with 3 bouts: ((25 + 14) + 10) × 2 + 20 = 118.
    assert preview.parts["contract_part"] == 78
    assert preview.parts["petit_au_bout_part"] == 20
    assert preview.parts["poignees_part"] == 20
    assert preview.parts["unit"] == 118
    assert preview.scores == {"N": 354, "E": -118, "S": -118, "W": -118}
    assert set(preview.warnings) == {"excuse_held_by_defence"}
    incomplete = result_preview(**where, data=ResultInput(status="played", taker="N"))
    assert set(incomplete.missing) == {"contract", "bouts", "points"}
    assert incomplete.problems == {}
    assert not Result.objects.exists()


# --- corrections, ledger and concurrency ------------------------------------------------------


def test_a_correction_needs_a_reason_and_is_ledgered(t, arbiter, personas):
    where = cell(t, 1, 1)
    first = result_save(**where, data=GARDE_WON, user=arbiter, expected_version=None)
    lost = ResultInput(status="played", taker="N", contract="garde", bouts=2, points=Decimal(35))
    with pytest.raises(ResultInvalid) as exc:
        result_save(**where, data=lost, user=arbiter, expected_version=1)
    assert "reason" in exc.value.errors
    assert Result.objects.get(pk=first.pk).version == 1
    before = version(t)
    second = result_save(
        **where,
        data=lost,
        user=personas.organiser,
        expected_version=1,
        reason="score sheet misread",
    )
    assert second.version == 2
    assert second.scores == {"N": -186, "E": 62, "S": 62, "W": 62}
    assert second.updated_by == personas.organiser
    assert version(t) == before + 1
    entries = list(LedgerEntry.objects.filter(result=first).order_by("pk"))
    assert [e.action for e in entries] == ["result_created", "result_changed"]
    change = entries[1]
    assert change.reason == "score sheet misread"
    assert change.actor == personas.organiser
    assert change.before["points"] == "50.0" and change.after["points"] == "35.0"
    assert change.before["version"] == 1 and change.after["version"] == 2
    assert "Garde by North" in result_describe(change.before)


def test_saving_the_same_entry_again_changes_nothing(t, arbiter):
    where = cell(t, 1, 1)
    result_save(**where, data=GARDE_WON, user=arbiter, expected_version=None)
    before = version(t)
    again = result_save(**where, data=GARDE_WON, user=arbiter, expected_version=1)
    assert again.version == 1
    assert LedgerEntry.objects.count() == 1
    assert version(t) == before


def test_a_second_creation_is_a_conflict_enforced_by_the_unique_constraint(t, arbiter, personas):
    where = cell(t, 1, 1)
    mine = result_save(**where, data=GARDE_WON, user=arbiter, expected_version=None)
    other = ResultInput(status="all_passed")
    with pytest.raises(ResultConflict) as exc:
        # The organiser loaded the empty form before the arbiter saved: no version.
        result_save(**where, data=other, user=personas.organiser, expected_version=None)
    assert exc.value.current.pk == mine.pk
    assert exc.value.current.scores == mine.scores
    assert "version 1" in str(exc.value)
    assert Result.objects.get(pk=mine.pk).status == "played"
    assert LedgerEntry.objects.count() == 1


def test_a_stale_version_is_a_conflict(t, arbiter, personas):
    where = cell(t, 1, 1)
    result_save(**where, data=GARDE_WON, user=arbiter, expected_version=None)
    lost = ResultInput(status="played", taker="N", contract="garde", bouts=2, points=Decimal(35))
    result_save(**where, data=lost, user=arbiter, expected_version=1, reason="misread")
    with pytest.raises(ResultConflict) as exc:
        result_save(
            **where,
            data=ResultInput(status="all_passed"),
            user=personas.organiser,
            expected_version=1,
            reason="I think all passed",
        )
    assert exc.value.current.version == 2
    assert Result.objects.get().points == Decimal(35)


@pytest.mark.django_db(transaction=True)
def test_two_arbiters_saving_at_once_the_database_lets_one_win(personas):
    """A real race on PostgreSQL: another transaction holds the row (an arbiter's save in
    progress); ours passes the version check, then its UPDATE ... WHERE version waits on the
    row lock and finds the version changed: a conflict, not an overwrite."""
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent writers: SQLite serialises them (run with DATABASE_URL)")
    tournament = stage_tournament(personas=personas)
    where = cell(tournament, 1, 1)
    set_hands(where["donne"], deal(N=["T21", "EX"]))
    result = result_save(**where, data=GARDE_WON, user=personas.arbiter, expected_version=None)
    lost = ResultInput(status="played", taker="N", contract="garde", bouts=2, points=Decimal(35))
    outcome: dict[str, object] = {}

    def theirs_in_progress(started: threading.Event, release: threading.Event) -> None:
        with transaction.atomic():
            Result.objects.filter(pk=result.pk).update(version=2, points=Decimal(60))
            started.set()
            release.wait(10)
        connections.close_all()

    def mine() -> None:
        connection.ensure_connection()
        outcome["pid"] = connection.connection.info.backend_pid
        try:
            result_save(
                **where, data=lost, user=personas.arbiter, expected_version=1, reason="misread"
            )
        except ResultConflict as exc:
            outcome["conflict"] = exc.current
        except Exception as exc:  # pragma: no cover - reported by the assertion below
            outcome["error"] = exc
        finally:
            connections.close_all()

    started, release = threading.Event(), threading.Event()
    holder = threading.Thread(target=theirs_in_progress, args=(started, release))
    holder.start()
    assert started.wait(10)
    saver = threading.Thread(target=mine)
    saver.start()
    # Wait until our save is blocked on the row lock: its UPDATE is waiting.
    deadline = time.monotonic() + 10
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE pid = %s AND NOT granted",
                [outcome.get("pid", 0)],
            )
            if cursor.fetchone()[0]:
                break
            time.sleep(0.02)
        else:
            pytest.fail("our save never waited on the row lock")
    release.set()
    holder.join(10)
    saver.join(10)
    assert "error" not in outcome, outcome
    assert outcome["conflict"].version == 2
    final = Result.objects.get(pk=result.pk)
    assert final.version == 2 and final.points == Decimal(60)
    assert LedgerEntry.objects.filter(result=result).count() == 1


# --- annulments -------------------------------------------------------------------------------


def test_annulling_needs_a_reason_and_keeps_the_holders(t, arbiter):
    where = cell(t, 2, 5)
    with pytest.raises(ResultInvalid) as exc:
        result_annul(**where, user=arbiter, reason="  ", expected_version=None)
    assert "reason" in exc.value.errors
    before = version(t)
    result = result_annul(**where, user=arbiter, reason="two étuis mixed", expected_version=None)
    assert result.status == "annulled"
    assert result.scores == {}
    assert len(result.holders) == 4
    assert result.annul_reason == "two étuis mixed"
    assert version(t) == before + 1
    [entry] = LedgerEntry.objects.filter(result=result)
    assert entry.action == "result_annulled" and entry.reason == "two étuis mixed"


def test_annulling_a_result_then_entering_it_again(t, arbiter):
    where = cell(t, 1, 1)
    result_save(**where, data=GARDE_WON, user=arbiter, expected_version=None)
    annulled = result_annul(**where, user=arbiter, reason="card missing", expected_version=1)
    assert annulled.version == 2 and annulled.status == "annulled"
    assert annulled.taker == "" and annulled.points is None
    with pytest.raises(ResultInvalid):
        result_annul(**where, user=arbiter, reason="again", expected_version=2)
    with pytest.raises(ResultInvalid) as exc:
        result_save(**where, data=GARDE_WON, user=arbiter, expected_version=2)
    assert "reason" in exc.value.errors
    back = result_save(
        **where, data=GARDE_WON, user=arbiter, expected_version=2, reason="card found"
    )
    assert back.status == "played" and back.version == 3
    actions = list(LedgerEntry.objects.order_by("pk").values_list("action", flat=True))
    assert actions == ["result_created", "result_annulled", "result_changed"]


# --- tables of five ---------------------------------------------------------------------------


def test_at_a_table_of_five_the_sitter_is_recorded_and_the_fifth_holds_his_hand(personas):
    tournament = stage_tournament(players=9, personas=personas)
    five = Table.objects.get(tournament=tournament, size=5)
    table_round = TableRound.objects.get(table=five, round__number=1)
    donnes = list(Donne.objects.filter(etui_set=table_round.etui_set).order_by("number"))
    seats = {s.position: s.player for s in table_round.seats.select_related("player")}
    for index, donne in enumerate(donnes):
        result = result_save(
            tournament=tournament,
            table=five,
            donne=donne,
            data=GARDE_WON,
            user=personas.arbiter,
            expected_version=None,
            confirmed=WARNING_CODES,  # the real hands may make 2 bouts unlikely
        )
        sitting_out = table_round.sit_outs[index]
        assert result.sitter == seats[sitting_out]
        assert result.sitter.pk not in result.holders.values()
        assert len(result.holders) == 4
        if sitting_out != "F":
            assert result.holders[sitting_out] == seats["F"].pk


# --- rounds -----------------------------------------------------------------------------------


def test_a_round_closes_only_when_complete_and_then_refuses_results(t, arbiter):
    round_1 = Round.objects.get(tournament=t, number=1)
    with pytest.raises(ResultInvalid) as exc:
        round_close(round_=round_1, user=arbiter)
    assert "misses 8 results" in exc.value.errors["__all__"][0]
    for table_round in round_1.table_rounds.select_related("table"):
        for donne in Donne.objects.filter(etui_set=table_round.etui_set):
            result_save(
                tournament=t,
                table=table_round.table,
                donne=donne,
                data=ResultInput(status="all_passed"),
                user=arbiter,
                expected_version=None,
            )
    round_close(round_=round_1, user=arbiter)
    assert Round.objects.get(pk=round_1.pk).state == "closed"
    with pytest.raises(ResultInvalid) as exc:
        result_save(
            **cell(t, 1, 1), data=GARDE_WON, user=arbiter, expected_version=1, reason="late fix"
        )
    assert "closed" in exc.value.errors["__all__"][0]
    round_open(round_=round_1, user=arbiter)
    fixed = result_save(
        **cell(t, 1, 1), data=GARDE_WON, user=arbiter, expected_version=1, reason="late fix"
    )
    assert fixed.version == 2


# --- permissions ------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["other_arbiter", "player_user", "stranger", "anonymous"])
def test_only_arbiters_and_organisers_write(t, personas, who):
    user = AnonymousUser() if who == "anonymous" else getattr(personas, who)
    where = cell(t, 1, 1)
    player = Player.objects.filter(registrations__tournament=t).first()
    with pytest.raises(PermissionDenied):
        result_save(**where, data=GARDE_WON, user=user, expected_version=None)
    with pytest.raises(PermissionDenied):
        result_annul(**where, user=user, reason="x", expected_version=None)
    with pytest.raises(PermissionDenied):
        penalty_give(tournament=t, player=player, kind="warning", user=user)
    with pytest.raises(PermissionDenied):
        round_close(round_=Round.objects.get(tournament=t, number=1), user=user)
    assert not Result.objects.exists() and not Penalty.objects.exists()


def test_the_organiser_writes_too(t, personas):
    result = result_save(
        **cell(t, 1, 1), data=GARDE_WON, user=personas.organiser, expected_version=None
    )
    assert result.created_by == personas.organiser


# --- penalties --------------------------------------------------------------------------------


def player_of(t: Tournament) -> Player:
    return Player.objects.filter(registrations__tournament=t).order_by("pk").first()


def test_the_catalogue_sets_the_points(t, arbiter):
    player = player_of(t)
    before = version(t)
    early = penalty_give(tournament=t, player=player, kind="early_pickup", user=arbiter)
    warning = penalty_give(tournament=t, player=player, kind="warning", user=arbiter)
    assert (early.points, warning.points) == (100, 0)
    assert version(t) == before + 2
    assert list(LedgerEntry.objects.values_list("action", flat=True)) == ["penalty_given"] * 2
    assert LedgerEntry.objects.first().after["points"] == 100


def test_other_needs_points_and_a_reason(t, arbiter):
    player = player_of(t)
    with pytest.raises(PenaltyInvalid) as exc:
        penalty_give(tournament=t, player=player, kind="other", user=arbiter)
    assert {"points", "reason"} <= set(exc.value.errors)
    penalty = penalty_give(
        tournament=t,
        player=player,
        kind="other",
        user=arbiter,
        points=30,
        reason="slow play after two warnings",
        donne=Donne.objects.get(tournament=t, number=3),
    )
    assert penalty.points == 30 and penalty.donne.number == 3


def test_bad_penalties_are_refused(t, arbiter, personas):
    player = player_of(t)
    with pytest.raises(PenaltyInvalid) as exc:
        penalty_give(tournament=t, player=player, kind="early_pickup", user=arbiter, points=50)
    assert "100 points" in exc.value.errors["points"][0]
    with pytest.raises(PenaltyInvalid) as exc:
        penalty_give(tournament=t, player=player, kind="bribe", user=arbiter)
    assert "kind" in exc.value.errors
    outsider = stage_tournament(players=8, name="Autre").registrations.first().player
    with pytest.raises(PenaltyInvalid) as exc:
        penalty_give(tournament=t, player=outsider, kind="warning", user=arbiter)
    assert "not registered" in exc.value.errors["player"][0]
    assert not Penalty.objects.filter(tournament=t).exists()


def test_withdrawing_keeps_the_penalty_with_who_and_why(t, arbiter, personas):
    penalty = penalty_give(tournament=t, player=player_of(t), kind="early_pickup", user=arbiter)
    with pytest.raises(PenaltyInvalid):
        penalty_withdraw(penalty=penalty, user=personas.organiser, reason="")
    before = version(t)
    withdrawn = penalty_withdraw(
        penalty=penalty, user=personas.organiser, reason="the deal was finished"
    )
    assert not withdrawn.active
    assert withdrawn.withdrawn_by == personas.organiser
    assert withdrawn.withdrawal_reason == "the deal was finished"
    assert Penalty.objects.filter(pk=penalty.pk).exists()
    assert version(t) == before + 1
    with pytest.raises(PenaltyInvalid) as exc:
        penalty_withdraw(penalty=penalty, user=arbiter, reason="twice")
    assert "already withdrawn" in exc.value.errors["__all__"][0]
    last = LedgerEntry.objects.order_by("pk").last()
    assert last.action == "penalty_withdrawn"
    assert last.before["withdrawn"] is False and last.after["withdrawn"] is True
    with pytest.raises(PermissionDenied):
        penalty_withdraw(penalty=penalty, user=personas.stranger, reason="no")


def test_snapshots_are_plain_json(t, arbiter):
    result = result_save(**cell(t, 1, 1), data=GARDE_WON, user=arbiter, expected_version=None)
    snap = result_snapshot(result)
    assert snap["table"] == 1 and snap["donne"] == 1
    assert snap["points"] == "50.0"
    assert result_snapshot(None) is None
