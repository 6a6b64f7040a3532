"""The upload: a club tournament's whole current state in the hub's format (version 1).

One upload holds everything that counts at the club now, so sending it again is harmless and a
club that was offline just sends its latest state. See docs/API.md (simultaneous events) and
docs/simultaneous-upload.schema.json.
"""

from __future__ import annotations

import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.models import Donne, Penalty, Player, Result, Seat, Tournament
from tournaments.search import name_ordering

from .models import SimultaneousLink

FORMAT = "tarot_club/simultaneous-upload"
VERSION = 1
POSITIONS = ("N", "E", "S", "W")


class UploadRefused(ValueError):
    """The club cannot build an upload (players without licence); the message says who."""


def is_final(tournament: Tournament) -> bool:
    """The session has ended at the club: its upload is the final one."""
    return tournament.status in (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED)


def _result_row(result: Result, licence_of: dict[int, str]) -> dict[str, Any]:
    holders = {pos: licence_of[int(pid)] for pos, pid in sorted(result.holders.items())}
    row: dict[str, Any] = {
        "table": result.table.number,
        "donne": result.donne.number,
        "version": result.version,
        "status": result.status,
        "holders": holders,
        "sitter": licence_of[result.sitter_id] if result.sitter_id else None,
    }
    if result.status == Result.Status.PLAYED:
        row.update(
            {
                "taker": result.taker,
                "contract": result.contract,
                "bouts": result.bouts,
                "points": format(result.points.normalize(), "f")
                if result.points is not None
                else None,
                "petit_au_bout": result.petit_au_bout,
                "poignees": dict(result.poignees or {}),
                "chelem": result.chelem,
                "scores": {pos: int(result.scores[pos]) for pos in POSITIONS},
            }
        )
    return row


def _players(
    tournament: Tournament, results: list[Result], penalties: list[Penalty]
) -> list[Player]:
    ids: set[int] = set(
        Seat.objects.filter(round__tournament=tournament).values_list("player_id", flat=True)
    )
    for result in results:
        ids.update(int(pid) for pid in result.holders.values())
        if result.sitter_id:
            ids.add(result.sitter_id)
    ids.update(p.player_id for p in penalties)
    return list(Player.objects.filter(pk__in=ids).order_by(*name_ordering()))


def build_upload(
    *, link: SimultaneousLink, sequence: int, now: datetime.datetime | None = None
) -> dict[str, Any]:
    """The upload of the link's tournament as it stands, numbered ``sequence``.

    Only results that count at the club (arbiter entries, confirmed table entries); holders
    and sitters as licences; every penalty with whether it was withdrawn; the donnes the club
    plays with their hands; ``final`` once the tournament is finished. Raises UploadRefused
    when a player involved has no licence (the hub keys players by licence).
    """
    tournament = link.tournament
    results = list(
        Result.objects.counted()
        .filter(tournament=tournament)
        .select_related("table", "donne")
        .order_by("donne__number", "table__number")
    )
    penalties = list(
        Penalty.objects.filter(tournament=tournament).select_related("donne").order_by("pk")
    )
    players = _players(tournament, results, penalties)
    missing = [p.full_name for p in players if not (p.licence or "").strip()]
    if missing:
        raise UploadRefused(
            _("These players have no licence number, so the hub cannot rank them: %(names)s.")
            % {"names": ", ".join(missing)}
        )
    licence_of = {p.pk: p.licence for p in players}
    donnes = Donne.objects.filter(tournament=tournament).order_by("number")
    moment = (now or timezone.now()).astimezone(datetime.UTC).replace(microsecond=0)
    return {
        "format": FORMAT,
        "version": VERSION,
        "event": link.event,
        "club": link.invitation,
        "identity": tournament.identity,
        "commitment": tournament.commitment,
        "sequence": sequence,
        "generated_at": moment.isoformat().replace("+00:00", "Z"),
        "final": is_final(tournament),
        "donnes": [
            {
                "number": d.number,
                "dealer": d.dealer,
                "hands": {pos: d.hand(pos) for pos in POSITIONS},
                "chien": d.chien,
            }
            for d in donnes
        ],
        "players": [
            {"licence": p.licence, "first_name": p.first_name, "last_name": p.last_name}
            for p in players
        ],
        "results": [_result_row(r, licence_of) for r in results],
        "penalties": [
            {
                "ref": str(p.pk),
                "licence": licence_of[p.player_id],
                "points": p.points,
                "donne": p.donne.number if p.donne_id else None,
                "withdrawn": p.withdrawn_at is not None,
            }
            for p in penalties
        ],
    }
