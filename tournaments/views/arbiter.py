"""The arbiter's screens: dashboard, result entry with live scores, annulments, penalties,
rounds and the ledger. Thin: the services decide, these views translate HTTP to calls.

Every view asks tournaments.permissions.can_write_results: anonymous users are sent to the
login page (their POSTs change nothing), other users without the right get 403.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ..forms_arbiter import (
    CHELEM_KEYS,
    CONTRACT_KEYS,
    PETIT_KEYS,
    POIGNEE_KEYS,
    TAKER_KEYS,
    AnnulForm,
    JumpForm,
    PenaltyForm,
    ResultForm,
    WithdrawForm,
)
from ..ledger_text import entry_text
from ..models import (
    POSITIONS,
    Donne,
    LedgerEntry,
    Penalty,
    Player,
    Position,
    Result,
    Round,
    Table,
    Tournament,
)
from ..once import once_per_form
from ..params import id_param
from ..permissions import can_write_results
from ..search import name_order
from ..services.calls import calls_open, calls_tag
from ..services.dashboard import MISSING, dashboard_build
from ..services.penalties import (
    PenaltyInvalid,
    penalty_record,
    penalty_repeat_window,
    penalty_withdraw,
)
from ..services.results import (
    ResultConflict,
    ResultContext,
    ResultInvalid,
    ResultNeedsConfirmation,
    ResultPreview,
    result_annul,
    result_context,
    result_describe,
    result_input_from_result,
    result_preview,
    result_save,
    result_snapshot,
    round_close,
    round_still_played_before,
)
from ..services.rounds import RoundOpenNeedsConfirmation, round_close_annulling, round_open_checked
from ..services.tournaments import tournament_start_steps


def _tournament(request: HttpRequest, pk: int) -> Tournament:
    """The tournament, if the user may write its results (403 otherwise)."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_write_results(request.user, tournament):
        raise PermissionDenied
    return tournament


def _cell(tournament: Tournament, table_number: int, donne_number: int) -> tuple[Table, Donne]:
    table = get_object_or_404(Table, tournament=tournament, number=table_number)
    donne = get_object_or_404(Donne, tournament=tournament, number=donne_number)
    return table, donne


def _entry_url(tournament: Tournament, table_number: int, donne_number: int) -> str:
    return reverse("arbiter_result", args=[tournament.pk, table_number, donne_number])


def _dashboard_url(tournament: Tournament) -> str:
    return reverse("arbiter_dashboard", args=[tournament.pk])


# --- dashboard ------------------------------------------------------------------------------


