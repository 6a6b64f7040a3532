"""Creating and editing tournaments, moving their status along, and knowing whether the
seating still matches who is checked in.

The status goes draft → registration → running → finished → published, with a few ways back
(a mistake is corrected before results exist; a finished tournament is reopened for a
correction; a published one is withdrawn). Every refusal is a `TournamentError` whose message
says why and what to do.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..models import Club, Donne, LedgerEntry, Player, Registration, Result, Seat, Tournament
from ..search import name_order
from ..signals import results_changed_on_commit
from .claims_window import claims_window_start
from .clubs import club_staff_check
from .events import results_changed
from .ledger import ledger_record, tournament_snapshot

Status = Tournament.Status

# Where a status may go next. Guards below add the conditions.
TRANSITIONS: dict[str, tuple[str, ...]] = {
    Status.DRAFT: (Status.REGISTRATION,),
    Status.REGISTRATION: (Status.DRAFT, Status.RUNNING),
    Status.RUNNING: (Status.REGISTRATION, Status.FINISHED),
    Status.FINISHED: (Status.RUNNING, Status.PUBLISHED),
    Status.PUBLISHED: (Status.FINISHED,),
}
# Statuses in which players may still be registered, checked in and re-seated.
PREPARATION_STATUSES = (Status.DRAFT, Status.REGISTRATION)
# Fields that shape the seating: they cannot change once the tournament runs.
STRUCTURE_FIELDS = ("rounds", "donnes_per_relais")
RANKING_FIELDS = ("method", "matchpoint_penalty_rate")
# Fields the rankings derived from the tournament's ranking read (the players' rating orders
# events by date, a club season selects them by date): a change sends `results_changed`
# without moving the results version (the tournament's own ranking stays current).
DERIVED_FIELDS = ("date",)
# The room on the day (public pages while it runs, the room's screen): changeable at any time.
ROOM_FIELDS = ("public_during_play", "round_minutes", "announcement")
# How long claims are taken after the last round (a window already open keeps its end).
CLAIMS_FIELDS = ("claims_window_minutes",)
EDITABLE_FIELDS = (
    "name",
    "date",
    "venue",
    *STRUCTURE_FIELDS,
    *RANKING_FIELDS,
    *ROOM_FIELDS,
    *CLAIMS_FIELDS,
)


class TournamentError(ValueError):
    """A change the tournament's state does not allow; the message is translated."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class SeatingState:
    NONE = "none"
    CURRENT = "current"
    OUTDATED = "outdated"
    LOCKED = "locked"


@dataclass
class SeatingStatus:
    """How the generated seating compares with the check-ins and the tournament's shape."""

    state: str
    checked_in: int
    registered: int
    rounds_generated: int
    has_results: bool
    not_seated: list[Player] = field(default_factory=list)
    not_checked_in: list[Player] = field(default_factory=list)
    shape_changed: bool = False
    tournament: Tournament | None = field(default=None, repr=False, compare=False)

    @property
    def limits(self) -> list[str]:
        """What keeps the registered players from being seated as things stand (a
        simultaneous event's étui sets: `preparation.seating_limits`), read when shown."""
        from .preparation import seating_limits

        if self.tournament is None:
            return []
        return seating_limits(self.tournament, self.registered)

    @property
    def generated(self) -> bool:
        return self.state != SeatingState.NONE

    @property
    def current(self) -> bool:
        return self.state == SeatingState.CURRENT

    @property
    def outdated(self) -> bool:
        return self.state == SeatingState.OUTDATED

    @property
    def can_generate(self) -> bool:
        return not self.has_results

    def reasons(self) -> list[str]:
        """Why the seating is out of date, in words an organiser acts on."""
        reasons = []
        if self.not_seated:
            reasons.append(
                _("Checked in but not seated: %(names)s.")
                % {"names": ", ".join(p.full_name for p in self.not_seated)}
            )
        if self.not_checked_in:
            reasons.append(
                _("Seated but no longer checked in: %(names)s.")
                % {"names": ", ".join(p.full_name for p in self.not_checked_in)}
            )
        if self.shape_changed:
            reasons.append(_("The number of rounds has changed."))
        return reasons


