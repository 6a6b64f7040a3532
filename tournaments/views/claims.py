"""The claims window's screens (issue 34 §4): the arbiter's claims page (record a claim,
settle one, the organiser's early close) and the claim form of a table's page. Thin:
tournaments.services.claims decides; these views translate HTTP to its calls."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tarot_club.kit.throttling import client_address

from ..forms_claims import ClaimForm, ClaimSettleForm, PlayerClaimForm, TableClaimForm
from ..models import Claim, Donne, Player, Table, TableAccess, Tournament
from ..once import once_per_form
from ..permissions import can_manage_tournament, can_see_tournament, can_write_results
from ..services.claims import (
    ClaimAlreadySettled,
    ClaimInvalid,
    PenaltyAsked,
    claim_file,
    claim_file_at_table,
    claim_settle,
    claims_close_early,
    player_claim_cells,
    table_claim_access,
    table_claim_players,
)
from ..services.claims_window import claims_window
from ..services.results import ResultInvalid
from ..services.table_entry import TableAccessDenied, Voucher, code_source

__all__ = [
    "claim_settle_view",
    "claims",
    "claims_close_view",
    "claims_window_line",
    "player_claim",
    "table_claim",
]

# The fields the live line reads: one small query per poll.
WINDOW_FIELDS = ("pk", "club_id", "status", "claims_close_at", "final_at")


def _tournament(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_write_results(request.user, tournament):
        raise PermissionDenied
    return tournament


def _claims_url(tournament: Tournament) -> str:
    return reverse("arbiter_claims", args=[tournament.pk])


def _record(request: HttpRequest, tournament: Tournament, form: ClaimForm) -> bool:
    """File the claim of a valid form; False with the errors on the form when refused."""
    data = form.cleaned_data
    table = Table.objects.filter(tournament=tournament, number=data["table"]).first()
    donne = Donne.objects.filter(tournament=tournament, number=data["donne"]).first()
    if table is None:
        form.add_error(
            "table", _("This tournament has no table %(number)s.") % {"number": data["table"]}
        )
    if donne is None:
        form.add_error(
            "donne", _("This tournament has no donne %(number)s.") % {"number": data["donne"]}
        )
    if table is None or donne is None:
        return False
    try:
        claim_file(
            tournament=tournament,
            table=table,
            donne=donne,
            kind=data["kind"],
            text=data["text"],
            player=data.get("player"),
            user=request.user,
            without_call=data.get("without_call") or "",
        )
    except ClaimInvalid as exc:
        form.apply_errors(exc.errors)
        return False
    messages.success(
        request,
        _("Claim recorded: table %(table)s, donne %(donne)s.")
        % {"table": table.number, "donne": donne.number},
    )
    return True


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def claims(request: HttpRequest, pk: int) -> HttpResponse:
    """The claims of the tournament: the window's state, the open ones to settle, the form to
    record one, the settled ones with their outcome."""
    tournament = _tournament(request, pk)
    status = 200
    form = ClaimForm(request.POST or None, tournament=tournament)
    if request.method == "POST":
        if form.is_valid() and _record(request, tournament, form):
            return redirect(_claims_url(tournament))
        status = 400
    rows = list(
        Claim.objects.filter(tournament=tournament)
        .select_related("table", "donne", "filed_by", "recorded_by", "settled_by", "penalty")
        .order_by("filed_at", "pk")
    )
    context = {
        "tournament": tournament,
        "window": claims_window(tournament),
        "can_close": can_manage_tournament(request.user, tournament)
        and claims_window(tournament).accepts_claims(),
        "form": form,
        "open_claims": [c for c in rows if c.is_open],
        "settled_claims": [c for c in rows if not c.is_open],
        "settle_form": ClaimSettleForm(tournament=tournament),
    }
    return render(request, "tournaments/arbiter/claims.html", context, status=status)


def _penalty(form: ClaimSettleForm) -> PenaltyAsked | None:
    data = form.cleaned_data
    if not data.get("penalty_player"):
        return None
    return PenaltyAsked(
        player=data["penalty_player"],
        kind=data["penalty_kind"],
        points=data.get("penalty_points") if data["penalty_kind"] == "other" else None,
    )


@login_required
@require_POST
@once_per_form
def claim_settle_view(request: HttpRequest, pk: int, claim_id: int) -> HttpResponse:
    """Settle one claim; the errors come back as messages on the claims page."""
    tournament = _tournament(request, pk)
    claim = get_object_or_404(
        Claim.objects.select_related("tournament", "table", "donne"),
        pk=claim_id,
        tournament=tournament,
    )
    form = ClaimSettleForm(request.POST, tournament=tournament)
    problems: list[str] = []
    if not form.is_valid():
        problems = [m for errors in form.errors.values() for m in errors]
    else:
        try:
            claim_settle(
                claim=claim,
                user=request.user,
                state=form.cleaned_data["state"],
                reason=form.cleaned_data["reason"],
                penalty=_penalty(form),
            )
        except ResultInvalid as exc:  # the claim's or the penalty's refusal
            problems = [m for errors in exc.errors.values() for m in errors]
        except ClaimAlreadySettled as exc:
            problems = [str(exc)]
    for problem in problems:
        messages.error(request, problem)
    if not problems:
        messages.success(
            request,
            _("Claim settled: table %(table)s, donne %(donne)s.")
            % {"table": claim.table.number, "donne": claim.donne.number},
        )
    return redirect(_claims_url(tournament))


@login_required
@require_POST
@once_per_form
def claims_close_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The organiser closes the claims window now."""
    tournament = _tournament(request, pk)
    try:
        claims_close_early(tournament=tournament, user=request.user)
    except ClaimInvalid as exc:
        for errors in exc.errors.values():
            for message in errors:
                messages.error(request, message)
    else:
        if claims_window(tournament).is_final:
            messages.success(request, _("The claims window is closed: the ranking is final."))
        else:
            messages.success(
                request,
                _(
                    "The claims window is closed: the ranking is final once the open claims are settled."
                ),
            )
    return redirect(_claims_url(tournament))


