"""Entry and confirmation of results at the table, from the players' phones.

Each table has, per round, a page reached by a secret URL (the QR code on its score sheet) or a
6-character short code typed at ``SITE_URL/table/``. The secret is the only key: it allows the
table's seats and the donnes of its relais in that round, entering and correcting that table's
results there, nothing else (never the hands, other tables or travellers). It stops working
when the arbiter revokes it (a new one is issued) or when the round closes.

An entry made at the table goes through ``results.result_save`` with an ``EntrySource`` and
does not count until a player of the other camp confirms it with his personal 4-digit code
(``PlayerCode``; five wrong codes lock it for a minute). An entry raising a warning (bouts the
other camp held, a half point) needs the arbiter. "Je conteste" flags it for him with a note.
The arbiter can always confirm, correct or override. Every step is in the ledger with the
player and the page.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ..api.idempotency import ttl as idempotency_ttl
from ..api.models import IdempotencyRecord
from ..api.throttling import SharedCounters
from ..models import (
    COUNTED_ENTRY_STATUSES,
    POSITIONS,
    Donne,
    EntryStatus,
    LedgerEntry,
    Player,
    PlayerCode,
    Registration,
    Result,
    Round,
    Table,
    TableAccess,
    TableRound,
    Tournament,
)
from ..permissions import can_write_results
from . import checks
from .events import results_changed
from .results import (
    NON_FIELD,
    EntrySource,
    ResultConflict,
    ResultContext,
    ResultInput,
    ResultInvalid,
    ResultPreview,
    result_context,
    result_input_from_result,
    result_preview,
    result_save,
    result_snapshot,
)

__all__ = [
    "CODE_LOCK_SECONDS",
    "CODE_MAX_FAILURES",
    "HAND_WARNING_CODES",
    "SHORT_CODE_ALPHABET",
    "SHORT_CODE_LOOKUPS_PER_MINUTE",
    "CodeLocked",
    "TableAccessDenied",
    "TablePageLinks",
    "confirmer_problem",
    "hands_refusal_message",
    "hands_warning_message",
    "player_code_reissue",
    "player_codes_get",
    "result_confirm_by_arbiter",
    "round_started",
    "table_access_issue",
    "table_access_lookup",
    "table_access_reissue",
    "table_access_resolve",
    "table_access_revoke",
    "table_donne",
    "table_entry_confirm",
    "table_entry_contest",
    "table_entry_preview",
    "table_entry_save",
    "table_idempotent",
    "table_page_links",
    "table_page_url",
    "table_user",
]

CODE_MAX_FAILURES = 5
CODE_LOCK_SECONDS = 60
# No 0/O, 1/I/L: a code read off paper and typed on a phone.
SHORT_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
SHORT_CODE_LOOKUPS_PER_MINUTE = 30  # a room behind one address still gets in
TABLE_USERNAME = "table-page"


class TableAccessDenied(PermissionDenied):
    """The secret is unknown, revoked, or its round is closed; the message says which."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class CodeLocked(ResultInvalid):
    """Too many wrong codes for this player: wait ``seconds``."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds
        super().__init__(
            {
                "code": [
                    _(
                        "Too many wrong codes: this player's code is locked for %(seconds)s "
                        "seconds. Wait, or call the arbiter."
                    )
                    % {"seconds": seconds}
                ]
            }
        )


@dataclass(frozen=True)
class TablePageLinks:
    """What the table's score sheet and table card print: the QR code's URL, and the short
    address with its code for those who type."""

    url: str
    short_url: str
    code: str


def table_user() -> Any:
    """The account table pages write as (Result.created_by, ledger actor); who actually typed
    is in Result.entered_by / confirmed_by and LedgerEntry.by_player. It cannot log in."""
    user, created = get_user_model().objects.get_or_create(
        username=TABLE_USERNAME, defaults={"is_active": False}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


# --- the table's page access -------------------------------------------------------------------


def _new_short_code() -> str:
    return "".join(secrets.choice(SHORT_CODE_ALPHABET) for _i in range(6))


def _create_access(table_round: TableRound) -> TableAccess:
    for _attempt in range(20):
        try:
            with transaction.atomic():
                return TableAccess.objects.create(
                    tournament_id=table_round.round.tournament_id,
                    table_round=table_round,
                    secret=secrets.token_urlsafe(32),
                    short_code=_new_short_code(),
                )
        except IntegrityError:
            live = TableAccess.objects.filter(table_round=table_round, revoked_at=None).first()
            if live is not None:  # created meanwhile by another request
                return live
    raise RuntimeError("could not draw a free short code")  # pragma: no cover


def table_access_issue(*, table_round: TableRound) -> TableAccess:
    """The table's live access for the round, created on first use."""
    live = TableAccess.objects.filter(table_round=table_round, revoked_at=None).first()
    return live if live is not None else _create_access(table_round)