def tournament_seating_status(*, tournament: Tournament) -> SeatingStatus:
    """Compare the seated players with the checked-in ones, in a fixed number of queries."""
    registrations = list(
        Registration.objects.filter(tournament=tournament).values_list("player_id", "checked_in_at")
    )
    checked_in_ids = {pid for pid, at in registrations if at is not None}
    seated_ids = set(
        Seat.objects.filter(round__tournament=tournament).values_list("player_id", flat=True)
    )
    shape = tournament.round_set.aggregate(rounds=Count("pk"))
    has_results = Result.objects.filter(tournament=tournament).exists()
    rounds_generated = shape["rounds"]
    missing_ids = checked_in_ids - seated_ids
    extra_ids = seated_ids - checked_in_ids
    names = {
        p.pk: p for p in Player.objects.filter(pk__in=missing_ids | extra_ids).order_by("last_name")
    }
    status = SeatingStatus(
        state=SeatingState.NONE,
        checked_in=len(checked_in_ids),
        registered=len(registrations),
        rounds_generated=rounds_generated,
        has_results=has_results,
        not_seated=[p for p in names.values() if p.pk in missing_ids],
        not_checked_in=[p for p in names.values() if p.pk in extra_ids],
        shape_changed=bool(seated_ids) and rounds_generated != tournament.rounds,
        tournament=tournament,
    )
    if not seated_ids:
        status.state = SeatingState.NONE
    elif has_results:
        status.state = SeatingState.LOCKED
    elif status.not_seated or status.not_checked_in or status.shape_changed:
        status.state = SeatingState.OUTDATED
    else:
        status.state = SeatingState.CURRENT
    return status


def _check_supported(tournament: Tournament) -> None:
    """The movements are built for relais of DONNES_PER_SET donnes (the clubs' standard)."""
    from scoring.rules.movement import DONNES_PER_SET

    if tournament.donnes_per_relais != DONNES_PER_SET:
        raise ValidationError(
            {
                "donnes_per_relais": _(
                    "The movements are built for relais of %(count)d donnes, the standard club "
                    "format: other sizes are not supported."
                )
                % {"count": DONNES_PER_SET}
            }
        )


def tournament_create(
    *,
    club: Club,
    name: str,
    date: datetime.date,
    venue: str = "",
    rounds: int = 4,
    donnes_per_relais: int = 4,
    method: str = "average",
    matchpoint_penalty_rate: Decimal | str = Decimal("0.1"),
    arbiters: Iterable[AbstractBaseUser] = (),
    public_during_play: bool = True,
    round_minutes: int = 30,
    announcement: str = "",
    claims_window_minutes: int = 30,
    user: Any = None,
) -> Tournament:
    """A new tournament in draft: nobody but its managers sees it until registration opens.

    Raises django's ValidationError on values the model refuses, or on ``arbiters`` when one
    is not the club's organiser or arbiter (`club_staff`); nothing is saved then.
    """
    tournament = Tournament(
        club=club,
        name=name.strip(),
        date=date,
        venue=venue.strip(),
        rounds=rounds,
        donnes_per_relais=donnes_per_relais,
        method=method,
        matchpoint_penalty_rate=matchpoint_penalty_rate,
        public_during_play=public_during_play,
        round_minutes=round_minutes,
        announcement=announcement.strip(),
        claims_window_minutes=claims_window_minutes,
        status=Status.DRAFT,
    )
    tournament.full_clean()
    _check_supported(tournament)
    chosen = club_staff_check(club, arbiters)
    with transaction.atomic():
        tournament.save()
        tournament.arbiters.set(chosen)
        ledger_record(
            tournament=tournament,
            action=LedgerEntry.Action.TOURNAMENT_CREATED,
            user=user,
            after=tournament_snapshot(tournament),
        )
    return tournament


EVENT_FIELDS = ("rounds", "donnes_per_relais", "method")


def _check_given_donnes(tournament: Tournament, changed: dict[str, Any]) -> None:
    """A tournament playing donnes dealt elsewhere (a simultaneous event) keeps the event's
    rounds, relais and comparison method: TournamentError when one of them would change."""
    from .preparation import given_donnes

    if not any(name in changed for name in EVENT_FIELDS) or given_donnes(tournament) is None:
        return
    raise TournamentError(
        _(
            "This tournament plays the donnes of a simultaneous event: its number of rounds, "
            "its relais and its comparison method are the event's and cannot change."
        )
    )


