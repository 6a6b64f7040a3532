"""The ledger in words: what a `LedgerEntry` says, in the reader's language, at read time.

An entry stores codes — its action, the field codes and raw values of its ``before`` and
``after``, a reason typed by a person as typed, or a reason the software gave as a code
(``reason_code`` and ``reason_params``) — and this module is the one place that puts them in
words, for the arbiter's ledger page, the API and the arbiter's log (PDF). Call it under the
language to write in (the request's, the document's). A value it does not know reads as
stored, so entries of kinds added later still show.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django.utils.formats import date_format
from django.utils.timezone import is_aware, localtime
from django.utils.translation import get_language, ngettext, pgettext
from django.utils.translation import gettext as _

from scoring.rules.display import decimal_text, position_letter, signed_text

from .models import (
    ArbiterCall,
    Chelem,
    Claim,
    Contract,
    EntryStatus,
    Irregularity,
    LedgerEntry,
    Method,
    Penalty,
    PetitAuBout,
    PoigneeSize,
    Position,
    Result,
    Round,
    SeatPosition,
    Tournament,
)

__all__ = [
    "REASON_CODES",
    "Change",
    "LedgerText",
    "entry_text",
    "reason_text",
    "value_text",
]

NOTHING = "—"
# The reasons the software gives, by code (their words are in `reason_text`).
REASON_CODES = (
    "seating_regenerated",
    "published_missing",
    "finished_missing",
    "table_entry",
    "table_confirmed",
)
# A claim's entries name the result they are about, but say what the claim changed.
CLAIM_ACTIONS = frozenset({LedgerEntry.Action.CLAIM_FILED, LedgerEntry.Action.CLAIM_SETTLED})
# How a player at the table proved who he is (``reason_params["proof"]`` of a table's entry).
PROOF_CODE = "code"
PROOF_PHONE = "phone"
# Stored keys that say nothing to a reader (identifiers, bookkeeping).
HIDDEN = frozenset(
    {
        "version",
        "holders",
        "sitter",
        "confirmed_warnings",
        "id",
        "pk",
        "table",
        "donne",
        "player",
        "claim",
    }
)


@dataclass(frozen=True)
class Change:
    """One field an entry changed: its code and raw values, and the same in words."""

    field: str
    field_display: str
    before: Any
    before_display: str
    after: Any
    after_display: str

    def text(self) -> str:
        """ "Field: before → after" (or "Field: value" when only one side exists)."""
        if self.before is None and self.after is not None:
            return _("%(field)s: %(value)s") % {
                "field": self.field_display,
                "value": self.after_display,
            }
        return _("%(field)s: %(before)s → %(after)s") % {
            "field": self.field_display,
            "before": self.before_display,
            "after": self.after_display,
        }


@dataclass(frozen=True)
class LedgerText:
    """An entry in words: its action, who stands behind it, why, and what changed."""

    action: str
    action_display: str
    reason: str
    changes: list[Change]
    summary: str
    before_text: str
    after_text: str
    # True for a result or a penalty: before and after each read as one line.
    whole: bool = False

    @property
    def change_text(self) -> str:
        """What changed, on one line: a result's or a penalty's "before → after", any other
        entry's `summary`."""
        if not self.whole:
            return self.summary
        if self.before_text == NOTHING:
            return self.after_text
        return f"{self.before_text} → {self.after_text}"

    def as_dict(self) -> dict[str, Any]:
        """The API's form of it (codes and words side by side)."""
        return {
            "action": self.action,
            "action_display": self.action_display,
            "reason_display": self.reason,
            "changes": [asdict(change) for change in self.changes],
            "summary": self.summary,
            "before_display": self.before_text,
            "after_display": self.after_text,
        }


def _yes_no(value: Any) -> str:
    return _("yes") if value else _("no")


