"""An event's field and stored overall ranking for the pages' tests.

The field's rows are written as the hub's upload application writes them, and the stored
ranking as the hub's ranking task stores it (`scoring.rules.ranking.compute_ranking` over
the pooled results, one row per player with his card), so the pages read what they read in
production.
"""

from __future__ import annotations

import hashlib
import itertools
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.utils import timezone

from scoring.rules import dealing
from scoring.rules.ranking import Penalty, Play, compute_ranking, exact_value
from tournaments.search import fold
from tournaments.simultaneous.hub.models import (
    FieldPenalty,
    FieldPlayer,
    FieldResult,
    Invitation,
    OverallRankingRow,
    OverallRankingState,
    SimultaneousEvent,
)
from tournaments.simultaneous.hub.wire import POSITIONS, expected_scores

_counter = itertools.count(1)


def make_event(
    *, organisers: Iterable[Any] = (), method: str = "average", sets: int = 2, **extra: Any
) -> SimultaneousEvent:
    """An open event under embargo, its donnes dealt from a fresh seed."""
    public_id = f"ev{next(_counter)}{secrets.token_hex(3)}"
    seed = dealing.new_seed()
    identity = f"simultaneous:{public_id}"
    event = SimultaneousEvent.objects.create(
        public_id=public_id,
        name=extra.pop("name", "Simultané d’hiver"),
        date=extra.pop("date", "2027-01-16"),
        rounds=extra.pop("rounds", 2),
        sets=sets,
        method=method,
        identity=identity,
        seed=seed,
        commitment=dealing.commitment(seed, identity),
        **extra,
    )
    event.organisers.set(list(organisers))
    return event


def lift_embargo(event: SimultaneousEvent) -> None:
    event.embargo_lifted_at = timezone.now()
    event.state = SimultaneousEvent.State.CLOSED
    event.save(update_fields=["embargo_lifted_at", "state"])


def add_club(
    event: SimultaneousEvent, name: str, players: Sequence[tuple[str, str, str]]
) -> Invitation:
    """An invited club and its players (licence, first name, last name)."""
    invitation = Invitation.objects.create(
        event=event,
        club_name=name,
        token_sha256=hashlib.sha256(secrets.token_bytes(16)).hexdigest(),
    )
    FieldPlayer.objects.bulk_create(
        FieldPlayer(
            event=event, invitation=invitation, licence=lic, first_name=first, last_name=last
        )
        for lic, first, last in players
    )
    return invitation


def result(
    invitation: Invitation,
    table: int,
    donne: int,
    holders: Sequence[str],
    *,
    taker: str = "N",
    contract: str = "garde",
    bouts: int = 2,
    points: str = "51",
    status: str = "played",
    sitter: str = "",
) -> FieldResult:
    """A field result with the scores the engine gives (none when annulled)."""
    played = status == "played"
    scores = expected_scores(taker, contract, bouts, Decimal(points), "", {}, "") if played else {}
    return FieldResult(
        event=invitation.event,
        invitation=invitation,
        table=table,
        donne=donne,
        status=status,
        holders=dict(zip(POSITIONS, holders, strict=True)),
        sitter=sitter,
        taker=taker if played else "",
        contract=contract if played else "",
        bouts=bouts if played else None,
        points=Decimal(points) if played else None,
        scores=scores,
    )


