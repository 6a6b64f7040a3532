"""The club's pages of a simultaneous event (organisers and arbiters of the tournament): join
with the hub's address and token, the link's state (last upload, acknowledged, refused and
why), send again, ask the hub again (the revealed seed), download the upload file."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tournaments.models import Club, Tournament
from tournaments.once import once_per_form
from tournaments.permissions import can_manage_tournament

from . import services
from .hub_client import HubError
from .models import SimultaneousLink
from .upload import UploadRefused


def _managed(request: HttpRequest, pk: int) -> Tournament:
    tournament = get_object_or_404(Tournament.objects.select_related("club"), pk=pk)
    if not can_manage_tournament(request.user, tournament):
        raise PermissionDenied(_("Only the club's organisers and the arbiters may do this."))
    return tournament


def _joined(request: HttpRequest, link: SimultaneousLink) -> None:
    messages.success(
        request, _("The tournament plays the donnes of “%(event)s”.") % {"event": link.event_name}
    )
    for warning in services.join_warnings(link):
        messages.warning(request, warning)


def _link_error(link: SimultaneousLink | None) -> str:
    """The link's last error for its reader: a stale answer explained in the reader's
    language; others as the hub or the task said them."""
    if link is None:
        return ""
    if link.state == SimultaneousLink.State.STALE:
        held = (link.response or {}).get("last_sequence")
        return services.stale_message(sequence=link.sequence, held=held)
    return link.error


def _link(tournament: Tournament) -> SimultaneousLink | None:
    return SimultaneousLink.objects.filter(tournament=tournament).first()


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def simultaneous_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The link's state, or the form that joins an event (POST: hub_url, token)."""
    tournament = _managed(request, pk)
    link = _link(tournament)
    status = 200
    if request.method == "POST" and link is None:
        try:
            link = services.join(
                hub_url=request.POST.get("hub_url", ""),
                token=request.POST.get("token", ""),
                user=request.user,
                tournament=tournament,
            )
        except services.JoinError as err:
            messages.error(request, str(err))
            status = 400
        else:
            _joined(request, link)
            return redirect("simultaneous_club", pk=tournament.pk)
    context = {
        "tournament": tournament,
        "link": link,
        "capacity": services.event_capacity(link.sets, tournament.rounds) if link else "",
        "error": _link_error(link),
        "hub_url": request.POST.get("hub_url", "") if status == 400 else "",
        "behind": link is not None and tournament.pk in services.links_behind(),
    }
    return render(request, "simultaneous/club/link.html", context, status=status)


def _organised_clubs(user: Any) -> Any:
    clubs = Club.objects.order_by("name", "pk")
    return clubs if user.is_superuser else clubs.filter(organisers=user)


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def simultaneous_join(request: HttpRequest) -> HttpResponse:
    """Join a simultaneous event with a new tournament: the organiser picks one of his clubs and
    types the hub's address and the token; the tournament takes the event's name, date,
    rounds and comparison method (services.join). A refusal is a 400 with its reason."""
    clubs = list(_organised_clubs(request.user))
    if not clubs:
        raise PermissionDenied(_("Only the organisers of a club may join an event."))
    status = 200
    chosen = request.POST.get("club", "") if request.method == "POST" else ""
    if request.method == "POST":
        club = next((c for c in clubs if str(c.pk) == chosen), None)
        try:
            if club is None:
                raise services.JoinError(_("Choose the club whose tournament joins the event."))
            link = services.join(
                hub_url=request.POST.get("hub_url", ""),
                token=request.POST.get("token", ""),
                user=request.user,
                club=club,
            )
        except services.JoinError as err:
            messages.error(request, str(err))
            status = 400
        else:
            _joined(request, link)
            return redirect("simultaneous_club", pk=link.tournament_id)
    context = {
        "clubs": clubs,
        "chosen": chosen or (str(clubs[0].pk) if len(clubs) == 1 else ""),
        "hub_url": request.POST.get("hub_url", "") if status == 400 else "",
    }
    return render(request, "simultaneous/club/join.html", context, status=status)


@login_required
@require_POST
@once_per_form
def simultaneous_send(request: HttpRequest, pk: int) -> HttpResponse:
    """Send the tournament's state to the hub again (after a refusal was fixed, or now)."""
    tournament = _managed(request, pk)
    link = get_object_or_404(SimultaneousLink, tournament=tournament)
    services.upload_again(link=link)
    messages.success(request, _("The results are being sent to the hub."))
    return redirect("simultaneous_club", pk=tournament.pk)


@login_required
@require_POST
@once_per_form
def simultaneous_refresh(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask the hub for the event again (after the embargo: the seed, and the donnes' check)."""
    tournament = _managed(request, pk)
    link = get_object_or_404(SimultaneousLink, tournament=tournament)
    try:
        link = services.link_refresh(link=link)
    except HubError as err:
        messages.error(request, err.detail)
    else:
        if not link.seed:
            messages.info(request, _("The hub has not revealed the event's seed yet."))
    return redirect("simultaneous_club", pk=tournament.pk)


@login_required
@require_GET
def simultaneous_file(request: HttpRequest, pk: int) -> HttpResponse:
    """The upload file (the same JSON the task sends) for the organiser's manual upload on
    the hub's page. Numbered like every upload, so the hub takes it as the newest state."""
    tournament = _managed(request, pk)
    get_object_or_404(SimultaneousLink, tournament=tournament)
    try:
        link, body, _upload = services.upload_prepare(tournament_id=tournament.pk)
    except UploadRefused as err:
        return HttpResponse(str(err), status=409, content_type="text/plain; charset=utf-8")
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    name = f"simultaneous-{link.event}-{link.invitation}-{link.sequence}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