def _choice(choices: Any, *, lower: bool = False) -> Callable[[Any], str]:
    """The label of a choice; ``lower``: first letter in lower case (a state inside a
    sentence: "Status: draft → registration")."""
    labels = dict(choices)

    def text(value: Any) -> str:
        label = str(labels.get(value, value))
        return label[:1].lower() + label[1:] if lower and value in labels else label

    return text


def _position(value: Any) -> str:
    labels = dict(SeatPosition.choices)
    return str(labels.get(value, value))


def _number(value: Any) -> str:
    return decimal_text(value, get_language()) or str(value)


def _date(value: Any) -> str:
    try:
        return date_format(datetime.date.fromisoformat(str(value)), "DATE_FORMAT")
    except ValueError:
        return str(value)


def _moment(value: Any) -> str:
    """An ISO date and time as the reader's locale writes it, in the site's time zone."""
    try:
        moment = datetime.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    return date_format(localtime(moment) if is_aware(moment) else moment, "DATETIME_FORMAT")


def _scores(value: Any) -> str:
    if not isinstance(value, Mapping):
        return str(value)
    language = get_language()
    return " ".join(
        f"{position_letter(p, language)} {signed_text(value[p], language)}"
        for p in ("N", "E", "S", "W")
        if p in value
    )


def _poignees(value: Any) -> str:
    if not isinstance(value, Mapping):
        return str(value)
    sizes = _choice(PoigneeSize.choices)
    return ", ".join(f"{sizes(size)} ({_position(p)})" for p, size in sorted(value.items()))


def _seat(value: Any) -> str:
    """Where a player sits: {"round", "table", "position"}."""
    if not isinstance(value, Mapping):
        return str(value)
    parts = []
    if value.get("round") is not None:
        parts.append(_("round %(number)s") % {"number": value["round"]})
    if value.get("table") is not None:
        parts.append(_("table %(number)s") % {"number": value["table"]})
    if value.get("position"):
        parts.append(_position(value["position"]))
    return ", ".join(parts)


def _fields() -> dict[str, tuple[str, Callable[[Any], str]]]:
    """Every field code an entry may hold: its name, and how its values read."""
    plain = str
    return {
        "name": (_("Name"), plain),
        "date": (_("Date"), _date),
        "venue": (_("Venue"), plain),
        "rounds": (_("Rounds"), plain),
        "donnes_per_relais": (_("Donnes per relais"), plain),
        "method": (_("Method"), _choice(Method.choices, lower=True)),
        "matchpoint_penalty_rate": (_("Match-point penalty rate"), _number),
        "status": (_("Status"), _choice(Tournament.Status.choices, lower=True)),
        "arbiters": (_("Arbiters"), plain),
        "registered": (_("Registered"), _yes_no),
        "checked_in": (_("Checked in"), _yes_no),
        "players": (_("Players"), plain),
        "tables": (_("Tables"), plain),
        "commitment": (_("Commitment"), plain),
        "seed": (_("Seed"), plain),
        "etui_set": (_("Étui set"), plain),
        "player_name": (_("Player"), plain),
        "kind": (_("Kind"), _choice(Penalty.Kind.choices)),
        "points": (_("Points"), _number),
        "reason": (_("Reason"), plain),
        "withdrawn": (_("Withdrawn"), _yes_no),
        "withdrawal_reason": (_("Reason for the withdrawal"), plain),
        # A call to the arbiter ruled "no irregularity" (issue 34).
        "irregularity": (_("Irregularity"), _choice(Irregularity.choices)),
        "ruling": (_("Ruling"), _choice(ArbiterCall.Ruling.choices)),
        "claims_window_minutes": (_("Claims window (minutes)"), plain),
        "claims_close_at": (_("Claims accepted until"), _moment),
        "final_at": (_("Ranking final since"), _moment),
        "claim_kind": (_("Claim"), _choice(Claim.Kind.choices)),
        "claim_state": (_("Decision"), _choice(Claim.State.choices)),
        "table_number": (_("Table"), plain),
        "donne_number": (_("Donne"), plain),
    }


