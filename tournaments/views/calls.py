"""The arbiter's side of the calls to the arbiter (issue 34): the live panel of open calls on
his dashboard, the call's page (take it, rule it, and for an étui the donne as dealt), and
the organiser's figures. Thin: tournaments.services.calls decides.

Every view asks tournaments.permissions.can_write_results (the tournament's arbiters and its
club's organisers): anonymous users are sent to the login page, others get 403. Nothing here
is shown to a table: the donne's hands appear on the arbiter's call page only.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from scoring.rules.display import hand_view

from ..forms_arbiter import ResultForm
from ..forms_calls import CallRuleForm
from ..models import POSITIONS, ArbiterCall, Player, Position, Result, Tournament
from ..models_calls import ETUI_IRREGULARITIES
from ..once import once_per_form
from ..services.calls import (
    CallRuling,
    call_rule,
    call_take,
    calls_open,
    calls_summary,
    calls_tag,
)
from ..services.penalties import PenaltyInvalid
from ..services.preparation import seats_for_donne
from ..services.results import ResultConflict, ResultInvalid, ResultNeedsConfirmation
from .arbiter import _tournament

__all__ = ["call_page", "call_take_view", "calls_list", "calls_panel", "etui_hands"]


def _call(tournament: Tournament, call_id: int) -> ArbiterCall:
    return get_object_or_404(
        ArbiterCall.objects.select_related(
            "tournament",
            "table",
            "donne__etui_set",
            "round",
            "table_round",
            "called_by",
            "taken_by",
            "ruled_by",
            "penalty__player",
            "result",
            "ledger_entry",
        ),
        pk=call_id,
        tournament=tournament,
    )


def panel_context(tournament: Tournament) -> dict[str, Any]:
    """What the live panel shows: the open calls, oldest first, and the tag it polls with."""
    rows = calls_open(tournament=tournament)
    return {
        "tournament": tournament,
        "open_calls": rows,
        "calls_tag": calls_tag(tournament=tournament, rows=rows),
        "now": timezone.now(),
    }


@login_required
@require_GET
def calls_panel(request: HttpRequest, pk: int) -> HttpResponse:
    """The dashboard's live panel of open calls, asked every second: 204 (nothing swapped)
    while the ``tag`` it sends is the tournament's calls' tag, else the panel."""
    tournament = _tournament(request, pk)
    tag = calls_tag(tournament=tournament)
    if request.GET.get("tag") == tag:
        return HttpResponse(status=204)
    context = panel_context(tournament)
    return render(request, "tournaments/arbiter/_calls_panel.html", context)


@login_required
@require_POST
def call_take_view(request: HttpRequest, pk: int, call_id: int) -> HttpResponse:
    """The arbiter is on his way ("en route", seen at the table)."""
    tournament = _tournament(request, pk)
    call = _call(tournament, call_id)
    try:
        call_take(call=call, user=request.user)
    except ResultInvalid as exc:
        for message in exc.errors.get("call", []):
            messages.error(request, message)
    if request.htmx:
        return render(request, "tournaments/arbiter/_calls_panel.html", panel_context(tournament))
    return redirect(reverse("arbiter_call", args=[tournament.pk, call.pk]))


def etui_hands(call: ArbiterCall) -> list[Any]:
    """The donne's four hands and the chien as dealt, sorted by suit, with who holds each at
    the call's table: the étui put right by hand. For the arbiter only."""
    donne = call.donne
    language = get_language()
    numbers = list(
        call.table_round.etui_set.donnes.order_by("number").values_list("number", flat=True)
    )
    holders = seats_for_donne(call.table_round, numbers.index(donne.number)).hands
    hands = []
    for p in POSITIONS:
        view = hand_view(p, str(Position(p).label), donne.hand(p), language)
        hands.append({"hand": view, "player": holders.get(p)})
    hands.append({"hand": hand_view("", str(_("Chien")), donne.chien, language), "player": None})
    return hands


