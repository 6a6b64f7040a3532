"""The table's page: players enter and confirm their table's results from a phone, without an
account. Thin: tournaments.services.table_entry decides; these views translate HTTP.

The secret in the URL is the only key to the page (no session, no CSRF cookie: the JSON writes
are CSRF-exempt because a forged request would need the secret). Each write also carries who
makes it, proven (`_voucher`): ``player`` with his ``code``, or the ``binding`` token of a
phone bound to them, which a save with ``bind`` set and the phone's random id (``phone``)
answers with, when that phone is bound to nobody else (the page keeps it for its table and
round). Writes take the same form
fields as the arbiter's entry form and an ``Idempotency-Key`` header, so the page's offline
queue can resend safely.
"""

from __future__ import annotations

import datetime
import hashlib
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tarot_club.kit.throttling import client_address

from ..forms_arbiter import ResultForm
from ..models import (
    POSITIONS,
    ArbiterCall,
    Donne,
    EntryStatus,
    Irregularity,
    Position,
    Result,
    Seat,
    TableAccess,
)
from ..services.calls import CallInput, call_make, calls_of_table
from ..services.claims import table_claim_access
from ..services.claims_window import claims_window
from ..services.preparation import seats_for_donne
from ..services.results import (
    NON_FIELD,
    ResultConflict,
    ResultInvalid,
    contract_label,
    result_describe,
    result_snapshot,
)
from ..services.table_entry import (
    TableAccessDenied,
    Voucher,
    code_source,
    player_binding_issue,
    table_access_lookup,
    table_access_resolve,
    table_card_resolve,
    table_donne,
    table_entry_confirm,
    table_entry_contest,
    table_entry_preview,
    table_entry_save,
    table_idempotent,
)
from ..validators import validate_free_text

__all__ = [
    "service_worker",
    "table_call",
    "table_card",
    "table_code",
    "table_confirm",
    "table_contest",
    "table_manifest",
    "table_page",
    "table_preview",
    "table_save",
    "table_state",
]


def _denied(
    request: HttpRequest, exc: PermissionDenied, claims: dict[str, Any] | None = None
) -> HttpResponse:
    """The page (or JSON) that says why the table's page is refused; ``claims`` (from
    `_claims_context`) adds the claims window's line and the claim link after play."""
    message = getattr(exc, "message", None) or str(exc) or _("This page is not for this table.")
    if request.method == "GET" and not request.path.endswith(".json"):
        context = {"message": message, "claim_url": "", **(claims or {})}
        return render(request, "tournaments/table/denied.html", context, status=403)
    return JsonResponse({"errors": {NON_FIELD: [message]}}, status=403)


def _access(secret: str) -> TableAccess:
    return table_access_resolve(secret=secret)


def _result_json(result: Result | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "version": result.version,
        "status": result.status,
        "entry_status": result.entry_status,
        "entry_label": str(EntryStatus(result.entry_status).label),
        "counts": result.entry_status in (EntryStatus.ARBITER, EntryStatus.CONFIRMED),
        "summary": result_describe(result_snapshot(result)),
        "taker": result.taker,
        "contract": result.contract,
        "contract_label": contract_label(result.contract) if result.contract else "",
        "bouts": result.bouts,
        "points": None if result.points is None else f"{result.points:f}".removesuffix(".0"),
        "petit_au_bout": result.petit_au_bout,
        "poignees": dict(result.poignees or {}),
        "chelem": result.chelem,
        "scores": dict(result.scores or {}),
        "entered_by": result.entered_by_id,
        "confirmed_by": result.confirmed_by_id,
        "contest_note": result.contest_note,
    }


def _state_version(access: TableAccess) -> str:
    """A short tag of the table's state in the round, cheap to compute (two small queries):
    it changes whenever a result of this table on its relais is saved or changes status (a
    result's version only grows and results are never deleted, so the count and the sum of
    the versions change together with any write), or a seat of the table changes. It depends
    on this table only: it tells nothing of the hands nor of another table (RULES.md §6.2)."""
    table_round = access.table_round
    results = Result.objects.filter(
        table_id=table_round.table_id, donne__etui_set_id=table_round.etui_set_id
    ).aggregate(n=Count("pk"), v=Sum("version"))
    # The table's calls to the arbiter ride along with its seats (issue 34): each call made,
    # joined, taken or ruled adds one to their count, which never goes down.
    calls = (
        ArbiterCall.objects.filter(table_round=OuterRef("table_round"))
        .order_by()
        .values("table_round")
        .annotate(
            steps=Count("pk") + Coalesce(Sum("joins"), 0) + Count("taken_at") + Count("ruled_at")
        )
        .values("steps")
    )
    seats = (
        Seat.objects.filter(table_round=table_round)
        .annotate(calls=Coalesce(Subquery(calls), 0))
        .order_by("position")
    )
    digest = hashlib.sha256(
        repr(list(seats.values_list("position", "player_id", "calls"))).encode()
    )
    return f"{results['n']}.{results['v'] or 0}.{digest.hexdigest()[:10]}"


