"""Uploads built as a club would build them, for the hub's tests (and the benchmark)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from scoring.rules import dealing
from scoring.rules.cards import format_hand
from tournaments.simultaneous.hub.wire import FORMAT, POSITIONS, expected_scores

SEED = "5eed" * 16
IDENTITY = "simultaneous:test"


def donne_dicts(seed: str, identity: str, count: int) -> list[dict[str, Any]]:
    """The event's donnes 1…count in the upload's shape."""
    return [
        {
            "number": d.number,
            "dealer": d.dealer,
            "hands": {p: format_hand(d.hand(p)) for p in POSITIONS},
            "chien": format_hand(d.chien),
        }
        for d in dealing.generate_donnes(seed, identity, count)
    ]


def played(
    table: int,
    donne: int,
    holders: Sequence[str] | Mapping[str, str],
    *,
    taker: str = "N",
    contract: str = "garde",
    bouts: int = 2,
    points: str = "51",
    petit_au_bout: str = "",
    poignees: Mapping[str, str] | None = None,
    chelem: str = "",
    version: int = 1,
    sitter: str | None = None,
) -> dict[str, Any]:
    """A played result with the scores the engine gives."""
    if not isinstance(holders, Mapping):
        holders = dict(zip(POSITIONS, holders, strict=True))
    poignees = dict(poignees or {})
    from decimal import Decimal

    scores = expected_scores(
        taker, contract, bouts, Decimal(points), petit_au_bout, poignees, chelem
    )
    return {
        "table": table,
        "donne": donne,
        "version": version,
        "status": "played",
        "holders": dict(holders),
        "sitter": sitter,
        "taker": taker,
        "contract": contract,
        "bouts": bouts,
        "points": points,
        "petit_au_bout": petit_au_bout,
        "poignees": poignees,
        "chelem": chelem,
        "scores": scores,
    }


def annulled(
    table: int, donne: int, holders: Sequence[str], *, version: int = 1, sitter: str | None = None
) -> dict[str, Any]:
    return {
        "table": table,
        "donne": donne,
        "version": version,
        "status": "annulled",
        "holders": dict(zip(POSITIONS, holders, strict=True)),
        "sitter": sitter,
        "scores": {},
    }


def player(licence: str, first: str = "Anne", last: str | None = None) -> dict[str, str]:
    return {"licence": licence, "first_name": first, "last_name": last or f"Joueur {licence}"}


def upload(
    *,
    event: str,
    club: str,
    identity: str,
    commitment: str,
    donnes: list[dict[str, Any]],
    players: Iterable[dict[str, str]],
    results: Iterable[dict[str, Any]],
    penalties: Iterable[dict[str, Any]] = (),
    sequence: int = 1,
    final: bool = False,
    generated_at: str = "2027-01-16T18:02:11Z",
) -> dict[str, Any]:
    """A whole upload (format version 1)."""
    return {
        "format": FORMAT,
        "version": 1,
        "event": event,
        "club": club,
        "identity": identity,
        "commitment": commitment,
        "sequence": sequence,
        "generated_at": generated_at,
        "final": final,
        "donnes": donnes,
        "players": list(players),
        "results": list(results),
        "penalties": list(penalties),
    }