def _require_manager(user: Any, tournament: Tournament) -> None:
    if not can_write_results(user, tournament):
        raise PermissionDenied(
            _("Only the tournament's arbiters and the club's organisers may do this.")
        )


def table_access_revoke(*, access: TableAccess, user: Any) -> None:
    """The page stops working at once (a lost or photographed score sheet)."""
    _require_manager(user, access.tournament)
    TableAccess.objects.filter(pk=access.pk, revoked_at=None).update(revoked_at=timezone.now())


def table_access_reissue(*, table_round: TableRound, user: Any) -> TableAccess:
    """Revoke the table's page for the round and issue a new secret and short code."""
    _require_manager(user, table_round.round.tournament)
    with transaction.atomic():
        TableAccess.objects.filter(table_round=table_round, revoked_at=None).update(
            revoked_at=timezone.now()
        )
        return _create_access(table_round)


def table_access_resolve(*, secret: str) -> TableAccess:
    """The live access of ``secret``, with its table round, round, table and tournament.

    Raises TableAccessDenied when unknown, revoked, its round closed or the tournament not
    running.
    """
    access = (
        TableAccess.objects.select_related(
            "tournament", "table_round__round", "table_round__table", "table_round__etui_set"
        )
        .filter(secret=secret)
        .first()
    )
    if access is None:
        raise TableAccessDenied(
            _("This table page does not exist. Scan the QR code of your score sheet again.")
        )
    if access.revoked_at is not None:
        raise TableAccessDenied(
            _("This table page was replaced by the arbiter. Ask the arbiter for the new one.")
        )
    round_ = access.table_round.round
    if round_.state == Round.State.CLOSED:
        raise TableAccessDenied(
            _("This round is closed: its results can no longer be entered at the table.")
        )
    if access.tournament.status != Tournament.Status.RUNNING:
        raise TableAccessDenied(_("The tournament is not running: results are entered later."))
    if not round_started(round_):
        raise TableAccessDenied(
            _(
                "Round %(number)s has not started yet: this page works once the arbiter starts "
                "it. Keep the score sheet."
            )
            % {"number": round_.number}
        )
    return access


def round_started(round_: Round) -> bool:
    """Whether the room plays ``round_``: it is open (by the arbiter, or by a first result),
    or it is the earliest round not closed, whose first result opens it as on the arbiter's
    screen. A later round's score sheet scanned while an earlier round is still played has
    not started, so it cannot enter results nor open its round."""
    if round_.state == Round.State.OPEN:
        return True
    if round_.state == Round.State.CLOSED:
        return False
    earlier = Round.objects.filter(tournament_id=round_.tournament_id, number__lt=round_.number)
    return not earlier.exclude(state=Round.State.CLOSED).exists()


def table_access_lookup(*, code: str, client: str) -> TableAccess | None:
    """The live access of a typed short code, or None. Rate-limited per client address
    (``SHORT_CODE_LOOKUPS_PER_MINUTE``, the address from ``api.throttling.client_address``):
    raises PermissionDenied beyond. Counted in the cache every web process shares, so that
    more processes do not mean more guesses."""
    key = "table-code:" + hashlib.sha256(client.encode()).hexdigest()[:24]
    count = SharedCounters().count(key, 60)
    if count > SHORT_CODE_LOOKUPS_PER_MINUTE:
        raise PermissionDenied(_("Too many codes tried: wait a minute before trying again."))
    normalised = code.strip().upper().replace(" ", "").replace("-", "")
    return TableAccess.objects.filter(short_code=normalised, revoked_at=None).first()


def _site() -> str:
    return str(getattr(settings, "SITE_URL", "http://127.0.0.1:8000")).rstrip("/")