def _state(access: TableAccess) -> dict[str, Any]:
    """The table's seats and donnes in the round, and its own results: never hands. Its
    ``version`` is `_state_version`'s tag, the poll's ETag."""
    version = _state_version(access)
    table_round = access.table_round
    seats = list(Seat.objects.filter(table_round=table_round).select_related("player"))
    donnes = list(Donne.objects.filter(etui_set_id=table_round.etui_set_id).order_by("number"))
    results = {
        r.donne_id: r
        for r in Result.objects.filter(table=table_round.table, donne__in=donnes).select_related(
            "table", "donne"
        )
    }
    rows = []
    for index, donne in enumerate(donnes):
        holding = seats_for_donne(table_round, index, seats)
        rows.append(
            {
                "number": donne.number,
                "seats": {
                    p: {"id": holding.hands[p].pk, "name": str(holding.hands[p])}
                    for p in POSITIONS
                    if p in holding.hands
                },
                "sitter": str(holding.sitter) if holding.sitter else None,
                "result": _result_json(results.get(donne.pk)),
            }
        )
    return {
        "version": version,
        "table": table_round.table.number,
        "round": table_round.round.number,
        "tournament": access.tournament.name,
        "tournament_id": access.tournament_id,
        "players": [
            {"id": s.player_id, "name": str(s.player), "seat": s.position}
            for s in sorted(seats, key=lambda s: "NESWF".index(s.position))
        ],
        "positions": {p: str(Position(p).label) for p in POSITIONS},
        "donnes": rows,
        "calls": calls_of_table(table_round_id=table_round.pk),
    }


def _page_strings() -> dict[str, str]:
    """What the page's script says, translated here ("%(n)s" is filled in by the script)."""
    return {
        "online": _("Connected."),
        "offline": _(
            "No connection: results entered are kept on this phone and sent when it returns."
        ),
        "queue_one": ngettext(
            "%(n)s result waiting to be sent", "%(n)s results waiting to be sent", 1
        ),
        "queue_many": ngettext(
            "%(n)s result waiting to be sent", "%(n)s results waiting to be sent", 2
        ),
        "donne": _("Donne %(n)s"),
        "to_enter": _("to enter"),
        "queued": _("waiting to be sent"),
        "sitter": _("Sits out: %(n)s"),
        "confirmed_by": _("Confirmed by %(n)s."),
        "no_preview": _("The scores are computed when the connection returns."),
        "saved_offline": _("Kept on this phone: it will be sent when the connection returns."),
        "sending": _("Waiting to be sent: it goes as soon as the site answers."),
        "warning_calls_arbiter": _(
            "Saved as it is, this result waits for the arbiter: the table cannot confirm it."
        ),
        "saved": _("Saved. Now pass the phone to a player of the other camp to confirm."),
        "needs_connection": _("Confirming needs the connection: try again when it returns."),
        "conflict": _("Donne %(n)s"),
        "confirmed": _("Confirmed: it counts."),
        "contested": _("Sent to the arbiter."),
        "error": _("Something went wrong: try again."),
        "bound_to": _("This phone is %(n)s's: no code to type."),
        "unbind": _("Not %(n)s? Hand this phone over"),
        "confirm_as": _("I confirm this result, as %(n)s"),
        "kept_meanwhile": _(
            "Another phone saved this donne meanwhile (above). Yours, below, is not saved: "
            "compare them. If the saved one is right, confirm it above."
        ),
        "kept_conflict": _(
            "Yours, below, was not saved: this donne was saved meanwhile (above). Compare "
            "them: if the saved one is right, confirm it above; if yours is, save it to "
            "correct the saved one."
        ),
        "kept_counts": _(
            "Yours, below, was not saved: the result above already counts. If yours is right, "
            "show it to the arbiter."
        ),
        "who_confirms": _("Choose who confirms: tap your name."),
        # The entry's state in the page's language, whatever language a resend was answered in.
        "entry_labels": {code: str(label) for code, label in EntryStatus.choices},
    }


