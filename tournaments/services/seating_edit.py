"""Editing the seating by hand: the arbiter swaps two players' seats, or makes a table
play another étui set, in one round. Every edit is checked against the movement rules
(`scoring.rules.movement.validate`) on the rows as stored, and refused with every breach when it
breaks one; then nothing is changed.

The rows (Seat, TableRound) are the truth: `movement_from_rows` rebuilds a Movement from them.
Players are numbered 1..n the way scoring.rules.movement numbers them (by first appearance: round 1,
table 1 N E S W F, table 2 …), so an untouched seating gives back the generated movement; the
numbers map back to the Player rows to name them in messages. `Tournament.movement` is rewritten
after each accepted edit so it always says what is stored.

A round in which a result or an annulment was recorded can no longer change: the result belongs
to the players seated there (its `holders`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, Prefetch, Subquery
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from scoring.rules.movement import Breach, Movement, Round, Sitting, donnes_of_set, validate

from ..models import (
    EtuiSet,
    LedgerEntry,
    Player,
    Result,
    Seat,
    SeatPosition,
    Table,
    TableRound,
    Tournament,
)
from ..models import Round as RoundRow
from ..permissions import can_manage_tournament
from .ledger import ledger_record

ROLE_ORDER = {role: index for index, role in enumerate("NESWF")}
EDITED = "edited by hand"
CLOSED_STATUSES = (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED)

# What each rule of scoring.rules.movement.RULES_CHECKED asks, for the arbiter.
RULE_TEXT = {
    "structure": gettext_lazy("the rounds, tables and étui sets must be numbered 1, 2, 3 …"),
    "seating": gettext_lazy("each player is seated exactly once per round"),
    "table_size": gettext_lazy("a table has 4 or 5 players"),
    "positions": gettext_lazy(
        "each table has one North, East, South and West (and a fifth player at a table of five)"
    ),
    "set_per_table": gettext_lazy("each table plays exactly one existing étui set per round"),
    "set_repeat": gettext_lazy("nobody plays an étui set (a donne) twice"),
    "position_kept": gettext_lazy("players keep their position all session"),
    "donne_coverage": gettext_lazy("every donne is played at two tables or more"),
    "sit_out": gettext_lazy("at a table of five one player sits out each donne, each at most once"),
    "sit_out_turn": gettext_lazy(
        "whoever holds a whole relais at a table of five sits out at the next table of five "
        "that player comes to"
    ),
    "sit_out_spread": gettext_lazy(
        "sitting out is shared: any two players' numbers of donnes sat out differ by at most one "
        "(or by the smallest spread the generator found, stated on the seating plan)"
    ),
}


class SeatingEditRefused(ValueError):
    """An edit the rules or the tournament's state do not allow; nothing was changed.

    `messages` are translated, one per reason (every breach of the movement rules);
    `breaches` are the movement's breaches as `validate` found them (empty for other reasons).
    """

    def __init__(self, messages: Iterable[str], breaches: Iterable[Breach] = ()) -> None:
        self.messages = list(messages)
        self.breaches = list(breaches)
        super().__init__(" ".join(self.messages))


@dataclass(frozen=True)
class StoredMovement:
    """The movement the rows describe, and who each player number is."""

    movement: Movement
    players: dict[int, Player]

    def name(self, number: int | None) -> str:
        player = self.players.get(number) if number is not None else None
        return player.full_name if player is not None else str(number)


def _stored(tournament: Tournament) -> StoredMovement:
    """Read the rows (three queries, whatever the size of the tournament)."""
    table_rounds = list(
        TableRound.objects.filter(round__tournament=tournament)
        .select_related("round", "table", "etui_set")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player").order_by())
        )
        .order_by("round__number", "table__number", "pk")
    )
    # Round numbers and the counts of tables and étui sets, in one query.
    tables_n = Table.objects.filter(tournament=tournament).order_by().values("tournament")
    sets_n = EtuiSet.objects.filter(tournament=tournament).order_by().values("tournament")
    rows = list(
        RoundRow.objects.filter(tournament=tournament)
        .annotate(
            tables_n=Subquery(tables_n.annotate(n=Count("pk")).values("n")),
            sets_n=Subquery(sets_n.annotate(n=Count("pk")).values("n")),
        )
        .order_by("number")
        .values_list("number", "tables_n", "sets_n")
    )
    round_numbers = [number for number, _t, _s in rows]
    if rows:
        tables, sets = rows[0][1] or 0, rows[0][2] or 0
    else:
        tables, sets = tables_n.count(), sets_n.count()

    numbers: dict[int, int] = {}  # player id -> movement number
    players: dict[int, Player] = {}
    by_round: dict[int, list[Sitting]] = {number: [] for number in round_numbers}
    for table_round in table_rounds:
        seats = sorted(table_round.seats.all(), key=lambda s: (ROLE_ORDER.get(s.position, 9), s.pk))
        for seat in seats:
            if seat.player_id not in numbers:
                numbers[seat.player_id] = len(numbers) + 1
                players[numbers[seat.player_id]] = seat.player
        by_round.setdefault(table_round.round.number, []).append(
            Sitting(
                table=table_round.table.number,
                set_no=table_round.etui_set.number,
                seats=tuple((seat.position, numbers[seat.player_id]) for seat in seats),
                sit_out=tuple(table_round.sit_outs),
            )
        )
    scheme = ""
    allowance = 1
    if isinstance(tournament.movement, dict):
        scheme = str(tournament.movement.get("scheme", ""))
        declared = tournament.movement.get("sit_out_allowance", 1)
        allowance = declared if isinstance(declared, int) else 1
    movement = Movement(
        players=len(numbers),
        tables=tables,
        sets=sets,
        rounds=tuple(Round(number, tuple(by_round[number])) for number in sorted(by_round)),
        scheme=scheme,
        sit_out_allowance=allowance,
    )
    return StoredMovement(movement, players)


def movement_from_rows(tournament: Tournament) -> Movement:
    """The movement the stored Seat and TableRound rows describe (players numbered 1..n by
    first appearance, as scoring.rules.movement numbers them)."""
    return _stored(tournament).movement


def seating_check(tournament: Tournament) -> list[Breach]:
    """Every breach of the movement rules in the stored seating (after edits here or through
    the admin)."""
    return validate(movement_from_rows(tournament))


def seating_check_messages(tournament: Tournament) -> list[str]:
    """`seating_check` in the user's language, players named."""
    stored = _stored(tournament)
    return breach_messages(validate(stored.movement), stored)


