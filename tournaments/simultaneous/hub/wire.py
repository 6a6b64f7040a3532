"""The upload format of simultaneous events, version 1 (docs/simultaneous-upload.schema.json):
parse and validate one club's upload into typed values. No database: what needs the event
(its hands, its clubs) is checked by `tournaments.simultaneous.hub.services`.

Every fault is reported with the JSON path it is at ("results[3].scores.N") and a message in
the active language; the scores are recomputed with `scoring.rules.engine` and must agree with
the ones sent. `UploadInvalid` carries every fault found (up to `MAX_ERRORS`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from scoring.rules import engine
from scoring.rules.cards import format_hand, parse_hand
from scoring.rules.errors import ScoringError
from tournaments.services.errors import translate_error
from tournaments.validators import validate_plain_text

__all__ = [
    "FORMAT",
    "POSITIONS",
    "VERSION",
    "Upload",
    "UploadInvalid",
    "WireDonne",
    "WirePenalty",
    "WirePlayer",
    "WireResult",
    "expected_scores",
    "parse_upload",
    "parse_upload_bytes",
]

FORMAT = "tarot_club/simultaneous-upload"
VERSION = 1
POSITIONS = ("N", "E", "S", "W")
PLAYED, ALL_PASSED, ANNULLED = "played", "all_passed", "annulled"
STATUSES = (PLAYED, ALL_PASSED, ANNULLED)
MAX_ERRORS = 50
MAX_TABLE = 10_000
MAX_DONNE = 240
MAX_PENALTY_POINTS = 10_000
_LICENCE = re.compile(r"^[0-9]{7}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CONTRACTS = frozenset(c.value for c in engine.Contract)
_PETITS = frozenset(p.value for p in engine.PetitAuBout)
_POIGNEES = frozenset(p.value for p in engine.PoigneeSize)
_CHELEMS = frozenset(c.value for c in engine.Chelem)


@dataclass(frozen=True, slots=True)
class WireDonne:
    """A donne as the club dealt it: hands N E S W and chien in canonical notation."""

    number: int
    dealer: str
    hands: dict[str, str]
    chien: str


@dataclass(frozen=True, slots=True)
class WirePlayer:
    licence: str
    first_name: str
    last_name: str


@dataclass(frozen=True, slots=True)
class WireResult:
    """One counted result of the club: keyed by (table, donne), with the club's version."""

    table: int
    donne: int
    version: int
    status: str
    holders: dict[str, str]  # position -> licence
    sitter: str | None
    taker: str
    contract: str
    bouts: int | None
    points: Decimal | None
    petit_au_bout: str
    poignees: dict[str, str]
    chelem: str
    scores: dict[str, int]


@dataclass(frozen=True, slots=True)
class WirePenalty:
    ref: str
    licence: str
    points: int
    donne: int | None
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class Upload:
    """A whole upload: the club's complete current state for the event."""

    event: str
    club: str
    identity: str
    commitment: str
    sequence: int
    generated_at: datetime
    final: bool
    donnes: tuple[WireDonne, ...]
    players: tuple[WirePlayer, ...]
    results: tuple[WireResult, ...]
    penalties: tuple[WirePenalty, ...]