# --- the table's page -------------------------------------------------------------------------


def _table_voucher(request: HttpRequest, form: TableClaimForm) -> Voucher:
    phone = (request.POST.get("phone") or "")[:64]
    return Voucher(
        player_id=form.cleaned_data["player"],
        code=form.cleaned_data["code"],
        source=code_source(phone=phone, address=client_address(request)),
    )


def _table_form(access: TableAccess, data: Any = None) -> TableClaimForm:
    donnes = list(
        access.table_round.etui_set.donnes.order_by("number").values_list("number", flat=True)
    )
    return TableClaimForm(data, players=table_claim_players(access), donnes=donnes)


@csrf_exempt  # the secret in the URL is the key, as for the table's other writes
@require_http_methods(["GET", "POST"])
def table_claim(request: HttpRequest, secret: str) -> HttpResponse:
    """The claim form of a table's page, during the claims window: a player of the table
    files a claim about one of its donnes of the round, with their personal code."""
    try:
        access = table_claim_access(secret=secret)
    except TableAccessDenied as exc:
        return render(
            request, "tournaments/table/denied.html", {"message": exc.message}, status=403
        )
    form = _table_form(access, request.POST if request.method == "POST" else None)
    status, filed = 200, None
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                filed = claim_file_at_table(
                    access=access,
                    donne_number=form.cleaned_data["donne"],
                    kind=form.cleaned_data["kind"],
                    text=form.cleaned_data["text"],
                    voucher=_table_voucher(request, form),
                )
            except ResultInvalid as exc:  # a claim refused, a wrong or locked code
                form.apply_errors(exc.errors)
            except PermissionDenied as exc:
                form.add_error("donne", str(exc))
            else:
                status = 200
    context = {
        "access": access,
        "table": access.table_round.table,
        "round": access.table_round.round,
        "window": claims_window(access.tournament),
        "form": form,
        "filed": filed,
    }
    return render(request, "tournaments/table/claim.html", context, status=status)


# --- the player's own page --------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def player_claim(request: HttpRequest, pk: int) -> HttpResponse:
    """A registered player with an account files a claim about a donne they played, during
    the claims window; anyone else gets 403."""
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    player = Player.objects.filter(user=request.user, registrations__tournament=tournament).first()
    if player is None:
        raise PermissionDenied
    cells = player_claim_cells(tournament=tournament, player=player)
    by_key = {f"{table.pk}:{donne.pk}": (table, donne) for table, donne in cells}
    choices = [
        (key, _("Table %(table)s, donne %(donne)s") % {"table": t.number, "donne": d.number})
        for key, (t, d) in by_key.items()
    ]
    form = PlayerClaimForm(request.POST or None, cells=choices)
    status, filed = 200, None
    if request.method == "POST":
        status = 400
        if form.is_valid():
            table, donne = by_key[form.cleaned_data["cell"]]
            try:
                filed = claim_file(
                    tournament=tournament,
                    table=table,
                    donne=donne,
                    kind=form.cleaned_data["kind"],
                    text=form.cleaned_data["text"],
                    player=player,
                )
            except ClaimInvalid as exc:
                form.apply_errors(exc.errors)
            else:
                status = 200
    context = {
        "tournament": tournament,
        "window": claims_window(tournament),
        "form": form,
        "filed": filed,
        "mine": Claim.objects.filter(tournament=tournament, filed_by=player)
        .select_related("table", "donne")
        .order_by("filed_at"),
    }
    return render(request, "tournaments/claim.html", context, status=status)


@never_cache
@require_GET
def claims_window_line(request: HttpRequest, pk: int) -> HttpResponse:
    """The line that says whether the ranking is provisional (until when) or final, for the
    pages that show it live (`claims-window.js`): 204 while the ``stamp`` the page sends is
    the window's (`ClaimsWindow.stamp`), else the line to swap in. It says only the window's
    times: whoever sees the tournament's page may ask (404 otherwise). One query for a
    tournament past its draft."""
    tournament = get_object_or_404(Tournament.objects.only(*WINDOW_FIELDS), pk=pk)
    if not can_see_tournament(request.user, tournament):
        raise Http404
    window = claims_window(tournament)
    if request.GET.get("stamp") == window.stamp:
        return HttpResponse(status=204)
    live = reverse("claims_window_line", args=[pk])
    return render(request, "tournaments/_claims_window.html", {"window": window, "live": live})
