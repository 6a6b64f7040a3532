"""The tournament's ledger (LedgerEntry): one append-only line per change, whoever makes it.

Results and penalties write their own lines (results.py, penalties.py); this module writes
the others — creation, edits, status, seating, seed, rounds, registrations changed once
seated — and describes any line for people to read. Call it inside the change's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import LedgerEntry, Player, Round, Tournament

__all__ = ["ledger_record", "snapshot_text", "tournament_snapshot"]

# The fields of a tournament whose edits are recorded (the seed stays secret until revealed).
TOURNAMENT_FIELDS = (
    "name",
    "date",
    "venue",
    "rounds",
    "donnes_per_relais",
    "method",
    "matchpoint_penalty_rate",
    "status",
)


def _user(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def ledger_record(
    *,
    tournament: Tournament,
    action: str,
    user: Any,
    before: Any = None,
    after: Any = None,
    reason: str = "",
    round_: Round | None = None,
    player: Player | None = None,
) -> LedgerEntry | None:
    """Append one line to the tournament's ledger. Changes people make (through the site or
    the API) are recorded; a service called without a user (test set-ups, the demo loader)
    records nothing."""
    if user is None:
        return None
    return LedgerEntry.objects.create(
        tournament=tournament,
        action=action,
        actor=_user(user),
        before=before,
        after=after,
        reason=(reason or "").strip()[:300],
        round=round_,
        player=player,
    )


def tournament_snapshot(tournament: Tournament) -> dict[str, Any]:
    """The recorded fields of a tournament, as JSON, plus its arbiters."""
    data: dict[str, Any] = {}
    for name in TOURNAMENT_FIELDS:
        value = getattr(tournament, name)
        data[name] = value if isinstance(value, int | str) or value is None else str(value)
    if tournament.pk:
        data["arbiters"] = sorted(u.username for u in tournament.arbiters.all())
    return data


def snapshot_text(action: str, snapshot: Any) -> str:
    """One line saying what a snapshot (before or after) of a non-result entry holds."""
    if not snapshot:
        return "—"
    if not isinstance(snapshot, Mapping):
        return str(snapshot)
    labels = dict(Tournament.Status.choices)
    parts = []
    for key, value in snapshot.items():
        if key == "status":
            value = labels.get(value, value)
        elif isinstance(value, Mapping):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        parts.append(f"{key}: {value}")
    return "; ".join(parts)