def _result_fields() -> dict[str, tuple[str, Callable[[Any], str]]]:
    """The field codes of a result's snapshot."""
    return {
        "status": (_("Status"), _choice(Result.Status.choices)),
        "contract": (_("Contract"), _choice(Contract.choices)),
        "taker": (_("Taker"), _choice(Position.choices)),
        "bouts": (_("Bouts"), str),
        "points": (_("Points"), _number),
        "petit_au_bout": (_("Petit au bout"), _choice(PetitAuBout.choices)),
        "poignees": (_("Poignées"), _poignees),
        "chelem": (_("Chelem"), _choice(Chelem.choices)),
        "scores": (_("Scores"), _scores),
        "annul_reason": (_("Reason for the annulment"), str),
        "entry_status": (_("Entry"), _choice(EntryStatus.choices)),
    }


def value_text(value: Any, read: Callable[[Any], str] = str) -> str:
    """A stored value in words ("—" for nothing)."""
    if value is None or value == "" or value == {} or value == []:
        return NOTHING
    if isinstance(value, list | tuple) and read is str:
        return ", ".join(str(v) for v in value)
    if isinstance(value, Mapping) and read is str:
        return _seat(value) if {"table", "position"} & value.keys() else str(value)
    return read(value)


def _changes(entry: LedgerEntry) -> list[Change]:
    before, after = entry.before, entry.after
    if entry.action in (LedgerEntry.Action.ROUND_OPENED, LedgerEntry.Action.ROUND_CLOSED):
        return _round_changes(before, after)
    if not isinstance(before, Mapping) and not isinstance(after, Mapping):
        if before == after:
            return []
        return [Change("", "", before, value_text(before), after, value_text(after))]
    old = before if isinstance(before, Mapping) else {}
    new = after if isinstance(after, Mapping) else {}
    fields = _result_fields() if entry.result_id else _fields()
    changes = []
    for key in [*old, *(k for k in new if k not in old)]:
        if key in HIDDEN or old.get(key) == new.get(key):
            continue
        label, read = fields.get(key, (str(key), str))
        if value_text(old.get(key), read) == value_text(new.get(key), read):
            continue
        changes.append(
            Change(
                field=key,
                field_display=str(label),
                before=old.get(key) if isinstance(before, Mapping) else None,
                before_display=value_text(old.get(key), read),
                after=new.get(key) if isinstance(after, Mapping) else None,
                after_display=value_text(new.get(key), read),
            )
        )
    return changes


def _round_changes(before: Any, after: Any) -> list[Change]:
    """ "Round 1: not started → open"."""
    old = before if isinstance(before, Mapping) else {}
    new = after if isinstance(after, Mapping) else {}
    number = new.get("round", old.get("round"))
    state = _choice(Round.State.choices, lower=True)
    return [
        Change(
            field="state",
            field_display=_("Round %(number)s") % {"number": number},
            before=old.get("state"),
            before_display=value_text(old.get("state"), state),
            after=new.get("state"),
            after_display=value_text(new.get("state"), state),
        )
    ]


def _player_name(player: Any) -> str:
    return str(player) if player is not None else "?"


def proof_label(proof: str) -> str:
    """How a player at the table proved who he is, in words."""
    return _("personal code") if proof == PROOF_CODE else _("phone bound to them")


def _table_reason(entry: LedgerEntry, params: Mapping[str, Any]) -> str:
    """The reason of a change made from a table's page: who, and how he proved it when the
    line says (``proof``; lines from before it was recorded name the player alone)."""
    player = _player_name(getattr(entry, "by_player", None))
    proof = params.get("proof")
    if entry.reason_code == "table_confirmed":
        if proof:
            return _("Confirmed at the table by %(player)s (%(proof)s)") % {
                "player": player,
                "proof": proof_label(proof),
            }
        return _("Confirmed at the table by %(player)s") % {"player": player}
    corrected = entry.action == LedgerEntry.Action.RESULT_CHANGED
    if proof:
        text = (
            _("Corrected at the table by %(player)s (%(proof)s)")
            if corrected
            else _("Entered at the table by %(player)s (%(proof)s)")
        )
        return text % {"player": player, "proof": proof_label(proof)}
    if corrected:
        return _("Corrected at the table by %(player)s") % {"player": player}
    return _("Entered at the table by %(player)s") % {"player": player}