def tournament_update(
    *,
    tournament: Tournament,
    arbiters: Iterable[AbstractBaseUser] | None = None,
    user: Any = None,
    **fields: Any,
) -> Tournament:
    """Change a tournament's details; `fields` are among EDITABLE_FIELDS.

    Rounds and donnes per relais shape the seating, so they change only before the tournament
    runs (the seating then shows as out of date). A change of comparison method or penalty rate
    changes the ranking, so it moves the results version like a result would. A change of date
    sends `results_changed` without moving it (DERIVED_FIELDS): the players' rating and the
    club seasons read the date.
    """
    unknown = set(fields) - set(EDITABLE_FIELDS)
    if unknown:
        raise TypeError(f"tournament_update() cannot change {sorted(unknown)}")
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        before = tournament_snapshot(locked)
        changed = {name: value for name, value in fields.items() if getattr(locked, name) != value}
        if any(name in changed for name in STRUCTURE_FIELDS) and (
            locked.status not in PREPARATION_STATUSES
            or Result.objects.filter(tournament=locked).exists()
        ):
            raise TournamentError(
                _(
                    "The number of rounds and of donnes per relais can only change before the "
                    "tournament starts. Put it back to registration first (possible while no "
                    "result has been entered)."
                )
            )
        _check_given_donnes(locked, changed)
        for name, value in changed.items():
            setattr(locked, name, value.strip() if isinstance(value, str) else value)
        locked.full_clean()
        if "donnes_per_relais" in changed:
            _check_supported(locked)
        if changed:
            locked.save(update_fields=list(changed))
        if arbiters is not None:
            chosen = club_staff_check(locked.club, arbiters, kept=locked.arbiters.all())
            locked.arbiters.set(chosen)
        after = tournament_snapshot(locked)
        if after != before:
            ledger_record(
                tournament=locked,
                action=LedgerEntry.Action.TOURNAMENT_EDITED,
                user=user,
                before={k: v for k, v in before.items() if after.get(k) != v},
                after={k: v for k, v in after.items() if before.get(k) != v},
            )
        if any(name in changed for name in RANKING_FIELDS):
            results_changed(tournament_id=locked.pk)
        elif any(name in changed for name in DERIVED_FIELDS):
            results_changed_on_commit(locked.pk)  # the rankings derived from it read it
    tournament.refresh_from_db()
    return tournament


def tournament_next_statuses(*, tournament: Tournament) -> tuple[str, ...]:
    """The statuses the tournament may be moved to (the guards may still refuse)."""
    return TRANSITIONS.get(tournament.status, ())


def tournament_set_status(
    *, tournament: Tournament, status: str, user: Any = None, confirm_missing: bool = False
) -> Tournament:
    """Move the tournament to `status` or raise TournamentError saying why not.

    Running needs a seating generated for exactly the checked-in players; going back to
    registration needs no result yet; published needs finished, and, while results are
    missing, ``confirm_missing`` (else PublishNeedsConfirmation lists the missing cells);
    finishing a running tournament with a round still open or a result missing needs
    ``confirm_missing`` too (else FinishNeedsConfirmation lists both). Finishing opens the
    claims window if the last round's closing has not (`claims_window_start`).
    """
    labels = dict(Status.choices)
    if status not in labels:
        raise TournamentError(_("Unknown status “%(status)s”.") % {"status": status})
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status == status:
            return locked
        if status not in TRANSITIONS.get(locked.status, ()):
            message = _("A tournament cannot go from “%(from)s” to “%(to)s”.") % {
                "from": labels[locked.status],
                "to": labels[status],
            }
            if status == Status.PUBLISHED:
                message += " " + _("Only a finished tournament can be published.")
            raise TournamentError(message)
        if status == Status.RUNNING and locked.status == Status.REGISTRATION:
            _check_ready_to_run(locked)
        if status == Status.REGISTRATION and Result.objects.filter(tournament=locked).exists():
            raise TournamentError(
                _(
                    "Results have been entered: the tournament cannot go back to registration. "
                    "The arbiter can annul a donne instead."
                )
            )
        finishing = status == Status.FINISHED and locked.status == Status.RUNNING
        missing = (
            tournament_missing_cells(tournament=locked)
            if status == Status.PUBLISHED or finishing
            else []
        )
        if finishing:
            open_rounds = _open_rounds(locked)
            if (missing or open_rounds) and not confirm_missing:
                raise FinishNeedsConfirmation(missing, open_rounds)
        elif missing and not confirm_missing:
            raise PublishNeedsConfirmation(missing)
        before = locked.status
        locked.status = status
        locked.save(update_fields=["status"])
        ledger_record(
            tournament=locked,
            action=LedgerEntry.Action.STATUS_CHANGED,
            user=user,
            before={"status": before},
            after={"status": status},
            reason_code=("finished_missing" if finishing else "published_missing")
            if missing
            else "",
            reason_params={"count": len(missing)} if missing else None,
        )
        if finishing:  # finished with a round still open: the claims window opens now
            claims_window_start(tournament_id=locked.pk)
        results_changed_on_commit(locked.pk)  # the parts learn the new status (a final upload)
    tournament.status = status
    return tournament


