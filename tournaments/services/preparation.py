"""Seating, movement, étuis and donnes of a tournament, from its checked-in players.

The pure modules decide (scoring.rules.movement, scoring.rules.dealing); this module stores their output.
The seed stays secret until the event is over; its commitment is public from the start, and
`tournament_verify` regenerates every donne from the revealed seed.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.rules import cards, dealing
from scoring.rules.errors import ScoringError
from scoring.rules.movement import (
    DONNES_PER_SET,
    FIFTH,
    Movement,
    generate_movement,
    most_players,
    sets_needed,
)

from ..models import (
    Donne,
    EtuiSet,
    LedgerEntry,
    Penalty,
    Player,
    Registration,
    Result,
    Round,
    Seat,
    Table,
    TableRound,
    Tournament,
)
from .errors import translate_error
from .ledger import ledger_record


class PreparationError(ValueError):
    """The seating or the donnes cannot be generated or verified; the message says why."""


# Parts that deal a tournament's donnes elsewhere register here (a simultaneous event's hub:
# tournaments/simultaneous/club). A source answers the donnes 1…n the tournament must play,
# or None when it has nothing to say about this tournament (it deals its own, from its seed).
DonneSource = Callable[[Tournament], "list[cards.Donne] | None"]
_DONNE_SOURCES: list[DonneSource] = []


def donne_source_register(source: DonneSource) -> None:
    """Add a source of given donnes (called from an app's ready(); the tournaments import
    nothing of it)."""
    if source not in _DONNE_SOURCES:
        _DONNE_SOURCES.append(source)


# Parts that limit how many players a tournament may seat register here (a simultaneous
# event's étui sets): a check answers, for the number of players registered, why they cannot
# all be seated (a sentence for the organiser), or None.
SeatingLimit = Callable[[Tournament, int], "str | None"]
_SEATING_LIMITS: list[SeatingLimit] = []


def seating_limit_register(check: SeatingLimit) -> None:
    """Add a check of the players a tournament may seat (from an app's ready())."""
    if check not in _SEATING_LIMITS:
        _SEATING_LIMITS.append(check)


def seating_limits(tournament: Tournament, players: int) -> list[str]:
    """Why ``players`` registered players cannot all be seated, one sentence per check."""
    return [said for check in _SEATING_LIMITS if (said := check(tournament, players))]


def given_donnes(tournament: Tournament) -> list[cards.Donne] | None:
    """The donnes dealt elsewhere that the tournament plays, or None when it deals its own."""
    for source in _DONNE_SOURCES:
        donnes = source(tournament)
        if donnes is not None:
            return donnes
    return None


def _movement(players: int, rounds: int, given: list[cards.Donne] | None) -> Movement:
    """The movement for the checked-in players; with donnes dealt elsewhere (a simultaneous
    event), one that uses no more étui sets than they fill, or why none can."""
    sets = None if given is None else len(given) // DONNES_PER_SET
    try:
        if sets is not None and sets_needed(players, rounds) > sets:
            raise PreparationError(too_many_players(players, rounds, sets))
        return generate_movement(players, rounds, sets=sets)
    except ScoringError as err:
        raise PreparationError(translate_error(err)) from err


def too_many_players(players: int, rounds: int, sets: int) -> str:
    """Why ``players`` cannot play ``rounds`` rounds with the ``sets`` étui sets an event
    deals, and how many can (the club's limit, in words an organiser acts on)."""
    needed = sets_needed(players, rounds)
    most = most_players(sets, rounds)
    message = _(
        "%(players)s players need %(needed)s étui sets (%(donnes)s donnes) for %(rounds)s "
        "rounds, but the event deals only %(available)s donnes (%(sets)s sets)."
    ) % {
        "players": players,
        "needed": needed,
        "donnes": DONNES_PER_SET * needed,
        "rounds": rounds,
        "available": DONNES_PER_SET * sets,
        "sets": sets,
    }
    if most is None:
        return message + " " + _("No club can play this event: ask its organiser for more sets.")
    return (
        message
        + " "
        + _(
            "The event takes at most %(most)s players per club: check in fewer players, or "
            "ask the event's organiser for more sets."
        )
        % {"most": most}
    )


def tournament_identity(tournament: Tournament) -> str:
    """The identity the seed is bound to: stable, public and unique per tournament."""
    return f"tarot_club/{tournament.club.federation_number}/{tournament.pk}/{tournament.date}"


@transaction.atomic
def tournament_generate(
    *, tournament: Tournament, seed: str | None = None, user: Any = None
) -> Movement:
    """(Re)build the tables, rounds, étui sets, donnes and seats from the checked-in players.

    Refused once a result, or a penalty tied to a donne, exists: a re-seating would orphan
    them. The seed is kept
    once chosen, so regenerating (a late arrival) deals the same donnes under each number.
    """
    locked = Tournament.objects.select_for_update().select_related("club").get(pk=tournament.pk)
    if Result.objects.filter(tournament=locked).exists():
        raise PreparationError(
            _("Results have been entered: the seating can no longer be regenerated.")
        )
    if Penalty.objects.filter(tournament=locked, donne__isnull=False).exists():
        raise PreparationError(
            _("Penalties tied to a donne exist: the seating can no longer be regenerated.")
        )
    if locked.status in (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED):
        raise PreparationError(_("The tournament is over: its seating can no longer change."))
    players = list(
        Player.objects.filter(
            registrations__tournament=locked, registrations__checked_in_at__isnull=False
        )
    )
    given = given_donnes(locked)
    movement = _movement(len(players), locked.rounds, given)
    # Seating order is drawn at random: table assignments are not part of the fairness
    # commitment, the donnes are.
    secrets.SystemRandom().shuffle(players)
    # Dealt elsewhere (a simultaneous event), the identity and commitment were stored when
    # the tournament joined; the seed is not known here until it is revealed.
    if given is None and (seed is not None or not locked.seed):
        try:
            locked.seed = dealing.seed_bytes(seed or dealing.new_seed()).hex()
        except ScoringError as err:
            raise PreparationError(translate_error(err)) from err
        locked.identity = tournament_identity(locked)
        locked.commitment = dealing.commitment(locked.seed, locked.identity)
        locked.seed_revealed_at = None
    before = (
        {
            "players": locked.movement.get("players"),
            "rounds": len(locked.movement.get("rounds", [])),
        }
        if isinstance(locked.movement, dict)
        else None
    )
    _clear_seating(locked)
    _store_movement(locked, movement, players, given)
    locked.movement = movement.to_dict()
    locked.save(update_fields=["seed", "identity", "commitment", "seed_revealed_at", "movement"])
    ledger_record(
        tournament=locked,
        action=LedgerEntry.Action.SEATING_GENERATED,
        user=user,
        before=before,
        after={
            "players": len(players),
            "rounds": locked.rounds,
            "tables": Table.objects.filter(tournament=locked).count(),
            "commitment": locked.commitment,
        },
        reason_code="seating_regenerated" if before is not None else "",
    )
    tournament.refresh_from_db()
    return movement


def _clear_seating(tournament: Tournament) -> None:
    Seat.objects.filter(round__tournament=tournament).delete()
    TableRound.objects.filter(round__tournament=tournament).delete()
    Round.objects.filter(tournament=tournament).delete()
    Table.objects.filter(tournament=tournament).delete()
    Donne.objects.filter(tournament=tournament).delete()
    EtuiSet.objects.filter(tournament=tournament).delete()


def _store_movement(
    tournament: Tournament,
    movement: Movement,
    players: list[Player],
    given: list[cards.Donne] | None = None,
) -> None:
    """Write the movement's rows; player k of the movement is players[k - 1]. The donnes are
    dealt from the tournament's seed, or are the first of ``given`` (dealt elsewhere)."""
    first = movement.rounds[0].sittings
    tables = Table.objects.bulk_create(
        Table(tournament=tournament, number=s.table, size=len(s.seats)) for s in first
    )
    table_by_number = {t.number: t for t in tables}
    rounds = Round.objects.bulk_create(
        Round(tournament=tournament, number=r.number) for r in movement.rounds
    )
    round_by_number = {r.number: r for r in rounds}
    sets = EtuiSet.objects.bulk_create(
        EtuiSet(tournament=tournament, number=k) for k in range(1, movement.sets + 1)
    )
    set_by_number = {s.number: s for s in sets}
    dealt = (
        given[: movement.donnes]
        if given is not None
        else dealing.generate_donnes(tournament.seed, tournament.identity, movement.donnes)
    )
    Donne.objects.bulk_create(
        Donne(
            tournament=tournament,
            etui_set=set_by_number[(d.number - 1) // 4 + 1],
            number=d.number,
            dealer=d.dealer,
            hand_n=cards.format_hand(d.hand("N")),
            hand_e=cards.format_hand(d.hand("E")),
            hand_s=cards.format_hand(d.hand("S")),
            hand_w=cards.format_hand(d.hand("W")),
            chien=cards.format_hand(d.chien),
            redraws=d.redraws,
        )
        for d in dealt
    )
    table_rounds: list[TableRound] = []
    seat_specs: list[tuple[int, Round, Player, str]] = []
    for rnd in movement.rounds:
        for sitting in rnd.sittings:
            table_rounds.append(
                TableRound(
                    round=round_by_number[rnd.number],
                    table=table_by_number[sitting.table],
                    etui_set=set_by_number[sitting.set_no],
                    sit_outs="".join(sitting.sit_out),
                )
            )
            index = len(table_rounds) - 1
            for role, number in sitting.seats:
                seat_specs.append((index, round_by_number[rnd.number], players[number - 1], role))
    TableRound.objects.bulk_create(table_rounds)
    Seat.objects.bulk_create(
        Seat(table_round=table_rounds[i], round=rnd, player=player, position=role)
        for i, rnd, player, role in seat_specs
    )


@dataclass(frozen=True)
class DonneSeats:
    """Who holds which hand on one donne at one table, and who sits out (table of five)."""

    hands: dict[str, Player]
    sitter: Player | None


def seats_for_donne(
    table_round: TableRound, index: int, seats: list[Seat] | None = None
) -> DonneSeats:
    """Holders of the four hands on donne `index` (0-based in the relais) of a table round.

    At a table of five the fifth player takes the hand of the position that sits out
    (RULES.md §7); if the fifth player is the one sitting out, the four play as seated.
    """
    seats = seats if seats is not None else list(table_round.seats.select_related("player"))
    by_role = {seat.position: seat.player for seat in seats}
    hands = {pos: by_role[pos] for pos in ("N", "E", "S", "W") if pos in by_role}
    sitter = None
    if FIFTH in by_role and index < len(table_round.sit_outs):
        role = table_round.sit_outs[index]
        sitter = by_role.get(role)
        if role != FIFTH and role in hands:
            hands[role] = by_role[FIFTH]
    return DonneSeats(hands=hands, sitter=sitter)


def donne_index(table_round: TableRound, donne: Donne) -> int:
    """Position (0-based) of a donne within the relais the table plays this round."""
    return (donne.number - 1) % 4


def donne_from_row(donne: Donne) -> cards.Donne:
    """The stored donne as the pure module's value (for card checks and verification)."""
    return cards.Donne(
        donne.number,
        donne.dealer,
        tuple(cards.parse_hand(donne.hand(p)) for p in ("N", "E", "S", "W")),
        cards.parse_hand(donne.chien),
        redraws=donne.redraws,
    )


@transaction.atomic
def tournament_reveal_seed(*, tournament: Tournament, user: Any = None) -> None:
    """Make the seed public, once the event is over, so anyone can check the donnes."""
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if locked.status not in (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED):
        raise PreparationError(
            _("The seed is revealed only once the tournament is finished, never before play.")
        )
    if not locked.seed and given_donnes(locked) is not None:
        raise PreparationError(_given_seed_message(locked))
    if not locked.seed:
        raise PreparationError(_("No donnes have been generated for this tournament."))
    if locked.seed_revealed_at is None:
        locked.seed_revealed_at = timezone.now()
        locked.save(update_fields=["seed_revealed_at"])
        ledger_record(
            tournament=locked,
            action=LedgerEntry.Action.SEED_REVEALED,
            user=user,
            before={"seed": None},
            after={"seed": locked.seed},
        )
    tournament.refresh_from_db()


def _given_seed_message(tournament: Tournament) -> str:
    """Why a tournament playing donnes dealt elsewhere (a simultaneous event) has no seed to
    reveal, and where its donnes are checked."""
    from django.urls import NoReverseMatch, reverse

    try:
        where = reverse("simultaneous_club", args=[tournament.pk])
    except NoReverseMatch:
        where = ""
    message = _(
        "This tournament plays the donnes of a simultaneous event: their seed is the event's, "
        "revealed by the event's hub once every club's session has ended, not by this site."
    )
    if where:
        message += " " + _(
            "The donnes are checked against it on the tournament's simultaneous event page: %(url)s"
        ) % {"url": where}
    return message


def tournament_verify(
    *, tournament: Tournament, seed: str | None = None
) -> dealing.VerificationReport:
    """Regenerate every donne from the seed and compare with what was played.

    Anyone may verify once the seed is revealed; before that, only with the seed in hand.
    """
    if seed is None:
        if tournament.seed_revealed_at is None:
            raise PreparationError(_("The seed has not been revealed yet."))
        seed = tournament.seed
    rows = list(Donne.objects.filter(tournament=tournament).order_by("number"))
    if not rows:
        raise PreparationError(_("No donnes have been generated for this tournament."))
    try:
        played = [donne_from_row(row) for row in rows]
        return dealing.verify(seed, tournament.identity, tournament.commitment, played)
    except ScoringError as err:
        raise PreparationError(translate_error(err)) from err


def registrations_checked_in(tournament: Tournament) -> int:
    return Registration.objects.filter(tournament=tournament, checked_in_at__isnull=False).count()