# --- messages ----------------------------------------------------------------------------------


def _position(role: str | None) -> str:
    if role in SeatPosition.values:
        return str(SeatPosition(role).label)
    return str(role)


def _set_words(set_no: int | None) -> dict[str, Any]:
    if set_no is None or set_no < 1:
        return {"set": set_no, "donnes": "—"}
    donnes = donnes_of_set(set_no)
    return {"set": set_no, "donnes": f"{donnes[0]}–{donnes[-1]}"}


def _first_stop(movement: Movement, player: int | None) -> tuple[int, str] | None:
    """(round, role) where the player first sits."""
    for rnd in movement.rounds:
        for sitting in rnd.sittings:
            role = sitting.role_of(player) if player is not None else None
            if role is not None:
                return rnd.number, role
    return None


def _first_round_with_set(movement: Movement, player: int | None, set_no: int | None) -> int:
    for rnd in movement.rounds:
        for sitting in rnd.sittings:
            if sitting.set_no == set_no and player in sitting.players:
                return rnd.number
    return 0


def _where(breach: Breach, stored: StoredMovement) -> str:
    parts = []
    if breach.round is not None:
        parts.append(_("round %(number)s") % {"number": breach.round})
    if breach.table is not None:
        parts.append(_("table %(number)s") % {"number": breach.table})
    if breach.player is not None:
        parts.append(stored.name(breach.player))
    if breach.set_no is not None and breach.rule != "set_repeat":
        parts.append(_("étui set %(number)s") % {"number": breach.set_no})
    return ", ".join(parts)