def _check_ready_to_run(tournament: Tournament) -> None:
    seating = tournament_seating_status(tournament=tournament)
    if seating.state == SeatingState.NONE:
        raise TournamentError(
            _(
                "The seating has not been generated: check the players in, then generate the "
                "seating, movement and donnes on the preparation page."
            )
        )
    if seating.state == SeatingState.OUTDATED:
        raise TournamentError(
            _("The seating is out of date: regenerate it on the preparation page before starting.")
            + " "
            + " ".join(seating.reasons())
        )


def tournament_prepare(
    *, tournament: Tournament, seed: str | None = None, user: Any = None
) -> Tournament:
    """Generate (or regenerate) the seating, movement and donnes for the checked-in players.

    Only before the tournament runs; the generation service itself refuses once results
    exist (PreparationError, a ValueError with a translated message).
    """
    from .preparation import tournament_generate

    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if locked.status not in PREPARATION_STATUSES:
            raise TournamentError(
                _(
                    "The seating can only be generated before the tournament starts. Put it "
                    "back to registration first (possible while no result has been entered)."
                )
            )
        tournament_generate(tournament=locked, seed=seed, user=user)
    tournament.refresh_from_db()
    return tournament


@dataclass
class PlanSeat:
    position: str
    label: str
    player: Player


@dataclass
class PlanSitOut:
    donne: int
    position: str
    label: str
    player: Player | None


@dataclass
class PlanTable:
    number: int
    size: int
    etui_set: int
    donnes: list[int]
    seats: list[PlanSeat]
    sit_outs: list[PlanSitOut]


@dataclass
class PlanRound:
    number: int
    tables: list[PlanTable]


@dataclass
class PlanStop:
    round: int
    table: int
    position: str
    label: str


@dataclass
class PlanRoute:
    player: Player
    stops: list[PlanStop | None]
    sit_outs: list[int] = field(default_factory=list)  # donnes he sits out (RULES §7)


@dataclass
class SeatingPlan:
    rounds: list[PlanRound]
    routes: list[PlanRoute]
    # RULES §7: the spread of the sit-out counts, and the spread the movement declares
    # unavoidable (1 when sharing is exact); shown before play.
    sit_out_spread: int = 0
    sit_out_allowance: int = 1

    @property
    def has_tables_of_five(self) -> bool:
        return any(table.sit_outs for rnd in self.rounds for table in rnd.tables)

    @property
    def sit_out_fewest(self) -> int:
        return min((len(r.sit_outs) for r in self.routes), default=0)

    @property
    def sit_out_most(self) -> int:
        return max((len(r.sit_outs) for r in self.routes), default=0)

    @property
    def generated(self) -> bool:
        return bool(self.rounds)

    @property
    def sit_out_proved(self) -> bool:
        """The spread is above one and no movement at all does better (RULES §7): an
        exhaustive search proves it for these numbers of players and rounds."""
        from scoring.rules.movement import InvalidSeating, least_sit_out_spread

        if self.sit_out_spread <= 1:
            return False
        try:
            least = least_sit_out_spread(len(self.routes), len(self.rounds))
        except InvalidSeating:
            return False
        return least == self.sit_out_spread


POSITION_ORDER = {code: index for index, code in enumerate("NESWF")}


