"""Entry and confirmation of results at the table, from the players' phones.

Each table has, per round, a page reached by a secret URL (the QR code on its score sheet) or a
6-character short code typed at ``SITE_URL/table/``. The secret is the only key: it allows the
table's seats and the donnes of its relais in that round, entering and correcting that table's
results there, nothing else (never the hands, other tables or travellers). It stops working
when the arbiter revokes it (a new one is issued) or when the round closes.

Nobody is taken at his word (RULES.md §6.2): whoever enters, confirms or contests proves who
he is with a ``Voucher``, his personal 4-digit code (``PlayerCode``; wrong codes are throttled
per player *and* per phone, `_check_code`: the guesser waits, never the owner) or the binding
of a phone to him (`player_binding_issue`, a ``PhoneBinding``). Only the player makes a
binding: his code typed on a phone bound to nobody else, the page's box ticked (never by
default on a phone handed over or bound to someone else). It is valid only at the table and
in the round where it was made, one phone per player (a new one ends the last), and the
arbiter sees and revokes them; a new code ends it too. An entry goes through
``results.result_save`` with an ``EntrySource`` naming the proven player, and counts only
once a proven player of the other camp confirms it. An entry with a half point needs the
arbiter; "Je conteste" flags it for him with a note. The arbiter can always confirm, correct
or override. Every step is in the ledger with the player, how he proved it and the page.

Before a donne is complete nothing the page answers depends on the hands (RULES.md §5.2):
previews and saves check the rules of the score only; what the cards say against an entry
is kept with the result (``Result.card_flags``) and shown on the arbiter's dashboard, and the
entry is confirmed at the table like any other.

The table card (`table_card_url`) leads to the page of the round open at its table. Revoking
a table's page revokes its card too; issuing a new page issues a new card to print (the old
card stays dead): a photographed card cannot outlive the arbiter's revocation.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import json
import re
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

from tarot_club.kit.api.idempotency import ttl as idempotency_ttl
from tarot_club.kit.throttling import SharedCounters
from tarot_club.models import IdempotencyRecord

from ..ledger_text import PROOF_CODE, PROOF_PHONE
from ..models import (
    COUNTED_ENTRY_STATUSES,
    CodeThrottle,
    Donne,
    EntryStatus,
    LedgerEntry,
    PhoneBinding,
    Player,
    PlayerCode,
    Registration,
    Result,
    Round,
    Seat,
    Table,
    TableAccess,
    TableRound,
    Tournament,
)
from ..permissions import can_write_results
from .results import (
    NON_FIELD,
    EntrySource,
    LedgerLine,
    ResultConflict,
    ResultInput,
    ResultInvalid,
    ResultPreview,
    result_input_from_result,
    result_preview,
    result_row_update,
    result_save,
)

__all__ = [
    "CODE_GUESS_BUDGET",
    "CODE_LOCK_SECONDS",
    "CODE_LOCK_STEPS",
    "CODE_MAX_FAILURES",
    "CODE_QUIET_SECONDS",
    "SHORT_CODE_ALPHABET",
    "SHORT_CODE_LOOKUPS_PER_MINUTE",
    "CodeLocked",
    "TableAccessDenied",
    "TablePageLinks",
    "Voucher",
    "code_source",
    "confirmer_problem",
    "phone_bound_elsewhere",
    "player_binding_issue",
    "player_binding_read",
    "player_binding_revoke",
    "player_code_reissue",
    "player_codes_get",
    "result_confirm_by_arbiter",
    "round_started",
    "table_access_issue",
    "table_access_lookup",
    "table_access_reissue",
    "table_access_resolve",
    "table_access_revoke",
    "table_card_resolve",
    "table_card_url",
    "table_donne",
    "table_entry_confirm",
    "table_entry_contest",
    "table_entry_preview",
    "table_entry_save",
    "table_idempotent",
    "table_page_links",
    "table_page_url",
    "table_player",
    "table_user",
    "valid_phone_id",
]

CODE_MAX_FAILURES = 5
# Wrong codes a player's code withstands from places he never typed it right (0.5 % of the
# 10,000 codes); beyond, only his trusted phones, his bound phone or a new code work.
CODE_GUESS_BUDGET = 50
# The random id a table page draws once per phone (128 bits, hex or URL-safe).
PHONE_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
# Each lock of a player's code lasts longer than the one before (the last step repeats);
# six hours without a lock start the steps again (a new tournament day).
CODE_LOCK_STEPS = (60, 300, 1800, 7200, 28800)
CODE_LOCK_SECONDS = CODE_LOCK_STEPS[0]
CODE_QUIET_SECONDS = 6 * 3600
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
                    ngettext(
                        "Too many wrong codes: this player's code is locked for %(seconds)s "
                        "second. Wait, or call the arbiter.",
                        "Too many wrong codes: this player's code is locked for %(seconds)s "
                        "seconds. Wait, or call the arbiter.",
                        seconds,
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
    """The page stops working at once (a lost or photographed score sheet), and so does the
    table's card, in every round, until the arbiter issues a new page."""
    _require_manager(user, access.tournament)
    now = timezone.now()
    with transaction.atomic():
        TableAccess.objects.filter(pk=access.pk, revoked_at=None).update(revoked_at=now)
        Table.objects.filter(pk=access.table_round.table_id).update(card_revoked_at=now)