class UploadInvalid(ValueError):
    """The upload does not follow the format; `errors` lists (JSON path, message)."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{path}: {message}" for path, message in errors))

    @property
    def details(self) -> dict[str, list[str]]:
        """The faults as {path: [messages]} (the API's "details")."""
        out: dict[str, list[str]] = {}
        for path, message in self.errors:
            out.setdefault(path or "$", []).append(message)
        return out


class _Faults:
    """Collects the faults; stops the parse once there are too many to be useful."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []

    def add(self, path: str, message: str) -> None:
        self.errors.append((path, message))
        if len(self.errors) >= MAX_ERRORS:
            raise UploadInvalid(self.errors)


def parse_upload_bytes(body: bytes) -> Upload:
    """Parse a request body or a file (UTF-8 JSON)."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        message = _("The upload is not valid JSON: %(error)s") % {"error": exc}
        raise UploadInvalid([("$", message)]) from None
    return parse_upload(data)


def parse_upload(data: Any) -> Upload:
    """Validate a decoded upload; return it typed, or raise UploadInvalid with every fault."""
    f = _Faults()
    if not isinstance(data, dict):
        raise UploadInvalid([("$", _("The upload must be a JSON object."))])
    if data.get("format") != FORMAT:
        f.add("format", _("The format must be %(format)s.") % {"format": f'"{FORMAT}"'})
    if data.get("version") != VERSION or isinstance(data.get("version"), bool):
        f.add("version", _("Only version %(version)s of the format is known.") % {"version": 1})
    event = _text(f, data, "event", "event", 40)
    club = _text(f, data, "club", "club", 40)
    identity = _text(f, data, "identity", "identity", 200)
    commitment = _text(f, data, "commitment", "commitment", 64)
    if commitment and not _HEX64.match(commitment):
        f.add("commitment", _("The commitment must be 64 lowercase hexadecimal digits."))
    sequence = _int(f, data, "sequence", "sequence", 0, 2**62)
    generated_at = _datetime(f, data.get("generated_at"), "generated_at")
    final = data.get("final")
    if not isinstance(final, bool):
        f.add("final", _("Must be true or false."))
    unknown = sorted(set(data) - _TOP_KEYS)
    for key in unknown:
        f.add(key, _("Unknown key."))
    donnes = _list(f, data, "donnes", _donne)
    players = _list(f, data, "players", _player)
    results = _list(f, data, "results", _result)
    penalties = _list(f, data, "penalties", _penalty)
    _cross_check(f, donnes, players, results, penalties)
    if f.errors:
        raise UploadInvalid(f.errors)
    return Upload(
        event=event or "",
        club=club or "",
        identity=identity or "",
        commitment=commitment or "",
        sequence=sequence or 0,
        generated_at=generated_at,  # type: ignore[arg-type]  # checked: no fault
        final=bool(final),
        donnes=tuple(donnes),
        players=tuple(players),
        results=tuple(results),
        penalties=tuple(penalties),
    )


_TOP_KEYS = frozenset(
    {
        "format",
        "version",
        "event",
        "club",
        "identity",
        "commitment",
        "sequence",
        "generated_at",
        "final",
        "donnes",
        "players",
        "results",
        "penalties",
    }
)


# --- field readers ------------------------------------------------------------------------


def _text(
    f: _Faults, obj: dict, key: str, path: str, max_length: int, *, blank: bool = False
) -> str | None:
    value = obj.get(key)
    if not isinstance(value, str) or (not blank and not value.strip()):
        f.add(path, _("Must be a non-empty string.") if not blank else _("Must be a string."))
        return None
    if len(value) > max_length:
        f.add(path, _("At most %(count)s characters.") % {"count": max_length})
        return None
    if _CONTROL.search(value):
        f.add(path, _("Must not contain control characters."))
        return None
    return value


def _visible(f: _Faults, value: str | None, path: str) -> str | None:
    """A name read by `_text`, once the site's one check of visible text passes (no bidi
    control, blank-looking letter or pile of accents: it reaches the public ranking)."""
    if value is None:
        return None
    try:
        validate_plain_text(value)
    except ValidationError as exc:
        f.add(path, " ".join(exc.messages))
        return None
    return value


def _int(f: _Faults, obj: dict, key: str, path: str, low: int, high: int) -> int | None:
    value = obj.get(key)
    if type(value) is not int or not low <= value <= high:
        f.add(
            path, _("Must be a whole number from %(low)s to %(high)s.") % {"low": low, "high": high}
        )
        return None
    return value


def _datetime(f: _Faults, value: Any, path: str) -> datetime | None:
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            return parsed
    f.add(path, _("Must be a date and time with its time zone, such as 2027-01-16T18:02:11Z."))
    return None


def _licence(f: _Faults, value: Any, path: str) -> str | None:
    if not isinstance(value, str) or not _LICENCE.match(value):
        f.add(path, _("A licence number has exactly 7 digits, for example 0123456."))
        return None
    return value


def _list(f: _Faults, data: dict, key: str, item: Any) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        f.add(key, _("Must be a list."))
        return []
    out = []
    for index, entry in enumerate(value):
        path = f"{key}[{index}]"
        if not isinstance(entry, dict):
            f.add(path, _("Must be a JSON object."))
            continue
        before = len(f.errors)
        parsed = item(f, entry, path)
        if parsed is not None and len(f.errors) == before:
            out.append(parsed)
    return out


def _keys(f: _Faults, obj: dict, path: str, allowed: frozenset[str]) -> None:
    for key in sorted(set(obj) - allowed):
        f.add(f"{path}.{key}", _("Unknown key."))


def _cards(f: _Faults, value: Any, path: str) -> str | None:
    if not isinstance(value, str):
        f.add(path, _("Must be a string of cards."))
        return None
    try:
        return format_hand(parse_hand(value))
    except ScoringError as err:
        f.add(path, translate_error(err))
        return None


_DONNE_KEYS = frozenset({"number", "dealer", "hands", "chien"})


def _donne(f: _Faults, obj: dict, path: str) -> WireDonne | None:
    _keys(f, obj, path, _DONNE_KEYS)
    number = _int(f, obj, "number", f"{path}.number", 1, MAX_DONNE)
    dealer = obj.get("dealer")
    if dealer not in POSITIONS:
        f.add(f"{path}.dealer", _("Must be one of N, E, S, W."))
    hands_in = obj.get("hands")
    hands: dict[str, str] = {}
    if not isinstance(hands_in, dict) or set(hands_in) != set(POSITIONS):
        f.add(f"{path}.hands", _("Must give the hands of N, E, S and W."))
    else:
        for position in POSITIONS:
            hand = _cards(f, hands_in[position], f"{path}.hands.{position}")
            if hand is not None:
                hands[position] = hand
    chien = _cards(f, obj.get("chien"), f"{path}.chien")
    if number is None or chien is None or len(hands) != 4 or dealer not in POSITIONS:
        return None
    return WireDonne(number, dealer, hands, chien)


_PLAYER_KEYS = frozenset({"licence", "first_name", "last_name"})


def _player(f: _Faults, obj: dict, path: str) -> WirePlayer | None:
    _keys(f, obj, path, _PLAYER_KEYS)
    licence = _licence(f, obj.get("licence"), f"{path}.licence")
    first = _visible(f, _text(f, obj, "first_name", f"{path}.first_name", 80), f"{path}.first_name")
    last = _visible(f, _text(f, obj, "last_name", f"{path}.last_name", 80), f"{path}.last_name")
    if licence is None or first is None or last is None:
        return None
    return WirePlayer(licence, first.strip(), last.strip())


_RESULT_KEYS = frozenset(
    {
        "table",
        "donne",
        "version",
        "status",
        "holders",
        "sitter",
        "taker",
        "contract",
        "bouts",
        "points",
        "petit_au_bout",
        "poignees",
        "chelem",
        "scores",
    }
)
_CONTRACT_FIELDS = ("taker", "contract", "bouts", "points", "petit_au_bout", "chelem")


def _result(f: _Faults, obj: dict, path: str) -> WireResult | None:
    _keys(f, obj, path, _RESULT_KEYS)
    table = _int(f, obj, "table", f"{path}.table", 1, MAX_TABLE)
    donne = _int(f, obj, "donne", f"{path}.donne", 1, MAX_DONNE)
    version = _int(f, obj, "version", f"{path}.version", 1, 2**31 - 1)
    status = obj.get("status")
    if status not in STATUSES:
        f.add(f"{path}.status", _("Must be one of %(values)s.") % {"values": ", ".join(STATUSES)})
        return None
    holders = _holders(f, obj.get("holders"), f"{path}.holders")
    sitter = obj.get("sitter")
    if sitter is not None:
        sitter = _licence(f, sitter, f"{path}.sitter")
        if sitter is not None and holders and sitter in holders.values():
            f.add(f"{path}.sitter", _("The player sitting out cannot also hold a hand."))
    if status == PLAYED:
        played = _played(f, obj, path)
        if played is None:
            return None
        taker, contract, bouts, points, petit, poignees, chelem, scores = played
    else:
        for key in _CONTRACT_FIELDS:
            if obj.get(key) not in (None, ""):
                f.add(f"{path}.{key}", _("A result that was not played has no contract."))
        if obj.get("poignees") not in (None, {}):
            f.add(f"{path}.poignees", _("A result that was not played has no contract."))
        scores = _plain_scores(f, obj.get("scores"), f"{path}.scores")
        if (scores and any(scores.values())) or (status == ANNULLED and scores):
            f.add(f"{path}.scores", _("Annulled results have no scores; all passed score 0."))
        taker = contract = petit = chelem = ""
        bouts, points, poignees = None, None, {}
        scores = {p: 0 for p in POSITIONS} if status == ALL_PASSED else {}
    if None in (table, donne, version) or holders is None:
        return None
    return WireResult(
        table, donne, version, status, holders, sitter, taker, contract, bouts, points, petit,
        poignees, chelem, scores,
    )  # fmt: skip


def _holders(f: _Faults, value: Any, path: str) -> dict[str, str] | None:
    if not isinstance(value, dict) or set(value) != set(POSITIONS):
        f.add(path, _("Must give the licence holding each hand: N, E, S and W."))
        return None
    holders = {}
    for position in POSITIONS:
        licence = _licence(f, value[position], f"{path}.{position}")
        if licence is None:
            return None
        holders[position] = licence
    if len(set(holders.values())) != 4:
        f.add(path, _("One player cannot hold two hands of a donne."))
        return None
    return holders


def _plain_scores(f: _Faults, value: Any, path: str) -> dict[str, int] | None:
    if value is None:
        return {}
    if not isinstance(value, dict) or not set(value) <= set(POSITIONS):
        f.add(path, _("Must map positions (N, E, S, W) to whole numbers."))
        return None
    for position, score in value.items():
        if type(score) is not int:
            f.add(f"{path}.{position}", _("Must be a whole number."))
            return None
    return dict(value)


def _played(f: _Faults, obj: dict, path: str) -> tuple | None:
    """The contract fields of a played result, scored again; None after a fault."""
    taker = obj.get("taker")
    if taker not in POSITIONS:
        f.add(f"{path}.taker", _("Must be one of N, E, S, W."))
    contract = obj.get("contract")
    if contract not in _CONTRACTS:
        f.add(
            f"{path}.contract",
            _("Must be one of %(values)s.") % {"values": ", ".join(sorted(_CONTRACTS))},
        )
    bouts = _int(f, obj, "bouts", f"{path}.bouts", 0, 3)
    points = _points(f, obj.get("points"), f"{path}.points")
    petit = obj.get("petit_au_bout") or ""
    if petit and petit not in _PETITS:
        f.add(f"{path}.petit_au_bout", _("Must be empty, attack or defence."))
    chelem = obj.get("chelem") or ""
    if chelem and chelem not in _CHELEMS:
        f.add(
            f"{path}.chelem",
            _("Must be empty or one of %(values)s.") % {"values": ", ".join(sorted(_CHELEMS))},
        )
    poignees_in = obj.get("poignees") or {}
    poignees: dict[str, str] = {}
    if not isinstance(poignees_in, dict):
        f.add(f"{path}.poignees", _("Must map positions to poignée sizes."))
    else:
        for position, size in sorted(poignees_in.items()):
            if position not in POSITIONS or size not in _POIGNEES:
                f.add(
                    f"{path}.poignees.{position}",
                    _("Must be simple, double or triple, at N, E, S or W."),
                )
            else:
                poignees[position] = size
    scores = _plain_scores(f, obj.get("scores"), f"{path}.scores")
    if taker not in POSITIONS or contract not in _CONTRACTS or bouts is None or points is None:
        return None
    try:
        expected = expected_scores(taker, contract, bouts, points, petit, poignees, chelem)
    except ScoringError as err:
        f.add(path, translate_error(err))
        return None
    if scores is not None and scores != expected:
        f.add(
            f"{path}.scores",
            _("The scores do not follow from the contract: they should be %(scores)s.")
            % {"scores": ", ".join(f"{p} {expected[p]}" for p in POSITIONS)},
        )
    return taker, contract, bouts, points, petit, poignees, chelem, expected  # fmt: skip


def expected_scores(
    taker: str,
    contract: str,
    bouts: int,
    points: Decimal,
    petit_au_bout: str,
    poignees: dict[str, str],
    chelem: str,
) -> dict[str, int]:
    """Each position's score for a deal at four (RULES §5), as the result service computes it."""
    deal = engine.score_deal(
        4,
        contract,
        bouts,
        points,
        petit_au_bout or None,
        tuple(s for s in poignees.values() if s),
        chelem or None,
    )
    return {p: (deal.taker if p == taker else deal.defender) for p in POSITIONS}


def _points(f: _Faults, value: Any, path: str) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        f.add(path, _('Must be the attack\'s card points, such as "51" or "40.5".'))
        return None
    try:
        points = Decimal(str(value).replace(",", "."))
    except InvalidOperation:
        points = None
    if (
        points is None
        or not points.is_finite()
        or points * 2 != int(points * 2)
        or not 0 <= points <= 91
    ):
        f.add(path, _('Must be the attack\'s card points, such as "51" or "40.5".'))
        return None
    return points.quantize(Decimal("0.1"))


_PENALTY_KEYS = frozenset({"ref", "licence", "points", "donne", "withdrawn"})


def _penalty(f: _Faults, obj: dict, path: str) -> WirePenalty | None:
    _keys(f, obj, path, _PENALTY_KEYS)
    ref = obj.get("ref")
    if type(ref) is int:
        ref = str(ref)
    if not isinstance(ref, str) or not ref.strip() or len(ref) > 40 or _CONTROL.search(ref):
        f.add(f"{path}.ref", _("Must be a non-empty string of at most 40 characters."))
        ref = None
    licence = _licence(f, obj.get("licence"), f"{path}.licence")
    points = _int(f, obj, "points", f"{path}.points", 0, MAX_PENALTY_POINTS)
    donne = obj.get("donne")
    if donne is not None:
        donne = _int(f, obj, "donne", f"{path}.donne", 1, MAX_DONNE)
    withdrawn = obj.get("withdrawn", False)
    if not isinstance(withdrawn, bool):
        f.add(f"{path}.withdrawn", _("Must be true or false."))
    if ref is None or licence is None or points is None:
        return None
    return WirePenalty(ref, licence, points, donne, bool(withdrawn))


def _cross_check(
    f: _Faults,
    donnes: list[WireDonne],
    players: list[WirePlayer],
    results: list[WireResult],
    penalties: list[WirePenalty],
) -> None:
    """What ties the lists together: one entry per key, every licence a listed player, every
    result's donne a listed donne."""
    numbers: set[int] = set()
    for index, donne in enumerate(donnes):
        if donne.number in numbers:
            f.add(
                f"donnes[{index}].number",
                _("Donne %(number)s is listed twice.") % {"number": donne.number},
            )
        numbers.add(donne.number)
    licences: set[str] = set()
    for index, player in enumerate(players):
        if player.licence in licences:
            f.add(
                f"players[{index}].licence",
                _("Licence %(licence)s is listed twice.") % {"licence": player.licence},
            )
        licences.add(player.licence)
    keys: set[tuple[int, int]] = set()
    seats: dict[tuple[int, str], int] = {}
    for index, result in enumerate(results):
        path = f"results[{index}]"
        if (result.table, result.donne) in keys:
            f.add(
                path,
                _("Table %(table)s has two results for donne %(donne)s.")
                % {"table": result.table, "donne": result.donne},
            )
        keys.add((result.table, result.donne))
        if result.donne not in numbers:
            f.add(
                f"{path}.donne",
                _("Donne %(number)s is not in the upload's donnes.") % {"number": result.donne},
            )
        for licence in (*result.holders.values(), *([result.sitter] if result.sitter else [])):
            if licence not in licences:
                f.add(
                    path,
                    _("Licence %(licence)s is not in the upload's players.") % {"licence": licence},
                )
            elif (result.donne, licence) in seats:
                f.add(
                    path,
                    _("Licence %(licence)s has two results on donne %(donne)s.")
                    % {"licence": licence, "donne": result.donne},
                )
            seats[(result.donne, licence)] = index
    refs: set[str] = set()
    for index, penalty in enumerate(penalties):
        if penalty.ref in refs:
            f.add(
                f"penalties[{index}].ref",
                _("Penalty %(ref)s is listed twice.") % {"ref": penalty.ref},
            )
        refs.add(penalty.ref)
        if penalty.licence not in licences:
            f.add(
                f"penalties[{index}].licence",
                _("Licence %(licence)s is not in the upload's players.")
                % {"licence": penalty.licence},
            )