def tournament_seating_plan(*, tournament: Tournament) -> SeatingPlan:
    """Every round table by table (who sits where, which étui set, who is mort when) and every
    player's route, in four queries whatever the size of the tournament."""
    from django.db.models import Prefetch

    from ..models import Donne, SeatPosition, TableRound

    labels = dict(SeatPosition.choices)
    table_rounds = list(
        TableRound.objects.filter(round__tournament=tournament)
        .select_related("round", "table", "etui_set")
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player").order_by())
        )
        .order_by("round__number", "table__number")
    )
    donnes: dict[int, list[int]] = {}
    for set_id, number in (
        Donne.objects.filter(tournament=tournament)
        .order_by("number")
        .values_list("etui_set_id", "number")
    ):
        donnes.setdefault(set_id, []).append(number)

    rounds: dict[int, PlanRound] = {}
    stops: dict[int, dict[int, PlanStop]] = {}
    players: dict[int, Player] = {}
    sat_out: dict[int, list[int]] = {}
    for table_round in table_rounds:
        number = table_round.round.number
        seats = sorted(table_round.seats.all(), key=lambda s: POSITION_ORDER.get(s.position, 9))
        by_position = {seat.position: seat.player for seat in seats}
        set_donnes = donnes.get(table_round.etui_set_id, [])
        sit_outs = [
            PlanSitOut(
                donne=donne,
                position=position,
                label=labels.get(position, position),
                player=by_position.get(position),
            )
            for donne, position in zip(set_donnes, table_round.sit_outs, strict=False)
        ]
        for sit_out in sit_outs:
            if sit_out.player is not None:
                sat_out.setdefault(sit_out.player.pk, []).append(sit_out.donne)
        rounds.setdefault(number, PlanRound(number=number, tables=[])).tables.append(
            PlanTable(
                number=table_round.table.number,
                size=table_round.table.size,
                etui_set=table_round.etui_set.number,
                donnes=set_donnes,
                seats=[
                    PlanSeat(s.position, labels.get(s.position, s.position), s.player)
                    for s in seats
                ],
                sit_outs=sit_outs,
            )
        )
        for seat in seats:
            players[seat.player_id] = seat.player
            stops.setdefault(seat.player_id, {})[number] = PlanStop(
                round=number,
                table=table_round.table.number,
                position=seat.position,
                label=labels.get(seat.position, seat.position),
            )
    round_numbers = sorted(rounds)
    routes = [
        PlanRoute(
            player=player,
            stops=[stops[pid].get(n) for n in round_numbers],
            sit_outs=sorted(sat_out.get(pid, [])),
        )
        for pid, player in sorted(players.items(), key=lambda item: name_order(item[1]))
    ]
    counts = [len(route.sit_outs) for route in routes]
    declared = (tournament.movement or {}).get("sit_out_allowance", 1)
    return SeatingPlan(
        rounds=[rounds[n] for n in round_numbers],
        routes=routes,
        sit_out_spread=max(counts, default=0) - min(counts, default=0),
        sit_out_allowance=declared if isinstance(declared, int) else 1,
    )


# --- starting: what a tournament still needs before it runs --------------------------------

MIN_PLAYERS = 8  # RULES.md §7: 8, 9, 10 and every n >= 12 can be seated; 11 cannot


@dataclass(frozen=True)
class StartStep:
    """One thing a tournament needs before it runs, and the action that does it."""

    key: str  # "registration" | "players" | "seating" | "start"
    done: bool
    text: str
    action: str  # "" | "status" | "link" | "generate"
    target: str = ""  # the status to set, for "status"
    allowed: bool = True  # whether the user may take the action