def breach_message(breach: Breach, stored: StoredMovement) -> str:
    """One breach in words an arbiter acts on, in the user's language."""
    movement = stored.movement
    where = {"round": breach.round, "table": breach.table, "player": stored.name(breach.player)}
    if breach.rule == "set_repeat" and breach.player is not None:
        return _(
            "Round %(round)s, table %(table)s: %(player)s plays étui set %(set)s (donnes "
            "%(donnes)s) again; that player also plays it in round %(earlier)s. Nobody plays a donne "
            "twice."
        ) % {
            **where,
            **_set_words(breach.set_no),
            "earlier": _first_round_with_set(movement, breach.player, breach.set_no),
        }
    if breach.rule == "position_kept" and breach.player is not None:
        first = _first_stop(movement, breach.player) or (0, "")
        sitting = movement.round(breach.round).sitting(breach.table) if breach.round else None
        role = sitting.role_of(breach.player) if sitting is not None else None
        return _(
            "Round %(round)s, table %(table)s: %(player)s sits %(position)s but "
            "%(first_position)s in round %(first_round)s. Players keep their position all "
            "session."
        ) % {
            **where,
            "position": _position(role),
            "first_position": _position(first[1]),
            "first_round": first[0],
        }
    if breach.rule == "donne_coverage" and breach.set_no is not None:
        if breach.round is None:
            return _(
                "Étui set %(set)s (donnes %(donnes)s) is not played at any table. Every donne "
                "is played at two tables or more."
            ) % _set_words(breach.set_no)
        return _(
            "Étui set %(set)s (donnes %(donnes)s) is played at one table only (round "
            "%(round)s, table %(table)s): its results cannot be compared. Every donne is "
            "played at two tables or more."
        ) % {**where, **_set_words(breach.set_no)}
    if breach.rule == "seating" and breach.player is not None and breach.round is not None:
        rnd = next((r for r in movement.rounds if r.number == breach.round), None)
        if rnd is not None and not any(breach.player in s.players for s in rnd.sittings):
            return (
                _(
                    "Round %(round)s: %(player)s is not seated. Each player is seated exactly once "
                    "per round."
                )
                % where
            )
    rule = str(RULE_TEXT.get(breach.rule, breach.rule))
    place = _where(breach, stored)
    if not place:
        return _("The movement breaks a rule: %(rule)s.") % {"rule": rule}
    return _("%(where)s: %(rule)s.") % {"where": place[:1].upper() + place[1:], "rule": rule}


def breach_messages(breaches: Iterable[Breach], stored: StoredMovement) -> list[str]:
    return [breach_message(breach, stored) for breach in breaches]


# --- edits -------------------------------------------------------------------------------------


def _require_manager(user: Any, tournament: Tournament) -> None:
    if not can_manage_tournament(user, tournament):
        raise PermissionDenied


def _pk(player: Player | int) -> int:
    return player.pk if isinstance(player, Player) else int(player)


def _editable_round(tournament: Tournament, round_number: int) -> RoundRow:
    """The round, locked tournament in hand, if its seating may still change."""
    if tournament.status in CLOSED_STATUSES:
        raise SeatingEditRefused([_("The tournament is over: its seating can no longer change.")])
    round_ = RoundRow.objects.filter(tournament=tournament, number=round_number).first()
    if round_ is None:
        raise SeatingEditRefused(
            [_("There is no round %(number)s in this tournament.") % {"number": round_number}]
        )
    statuses = set(
        Result.objects.filter(table_round__round=round_).values_list("status", flat=True)
    )
    if statuses - {Result.Status.ANNULLED}:
        raise SeatingEditRefused(
            [
                _(
                    "Results have been entered in round %(number)s: its seating can no longer "
                    "change, the results belong to the players seated there."
                )
                % {"number": round_number}
            ]
        )
    if statuses:
        raise SeatingEditRefused(
            [
                _(
                    "A donne of round %(number)s has been annulled: its seating can no longer "
                    "change, the annulment records who was seated there."
                )
                % {"number": round_number}
            ]
        )
    return round_


def _renew(seats: list[Seat], changes: dict[int, dict[str, Any]] | None = None) -> None:
    """Replace seat rows by new ones (with `changes` by seat id). Deleting first keeps the
    unique constraints (one seat per player per round, one player per position) satisfied
    without a temporary value; the new ids also move the documents' seating fingerprint
    (scoring.documents.services.seating_key), so printed route cards show as out of date."""
    changes = changes or {}
    fresh = [
        Seat(
            table_round_id=changes.get(s.pk, {}).get("table_round_id", s.table_round_id),
            round_id=s.round_id,
            player_id=changes.get(s.pk, {}).get("player_id", s.player_id),
            position=changes.get(s.pk, {}).get("position", s.position),
        )
        for s in seats
    ]
    Seat.objects.filter(pk__in=[s.pk for s in seats]).delete()
    Seat.objects.bulk_create(fresh)