def table_page_url(*, table_round: TableRound) -> str:
    """The absolute URL of the table's page for its round (the QR code of the score sheet and
    of the table card), built on ``settings.SITE_URL``."""
    access = table_access_issue(table_round=table_round)
    return _site() + reverse("table_page", args=[access.secret])


def table_page_links(*, table_round: TableRound) -> TablePageLinks:
    """The QR code's URL, the short address to type and the short code."""
    access = table_access_issue(table_round=table_round)
    return TablePageLinks(
        url=_site() + reverse("table_page", args=[access.secret]),
        short_url=_site() + reverse("table_code"),
        code=access.short_code,
    )


def table_page_links_of(*, tournament: Tournament) -> dict[tuple[int, int], TablePageLinks]:
    """`table_page_links` of every table round, keyed by (round number, table number): the
    score sheets of a whole tournament read the live accesses in one query and create only
    the missing ones, instead of two queries a sheet."""
    table_rounds = TableRound.objects.filter(round__tournament=tournament).select_related(
        "round", "table"
    )
    live = {
        access.table_round_id: access
        for access in TableAccess.objects.filter(tournament=tournament, revoked_at=None)
    }
    site, short_url = _site(), _site() + reverse("table_code")
    links: dict[tuple[int, int], TablePageLinks] = {}
    for table_round in table_rounds:
        access = live.get(table_round.pk) or _create_access(table_round)
        links[(table_round.round.number, table_round.table.number)] = TablePageLinks(
            url=site + reverse("table_page", args=[access.secret]),
            short_url=short_url,
            code=access.short_code,
        )
    return links


# --- the table card: one link per table that follows the open round ---------------------------


def _card_signature(table_id: int) -> str:
    """128 bits of HMAC over the table's id with the site's key: the table card's link can be
    neither guessed nor moved to another table, and needs no stored secret."""
    key = settings.SECRET_KEY.encode()
    return hmac.new(key, f"table-card:{table_id}".encode(), hashlib.sha256).hexdigest()[:32]


def table_card_url(*, table: Table) -> str:
    """The absolute URL printed as the QR code of a table card: it stands on the table all
    day, so it opens the table's page of whichever round is open there at the time."""
    token = f"{table.pk}-{_card_signature(table.pk)}"
    return _site() + reverse("table_card", args=[token])


def table_card_resolve(*, token: str) -> TableAccess:
    """The live table page that a table card's link leads to now: the page of the round open
    at that table. Raises TableAccessDenied for a forged link, or while no round is open."""
    table_id, _sep, signature = token.partition("-")
    if not table_id.isdigit() or not hmac.compare_digest(signature, _card_signature(int(table_id))):
        raise TableAccessDenied(
            _("This table page does not exist. Scan the QR code of your score sheet again.")
        )
    table_round = (
        TableRound.objects.select_related("round", "table")
        .filter(table_id=int(table_id), round__state=Round.State.OPEN)
        .order_by("round__number")
        .first()
    )
    if table_round is None:
        raise TableAccessDenied(
            _("No round is open at this table now: wait for the arbiter to open the next one.")
        )
    return table_access_resolve(secret=table_access_issue(table_round=table_round).secret)


# --- players' codes ----------------------------------------------------------------------------


def _new_code() -> str:
    return f"{secrets.randbelow(10000):04d}"


def player_codes_get(*, tournament: Tournament) -> dict[int, str]:
    """Every registered player's 4-digit code for the tournament ({player id: code}), drawing
    the missing ones: what route cards print."""
    players = set(
        Registration.objects.filter(tournament=tournament).values_list("player_id", flat=True)
    )
    codes = dict(PlayerCode.objects.filter(tournament=tournament).values_list("player_id", "code"))
    missing = players - set(codes)
    if missing:
        PlayerCode.objects.bulk_create(
            [PlayerCode(tournament=tournament, player_id=p, code=_new_code()) for p in missing],
            ignore_conflicts=True,
        )
        codes = dict(
            PlayerCode.objects.filter(tournament=tournament).values_list("player_id", "code")
        )
    return codes


def player_code_reissue(*, tournament: Tournament, player: Player, user: Any) -> str:
    """A new code for a player (he lost his route card, or someone saw it); unlocks it."""
    _require_manager(user, tournament)
    code = _new_code()
    updated = PlayerCode.objects.filter(tournament=tournament, player=player).update(
        code=code, failures=0, locked_until=None
    )
    if not updated:
        PlayerCode.objects.create(tournament=tournament, player=player, code=code)
    return code