def _call_strings() -> dict[str, str]:
    """What the call part of the page says ("%(n)s" filled in by the script)."""
    return {
        "donne": _("Donne %(n)s"),
        "trick": _("trick %(n)s"),
        "queued": _("Kept on this phone: the call goes as soon as the connection returns."),
        "queue": _("Calls waiting to be sent: %(n)s"),
        "sent": _("The arbiter is called."),
        "joined": _("The arbiter was already called for this donne: your call joins it."),
        "bound": _("Called as %(n)s (this phone is bound)."),
        "choose": _("Choose the irregularity."),
        "error": _("Something went wrong: try again."),
        "ruling": _("Ruling: %(n)s"),
    }


def _claims_context(secret: str) -> dict[str, Any]:
    """What a table's page refused after play says of the claims window: its line (kept up
    to date on the page) once the window has opened, and the table's claim form while it
    accepts claims. Empty for an unknown or replaced page."""
    try:
        access = table_claim_access(secret=secret)
    except TableAccessDenied:
        return {}
    window = claims_window(access.tournament)
    if window.state == "none":
        return {}
    return {
        "tournament": access.tournament,
        "window": window,
        "claim_url": reverse("table_claim", args=[secret]) if window.accepts_claims() else "",
    }


@never_cache
@require_GET
def table_page(request: HttpRequest, secret: str) -> HttpResponse:
    try:
        access = _access(secret)
    except TableAccessDenied as exc:
        return _denied(request, exc, claims=_claims_context(secret))
    context = {
        "access": access,
        "state": _state(access),
        "i18n": _page_strings(),
        "call_i18n": _call_strings(),
        "irregularities": Irregularity.choices,
        "form": ResultForm(),
        "positions": [(p, Position(p).label) for p in POSITIONS],
        "urls": {
            "state": reverse("table_state", args=[secret]),
            "base": reverse("table_page", args=[secret]),
            "sw": reverse("table_sw"),
        },
    }
    return render(request, "tournaments/table/page.html", context)


def _etag_matches(request: HttpRequest, tag: str) -> bool:
    """Whether the request's If-None-Match names ``tag`` (quoted, weak or not, or "*")."""
    header = request.headers.get("If-None-Match") or ""
    names = {t.strip().removeprefix("W/").strip('"') for t in header.split(",")}
    return tag in names or "*" in names


@never_cache
@require_GET
def table_state(request: HttpRequest, secret: str) -> HttpResponse:
    """The table's state, followed by its page every few seconds: with the ETag it last got
    in If-None-Match, an unchanged state is a 304 without a body (the access and two small
    queries, `_state_version`); a changed one is the whole state, with its new ETag."""
    try:
        access = _access(secret)
    except TableAccessDenied as exc:
        return _denied(request, exc)
    if request.headers.get("If-None-Match"):
        tag = _state_version(access)
        if _etag_matches(request, tag):
            response = HttpResponse(status=304)
            response["ETag"] = f'"{tag}"'
            return response
    state = _state(access)
    response = JsonResponse(state)
    response["ETag"] = f'"{state["version"]}"'
    return response


def _form(request: HttpRequest) -> ResultForm:
    return ResultForm(request.POST)


def _form_errors(form: ResultForm) -> dict[str, list[str]]:
    return {k: [str(m) for m in v] for k, v in form.errors.items()}


def _version(request: HttpRequest) -> int | None:
    text = (request.POST.get("version") or "").strip()
    return int(text) if text.isdigit() else None


