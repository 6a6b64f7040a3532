"""An event's field and stored overall ranking for the pages' tests, built as in production:
the event created and its clubs invited by the hub's services, each club's upload received
and applied (`services.upload_receive`), the overall ranking computed and stored by the hub's
`ranking.overall_recompute`.

Only the 12,000-player size test writes ranking rows straight into the hub's table
(`bulk_ranking_rows`): what it measures is the page built from stored rows, and feeding
3,000 tables through uploads would test the hub's speed, not the page.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from tests.tournaments.simultaneous.hub.builders import annulled, played, player, upload
from tournaments.search import player_search_name
from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.models import (
    Invitation,
    OverallRankingClub,
    OverallRankingGroup,
    OverallRankingRow,
    OverallRankingState,
    SimultaneousEvent,
)
from tournaments.simultaneous.hub.ranking import overall_recompute

NAMES_A = [("Anne", "Martin"), ("Bruno", "Lefèvre"), ("Chloé", "Dupont"), ("Denis", "Roux")]
OUTCOMES = [("garde", "56", 1), ("prise", "40", 1), ("garde_sans", "45", 2)]


@dataclass
class Field:
    """An event with two clubs: A plays one table (licences 1000000…3), B two tables
    (2000000…07); `tokens` by club."""

    event: SimultaneousEvent
    organiser: Any
    clubs: list[Invitation] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    licences: list[str] = field(default_factory=list)

    def send(self, club: int, results: list[dict[str, Any]], players: list[dict], **kw: Any):
        """Club `club`'s upload of `results`, received and applied by the hub."""
        invitation, token = self.clubs[club], self.tokens[club]
        numbers = {r["donne"] for r in results} or {1}
        data = upload(
            event=self.event.public_id,
            club=invitation.public_id,
            identity=self.event.identity,
            commitment=self.event.commitment,
            donnes=[d for d in services.event_donnes(self.event) if d["number"] in numbers],
            players=players,
            results=results,
            **kw,
        )
        body = json.dumps(data).encode()
        return services.upload_receive(
            body=body, token=token, signature=services.signature_of(token, body)
        )

    def rank(self) -> None:
        """Compute and store the overall ranking (the hub's task, in this process)."""
        overall_recompute(event_id=self.event.pk)
        self.event.refresh_from_db()


def make_field(
    organiser: Any,
    *,
    method: str = "average",
    sets: int = 2,
    name: str = "Simultané d’hiver",
    clubs: tuple[str, str] = ("Club des Quatre Rois", "=Tarot Club de Lyon"),
) -> Field:
    """The event (under embargo) and its two invited clubs, nothing uploaded yet."""
    event = services.event_create(
        user=organiser,
        name=name,
        date=dt.date(2027, 1, 16),
        rounds=2,
        sets=sets,
        method=method,
    )
    invitations = [
        services.invitation_create(event=event, user=organiser, club_name=name) for name in clubs
    ]
    licences = [f"100000{k}" for k in range(4)] + [f"20000{k:02d}" for k in range(8)]
    return Field(
        event,
        organiser,
        [i for i, _t in invitations],
        [t for _i, t in invitations],
        licences,
    )


def small_field(
    organiser: Any,
    *,
    method: str = "average",
    annul: bool = False,
    names: list[tuple[str, str]] | None = None,
    **event: Any,
) -> Field:
    """Every donne played at club A's table and club B's two tables, the contracts varying
    with the table so that each donne has several outcomes; club B's table 2 annulled on
    donne 1 when `annul`. Uploaded by both clubs and ranked. `names`: the twelve players'
    (first, last), else short ones; `event`: `make_field`'s name and clubs."""
    f = make_field(organiser, method=method, **event)
    seats = [f.licences[0:4], f.licences[4:8], f.licences[8:12]]
    by_club: list[list[dict[str, Any]]] = [[], []]
    for donne in range(1, f.event.donne_count + 1):
        for k, (club, table) in enumerate([(0, 1), (1, 1), (1, 2)]):
            contract, points, bouts = OUTCOMES[(k + donne) % 3]
            if annul and donne == 1 and k == 2:
                by_club[club].append(annulled(table, donne, seats[k]))
                continue
            by_club[club].append(
                played(table, donne, seats[k], contract=contract, points=points, bouts=bouts)
            )
    players_a = [
        player(lic, first, last) for lic, (first, last) in zip(f.licences[:4], NAMES_A, strict=True)
    ]
    players_b = [player(lic, f"Prénom{k}", f"Nom{k}") for k, lic in enumerate(f.licences[4:])]
    f.send(0, by_club[0], players_a)
    f.send(1, by_club[1], players_b)
    f.rank()
    return f


def lift_embargo(f: Field) -> None:
    """The organiser closes the event: the embargo ends."""
    services.event_close(event=f.event, user=f.organiser)
    f.event.refresh_from_db()


def bulk_ranking_rows(event: SimultaneousEvent, players: int, *, clubs: int = 300) -> None:
    """`players` stored ranking rows shaped as the hub's ranking stores them (names of 20–30
    characters, clubs of 25–40, a card of 24 donnes: each player North at his own table,
    scoring 204, worth 153/2 in groups of 40), for the size of the pages."""
    invitations = [
        services.invitation_create(
            event=event,
            user=event.created_by,
            club_name=f"Club de tarot de Saint-Martin n° {k:03d}",
        )[0]
        for k in range(clubs)
    ]
    rows = []
    results: dict[int, list[list[Any]]] = {}
    for place in range(1, players + 1):
        invitation = invitations[place % clubs]
        first, last = f"Marie-Claude{place}", f"Dupont-Lefèvre{place}"
        licence = f"{place:07d}"
        rows.append(
            OverallRankingRow(
                event=event,
                results_version=1,
                place=place,
                rank=place - (place % 7 == 0),
                licence=licence,
                first_name=first,
                last_name=last,
                invitation=invitation,
                club_name=invitation.club_name,
                total=f"{(players // 2 - place) * 3}/2",
                total_value=(players // 2 - place) * 1.5,
                differential_total=f"{(players // 2 - place) * 3}/2",
                penalty_points=int(place % 11 == 0),
                donnes_played=24,
                donnes_compared=24,
                search_name=f"{player_search_name(first_name=first, last_name=last)} {licence}",
            )
        )
        results.setdefault(invitation.pk, []).extend(
            [place, d, "played", {"N": licence}, {"N": 204}, ""] for d in range(1, 25)
        )
    OverallRankingRow.objects.bulk_create(rows, batch_size=2000)
    OverallRankingClub.objects.bulk_create(
        OverallRankingClub(event=event, invitation_id=pk, serial=0, results=kept)
        for pk, kept in results.items()
    )
    OverallRankingGroup.objects.bulk_create(
        OverallRankingGroup(
            event=event, donne=d, position="N", size=40, values=[[204, "153/2", None]]
        )
        for d in range(1, 25)
    )
    SimultaneousEvent.objects.filter(pk=event.pk).update(results_version=1)
    OverallRankingState.objects.update_or_create(
        event=event,
        defaults={"results_version": 1, "computed_at": timezone.now(), "players": players},
    )
    event.refresh_from_db()