def _check_code(tournament: Tournament, player: Player, code: str) -> None:
    """Raise ResultInvalid on a wrong code (counted), CodeLocked while locked.

    Each attempt first takes one of the ``CODE_MAX_FAILURES`` tries in a single conditional
    UPDATE, then compares: requests sent at once cannot all read "no failure yet" and try
    more codes than allowed. A right code gives the tries back. The count is not rolled
    back with the caller's refusal (the views turn refusals into answers and commit).
    """
    player_codes_get(tournament=tournament)
    now = timezone.now()
    rows = PlayerCode.objects.filter(tournament=tournament, player=player)
    unlocked = Q(locked_until__isnull=True) | Q(locked_until__lte=now)
    taken = rows.filter(unlocked, failures__lt=CODE_MAX_FAILURES).update(
        failures=F("failures") + 1, locked_until=None
    )
    row = rows.get()
    if not taken:
        if row.locked_until is None or row.locked_until <= now:
            # The tries were used up by attempts that are still being answered: lock now.
            until = now + datetime.timedelta(seconds=CODE_LOCK_SECONDS)
            rows.filter(unlocked).update(failures=0, locked_until=until)
            row = rows.get()
        wait = (row.locked_until - now).total_seconds() if row.locked_until else CODE_LOCK_SECONDS
        raise CodeLocked(min(CODE_LOCK_SECONDS, int(wait) + 1))
    if secrets.compare_digest(row.code, (code or "").strip()):
        rows.update(failures=0, locked_until=None)
        return
    if row.failures >= CODE_MAX_FAILURES:
        rows.filter(failures__gte=CODE_MAX_FAILURES).update(
            failures=0, locked_until=now + datetime.timedelta(seconds=CODE_LOCK_SECONDS)
        )
        raise CodeLocked(CODE_LOCK_SECONDS)
    left = CODE_MAX_FAILURES - row.failures
    raise ResultInvalid(
        {
            "code": [
                ngettext(
                    "Wrong code for %(player)s: %(left)s try left before it is locked.",
                    "Wrong code for %(player)s: %(left)s tries left before it is locked.",
                    left,
                )
                % {"player": player, "left": left}
            ]
        }
    )


# --- entering, confirming, contesting --------------------------------------------------------


def table_donne(access: TableAccess, number: int) -> Donne:
    """A donne of the table's relais in this round; anything else is refused (403)."""
    donne = Donne.objects.filter(
        tournament_id=access.tournament_id,
        etui_set_id=access.table_round.etui_set_id,
        number=number,
    ).first()
    if donne is None:
        raise PermissionDenied(
            _("Donne %(number)s is not played at this table in this round.") % {"number": number}
        )
    return donne


def _seated_player(access: TableAccess, player_id: int | None) -> Player:
    player = (
        Player.objects.filter(pk=player_id, seats__table_round=access.table_round).first()
        if player_id
        else None
    )
    if player is None:
        raise ResultInvalid({"player": [_("Choose your name among the players of this table.")]})
    return player


# --- what the table's page says of the cards: never where they are ---------------------------

# Warnings of checks.card_checks that come from the hands. "half_point" comes from the points
# typed alone (a whole number at four players) and keeps its own message.
HAND_WARNING_CODES = frozenset(checks.WARNING_CODES) - {"half_point"}
HANDS_WARNING_KEY = "cards"


def hands_refusal_message() -> str:
    """What the table is told when the cards refuse its entry (RULES.md §5.1, second list):
    what to check, never which card is where nor who held it."""
    return _(
        "This entry does not match the cards of the donne: check the taker, the bouts, the "
        "points and the announcements, or call the arbiter."
    )


def hands_warning_message() -> str:
    """What the table is told when its entry is unlikely with the cards (it needs the
    arbiter); the specific warning is for the arbiter's screens."""
    return _(
        "This entry is unlikely with the cards of the donne: check the taker, the bouts, the "
        "points and the announcements."
    )