def _players(call: ArbiterCall) -> Any:
    return Player.objects.filter(seats__table_round=call.table_round).order_by("seats__position")


def _ruling(form: CallRuleForm, score: ResultForm | None) -> CallRuling:
    data = form.cleaned_data
    return CallRuling(
        ruling=data["ruling"],
        note=data.get("note") or "",
        player=data.get("player"),
        kind=data.get("kind") or "",
        points=data.get("points") if data.get("kind") == "other" else None,
        data=score.to_input() if score is not None else None,
        confirmed=score.confirmed if score is not None else (),
    )


def _rule(request: HttpRequest, call: ArbiterCall) -> tuple[CallRuleForm, ResultForm, Any]:
    """Apply the posted ruling; returns the forms (with errors) and the warnings to confirm,
    or raises nothing and leaves ``call`` ruled."""
    form = CallRuleForm(request.POST, players=_players(call))
    score = ResultForm(request.POST, prefix="score")
    warnings: dict[str, str] = {}
    wants_score = request.POST.get("ruling") == ArbiterCall.Ruling.SCORE
    if not form.is_valid() or (wants_score and not score.is_valid()):
        return form, score, warnings
    try:
        call_rule(
            call=call,
            user=request.user,
            ruling=_ruling(form, score if wants_score else None),
        )
    except ResultNeedsConfirmation as exc:
        warnings = exc.warnings
    except PenaltyInvalid as exc:
        form.apply_errors(exc.errors)
    except ResultConflict as exc:
        form.add_error(None, str(exc))
    except ResultInvalid as exc:
        if wants_score:
            score.apply_errors({k: v for k, v in exc.errors.items() if k != "call"})
        form.apply_errors({k: v for k, v in exc.errors.items() if k == "call" or not wants_score})
    return form, score, warnings


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def call_page(request: HttpRequest, pk: int, call_id: int) -> HttpResponse:
    """One call: what was called, when, by whom; take it; rule it. For an étui call the
    donne's hands as dealt, to put the étui right."""
    tournament = _tournament(request, pk)
    call = _call(tournament, call_id)
    status = 200
    warnings: dict[str, str] = {}
    if request.method == "POST":
        form, score, warnings = _rule(request, call)
        if not form.errors and not score.errors and not warnings and form.is_bound:
            call.refresh_from_db()
            if call.state == ArbiterCall.State.RULED:
                messages.success(request, _("The call is ruled: the table sees the ruling."))
                return redirect(reverse("arbiter_call", args=[tournament.pk, call.pk]))
        status = 400
    else:
        form = CallRuleForm(players=_players(call))
        score = ResultForm(prefix="score")
    context = {
        "tournament": tournament,
        "call": call,
        "form": form,
        "score": score,
        "warnings": warnings,
        "etui": call.irregularity in ETUI_IRREGULARITIES,
        "hands": etui_hands(call) if call.irregularity in ETUI_IRREGULARITIES else [],
        "result": Result.objects.filter(table=call.table, donne=call.donne).first(),
        "same_donne": ArbiterCall.objects.filter(table=call.table, donne=call.donne)
        .exclude(pk=call.pk)
        .order_by("received_at"),
    }
    return render(request, "tournaments/arbiter/call.html", context, status=status)


@login_required
@require_GET
def calls_list(request: HttpRequest, pk: int) -> HttpResponse:
    """Every call of the tournament, newest first, with its time to the arbiter and ruling;
    the calls by kind and the mean time to the arbiter above."""
    tournament = _tournament(request, pk)
    rows = list(
        ArbiterCall.objects.filter(tournament=tournament)
        .select_related("table", "donne", "called_by", "taken_by", "ruled_by", "penalty__player")
        .order_by("-received_at", "-pk")
    )
    context = {
        "tournament": tournament,
        "calls": rows,
        "summary": calls_summary(tournament=tournament),
    }
    return render(request, "tournaments/arbiter/calls.html", context)
