"""The arbiter's side of the tables' pages: each table's address and short code per round,
revoking and reissuing them, the players' confirmation codes and the phones bound to them
(with a revoke), and confirming a table's entry.
Thin: tournaments.services.table_entry decides."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from ..models import (
    CodeThrottle,
    PhoneBinding,
    Player,
    PlayerCode,
    Registration,
    Result,
    TableAccess,
    TableRound,
    Tournament,
)
from ..once import once_per_form
from ..permissions import can_write_results
from ..services.results import ResultConflict, ResultInvalid
from ..services.table_entry import (
    CODE_GUESS_BUDGET,
    player_binding_revoke,
    player_code_reissue,
    player_codes_get,
    result_confirm_by_arbiter,
    table_access_reissue,
    table_access_revoke,
    table_page_links,
)

__all__ = [
    "entry_confirm",
    "player_binding_end",
    "player_code_new",
    "table_access_change",
    "tables_overview",
]


def _tournament(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_write_results(request.user, tournament):
        raise PermissionDenied
    return tournament


def _overview_url(tournament: Tournament) -> str:
    return reverse("arbiter_tables", args=[tournament.pk])


@login_required
@require_GET
def tables_overview(request: HttpRequest, pk: int) -> HttpResponse:
    """Each table's page per round (QR address, short code) and each player's code, with
    its wrong tries and lock (a new code, one click, unlocks it)."""
    tournament = _tournament(request, pk)
    table_rounds = list(
        TableRound.objects.filter(round__tournament=tournament)
        .select_related("round", "table")
        .order_by("round__number", "table__number")
    )
    issued = set(
        TableAccess.objects.filter(tournament=tournament).values_list("table_round_id", flat=True)
    )
    live = set(
        TableAccess.objects.filter(tournament=tournament, revoked_at=None).values_list(
            "table_round_id", flat=True
        )
    )
    rows = []
    for tr in table_rounds:
        open_ = tr.round.state != "closed"
        # Never issued: issue it now (the score sheets do the same); revoked: stays revoked.
        usable = open_ and (tr.pk in live or tr.pk not in issued)
        rows.append(
            {
                "table_round": tr,
                "links": table_page_links(table_round=tr) if usable else None,
                "revoked": tr.pk in issued and tr.pk not in live,
                "card_revoked": tr.table.card_revoked_at is not None,
            }
        )
    players = _players(tournament)
    context = {"tournament": tournament, "rows": rows, "players": players}
    return render(request, "tournaments/table/arbiter_tables.html", context)


def _players(tournament: Tournament) -> list[dict[str, Any]]:
    """Each registered player's code, its wrong tries, its latest lock on any phone, whether
    its budget of guesses is spent, and the phone bound to him now, else when and why his
    last binding ended (the record the binding rows keep)."""
    codes = player_codes_get(tournament=tournament)
    states = {c.player_id: c for c in PlayerCode.objects.filter(tournament=tournament)}
    now = timezone.now()
    locks: dict[int, CodeThrottle] = {}
    for throttle in CodeThrottle.objects.filter(tournament=tournament).exclude(locked_until=None):
        known = locks.get(throttle.player_id)
        if known is None or (throttle.locked_until or now) > (known.locked_until or now):
            locks[throttle.player_id] = throttle
    bound = {
        b.player_id: b
        for b in PhoneBinding.objects.filter(tournament=tournament, ended_at=None).select_related(
            "table_round__round", "table_round__table"
        )
    }
    ended: dict[int, PhoneBinding] = {}
    for b in PhoneBinding.objects.filter(tournament=tournament).exclude(ended_at=None):
        if b.player_id not in bound and b.player_id not in ended:  # the latest first
            ended[b.player_id] = b
    rows = []
    for r in Registration.objects.filter(tournament=tournament).select_related("player"):
        state, lock = states.get(r.player_id), locks.get(r.player_id)
        spent = state is not None and state.guesses >= CODE_GUESS_BUDGET
        rows.append(
            {
                "player": r.player,
                "code": codes.get(r.player_id, ""),
                "state": state,
                "lock": lock,
                "spent": spent,
                "locked": spent or (lock is not None and (lock.locked_until or now) > now),
                "binding": bound.get(r.player_id),
                "ended": ended.get(r.player_id),
            }
        )
    return rows


@login_required
@require_POST
@once_per_form
def table_access_change(
    request: HttpRequest, pk: int, table_round: int, action: str
) -> HttpResponse:
    """Revoke a table's page, or issue a new one (the old one stops working)."""
    tournament = _tournament(request, pk)
    tr = get_object_or_404(
        TableRound.objects.select_related("round__tournament", "table"),
        pk=table_round,
        round__tournament=tournament,
    )
    if action == "revoke":
        for access in TableAccess.objects.filter(table_round=tr, revoked_at=None):
            table_access_revoke(access=access, user=request.user)
        messages.success(
            request,
            _(
                "The page of table %(table)s is revoked, and its table card with it: issue a "
                "new page when needed (it comes with a new table card to print)."
            )
            % {"table": tr.table.number},
        )
    else:
        access = table_access_reissue(table_round=tr, user=request.user)
        messages.success(
            request,
            _(
                "Table %(table)s has a new page: code %(code)s. Print its score sheet and its "
                "table card again: the old ones open nothing."
            )
            % {"table": tr.table.number, "code": access.short_code},
        )
    return redirect(_overview_url(tournament))


@login_required
@require_POST
@once_per_form
def player_code_new(request: HttpRequest, pk: int, player_id: int) -> HttpResponse:
    """A new code for the player: the old one stops working, and its lock is lifted."""
    tournament = _tournament(request, pk)
    player = get_object_or_404(Player, pk=player_id, registrations__tournament=tournament)
    code = player_code_reissue(tournament=tournament, player=player, user=request.user)
    messages.success(
        request, _("New code of %(player)s: %(code)s.") % {"player": player, "code": code}
    )
    return redirect(_overview_url(tournament) + "#codes")


@login_required
@require_POST
@once_per_form
def player_binding_end(request: HttpRequest, pk: int, player_id: int) -> HttpResponse:
    """End the phone bound to the player: it asks for his code again."""
    tournament = _tournament(request, pk)
    player = get_object_or_404(Player, pk=player_id, registrations__tournament=tournament)
    if player_binding_revoke(tournament=tournament, player=player, user=request.user):
        messages.success(
            request,
            _("The phone bound to %(player)s is revoked: it asks for the code again.")
            % {"player": player},
        )
    else:
        messages.info(request, _("No phone is bound to %(player)s.") % {"player": player})
    return redirect(_overview_url(tournament) + "#codes")


@login_required
@require_POST
@once_per_form
def entry_confirm(request: HttpRequest, pk: int, table: int, donne: int) -> HttpResponse:
    """The arbiter makes a table's entry count as it stands (a ledger line says so); back to
    the dashboard, or to the cell's entry page when it was sent from there (``back=entry``)."""
    tournament = _tournament(request, pk)
    result = get_object_or_404(
        Result.objects.select_related("tournament", "table", "donne"),
        tournament=tournament,
        table__number=table,
        donne__number=donne,
    )
    try:
        result_confirm_by_arbiter(result=result, user=request.user)
    except (ResultConflict, ResultInvalid) as exc:  # changed meanwhile; its round closed
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            _("Table %(table)s, donne %(donne)s: the result counts.")
            % {"table": table, "donne": donne},
        )
    if request.POST.get("back") == "entry":
        return redirect(reverse("arbiter_result", args=[tournament.pk, table, donne]))
    return redirect(reverse("arbiter_dashboard", args=[tournament.pk]) + "#at-tables")