def _hand_errors(ctx: ResultContext, data: ResultInput) -> set[str]:
    """The refusals of ``data`` that the hands decide: the messages checks.card_checks gives
    for the same entry (called as result_save's evaluation calls it)."""
    errors, _warnings = checks.card_checks(
        hands=ctx.donne.hands,
        chien=ctx.donne.chien,
        taker=data.taker if data.taker in POSITIONS else "",
        contract=data.contract,
        bouts=data.bouts,
        points=data.points,
        poignees={p: s for p, s in data.poignees.items() if p in POSITIONS and s},
        seats=ctx.seats,
        petit_au_bout=data.petit_au_bout,
        chelem=data.chelem,
    )
    return set(errors.values())


def _hide_hand_errors(
    errors: Mapping[str, list[str]], hand_errors: set[str]
) -> tuple[dict[str, list[str]], bool]:
    """``errors`` with the refusals of the hands replaced by one message that names no card,
    position or player; True when there was one. The rest (what was typed breaks the rules
    of the score, RULES.md §5.1 first table) reveals nothing and stays as it is."""
    shown: dict[str, list[str]] = {}
    hidden = False
    for key, messages in errors.items():
        kept = [m for m in messages if m not in hand_errors]
        hidden = hidden or len(kept) < len(messages)
        if kept:
            shown[key] = kept
    if hidden:
        shown.setdefault(NON_FIELD, []).append(hands_refusal_message())
    return shown, hidden


def _hide_hand_warnings(warnings: Mapping[str, str]) -> tuple[dict[str, str], bool]:
    """The warnings the table may see: the hands' ones become one generic warning (their
    codes say where the bouts are, so they go too)."""
    shown = {c: m for c, m in warnings.items() if c not in HAND_WARNING_CODES}
    hidden = len(shown) < len(warnings)
    if hidden:
        shown[HANDS_WARNING_KEY] = hands_warning_message()
    return shown, hidden


def _count_hands_answer(access: TableAccess) -> None:
    """One more answer of this page that the cards decided (a refusal or a warning): shown
    to the arbiter beside the table's page, so probing the hands of a relais is seen."""
    TableAccess.objects.filter(pk=access.pk).update(hands_answers=F("hands_answers") + 1)


def table_entry_preview(
    *, access: TableAccess, donne_number: int, data: ResultInput
) -> dict[str, Any]:
    """The live preview of the table's page: scores, errors, missing fields and warnings as
    on the arbiter's form, except that what comes from the hands says what to check without
    saying where any card is. Such answers are counted on the access. Never writes a result.
    """
    donne = table_donne(access, donne_number)
    preview: ResultPreview = result_preview(
        tournament=access.tournament, table=access.table_round.table, donne=donne, data=data
    )
    errors = preview.problems
    hidden_errors = False
    if preview.context is not None:
        errors, hidden_errors = _hide_hand_errors(errors, _hand_errors(preview.context, data))
    warnings, hidden_warnings = _hide_hand_warnings(preview.warnings)
    if hidden_errors or hidden_warnings:
        _count_hands_answer(access)
    return {
        "scores": preview.scores,
        "errors": errors,
        "missing": preview.missing,
        "warnings": warnings,
    }


def table_entry_save(
    *,
    access: TableAccess,
    donne_number: int,
    data: ResultInput,
    entered_by_id: int | None,
    expected_version: int | None,
) -> Result:
    """Enter (or correct, while it does not count yet) the table's result on a donne.

    A result the arbiter entered or an opponent confirmed is the arbiter's to change: refused
    with a conflict, never overwritten. Raises ResultInvalid, ResultConflict or
    PermissionDenied.
    """
    donne = table_donne(access, donne_number)
    player = _seated_player(access, entered_by_id)
    table = access.table_round.table
    try:
        with transaction.atomic():
            current = Result.objects.filter(table=table, donne=donne).first()
            if current is not None and (
                current.entry_status in COUNTED_ENTRY_STATUSES or expected_version is None
            ):
                raise ResultConflict(current)
            return result_save(
                tournament=access.tournament,
                table=table,
                donne=donne,
                data=data,
                user=table_user(),
                expected_version=expected_version,
                reason="",  # a correction at the table: its reason is a code (result_save)
                source=EntrySource(entered_by=player, table_access=access),
            )
    except ResultInvalid as exc:
        try:
            ctx = result_context(tournament=access.tournament, table=table, donne=donne)
        except ResultInvalid:
            raise exc from None
        errors, hidden = _hide_hand_errors(exc.errors, _hand_errors(ctx, data))
        if not hidden:
            raise
        _count_hands_answer(access)  # outside the refused save: it stays counted
        raise ResultInvalid(errors) from None