def _int(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if text.isdigit() and len(text) < 10 else None


def _phone(request: HttpRequest) -> str:
    """The random id the table page keeps on its phone ("" when absent)."""
    return (request.POST.get("phone") or "")[:64]


def _voucher(request: HttpRequest) -> Voucher:
    """Who makes the write, as the page proves it: a bound phone's token, else name and code
    (throttled per player and per phone, else per address)."""
    return Voucher(
        player_id=_int(request.POST.get("player")),
        code=(request.POST.get("code") or "")[:20],
        binding=(request.POST.get("binding") or "")[:500],
        source=code_source(phone=_phone(request), address=client_address(request)),
    )


@csrf_exempt
@require_POST
def table_preview(request: HttpRequest, secret: str, donne: int) -> HttpResponse:
    """The live scores while the players type; never writes."""
    try:
        access = _access(secret)
        donne_obj = table_donne(access, donne)
    except PermissionDenied as exc:
        return _denied(request, exc)
    form = _form(request)
    if not form.is_valid():
        return JsonResponse({"scores": {}, "errors": _form_errors(form), "warnings": {}})
    # What the hands decide is said without saying where any card is (never hands here).
    return JsonResponse(
        table_entry_preview(access=access, donne_number=donne_obj.number, data=form.to_input())
    )


def _conflict(exc: ResultConflict) -> tuple[int, dict[str, Any]]:
    current = exc.current
    return 409, {
        "errors": {
            NON_FIELD: [
                _(
                    "This donne's result changed meanwhile (now: %(summary)s, %(status)s). "
                    "Yours was not saved: check with the arbiter."
                )
                % {
                    "summary": result_describe(result_snapshot(current)),
                    "status": EntryStatus(current.entry_status).label,
                }
            ]
        },
        "result": _result_json(current),
    }


def _write(request: HttpRequest, secret: str, donne: int, action: Any) -> HttpResponse:
    """Run one write from the table's page, once per Idempotency-Key."""
    try:
        access = _access(secret)
        table_donne(access, donne)
    except PermissionDenied as exc:
        return _denied(request, exc)

    def run() -> tuple[int, dict[str, Any]]:
        try:
            result = action(access)
        except ResultConflict as exc:
            return _conflict(exc)
        except ResultInvalid as exc:
            return 400, {"errors": exc.errors}
        except PermissionDenied as exc:
            return 403, {"errors": {NON_FIELD: [str(exc)]}}
        if isinstance(result, tuple):  # a save: the result, and the binding asked for
            result, extra = result
            return 200, {"result": _result_json(result), **extra}
        return 200, {"result": _result_json(result)}

    body = {k: v for k, v in request.POST.lists()}
    status, answer, replayed = table_idempotent(
        access=access,
        key=request.headers.get("Idempotency-Key"),
        method=request.method or "POST",
        path=request.path,
        body=body,
        run=run,
    )
    response = JsonResponse(answer, status=status)
    if replayed:
        response["Idempotent-Replayed"] = "true"
    return response


@csrf_exempt
@require_POST
def table_save(request: HttpRequest, secret: str, donne: int) -> HttpResponse:
    form = _form(request)

    def action(access: TableAccess) -> tuple[Result, dict[str, Any]]:
        if not form.is_valid():
            raise ResultInvalid(_form_errors(form))
        voucher = _voucher(request)
        result, player = table_entry_save(
            access=access,
            donne_number=donne,
            data=form.to_input(),
            voucher=voucher,
            expected_version=_version(request),
        )
        extra: dict[str, Any] = {}
        token = None
        if request.POST.get("bind") and not voucher.binding:
            # The code was right: this phone becomes his, here and in this round, unless
            # it has no id or is bound to another player (handed over: never taken).
            token = player_binding_issue(access=access, player=player, phone=_phone(request))
        if token is not None:
            extra["binding"] = {
                "token": token,
                "player": player.pk,
                "name": str(player),
                "tournament": access.tournament_id,
            }
        return result, extra

    return _write(request, secret, donne, action)


@csrf_exempt
@require_POST
def table_confirm(request: HttpRequest, secret: str, donne: int) -> HttpResponse:
    def action(access: TableAccess) -> Result:
        return table_entry_confirm(
            access=access,
            donne_number=donne,
            voucher=_voucher(request),
            version=_version(request),
        )

    return _write(request, secret, donne, action)


@csrf_exempt
@require_POST
def table_contest(request: HttpRequest, secret: str, donne: int) -> HttpResponse:
    def action(access: TableAccess) -> Result:
        note = request.POST.get("note") or ""
        try:
            validate_free_text(note)
        except ValidationError as exc:
            raise ResultInvalid({"note": exc.messages}) from None
        return table_entry_contest(
            access=access,
            donne_number=donne,
            voucher=_voucher(request),
            note=note,
            version=_version(request),
        )

    return _write(request, secret, donne, action)


def _phone_time(text: str | None) -> datetime.datetime | None:
    """The phone's clock as its page sends it (milliseconds since the epoch); None if absent
    or not a number."""
    text = (text or "").strip()
    if not text.isdigit() or len(text) > 15:
        return None
    ms = int(text)
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)


def _call_json(call: ArbiterCall, joined: bool) -> dict[str, Any]:
    return {
        "id": call.pk,
        "donne": call.donne.number,
        "state": call.state,
        "state_label": call.get_state_display(),
        "joined": joined,
    }


