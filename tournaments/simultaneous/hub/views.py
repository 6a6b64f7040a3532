"""The organiser's pages of the hub: his events, creating one, and an event's status (the
clubs and what they sent, invitations with the token shown once, a club's file uploaded by
hand, closing). Thin: the work is in `services`."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from scoring.rules.movement import most_players
from tournaments.once import once_per_form

from . import services
from .forms import SETS_TABLE_ROUNDS, EventForm, InvitationForm, UploadFileForm, sets_table
from .models import Invitation, OverallRankingState, SimultaneousEvent, UploadLog

UPLOADS_SHOWN = 50


def _organised_event(request: HttpRequest, public_id: str) -> SimultaneousEvent:
    event = get_object_or_404(SimultaneousEvent, public_id=public_id)
    if not services.is_event_organiser(request.user, event):
        raise PermissionDenied(_("Only the event's organisers may do this."))
    return event


@login_required
@require_GET
def event_list(request: HttpRequest) -> HttpResponse:
    events = SimultaneousEvent.objects.order_by("-date", "pk")
    if not request.user.is_superuser:
        events = events.filter(organisers=request.user)
    return render(
        request,
        "simultaneous/hub/event_list.html",
        {"events": events, "can_create": services.can_create_event(request.user)},
    )


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def event_create_view(request: HttpRequest) -> HttpResponse:
    if not services.can_create_event(request.user):
        raise PermissionDenied(_("Only the organisers of a club may organise an event."))
    form = EventForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            event = services.event_create(user=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(request, _("The event is created and its donnes are dealt."))
            return redirect("simultaneous_event", public_id=event.public_id)
    context = {"form": form, "sets_table": sets_table(51), "sets_rounds": SETS_TABLE_ROUNDS}
    return render(request, "simultaneous/hub/event_form.html", context)


def _conflict_groups(conflicts: list[services.LicenceConflict]) -> list[dict[str, Any]]:
    """The conflicts by pair of clubs (holder, claimant): the organiser settles a pair at once
    (revoking one of the two invitations), the licences listed with both names."""
    groups: dict[tuple[int, int], dict[str, Any]] = {}
    for conflict in conflicts:
        key = (conflict.holder.invitation.pk, conflict.claimant.invitation.pk)
        group = groups.setdefault(
            key,
            {"holder": conflict.holder, "claimant": conflict.claimant, "licences": []},
        )
        group["licences"].append(conflict)
    return list(groups.values())


def _status(request: HttpRequest, event: SimultaneousEvent, **extra: Any) -> HttpResponse:
    invitations = list(event.invitations.order_by("club_name", "pk"))
    uploads = (
        UploadLog.objects.filter(event=event)
        .select_related("invitation")
        .order_by("-received_at", "-pk")[:UPLOADS_SHOWN]
    )
    context = {
        "event": event,
        "invitations": invitations,
        "finals": sum(1 for i in invitations if i.final_received_at and i.active),
        "active": sum(1 for i in invitations if i.active),
        "uploads": uploads,
        "state": OverallRankingState.objects.filter(pk=event.pk).first(),
        "conflicts": _conflict_groups(services.licence_conflicts(event)),
        "most_players": most_players(event.sets, event.rounds),
        "hub_address": settings.SITE_URL + "/",
        "invite_form": extra.pop("invite_form", None) or InvitationForm(),
        "upload_form": extra.pop("upload_form", None) or UploadFileForm(),
        **extra,
    }
    return render(request, "simultaneous/hub/event_detail.html", context)


@login_required
@require_GET
def event_detail(request: HttpRequest, public_id: str) -> HttpResponse:
    return _status(request, _organised_event(request, public_id))


@login_required
@require_POST
@once_per_form
def invitation_create_view(request: HttpRequest, public_id: str) -> HttpResponse:
    """The token is on this answer only (not a redirect): it is never shown again."""
    event = _organised_event(request, public_id)
    form = InvitationForm(request.POST)
    if form.is_valid():
        try:
            invitation, token = services.invitation_create(
                event=event, user=request.user, **form.cleaned_data
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return _status(request, event, new_invitation=invitation, new_token=token)
    return _status(request, event, invite_form=form)


@login_required
@require_POST
@once_per_form
def upload_view(request: HttpRequest, public_id: str) -> HttpResponse:
    event = _organised_event(request, public_id)
    form = UploadFileForm(request.POST, request.FILES)
    if not form.is_valid():
        return _status(request, event, upload_form=form)
    try:
        outcome = services.upload_receive(
            body=form.cleaned_data["file"].read(), event=event, user=request.user
        )
    except services.UploadRefused as exc:
        messages.error(request, _("Upload refused: %(reason)s") % {"reason": exc.message})
    else:
        counts = outcome.results
        messages.success(
            request,
            _(
                "Upload applied: %(new)s new results, %(replaced)s replaced, %(unchanged)s "
                "unchanged, %(removed)s removed."
            )
            % counts
            if not outcome.stale
            else _("This file is older than one already applied: nothing changed."),
        )
    return redirect("simultaneous_event", public_id=event.public_id)


@login_required
@require_POST
@once_per_form
def event_close_view(request: HttpRequest, public_id: str) -> HttpResponse:
    event = _organised_event(request, public_id)
    services.event_close(event=event, user=request.user)
    messages.success(request, _("The event is closed; the embargo is lifted."))
    return redirect("simultaneous_event", public_id=event.public_id)


@login_required
@require_POST
@once_per_form
def invitation_revoke_view(
    request: HttpRequest, public_id: str, invitation_id: str
) -> HttpResponse:
    """Withdraw a club from the event (services.invitation_revoke): its token opens nothing
    any more and its players, results and penalties leave the field."""
    event = _organised_event(request, public_id)
    invitation = get_object_or_404(Invitation, event=event, public_id=invitation_id)
    services.invitation_revoke(invitation=invitation)
    messages.success(
        request,
        _(
            "The invitation of %(club)s is revoked: its players, results and penalties have "
            "left the field, and its licences are free."
        )
        % {"club": invitation.club_name},
    )
    return redirect("simultaneous_event", public_id=event.public_id)