@login_required
@require_GET
def dashboard(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _tournament(request, pk)
    board = dashboard_build(tournament=tournament)
    active_penalties = Penalty.objects.filter(tournament=tournament, withdrawn_at=None).count()
    needs_filter = request.GET.get("show") == "needs"
    context = {
        "start_steps": tournament_start_steps(tournament=tournament, user=request.user),
        "tournament": tournament,
        "board": board.only_needing() if needs_filter else board,
        "needs_filter": needs_filter,
        "jump_form": JumpForm(),
        "next_cell": board.next_missing(),
        # The rounds being played are entered, a later one is not open: say so (not "all").
        "rounds_entered": any(c.state == MISSING for c in board.cells),
        "active_penalties": active_penalties,
        # The live panel of calls to the arbiter (tournaments/views/calls.py asks it again).
        "now": timezone.now(),
    }
    context["open_calls"] = calls_open(tournament=tournament)
    context["calls_tag"] = calls_tag(tournament=tournament, rows=context["open_calls"])
    return render(request, "tournaments/arbiter/dashboard.html", context)


@login_required
@require_GET
def jump(request: HttpRequest, pk: int) -> HttpResponse:
    """The "go to table T, donne D" box: to the entry page, or back with what is wrong."""
    tournament = _tournament(request, pk)
    form = JumpForm(request.GET)
    back = request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = _dashboard_url(tournament)
    if not form.is_valid():
        messages.error(request, _("Enter a table number and a donne number, for example 2 and 5."))
        return HttpResponseRedirect(back)
    number_t, number_d = form.cleaned_data["table"], form.cleaned_data["donne"]
    board = dashboard_build(tournament=tournament)
    if board.cell(number_t, number_d) is None:
        messages.error(
            request,
            _(
                "Table %(table)s does not play donne %(donne)s in this tournament. Check the "
                "numbers on the score sheet."
            )
            % {"table": number_t, "donne": number_d},
        )
        return HttpResponseRedirect(back)
    return redirect(_entry_url(tournament, number_t, number_d))


def _error_messages(request: HttpRequest, exc: ResultInvalid) -> None:
    for msgs in exc.errors.values():
        for message in msgs:
            messages.error(request, message)


def _round_open(request: HttpRequest, tournament: Tournament, round_: Round) -> HttpResponse:
    """Open the round; while an earlier one is still open, a page asks to confirm."""
    try:
        round_open_checked(
            round_=round_, user=request.user, confirm_open=request.POST.get("confirm_open") == "1"
        )
    except RoundOpenNeedsConfirmation as exc:
        return render(
            request,
            "tournaments/arbiter/round_open_confirm.html",
            {"tournament": tournament, "round": round_, "message": exc.message},
        )
    except ResultInvalid as exc:
        _error_messages(request, exc)
    else:
        messages.success(request, _("Round %(number)s is open.") % {"number": round_.number})
    return redirect(_dashboard_url(tournament))


def _round_close(request: HttpRequest, tournament: Tournament, round_: Round) -> HttpResponse:
    """Close the round; with ``annul_missing``, annul what it misses first (confirmed)."""
    number = round_.number
    if request.POST.get("annul_missing") != "1":
        try:
            round_close(round_=round_, user=request.user)
        except ResultInvalid as exc:
            _error_messages(request, exc)
        else:
            messages.success(request, _("Round %(number)s is closed.") % {"number": number})
        return redirect(_dashboard_url(tournament))
    if request.POST.get("confirm") != "1":
        messages.error(
            request,
            _(
                "Round %(number)s was not closed: tick the box confirming that the missing "
                "donnes are annulled."
            )
            % {"number": number},
        )
        return redirect(_dashboard_url(tournament) + f"#round-{number}")
    try:
        _round, count = round_close_annulling(
            round_=round_, user=request.user, reason=request.POST.get("reason", "")
        )
    except ResultInvalid as exc:
        _error_messages(request, exc)
        return redirect(_dashboard_url(tournament) + f"#round-{number}")
    messages.success(
        request,
        ngettext(
            "Round %(number)s is closed; %(count)d missing donne was annulled.",
            "Round %(number)s is closed; %(count)d missing donnes were annulled.",
            count,
        )
        % {"number": number, "count": count},
    )
    return redirect(_dashboard_url(tournament))


@login_required
@require_POST
@once_per_form
def round_state(request: HttpRequest, pk: int, number: int, action: str) -> HttpResponse:
    tournament = _tournament(request, pk)
    round_ = get_object_or_404(
        Round.objects.select_related("tournament"), tournament=tournament, number=number
    )
    if action == "open":
        return _round_open(request, tournament, round_)
    return _round_close(request, tournament, round_)


# --- entering a result ----------------------------------------------------------------------


def _described(rows: Iterable[LedgerEntry]) -> list[LedgerEntry]:
    """Attach the entry in words (`tournaments.ledger_text`) to ledger entries, as ``text``."""
    entries = list(rows)
    for entry in entries:
        entry.text = entry_text(entry)  # type: ignore[attr-defined]
    return entries


def _history(result: Result | None) -> list[LedgerEntry]:
    if result is None:
        return []
    return _described(
        list(
            LedgerEntry.objects.filter(result=result)
            .select_related("actor", "by_player", "table_access", "result__entered_by")
            .order_by("at", "pk")
        )
    )


def _initial(result: Result | None) -> dict[str, Any]:
    if result is None:
        return {}
    data = result_input_from_result(result)
    initial: dict[str, Any] = {"version": result.version}
    if result.status == Result.Status.ALL_PASSED:
        initial["contract"] = "all_passed"
    elif result.status == Result.Status.PLAYED:
        initial.update(
            taker=data.taker,
            contract=data.contract,
            bouts=data.bouts,
            points=_points_text(data.points),
            petit_au_bout=data.petit_au_bout,
            chelem=data.chelem,
        )
        for position in POSITIONS:
            initial[f"poignee_{position}"] = data.poignees.get(position, "")
        initial["confirm"] = list(result.confirmed_warnings or [])
    return initial


def _points_text(points: Any) -> str:
    """The attack's points as the arbiter writes them: "40,5" in French (the form reads both)."""
    from django.utils.translation import get_language

    from scoring.rules.display import decimal_text

    return decimal_text(points, get_language(), places=1)


def _radio_groups(
    form: ResultForm, ctx: ResultContext | None, *, confirming: bool = False
) -> dict[str, Any]:
    seats = ctx.seats if ctx else {}
    takers = form.radios("taker", TAKER_KEYS)
    for choice in takers:
        choice["player"] = seats.get(choice["value"])
    # The cursor starts on the taker: his radio when known, else the first; after a warning
    # to confirm it starts on the first box to tick instead (the preview's autofocus); after
    # a refusal on another field, on that field (arbiter.js, focusFirstFault).
    focus = next((c for c in takers if c["checked"]), takers[0] if takers else None)
    faults = set(form.errors) - {NON_FIELD_ERRORS} if form.is_bound else set()
    if focus is not None and not confirming and (not faults or "taker" in faults):
        focus["autofocus"] = True
    contracts = form.radios("contract", CONTRACT_KEYS)
    for choice in contracts:
        if choice["value"] == "all_passed":
            choice["then"] = "save"  # nothing else to enter: the shortcut goes to Save
    return {
        "taker": takers,
        "contract": contracts,
        "bouts": form.radios("bouts", {str(n): str(n) for n in range(4)}),
        "petit_au_bout": form.radios("petit_au_bout", PETIT_KEYS),
        "chelem": form.radios("chelem", CHELEM_KEYS),
        "poignees": [
            {
                "position": position,
                "label": form.fields[f"poignee_{position}"].label,
                "player": seats.get(position),
                "name": f"poignee_{position}",
                "errors": form[f"poignee_{position}"].errors,
                "choices": form.radios(f"poignee_{position}", POIGNEE_KEYS),
            }
            for position in POSITIONS
        ],
    }


def _preview_for(
    form: ResultForm, tournament: Tournament, table: Table, donne: Donne
) -> ResultPreview | None:
    if not form.is_valid():
        return None
    return result_preview(tournament=tournament, table=table, donne=donne, data=form.to_input())


def _hands(donne: Donne) -> list[Any]:
    """The donne's hands and chien with suit symbols and the ranks of the page's language."""
    from django.utils.translation import get_language

    from scoring.rules.display import hand_view

    language = get_language()
    hands = [hand_view(p, str(Position(p).label), donne.hand(p), language) for p in POSITIONS]
    return [*hands, hand_view("", str(_("Chien")), donne.chien, language)]


def _seat_rows(ctx: ResultContext, preview: ResultPreview | None) -> list[dict[str, Any]]:
    scores = preview.scores if preview else {}
    return [
        {
            "position": position,
            "label": Position(position).label,
            "player": ctx.seats.get(position),
            "score": scores.get(position),
        }
        for position in POSITIONS
    ]


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def result_entry(request: HttpRequest, pk: int, table: int, donne: int) -> HttpResponse:
    tournament = _tournament(request, pk)
    table_obj, donne_obj = _cell(tournament, table, donne)
    try:
        ctx = result_context(tournament=tournament, table=table_obj, donne=donne_obj)
    except ResultInvalid as exc:
        for msgs in exc.errors.values():
            for message in msgs:
                messages.error(request, message)
        return redirect(_dashboard_url(tournament))
    result = (
        Result.objects.select_related("updated_by", "sitter")
        .filter(table=table_obj, donne=donne_obj)
        .first()
    )
    conflict: Result | None = None
    needs_confirmation: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        form = ResultForm(request.POST, seats=ctx.seats)
        if form.is_valid():
            try:
                saved = result_save(
                    tournament=tournament,
                    table=table_obj,
                    donne=donne_obj,
                    data=form.to_input(),
                    user=request.user,
                    expected_version=form.cleaned_data.get("version"),
                    reason=form.cleaned_data.get("reason") or "",
                    confirmed=form.confirmed,
                )
            except ResultInvalid as exc:
                form.apply_errors(exc.errors)
                status = 400
            except ResultNeedsConfirmation as exc:
                needs_confirmation = exc.warnings
                status = 400
            except ResultConflict as exc:
                conflict = exc.current
                result = exc.current
                data = request.POST.copy()
                data["version"] = str(conflict.version)
                form = ResultForm(data, seats=ctx.seats)
                form.is_valid()
                status = 409
            else:
                return _after_save(request, tournament, saved)
        else:
            status = 400
    else:
        form = ResultForm(initial=_initial(result), seats=ctx.seats)
    if not form.is_bound:
        preview = (
            result_preview(
                tournament=tournament,
                table=table_obj,
                donne=donne_obj,
                data=result_input_from_result(result),
            )
            if result is not None and result.status != Result.Status.ANNULLED
            else None
        )
        confirmed = list(result.confirmed_warnings or []) if result else []
    else:
        preview = _preview_for(form, tournament, table_obj, donne_obj)
        confirmed = form.confirmed
    board = dashboard_build(tournament=tournament)
    round_block = next((b for b in board.rounds if b.round.pk == ctx.round.pk), None)
    context = {
        "tournament": tournament,
        "table": table_obj,
        "donne": donne_obj,
        "ctx": ctx,
        "form": form,
        "groups": _radio_groups(form, ctx, confirming=bool(needs_confirmation)),
        "preview": preview,
        "seat_rows": _seat_rows(ctx, preview),
        "confirmed": confirmed,
        "needs_confirmation": needs_confirmation,
        "result": result,
        "conflict": conflict,
        "conflict_text": result_describe(result_snapshot(conflict)) if conflict else "",
        "history": _history(result),
        "annul_form": AnnulForm(initial={"version": result.version if result else None}),
        "round_block": round_block,
        "next_cell": board.next_missing(after=(table, donne), round_number=ctx.round.number),
        "not_started": round_still_played_before(ctx.round)
        if ctx.round.state == Round.State.PENDING
        else [],
        "jump_form": JumpForm(initial={"table": table, "donne": donne}),
        "hands": _hands(donne_obj),
    }
    return render(request, "tournaments/arbiter/result_entry.html", context, status=status)


def _after_save(request: HttpRequest, tournament: Tournament, saved: Result) -> HttpResponse:
    """Saving moves on to the next cell without a result (or back to the dashboard)."""
    messages.success(
        request,
        _("Table %(table)s, donne %(donne)s saved.")
        % {"table": saved.table.number, "donne": saved.donne.number},
    )
    return _next_in_round(request, tournament, (saved.table.number, saved.donne.number))


def _next_in_round(
    request: HttpRequest, tournament: Tournament, key: tuple[int, int]
) -> HttpResponse:
    """On to the next cell without a result in the same round; at the round's end, back to
    the dashboard, which says so: the chain never enters a round not yet open."""
    board = dashboard_build(tournament=tournament)
    here = board.cell(*key)
    number = here.round_number if here is not None else None
    nxt = board.next_missing(after=key, round_number=number)
    if nxt is not None:
        return redirect(_entry_url(tournament, nxt.table.number, nxt.donne.number))
    if all(c.state != MISSING for c in board.cells):
        messages.info(request, _("Every result of the tournament is entered."))
        return redirect(_dashboard_url(tournament))
    messages.info(
        request,
        _(
            "Every result of round %(number)s is entered. Close the round from the "
            "dashboard, then open the next one."
        )
        % {"number": number},
    )
    return redirect(_dashboard_url(tournament) + f"#round-{number}")


@login_required
@require_POST
def result_preview_view(request: HttpRequest, pk: int, table: int, donne: int) -> HttpResponse:
    """The live scores while the arbiter types (htmx); never writes."""
    tournament = _tournament(request, pk)
    table_obj, donne_obj = _cell(tournament, table, donne)
    try:
        ctx = result_context(tournament=tournament, table=table_obj, donne=donne_obj)
    except ResultInvalid:
        ctx = None
    form = ResultForm(request.POST, seats=ctx.seats if ctx else {})
    preview = _preview_for(form, tournament, table_obj, donne_obj)
    context = {
        "form": form,
        "preview": preview,
        "seat_rows": _seat_rows(ctx, preview) if ctx else [],
        "confirmed": form.confirmed,
        "ctx": ctx,
    }
    return render(request, "tournaments/arbiter/_preview.html", context)


@login_required
@require_POST
@once_per_form
def result_annul_view(request: HttpRequest, pk: int, table: int, donne: int) -> HttpResponse:
    tournament = _tournament(request, pk)
    table_obj, donne_obj = _cell(tournament, table, donne)
    form = AnnulForm(request.POST)
    entry = _entry_url(tournament, table, donne)
    if not form.is_valid():
        if form.has_error("reason", "hidden_characters"):
            for message in form.errors["reason"]:
                messages.error(request, message)
        else:
            messages.error(
                request,
                _("Give the reason for the annulment (for example: cards of two étuis mixed)."),
            )
        return redirect(entry)
    try:
        saved = result_annul(
            tournament=tournament,
            table=table_obj,
            donne=donne_obj,
            user=request.user,
            reason=form.cleaned_data["reason"],
            expected_version=form.cleaned_data.get("version"),
        )
    except ResultInvalid as exc:
        for msgs in exc.errors.values():
            for message in msgs:
                messages.error(request, message)
        return redirect(entry)
    except ResultConflict as exc:
        messages.error(request, str(exc))
        return redirect(entry)
    messages.success(
        request,
        _("Donne %(donne)s annulled at table %(table)s.") % {"donne": donne, "table": table},
    )
    return _next_in_round(request, tournament, (saved.table.number, saved.donne.number))


# --- penalties ------------------------------------------------------------------------------


def _penalty_repeat_message(penalty: Penalty) -> str:
    """Why nothing was recorded: the same penalty was given moments ago (RULES §8)."""
    given = timezone.localtime(penalty.given_at)
    return _(
        "This penalty of %(points)s points was already given to %(player)s at %(time)s: it is "
        "recorded once. To give a second identical one, send it again after %(until)s."
    ) % {
        "points": penalty.points,
        "player": penalty.player,
        "time": date_format(given, "H:i:s"),
        "until": date_format(given + penalty_repeat_window(), "H:i:s"),
    }


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def penalties(request: HttpRequest, pk: int) -> HttpResponse:
    tournament = _tournament(request, pk)
    status = 200
    if request.method == "POST":
        form = PenaltyForm(request.POST, tournament=tournament)
        if form.is_valid():
            data = form.cleaned_data
            try:
                penalty, created = penalty_record(
                    tournament=tournament,
                    player=data["player"],
                    kind=data["kind"],
                    user=request.user,
                    points=data.get("points") if data["kind"] == "other" else None,
                    reason=data.get("reason") or "",
                    donne=data.get("donne"),
                )
            except PenaltyInvalid as exc:
                form.apply_errors(exc.errors)
                status = 400
            else:
                if created:
                    messages.success(
                        request,
                        ngettext(
                            "Penalty of %(points)s point given to %(player)s.",
                            "Penalty of %(points)s points given to %(player)s.",
                            penalty.points,
                        )
                        % {"points": penalty.points, "player": penalty.player},
                    )
                else:
                    messages.info(request, _penalty_repeat_message(penalty))
                return redirect(reverse("arbiter_penalties", args=[tournament.pk]))
        else:
            status = 400
    else:
        initial = {}
        player_id = id_param(request.GET.get("player"))
        if player_id is not None:
            initial["player"] = player_id
        donne_number = id_param(request.GET.get("donne"), digits=4)
        if donne_number is not None:
            initial["donne"] = Donne.objects.filter(
                tournament=tournament, number=donne_number
            ).first()
        form = PenaltyForm(initial=initial, tournament=tournament)
    rows = list(
        Penalty.objects.filter(tournament=tournament)
        .select_related("player", "donne", "given_by", "withdrawn_by")
        .order_by("-given_at", "-pk")
    )
    context = {
        "tournament": tournament,
        "form": form,
        "penalties": rows,
        "withdraw_form": WithdrawForm(),
    }
    return render(request, "tournaments/arbiter/penalties.html", context, status=status)


@login_required
@require_POST
@once_per_form
def penalty_withdraw_view(request: HttpRequest, pk: int, penalty_id: int) -> HttpResponse:
    tournament = _tournament(request, pk)
    penalty = get_object_or_404(
        Penalty.objects.select_related("tournament", "player"), pk=penalty_id, tournament=tournament
    )
    form = WithdrawForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Write why the penalty is withdrawn."))
    else:
        try:
            penalty_withdraw(penalty=penalty, user=request.user, reason=form.cleaned_data["reason"])
        except PenaltyInvalid as exc:
            for msgs in exc.errors.values():
                for message in msgs:
                    messages.error(request, message)
        else:
            messages.success(
                request,
                _("The penalty of %(player)s is withdrawn.") % {"player": penalty.player},
            )
    return redirect(reverse("arbiter_penalties", args=[tournament.pk]))


# --- ledger ---------------------------------------------------------------------------------


@login_required
@require_GET
def ledger(request: HttpRequest, pk: int) -> HttpResponse:
    """Every change to the tournament's results and penalties, newest first."""
    tournament = _tournament(request, pk)
    rows = LedgerEntry.objects.filter(tournament=tournament)
    actions = [a for a in request.GET.getlist("action") if a in LedgerEntry.Action.values]
    if actions:
        rows = rows.filter(action__in=actions)
    round_number = id_param(request.GET.get("round"), digits=4)
    if round_number is not None:
        rows = rows.filter(round__number=round_number)
    player_id = id_param(request.GET.get("player"))
    if player_id is not None:
        rows = rows.filter(Q(player_id=player_id) | Q(by_player_id=player_id))
    entries = _described(
        rows.select_related(
            "actor",
            "round",
            "player",
            "result__table",
            "result__donne",
            "penalty__player",
            "penalty__donne",
            "by_player",
            "table_access",
            "result__entered_by",
        ).order_by("-at", "-pk")
    )
    context = {
        "tournament": tournament,
        "entries": entries,
        "actions": LedgerEntry.Action.choices,
        "chosen_actions": actions,
        "rounds": list(Round.objects.filter(tournament=tournament).order_by("number")),
        "chosen_round": round_number,
        "players": sorted(
            Player.objects.filter(registrations__tournament=tournament), key=name_order
        ),
        "chosen_player": player_id,
        "filtered": bool(actions) or round_number is not None or player_id is not None,
    }
    return render(request, "tournaments/arbiter/ledger.html", context)


__all__ = [
    "dashboard",
    "jump",
    "ledger",
    "penalties",
    "penalty_withdraw_view",
    "result_annul_view",
    "result_entry",
    "result_preview_view",
    "round_state",
]