def tournament_start_steps(*, tournament: Tournament, user: Any) -> list[StartStep]:
    """What a tournament not yet running still needs, in order; empty once it runs.

    Each step says what is missing and which action does it; ``allowed`` says whether
    ``user`` may take it (the club's organisers and the tournament's arbiters)."""
    from ..permissions import can_manage_tournament

    if tournament.status not in PREPARATION_STATUSES:
        return []
    allowed = can_manage_tournament(user, tournament)
    seating = tournament_seating_status(tournament=tournament)
    registration_open = tournament.status != Status.DRAFT
    count = seating.checked_in
    enough = count >= MIN_PLAYERS and count != 11
    if enough:
        players_text = ngettext(
            "%(count)d player checked in.", "%(count)d players checked in.", count
        ) % {"count": count}
    elif count == 11:
        players_text = _(
            "11 players are checked in: 11 cannot be seated (RULES: tables of four or five). "
            "Check one more player in, or one fewer."
        )
    else:
        players_text = ngettext(
            "%(count)d player checked in: at least 8 are needed. Check the players in.",
            "%(count)d players checked in: at least 8 are needed. Check the players in.",
            count,
        ) % {"count": count}
    if seating.current:
        seating_text = _("The seating, movement and donnes are generated.")
    elif seating.outdated:
        seating_text = (
            _("The seating is out of date: regenerate it.") + " " + " ".join(seating.reasons())
        )
    else:
        seating_text = _("The seating, movement and donnes are not generated yet.")
    steps = [
        StartStep(
            "registration",
            registration_open,
            _("Registration is open.") if registration_open else _("The tournament is a draft."),
            "" if registration_open else "status",
            Status.REGISTRATION,
            allowed,
        ),
        StartStep("players", enough, players_text, "link", "", allowed),
        StartStep(
            "seating",
            seating.current,
            seating_text,
            "" if seating.current or not enough else "generate",
            "",
            allowed,
        ),
        StartStep(
            "start",
            False,
            _("Once the seating is generated, start the tournament: results can then be entered."),
            "status" if registration_open and seating.current else "",
            Status.RUNNING,
            allowed,
        ),
    ]
    return steps


# --- publishing: the results still missing ---------------------------------------------------


class PublishNeedsConfirmation(TournamentError):
    """Results are missing: publish only once the organiser confirms; ``missing`` lists the
    (table, donne) cells without a result or an annulment."""

    def __init__(self, missing: list[tuple[int, int]]) -> None:
        self.missing = missing
        shown = ", ".join(
            _("table %(table)s donne %(donne)s") % {"table": t, "donne": d} for t, d in missing[:40]
        )
        if len(missing) > 40:
            shown += ", …"
        super().__init__(
            ngettext(
                "%(count)d result is missing (%(cells)s). Publish anyway only if these donnes "
                "were not played; confirm to publish.",
                "%(count)d results are missing (%(cells)s). Publish anyway only if these donnes "
                "were not played; confirm to publish.",
                len(missing),
            )
            % {"count": len(missing), "cells": shown}
        )


class FinishNeedsConfirmation(PublishNeedsConfirmation):
    """A round is still open or results are missing: finish only once the organiser confirms;
    ``missing`` lists the cells, ``open_rounds`` the numbers of the rounds still open."""

    def __init__(self, missing: list[tuple[int, int]], open_rounds: list[int]) -> None:
        self.missing = missing
        self.open_rounds = open_rounds
        parts = []
        if open_rounds:
            parts.append(
                ngettext(
                    "Round %(rounds)s is still open.",
                    "Rounds %(rounds)s are still open.",
                    len(open_rounds),
                )
                % {"rounds": ", ".join(str(n) for n in open_rounds)}
            )
        if missing:
            shown = ", ".join(
                _("table %(table)s donne %(donne)s") % {"table": t, "donne": d}
                for t, d in missing[:40]
            )
            if len(missing) > 40:
                shown += ", …"
            parts.append(
                ngettext(
                    "%(count)d result is missing (%(cells)s).",
                    "%(count)d results are missing (%(cells)s).",
                    len(missing),
                )
                % {"count": len(missing), "cells": shown}
            )
        parts.append(
            _(
                "Finish anyway only if play is over; confirm to finish. The arbiter can still "
                "enter or annul results after reopening the tournament."
            )
        )
        TournamentError.__init__(self, " ".join(parts))


def _open_rounds(tournament: Tournament) -> list[int]:
    from ..models import Round

    return list(
        Round.objects.filter(tournament=tournament, state=Round.State.OPEN)
        .order_by("number")
        .values_list("number", flat=True)
    )


def tournament_missing_cells(*, tournament: Tournament) -> list[tuple[int, int]]:
    """(table, donne) numbers that a table plays but has no result (nor annulment) for."""
    from ..models import TableRound

    plays = TableRound.objects.filter(round__tournament=tournament).values_list(
        "table__number", "etui_set_id"
    )
    donnes: dict[int, list[int]] = {}
    for set_id, number in Donne.objects.filter(tournament=tournament).values_list(
        "etui_set_id", "number"
    ):
        donnes.setdefault(set_id, []).append(number)
    done = set(
        Result.objects.filter(tournament=tournament).values_list("table__number", "donne__number")
    )
    return sorted(
        (table, number)
        for table, set_id in plays
        for number in donnes.get(set_id, [])
        if (table, number) not in done
    )
