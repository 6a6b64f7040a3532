"""The tournament's ledger (LedgerEntry): one append-only line per change, whoever makes it.

Results and penalties write their own lines (results.py, penalties.py); this module writes
the others — creation, edits, status, seating, seed, rounds, registrations changed once
seated. Lines hold codes and raw values; `tournaments.ledger_text` puts them in words when
they are read. Call it inside the change's transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import LedgerEntry, Player, Round, Tournament

__all__ = ["ledger_record", "tournament_snapshot"]

# The fields of a tournament whose edits are recorded (the seed stays secret until revealed).
TOURNAMENT_FIELDS = (
    "name",
    "date",
    "venue",
    "rounds",
    "donnes_per_relais",
    "method",
    "matchpoint_penalty_rate",
    "claims_window_minutes",
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
    reason_code: str = "",
    reason_params: Mapping[str, Any] | None = None,
    round_: Round | None = None,
    player: Player | None = None,
) -> LedgerEntry | None:
    """Append one line to the tournament's ledger. Changes people make (through the site or
    the API) are recorded; a service called without a user (test set-ups, the demo loader)
    records nothing.

    ``reason`` is what a person typed; a reason the software gives is ``reason_code`` (one of
    `tournaments.ledger_text.REASON_CODES`) with its ``reason_params``, put in words when read.
    ``before`` and ``after`` hold field codes and raw values, never text for people."""
    if user is None:
        return None
    return LedgerEntry.objects.create(
        tournament=tournament,
        action=action,
        actor=_user(user),
        before=before,
        after=after,
        reason=(reason or "").strip()[:300],
        reason_code=reason_code,
        reason_params=dict(reason_params) if reason_params else None,
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