def confirmer_problem(
    *,
    holders: Mapping[str, int],
    taker: str,
    all_passed: bool,
    entered_by: int | None,
    confirmer: int,
) -> str | None:
    """Why ``confirmer`` may not confirm, or None: he must hold a hand on the donne, not be
    who entered it, and (when someone took) be of the other camp (attack is the taker)."""
    held = {int(pid): pos for pos, pid in holders.items()}
    if confirmer not in held:
        return "not_holder"
    if entered_by is not None and confirmer == entered_by:
        return "same_player"
    if all_passed or entered_by is None or entered_by not in held:
        return None
    attack = {held[entered_by] == taker, held[confirmer] == taker}
    return "same_camp" if len(attack) == 1 else None


def _confirmable(access: TableAccess, donne_number: int, version: int | None) -> Result:
    donne = table_donne(access, donne_number)
    result = (
        Result.objects.select_for_update()
        .filter(table=access.table_round.table, donne=donne)
        .first()
    )
    if result is None:
        raise ResultInvalid({NON_FIELD: [_("There is no result to confirm for this donne yet.")]})
    if version is not None and result.version != version:
        raise ResultConflict(result)
    return result


def _set_status(
    result: Result,
    *,
    status: str,
    action: str,
    user: Any,
    player: Player | None,
    access: TableAccess | None,
    reason: str = "",
    extra: Mapping[str, Any] | None = None,
) -> Result:
    before = result_snapshot(result)
    values = {"entry_status": status, **(extra or {})}
    updated = Result.objects.filter(pk=result.pk, version=result.version).update(
        version=F("version") + 1, updated_by=user, updated_at=timezone.now(), **values
    )
    if not updated:
        raise ResultConflict(Result.objects.get(pk=result.pk))
    fresh = Result.objects.select_related("table", "donne").get(pk=result.pk)
    after = result_snapshot(fresh)
    if before is not None and after is not None:
        before["entry_status"] = result.entry_status
        after["entry_status"] = fresh.entry_status
    LedgerEntry.objects.create(
        tournament_id=result.tournament_id,
        result=fresh,
        action=action,
        actor=user,
        reason=reason[:300],
        before=before,
        after=after,
        by_player=player,
        table_access=access,
    )
    # The result enters or leaves the ranking: the version moves with it.
    results_changed(tournament_id=result.tournament_id)
    return fresh


def table_entry_confirm(
    *, access: TableAccess, donne_number: int, player_id: int | None, code: str, version: int | None
) -> Result:
    """A player of the other camp confirms the table's entry with his code: it counts."""
    player = _seated_player(access, player_id)
    _check_code(access.tournament, player, code)
    with transaction.atomic():
        result = _confirmable(access, donne_number, version)
        if result.entry_status == EntryStatus.CONFIRMED:
            return result
        if result.entry_status != EntryStatus.AWAITING:
            raise ResultInvalid(
                {
                    NON_FIELD: [
                        _(
                            "This result needs the arbiter: call the arbiter, the table cannot confirm it."
                        )
                        if result.entry_status in (EntryStatus.NEEDS_ARBITER, EntryStatus.CONTESTED)
                        else _("This result was entered by the arbiter: nothing to confirm.")
                    ]
                }
            )
        problem = confirmer_problem(
            holders=result.holders,
            taker=result.taker,
            all_passed=result.status != Result.Status.PLAYED,
            entered_by=result.entered_by_id,
            confirmer=player.pk,
        )
        if problem is not None:
            messages = {
                "not_holder": _("%(player)s does not hold a hand on this donne."),
                "same_player": _("%(player)s entered this result: an opponent must confirm it."),
                "same_camp": _(
                    "%(player)s is in the same camp as who entered it: a player of the other "
                    "camp must confirm."
                ),
            }
            raise ResultInvalid({"player": [messages[problem] % {"player": player}]})
        return _set_status(
            result,
            status=EntryStatus.CONFIRMED,
            action=LedgerEntry.Action.RESULT_CONFIRMED,
            user=table_user(),
            player=player,
            access=access,
            extra={"confirmed_by": player, "confirmed_at": timezone.now()},
        )