def _check_and_store(tournament: Tournament) -> Movement:
    """Validate the rows as they now are; refuse (the caller's transaction rolls back) with
    every breach, or store the movement."""
    stored = _stored(tournament)
    breaches = validate(stored.movement)
    if breaches:
        raise SeatingEditRefused(breach_messages(breaches, stored), breaches)
    movement = stored.movement
    if EDITED not in movement.scheme:
        scheme = f"{movement.scheme}; {EDITED}" if movement.scheme else EDITED
        movement = Movement(
            movement.players,
            movement.tables,
            movement.sets,
            movement.rounds,
            scheme,
            movement.sit_out_allowance,
        )
    tournament.movement = movement.to_dict()
    tournament.save(update_fields=["movement"])
    return movement


def seating_swap(
    *,
    tournament: Tournament,
    round_number: int,
    player_a: Player | int,
    player_b: Player | int,
    user: Any,
) -> Movement:
    """Swap two players' seats (table and position) in one round; any positions, the movement
    rules decide. Raises SeatingEditRefused (nothing changed) or PermissionDenied."""
    _require_manager(user, tournament)
    a, b = _pk(player_a), _pk(player_b)
    if a == b:
        raise SeatingEditRefused([_("Choose two different players to swap.")])
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        round_ = _editable_round(locked, round_number)
        seats = {
            seat.player_id: seat
            for seat in Seat.objects.select_for_update()
            .filter(round=round_, player_id__in=[a, b])
            .order_by()
        }
        missing = [pk for pk in (a, b) if pk not in seats]
        if missing:
            names = {p.pk: p.full_name for p in Player.objects.filter(pk__in=missing)}
            raise SeatingEditRefused(
                [
                    _("%(player)s is not seated in round %(number)s.")
                    % {"player": names.get(pk, _("This player")), "number": round_number}
                    for pk in missing
                ]
            )
        seat_a, seat_b = seats[a], seats[b]
        where = {
            pk: {
                "table": seat.table_round.table.number,
                "position": seat.position,
            }
            for pk, seat in ((a, seat_a), (b, seat_b))
        }
        _renew(
            [seat_a, seat_b],
            {
                seat_a.pk: {"table_round_id": seat_b.table_round_id, "position": seat_b.position},
                seat_b.pk: {"table_round_id": seat_a.table_round_id, "position": seat_a.position},
            },
        )
        movement = _check_and_store(locked)
        names = {p.pk: str(p) for p in Player.objects.filter(pk__in=[a, b])}
        ledger_record(
            tournament=locked,
            action=LedgerEntry.Action.SEATING_EDITED,
            user=user,
            before={names[pk]: where[pk] for pk in (a, b)},
            after={names[a]: where[b], names[b]: where[a]},
            round_=round_,
        )
    tournament.refresh_from_db()
    return movement


def seating_set_change(
    *,
    tournament: Tournament,
    round_number: int,
    table_number: int,
    set_number: int,
    user: Any,
) -> Movement:
    """Make a table play another étui set in one round. Raises SeatingEditRefused (nothing
    changed) or PermissionDenied."""
    _require_manager(user, tournament)
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        round_ = _editable_round(locked, round_number)
        table_round = (
            TableRound.objects.select_for_update()
            .select_related("etui_set")
            .filter(round=round_, table__number=table_number)
            .first()
        )
        if table_round is None:
            raise SeatingEditRefused(
                [
                    _("Table %(table)s does not play in round %(number)s.")
                    % {"table": table_number, "number": round_number}
                ]
            )
        etui_set = EtuiSet.objects.filter(tournament=locked, number=set_number).first()
        if etui_set is None:
            raise SeatingEditRefused(
                [
                    _("There is no étui set %(set)s: the sets are numbered 1 to %(count)s.")
                    % {"set": set_number, "count": locked.etui_sets.count()}
                ]
            )
        if etui_set.pk == table_round.etui_set_id:
            raise SeatingEditRefused(
                [
                    _("Table %(table)s already plays étui set %(set)s in round %(number)s.")
                    % {"table": table_number, "set": set_number, "number": round_number}
                ]
            )
        TableRound.objects.filter(pk=table_round.pk).update(etui_set=etui_set)
        _renew(list(Seat.objects.filter(table_round=table_round).order_by("pk")))
        movement = _check_and_store(locked)
        ledger_record(
            tournament=locked,
            action=LedgerEntry.Action.SEATING_EDITED,
            user=user,
            before={"table": table_number, "etui_set": table_round.etui_set.number},
            after={"table": table_number, "etui_set": set_number},
            round_=round_,
        )
    tournament.refresh_from_db()
    return movement