def reason_text(entry: LedgerEntry) -> str:
    """Why: what the person typed, or the software's reason in words ("" when none)."""
    code, params = entry.reason_code, entry.reason_params or {}
    if code == "seating_regenerated":
        return _("Seating regenerated")
    if code == "published_missing":
        count = int(params.get("count", 0))
        return ngettext(
            "Published with %(count)d result missing",
            "Published with %(count)d results missing",
            count,
        ) % {"count": count}
    if code == "finished_missing":
        count = int(params.get("count", 0))
        return ngettext(
            "Finished with %(count)d result missing",
            "Finished with %(count)d results missing",
            count,
        ) % {"count": count}
    if code in ("table_entry", "table_confirmed"):
        return _table_reason(entry, params)
    if code:
        return code
    return entry.reason


def _action_text(entry: LedgerEntry) -> str:
    """The action in words; a table's entries and confirmations say who, at the table."""
    action = entry.action
    by_player = getattr(entry, "by_player", None) if entry.by_player_id else None
    if by_player is not None and action == LedgerEntry.Action.RESULT_CONFIRMED:
        result = getattr(entry, "result", None)
        entered = getattr(result, "entered_by", None) if result is not None else None
        if entered is not None:
            return _("Entered at the table by %(entered)s, confirmed by %(confirmer)s") % {
                "entered": entered,
                "confirmer": by_player,
            }
        return _("Confirmed at the table by %(player)s") % {"player": by_player}
    if by_player is not None and action == LedgerEntry.Action.RESULT_CREATED:
        return _("Entered at the table by %(player)s") % {"player": by_player}
    if by_player is not None and action == LedgerEntry.Action.RESULT_CHANGED:
        return _("Corrected at the table by %(player)s") % {"player": by_player}
    if by_player is not None and action == LedgerEntry.Action.RESULT_CONTESTED:
        return _("Contested at the table by %(player)s") % {"player": by_player}
    if action == LedgerEntry.Action.RESULT_CONFIRMED and entry.actor_id is not None:
        return pgettext("ledger", "Confirmed by the arbiter")
    labels = dict(LedgerEntry.Action.choices)
    return str(labels.get(action, action))


def _side(changes: list[Change], after: bool) -> str:
    """One side of the changes, "Field: value; …" ("—" when empty)."""
    parts = []
    for change in changes:
        value = change.after_display if after else change.before_display
        if (change.after if after else change.before) is None:
            continue
        parts.append(
            _("%(field)s: %(value)s") % {"field": change.field_display, "value": value}
            if change.field_display
            else value
        )
    return "; ".join(parts) or NOTHING


def entry_text(entry: LedgerEntry) -> LedgerText:
    """The entry in words, in the active language. Reads ``by_player``, ``actor`` and
    ``result__entered_by`` when loaded (select_related them for a list). A result's and a
    penalty's before and after read as one line each (`result_describe`,
    `penalty_describe`); any other entry's field by field."""
    from .services.penalties import penalty_describe
    from .services.results import result_describe

    changes = _changes(entry)
    if entry.result_id and entry.action not in CLAIM_ACTIONS:
        before_text, after_text = result_describe(entry.before), result_describe(entry.after)
    elif entry.penalty_id:
        before_text, after_text = penalty_describe(entry.before), penalty_describe(entry.after)
    else:
        before_text, after_text = _side(changes, after=False), _side(changes, after=True)
    return LedgerText(
        action=entry.action,
        action_display=_action_text(entry),
        reason=reason_text(entry),
        changes=changes,
        summary="; ".join(change.text() for change in changes) or NOTHING,
        before_text=before_text,
        after_text=after_text,
        whole=bool(entry.result_id or entry.penalty_id),
    )