def table_entry_contest(
    *, access: TableAccess, donne_number: int, player_id: int | None, note: str, version: int | None
) -> Result:
    """ "Je conteste": the result goes to the arbiter with the player's note."""
    player = _seated_player(access, player_id)
    note = (note or "").strip()
    if not note:
        raise ResultInvalid({"note": [_("Say in a few words what is wrong with this result.")]})
    if len(note) > 300:
        raise ResultInvalid({"note": [_("Keep the note under 300 characters.")]})
    with transaction.atomic():
        result = _confirmable(access, donne_number, version)
        if result.entry_status not in (EntryStatus.AWAITING, EntryStatus.NEEDS_ARBITER):
            raise ResultInvalid(
                {NON_FIELD: [_("This result is settled: only the arbiter can change it now.")]}
            )
        return _set_status(
            result,
            status=EntryStatus.CONTESTED,
            action=LedgerEntry.Action.RESULT_CONTESTED,
            user=table_user(),
            player=player,
            access=access,
            reason=note,
            extra={"contest_note": note},
        )


def result_confirm_by_arbiter(*, result: Result, user: Any) -> Result:
    """The arbiter makes a table's entry count as it stands (it then counts as his)."""
    _require_manager(user, result.tournament)
    with transaction.atomic():
        locked = Result.objects.select_for_update().get(pk=result.pk)
        if locked.entry_status in COUNTED_ENTRY_STATUSES:
            return locked
        if locked.entry_status == EntryStatus.NEEDS_ARBITER and locked.status == "played":
            # Its warnings are now confirmed by the arbiter.
            preview = result_preview(
                tournament=locked.tournament,
                table=locked.table,
                donne=locked.donne,
                data=result_input_from_result(locked),
            )
            extra = {"confirmed_warnings": sorted(preview.warnings), "contest_note": ""}
        else:
            extra = {"contest_note": ""}
        return _set_status(
            locked,
            status=EntryStatus.ARBITER,
            action=LedgerEntry.Action.RESULT_CONFIRMED,
            user=user,
            player=None,
            access=None,
            extra=extra,
        )


# --- safe retries from the table's page --------------------------------------------------------


def _fingerprint(method: str, path: str, body: Mapping[str, Any]) -> str:
    digest = hashlib.sha256()
    for part in (method, path, json.dumps(body, sort_keys=True, default=str)):
        data = part.encode()
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def table_idempotent(
    *,
    access: TableAccess,
    key: str | None,
    method: str,
    path: str,
    body: Mapping[str, Any],
    run: Callable[[], tuple[int, dict[str, Any]]],
) -> tuple[int, dict[str, Any], bool]:
    """Run a write from the table's page once per ``Idempotency-Key`` (the API's storage):
    a resend gets the first answer back (third value True) and writes nothing. The same key
    with another request is a 422. Refusals (4xx) are stored like successes."""
    if not key:
        status, answer = run()
        return status, answer, False
    key = key.strip()[:200]
    stored_key = f"table:{access.pk}:{key}"
    print_ = _fingerprint(method, path, body)
    user = table_user()

    def replay(record: IdempotencyRecord) -> tuple[int, dict[str, Any], bool]:
        if record.fingerprint != print_:
            message = _("This entry's key was already used for another entry. Send it again.")
            return 422, {"errors": {NON_FIELD: [message]}}, False
        return record.status_code, dict(record.body or {}), True

    record = IdempotencyRecord.objects.filter(user=user, key=stored_key).first()
    if record is not None and record.created_at >= timezone.now() - idempotency_ttl():
        return replay(record)
    if record is not None:
        IdempotencyRecord.objects.filter(pk=record.pk).delete()
    try:
        with transaction.atomic():
            status, answer = run()
            if status >= 500:  # pragma: no cover - not stored, so it can be retried
                return status, answer, False
            IdempotencyRecord.objects.create(
                user=user,
                key=stored_key,
                method=method,
                path=path[:500],
                fingerprint=print_,
                status_code=status,
                body=answer,
            )
    except IntegrityError:
        record = IdempotencyRecord.objects.filter(user=user, key=stored_key).first()
        if record is None:
            raise
        return replay(record)
    return status, answer, False