def store_ranking(event: SimultaneousEvent) -> None:
    """Rank the pooled field (every club's results) and store the rows, as the hub's task."""
    results = list(FieldResult.objects.filter(event=event))
    plays, annulled, sit_outs = [], [], []
    for r in results:
        table = (r.invitation_id, r.table)
        if r.status == FieldResult.Status.ANNULLED:
            annulled.append((r.donne, table))
        for position, licence in r.holders.items():
            plays.append(Play(licence, r.donne, position, table, r.scores.get(position, 0)))
        if r.sitter:
            sit_outs.append((r.sitter, r.donne))
    penalties = [
        Penalty(p.licence, p.points, p.donne)
        for p in FieldPenalty.objects.filter(event=event, withdrawn=False)
    ]
    ranking = compute_ranking(
        plays,
        method=event.method,
        annulled=annulled,
        sit_outs=sit_outs,
        penalties=penalties,
        matchpoint_penalty_rate=str(event.matchpoint_penalty_rate),
    )
    players = {p.licence: p for p in FieldPlayer.objects.filter(event=event)}
    clubs = dict(Invitation.objects.filter(event=event).values_list("pk", "club_name"))
    OverallRankingRow.objects.filter(event=event).delete()
    rows = []
    for place, row in enumerate(ranking.rows, start=1):
        person = players[row.player]
        rows.append(
            OverallRankingRow(
                event=event,
                results_version=event.results_version,
                place=place,
                rank=row.rank,
                licence=row.player,
                first_name=person.first_name,
                last_name=person.last_name,
                invitation_id=person.invitation_id,
                club_name=clubs[person.invitation_id],
                total=str(exact_value(row.total)),
                total_value=float(row.total),
                differential_total=str(exact_value(row.differential_total)),
                penalty_points=row.penalty_points,
                donnes_played=row.donnes_played,
                donnes_compared=row.donnes_compared,
                search_name=fold(f"{person.first_name} {person.last_name} {row.player}"),
                card=[_card_line(d, line) for d, line in sorted(row.per_donne.items())],
            )
        )
    OverallRankingRow.objects.bulk_create(rows, batch_size=1000)
    OverallRankingState.objects.update_or_create(
        event=event,
        defaults={
            "results_version": event.results_version,
            "computed_at": timezone.now(),
            "players": len(rows),
        },
    )


def _card_line(donne: int, line: Any) -> list[Any]:
    table = line.table
    return [
        donne,
        line.position,
        table[0] if table else None,
        table[1] if table else None,
        exact_value(line.score) if line.score is not None else None,
        exact_value(line.differential),
        exact_value(line.percentage) if line.percentage is not None else None,
        str(line.status),
        line.group_size,
    ]


@dataclass
class Field:
    """A small field: two clubs of four and eight players, all the event's donnes played."""

    event: SimultaneousEvent
    clubs: list[Invitation] = field(default_factory=list)
    licences: list[str] = field(default_factory=list)


def small_field(event: SimultaneousEvent) -> Field:
    """Club A (one table), club B (two tables) play every donne of the event; the contracts
    vary with the table so each donne has several outcomes. Ranking stored."""
    names = [("Anne", "Martin"), ("Bruno", "Lefèvre"), ("Chloé", "Dupont"), ("Denis", "Roux")]
    a = add_club(event, "Club des Quatre Rois", [(f"100000{k}", *names[k]) for k in range(4)])
    b_players = [(f"20000{k:02d}", f"Prénom{k}", f"Nom{k}") for k in range(8)]
    b = add_club(event, "=Tarot Club de Lyon", b_players)
    licences = [f"100000{k}" for k in range(4)] + [p[0] for p in b_players]
    rows = []
    outcomes = [("garde", "56", 1), ("prise", "40", 1), ("garde_sans", "45", 2)]
    for donne in range(1, event.donne_count + 1):
        for k, (inv, table, seats) in enumerate(
            [(a, 1, licences[0:4]), (b, 1, licences[4:8]), (b, 2, licences[8:12])]
        ):
            contract, points, bouts = outcomes[(k + donne) % 3]
            rows.append(
                result(inv, table, donne, seats, contract=contract, points=points, bouts=bouts)
            )
    FieldResult.objects.bulk_create(rows)
    SimultaneousEvent.objects.filter(pk=event.pk).update(results_version=1)
    event.refresh_from_db()
    store_ranking(event)
    return Field(event, [a, b], licences)