def table_access_reissue(*, table_round: TableRound, user: Any) -> TableAccess:
    """Revoke the table's page for the round and issue a new secret and short code. The
    table's card is issued anew as well: a new card to print, the old one opens nothing."""
    _require_manager(user, table_round.round.tournament)
    with transaction.atomic():
        TableAccess.objects.filter(table_round=table_round, revoked_at=None).update(
            revoked_at=timezone.now()
        )
        Table.objects.filter(pk=table_round.table_id).update(
            card_version=F("card_version") + 1, card_revoked_at=None
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
    (``SHORT_CODE_LOOKUPS_PER_MINUTE``, the address from ``tarot_club.kit.throttling.client_address``):
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


def _card_signature(table_id: int, version: int) -> str:
    """128 bits of HMAC over the table's id and card version with the site's key: the table
    card's link can be neither guessed nor moved to another table, needs no stored secret,
    and dies when the card is issued anew."""
    key = settings.SECRET_KEY.encode()
    message = f"table-card:{table_id}" if not version else f"table-card:{table_id}:{version}"
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()[:32]


def table_card_url(*, table: Table) -> str:
    """The absolute URL printed as the QR code of a table card: it stands on the table all
    day, so it opens the table's page of whichever round is open there at the time, as long
    as the arbiter has not revoked it (see `table_card_resolve`)."""
    version = Table.objects.filter(pk=table.pk).values_list("card_version", flat=True).first()
    token = f"{table.pk}-{_card_signature(table.pk, version or 0)}"
    return _site() + reverse("table_card", args=[token])


def table_card_resolve(*, token: str) -> TableAccess:
    """The live table page that a table card's link leads to now: the page of the round open
    at that table. Raises TableAccessDenied for a forged link or one of a card issued anew,
    while the arbiter has revoked the table's page (until he issues a new page, which comes
    with a new card to print), or while no round is open. Never issues a page that the
    arbiter revoked."""
    table_id, _sep, signature = token.partition("-")
    table = Table.objects.filter(pk=int(table_id)).first() if table_id.isdigit() else None
    if table is None or not hmac.compare_digest(
        signature, _card_signature(table.pk, table.card_version)
    ):
        if table is not None and any(
            hmac.compare_digest(signature, _card_signature(table.pk, v))
            for v in range(table.card_version)
        ):
            raise TableAccessDenied(
                _("This table card was replaced by the arbiter. Use the new card or score sheet.")
            )
        raise TableAccessDenied(
            _("This table page does not exist. Scan the QR code of your score sheet again.")
        )
    if table.card_revoked_at is not None:
        raise TableAccessDenied(
            _("The arbiter revoked this table's page and card. Ask the arbiter for a new one.")
        )
    table_round = (
        TableRound.objects.select_related("round", "table")
        .filter(table=table, round__state=Round.State.OPEN)
        .order_by("round__number")
        .first()
    )
    if table_round is None:
        raise TableAccessDenied(
            _("No round is open at this table now: wait for the arbiter to open the next one.")
        )
    live = TableAccess.objects.filter(table_round=table_round, revoked_at=None).first()
    if live is None and TableAccess.objects.filter(table_round=table_round).exists():
        raise TableAccessDenied(
            _("The arbiter revoked this table's page and card. Ask the arbiter for a new one.")
        )
    return table_access_resolve(secret=(live or table_access_issue(table_round=table_round)).secret)


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
    """A new code for a player (he lost his route card, or someone saw it): unlocks it on
    every phone, gives its budget back and ends the phone bound to him."""
    _require_manager(user, tournament)
    code = _new_code()
    with transaction.atomic():
        updated = PlayerCode.objects.filter(tournament=tournament, player=player).update(
            code=code, wrong_total=0, guesses=0
        )
        if not updated:
            PlayerCode.objects.create(tournament=tournament, player=player, code=code)
        CodeThrottle.objects.filter(tournament=tournament, player=player).delete()
        _end_bindings(tournament, player, PhoneBinding.End.NEW_CODE, user)
    return code


def code_source(*, phone: str, address: str) -> str:
    """Where a code is typed from, as the throttle counts it: the random id the table page
    keeps on its phone (`valid_phone_id`), else the client's address. A digest: neither is
    stored."""
    kind, value = ("phone", phone) if valid_phone_id(phone) else ("address", address)
    return hashlib.sha256(f"code-source:{kind}:{value}".encode()).hexdigest()[:32]


def _lock_seconds(lockouts: int) -> int:
    """How long the next lock lasts after ``lockouts`` earlier ones."""
    return CODE_LOCK_STEPS[min(lockouts, len(CODE_LOCK_STEPS) - 1)]


def _lock(rows: Any, now: datetime.datetime, condition: Q) -> CodeThrottle:
    """Lock the code for the next step's time. The UPDATE is conditional on the number of
    locks read: of two requests locking at once, one locks and the other reads its lock."""
    row = rows.get()
    until = now + datetime.timedelta(seconds=_lock_seconds(row.lockouts))
    rows.filter(condition, lockouts=row.lockouts).update(
        failures=0, lockouts=F("lockouts") + 1, locked_until=until
    )
    return rows.get()


def _wait(row: CodeThrottle, now: datetime.datetime) -> int:
    if row.locked_until is None:
        return _lock_seconds(0)
    return max(1, int((row.locked_until - now).total_seconds()) + 1)


def _throttle_rows(tournament: Tournament, player: Player, source: str) -> Any:
    """The throttle of ``player``'s code from ``source``, created on first use. A new source
    is refused at once when the budget of guesses is spent: changing phone ids then neither
    tries codes nor fills the table."""
    rows = CodeThrottle.objects.filter(tournament=tournament, player=player, source=source)
    if not rows.exists():
        if PlayerCode.objects.filter(
            tournament=tournament, player=player, guesses__gte=CODE_GUESS_BUDGET
        ).exists():
            raise _budget_spent(player)
        try:
            with transaction.atomic():
                CodeThrottle.objects.create(tournament=tournament, player=player, source=source)
        except IntegrityError:
            pass  # created meanwhile by another attempt
    return rows


def _take_guess(tournament: Tournament, player: Player) -> bool:
    """Spend one of the ``CODE_GUESS_BUDGET`` guesses of a place the player never proved
    himself from, in one conditional UPDATE; False when none is left."""
    return bool(
        PlayerCode.objects.filter(
            tournament=tournament, player=player, guesses__lt=CODE_GUESS_BUDGET
        ).update(guesses=F("guesses") + 1)
    )


def _budget_spent(player: Player) -> ResultInvalid:
    return ResultInvalid(
        {
            "code": [
                _(
                    "Too many wrong codes were typed for %(player)s from other phones: their "
                    "code now works only on a phone where they typed it before. Call the "
                    "arbiter."
                )
                % {"player": player}
            ]
        }
    )


def _check_code(tournament: Tournament, player: Player, code: str, source: str) -> None:
    """Raise ResultInvalid on a wrong code (counted), CodeLocked while locked for ``source``.

    The throttle slows the guesser down, never the owner (`CodeThrottle`): it is kept per
    player *and* per source (`code_source`). Each attempt first takes one of the source's
    ``CODE_MAX_FAILURES`` tries in a single conditional UPDATE, then compares: requests sent
    at once cannot all read "no failure yet". Using up the tries locks the code for that
    source only, for ``CODE_LOCK_STEPS`` (1 min, then 5 min, 30 min, 2 h, then 8 h each
    time); the steps start again when the arbiter issues a new code or after
    ``CODE_QUIET_SECONDS`` (6 h) without a lock. A right code gives the source's tries back
    (not the steps) and trusts the source. The owner's right code from any other phone and
    his bound phone keep working whatever a table-mate typed. A phone the whole table shares
    is one source: locked there, the owner confirms from his own phone or his bound phone
    (letting a right code through a locked source would let its guesser go on guessing).

    What stops brute force then: a source cannot be trusted without the right code, and
    each wrong code from an untrusted source spends one of the player's
    ``CODE_GUESS_BUDGET`` guesses (phones' ids cost nothing to change): once spent, untrusted
    sources are refused without comparing, so at most 50 of the 10,000 codes are ever
    tried (0.5 %), at the table where the player sits this round only. The counts are not
    rolled back with the caller's refusal (the views turn refusals into answers and commit).
    """
    player_codes_get(tournament=tournament)
    now = timezone.now()
    rows = _throttle_rows(tournament, player, source)
    quiet_since = now - datetime.timedelta(seconds=CODE_QUIET_SECONDS)
    rows.filter(locked_until__lte=quiet_since).update(lockouts=0, locked_until=None)
    unlocked = Q(locked_until__isnull=True) | Q(locked_until__lte=now)
    taken = rows.filter(unlocked, failures__lt=CODE_MAX_FAILURES).update(failures=F("failures") + 1)
    row = rows.get()
    if not taken:
        if row.locked_until is None or row.locked_until <= now:
            # The tries were used up by attempts that are still being answered: lock now.
            row = _lock(rows, now, unlocked)
        raise CodeLocked(_wait(row, now))
    if not row.trusted and not _take_guess(tournament, player):
        rows.filter(failures__gt=0).update(failures=F("failures") - 1)
        raise _budget_spent(player)
    right = PlayerCode.objects.filter(tournament=tournament, player=player).values_list(
        "code", flat=True
    )[0]
    if secrets.compare_digest(right, (code or "").strip()):
        rows.update(failures=0, trusted=True)
        if not row.trusted:  # a right code is no guess
            PlayerCode.objects.filter(tournament=tournament, player=player).update(
                guesses=F("guesses") - 1
            )
        return
    PlayerCode.objects.filter(tournament=tournament, player=player).update(
        wrong_total=F("wrong_total") + 1
    )
    if row.locked_until is not None and row.locked_until > now:
        raise CodeLocked(_wait(row, now))  # attempts sent at once used the last try meanwhile
    if row.failures >= CODE_MAX_FAILURES:
        row = _lock(rows, now, Q(failures__gte=CODE_MAX_FAILURES))
        raise CodeLocked(_wait(row, now))
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


# --- who is at the phone: a code typed, or a phone bound to a player ---------------------------


@dataclass(frozen=True)
class Voucher:
    """What a player at the table gives to prove who he is: his name with his personal code,
    or the binding of the phone to him (``binding``, from `player_binding_issue`), which
    names him by itself. Nothing else is believed. ``source`` is where a code is typed from
    (`code_source`): the throttle of wrong codes is kept per player and source."""

    player_id: int | None = None
    code: str = ""
    binding: str = ""
    source: str = ""


def valid_phone_id(phone: str) -> bool:
    """Whether ``phone`` looks like the random id a table page draws once per phone."""
    return bool(PHONE_ID.fullmatch(phone or ""))


def _digest(kind: str, value: str) -> str:
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


def _end_bindings(tournament: Tournament, player: Player, reason: str, user: Any) -> int:
    """End ``player``'s live binding (kept as the record); how many were ended."""
    return PhoneBinding.objects.filter(tournament=tournament, player=player, ended_at=None).update(
        ended_at=timezone.now(), end_reason=reason, ended_by=user
    )


def phone_bound_elsewhere(*, tournament: Tournament, phone: str, player: Player) -> bool:
    """Whether the phone of id ``phone`` is bound now to another player than ``player`` (a
    live binding of a round not closed): such a phone is handed over, never taken."""
    return (
        PhoneBinding.objects.filter(
            tournament=tournament, phone_digest=_digest("phone", phone), ended_at=None
        )
        .exclude(player=player)
        .exclude(table_round__round__state=Round.State.CLOSED)
        .exists()
    )


def player_binding_issue(*, access: TableAccess, player: Player, phone: str) -> str | None:
    """Bind the phone whose page keeps the random id ``phone`` to ``player``, at the access's
    table and in its round only: returns the token the page keeps and sends instead of the
    code, or None when the phone has no valid id or is bound now to another player (a phone
    handed over never takes its borrower's binding). The player's previous binding ends
    (one phone per player). Call only once the player proved who he is with his code."""
    tournament = access.tournament
    if not valid_phone_id(phone) or phone_bound_elsewhere(
        tournament=tournament, phone=phone, player=player
    ):
        return None
    token = secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            _end_bindings(tournament, player, PhoneBinding.End.REPLACED, None)
            PhoneBinding.objects.create(
                tournament=tournament,
                player=player,
                table_round=access.table_round,
                table_access=access,
                token_digest=_digest("binding", token),
                phone_digest=_digest("phone", phone),
            )
    except IntegrityError:  # another phone bound him at the same moment: that one wins
        return None
    return token


def player_binding_revoke(*, tournament: Tournament, player: Player, user: Any) -> int:
    """The arbiter ends the phone bound to ``player`` (kept as the record, with who ended
    it): the phone asks for the code again. Returns how many bindings were ended (0 or 1)."""
    _require_manager(user, tournament)
    return _end_bindings(tournament, player, PhoneBinding.End.ARBITER, user)


def _binding_refused(ended: bool = False) -> ResultInvalid:
    message = (
        _(
            "This phone is no longer bound to you (another phone was bound, or the arbiter "
            "ended it): choose your name and type your personal code."
        )
        if ended
        else _(
            "This phone's binding is not valid here: choose your name and type your "
            "personal code again."
        )
    )
    return ResultInvalid({"binding": [message]})


def player_binding_read(*, access: TableAccess, binding: str) -> Player:
    """The player a phone is bound to, at the access's table and in its round. Raises
    ResultInvalid when the token is unknown, ended (replaced, revoked, a new code), or
    was made at another table or in another round."""
    row = (
        PhoneBinding.objects.select_related("player")
        .filter(tournament=access.tournament, token_digest=_digest("binding", binding or ""))
        .first()
    )
    if row is None or row.table_round_id != access.table_round_id:
        raise _binding_refused()
    if row.ended_at is not None:
        raise _binding_refused(ended=True)
    return row.player


def _vouched(access: TableAccess, voucher: Voucher) -> tuple[Player, str]:
    """The player who proved who he is, seated at the table in this round, and how he proved
    it (``PROOF_CODE`` or ``PROOF_PHONE``). Raises ResultInvalid or CodeLocked."""
    if voucher.binding:
        player = player_binding_read(access=access, binding=voucher.binding)
        if not Seat.objects.filter(table_round=access.table_round, player=player).exists():
            raise _binding_refused()
        return player, PROOF_PHONE
    player = _seated_player(access, voucher.player_id)
    if not (voucher.code or "").strip():
        raise ResultInvalid(
            {"code": [_("Type your personal code (4 digits, on your route card).")]}
        )
    _check_code(access.tournament, player, voucher.code, voucher.source)
    return player, PROOF_CODE


def table_player(*, access: TableAccess, voucher: Voucher) -> tuple[Player, str]:
    """The player of the access's table (this round) the ``voucher`` proves, and how he
    proved it: what every write from the table's page asks first (a call to the arbiter
    too). Raises ResultInvalid (no such player, a bad binding) or CodeLocked."""
    return _vouched(access, voucher)


def table_player_vouched(*, access: TableAccess, voucher: Voucher) -> Player:
    """The player of the table who proved who they are with ``voucher`` (their code, or their
    bound phone), for a write other than a result's (a claim). Raises ResultInvalid or CodeLocked,
    with the same throttle of wrong codes."""
    return _vouched(access, voucher)[0]


# --- entering, confirming, contesting: never an answer from the cards ------------------------


def table_entry_preview(
    *, access: TableAccess, donne_number: int, data: ResultInput
) -> dict[str, Any]:
    """The live preview of the table's page: scores, errors, missing fields and warnings of
    the rules of the score (RULES.md §5, §5.1 first table) and of what was typed (a half
    point). Nothing in it depends on the donne's hands (§5.2, §6.2). Never writes."""
    donne = table_donne(access, donne_number)
    preview: ResultPreview = result_preview(
        tournament=access.tournament,
        table=access.table_round.table,
        donne=donne,
        data=data,
        hands_decide=False,
    )
    return {
        "scores": preview.scores,
        "errors": preview.problems,
        "missing": preview.missing,
        "warnings": preview.warnings,
    }


def table_entry_save(
    *,
    access: TableAccess,
    donne_number: int,
    data: ResultInput,
    voucher: Voucher,
    expected_version: int | None,
) -> tuple[Result, Player]:
    """Enter (or correct, while it does not count yet) the table's result on a donne, in the
    name of the player the ``voucher`` proves; returns the result and that player.

    The answer does not depend on the hands: what they say against the entry is kept in
    ``Result.card_flags`` for the arbiter. A result the arbiter entered or an opponent
    confirmed is the arbiter's to change: refused with a conflict, never overwritten. The
    ledger says "entered" for the first entry and "corrected" for a correction, with the
    player and how he proved it. Raises ResultInvalid, CodeLocked, ResultConflict or
    PermissionDenied.
    """
    donne = table_donne(access, donne_number)
    player, proof = _vouched(access, voucher)
    table = access.table_round.table
    with transaction.atomic():
        current = Result.objects.filter(table=table, donne=donne).first()
        if current is not None and (
            current.entry_status in COUNTED_ENTRY_STATUSES or expected_version is None
        ):
            raise ResultConflict(current)
        result = result_save(
            tournament=access.tournament,
            table=table,
            donne=donne,
            data=data,
            user=table_user(),
            expected_version=expected_version,
            source=EntrySource(entered_by=player, table_access=access, proof=proof),
        )
    return result, player


def confirmer_problem(
    *,
    holders: Mapping[str, int],
    taker: str,
    all_passed: bool,
    entered_by: int | None,
    confirmer: int,
) -> str | None:
    """Why ``confirmer`` may not confirm, or None: he must hold a hand on the donne, not be
    who entered it, and (when someone took) be of the other camp than who entered it (attack
    is the taker), who must hold a hand too. Both are players who proved who they are."""
    held = {int(pid): pos for pos, pid in holders.items()}
    if confirmer not in held:
        return "not_holder"
    if entered_by is not None and confirmer == entered_by:
        return "same_player"
    if all_passed:
        return None
    if entered_by is None or entered_by not in held:
        return "enterer_sits_out"  # nobody of a camp stands behind the entry yet
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
    line: LedgerLine,
    extra: Mapping[str, Any] | None = None,
) -> Result:
    """Change the entry status of the locked ``result`` through the one writer of Result rows
    (results.result_row_update: the version's guard, the ledger line, the guarded bump: the
    result enters or leaves the ranking)."""
    round_ = Round.objects.get(table_rounds__pk=result.table_round_id)
    return result_row_update(
        result=result,
        tournament=result.tournament,
        round_=round_,
        expected_version=result.version,
        values={"entry_status": status, **(extra or {})},
        line=line,
        entry_status_in_ledger=True,
    )