@csrf_exempt
@require_POST
def table_call(request: HttpRequest, secret: str) -> HttpResponse:
    """Call the arbiter from the table's page: ``donne`` (number), ``irregularity``,
    optional ``trick`` and ``note``, ``phone_time`` (the phone's clock, ms), ``ref`` (the
    phone's id for the call), and who calls (`_voucher`). Once per Idempotency-Key: the
    page's offline queue resends safely. 200 with the call (``joined`` when it joined one
    already open on that donne); 400 naming the field; 403 for a page no longer valid."""
    try:
        access = _access(secret)
    except TableAccessDenied as exc:
        return _denied(request, exc)
    post = request.POST

    def run() -> tuple[int, dict[str, Any]]:
        data = CallInput(
            donne_number=_int(post.get("donne")),
            irregularity=(post.get("irregularity") or "")[:40],
            trick=_int(post.get("trick")),
            note=(post.get("note") or "")[:1000],
            phone_time=_phone_time(post.get("phone_time")),
            client_ref=(post.get("ref") or "")[:40],
        )
        try:
            call, joined = call_make(access=access, voucher=_voucher(request), data=data)
        except ResultInvalid as exc:
            return 400, {"errors": exc.errors}
        return 200, {
            "call": _call_json(call, joined),
            "calls": calls_of_table(table_round_id=access.table_round_id),
        }

    status, answer, replayed = table_idempotent(
        access=access,
        key=request.headers.get("Idempotency-Key"),
        method="POST",
        path=request.path,
        body={k: v for k, v in post.lists()},
        run=run,
    )
    response = JsonResponse(answer, status=status)
    if replayed:
        response["Idempotent-Replayed"] = "true"
    return response


@require_GET
def table_card(request: HttpRequest, token: str) -> HttpResponse:
    """A table card's QR code: the table's page of the round open there now; a card the
    arbiter revoked (or replaced) opens nothing."""
    try:
        access = table_card_resolve(token=token)
    except PermissionDenied as exc:
        return _denied(request, exc)
    return redirect(reverse("table_page", args=[access.secret]))


@require_http_methods(["GET", "POST"])
def table_code(request: HttpRequest, code: str = "") -> HttpResponse:
    """The short address: type the 6-character code printed beside the QR code."""
    error = ""
    status = 200
    typed = code or (request.POST.get("code") or "")
    if typed:
        try:
            access = table_access_lookup(code=typed, client=client_address(request))
        except PermissionDenied as exc:
            error, status = str(exc), 429  # too many codes tried from this address
        else:
            if access is not None:
                return redirect(reverse("table_page", args=[access.secret]))
            error = _("No table has this code. Check the 6 characters beside the QR code.")
            status = 400
    return render(
        request,
        "tournaments/table/code.html",
        {"error": error, "typed": typed},
        status=status,
    )


@require_GET
def table_manifest(request: HttpRequest, secret: str) -> HttpResponse:
    """The web app manifest: the table's page installs on the phone's home screen."""
    try:
        access = _access(secret)
    except TableAccessDenied as exc:
        return _denied(request, exc)
    name = _("Table %(table)s") % {"table": access.table_round.table.number}
    data = {
        "name": f"{name} · {access.tournament.name}",
        "short_name": name,
        "start_url": reverse("table_page", args=[secret]),
        "scope": reverse("table_code"),
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#1d4e89",
        "icons": [
            {"src": static("tournaments/table/icon.svg"), "sizes": "any", "type": "image/svg+xml"}
        ],
    }
    return JsonResponse(data, content_type="application/manifest+json")


def _assets_version(names: list[str]) -> str:
    """A digest of the page's assets: when one changes, the service worker's text changes,
    so phones install the new one and drop the old cache."""
    from django.contrib.staticfiles import finders

    digest = hashlib.sha256()
    for name in names:
        path = finders.find(name)
        if path:
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()[:12]


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker, served under /table/ so that its scope covers the tables' pages."""
    names = [
        "tournaments/table/table.js",
        "tournaments/table/calls.js",
        "tournaments/table/table.css",
        "tournaments/table/icon.svg",
    ]
    response = render(
        request,
        "tournaments/table/sw.js",
        {"assets": [static(n) for n in names], "version": _assets_version(names)},
        content_type="text/javascript",
    )
    response["Cache-Control"] = "no-cache"
    return response