def table_entry_confirm(
    *, access: TableAccess, donne_number: int, voucher: Voucher, version: int | None
) -> Result:
    """A player of the other camp than who entered it confirms the table's entry, proving
    who he is with his code or his bound phone: it counts. The ledger names him and how."""
    player, proof = _vouched(access, voucher)
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
                "enterer_sits_out": _(
                    "This result was entered by a player who holds no hand on this donne: a "
                    "player who holds one enters it again, or the arbiter confirms it."
                ),
            }
            raise ResultInvalid({"player": [messages[problem] % {"player": player}]})
        return _set_status(
            result,
            status=EntryStatus.CONFIRMED,
            line=LedgerLine(
                action=LedgerEntry.Action.RESULT_CONFIRMED,
                actor=table_user(),
                reason_code="table_confirmed",
                reason_params={"proof": proof},
                by_player=player,
                table_access=access,
            ),
            extra={"confirmed_by": player, "confirmed_at": timezone.now()},
        )


def table_entry_contest(
    *, access: TableAccess, donne_number: int, voucher: Voucher, note: str, version: int | None
) -> Result:
    """ "Je conteste": the result goes to the arbiter with the note of a player who proved
    who he is (his code or his bound phone)."""
    note = (note or "").strip()
    if not note:
        raise ResultInvalid({"note": [_("Say in a few words what is wrong with this result.")]})
    if len(note) > 300:
        raise ResultInvalid({"note": [_("Keep the note under 300 characters.")]})
    player, _proof = _vouched(access, voucher)
    with transaction.atomic():
        result = _confirmable(access, donne_number, version)
        if result.entry_status not in (EntryStatus.AWAITING, EntryStatus.NEEDS_ARBITER):
            raise ResultInvalid(
                {NON_FIELD: [_("This result is settled: only the arbiter can change it now.")]}
            )
        return _set_status(
            result,
            status=EntryStatus.CONTESTED,
            line=LedgerLine(
                action=LedgerEntry.Action.RESULT_CONTESTED,
                actor=table_user(),
                reason=note,
                by_player=player,
                table_access=access,
            ),
            extra={"contest_note": note},
        )


def result_confirm_by_arbiter(*, result: Result, user: Any) -> Result:
    """The arbiter makes a table's entry count as it stands (it then counts as his): this
    also settles what the cards said against it (``card_flags``, kept as the record), even
    once the table confirmed it; their codes join the confirmed warnings."""
    _require_manager(user, result.tournament)
    with transaction.atomic():
        locked = Result.objects.select_for_update().get(pk=result.pk)
        flagged = bool(locked.card_flags) and locked.entry_status != EntryStatus.ARBITER
        if locked.entry_status in COUNTED_ENTRY_STATUSES and not flagged:
            return locked
        codes = {str(flag.get("code", "")) for flag in locked.card_flags or ()}
        if locked.entry_status == EntryStatus.NEEDS_ARBITER and locked.status == "played":
            # Its warnings are now confirmed by the arbiter.
            preview = result_preview(
                tournament=locked.tournament,
                table=locked.table,
                donne=locked.donne,
                data=result_input_from_result(locked),
            )
            codes |= set(preview.warnings)
        extra: dict[str, Any] = {"contest_note": ""}
        if codes:
            extra["confirmed_warnings"] = sorted(codes | set(locked.confirmed_warnings or ()))
        return _set_status(
            locked,
            status=EntryStatus.ARBITER,
            line=LedgerLine(action=LedgerEntry.Action.RESULT_CONFIRMED, actor=user),
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
