"""Screens of a club run by its organisers themselves: creating the club (any signed-in user,
who becomes its organiser), the accounts of its organisers and arbiters, and the page where a
new account's owner sets his password from the one-time link.

Views stay thin: permissions come from tournaments.permissions, writes from the services.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import PasswordResetConfirmView
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from ..forms import AccountForm, ClubForm
from ..models import Club
from ..once import once_per_form
from ..permissions import is_club_organiser
from ..services.clubs import club_account_create, club_create


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def club_create_view(request: HttpRequest) -> HttpResponse:
    """Any signed-in user creates a club and becomes its organiser."""
    form = ClubForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            club = club_create(user=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            messages.success(
                request,
                _(
                    "The club %(club)s is created and you are its organiser: add its players, "
                    "then create a tournament."
                )
                % {"club": club.name},
            )
            return redirect("organiser_club_accounts", club_pk=club.pk)
    return render(
        request,
        "tournaments/organiser/club_form.html",
        {"form": form},
        status=422 if form.errors else 200,
    )


def _club_people(club: Club) -> list[dict[str, Any]]:
    """The club's organisers and the arbiters of its tournaments, with their roles."""
    users = (
        get_user_model()
        .objects.filter(Q(organised_clubs=club) | Q(arbitrated_tournaments__club=club))
        .distinct()
        .order_by("username")
    )
    organisers = set(club.organisers.values_list("pk", flat=True))
    people = []
    for user in users:
        people.append(
            {
                "user": user,
                "organiser": user.pk in organisers,
                "tournaments": list(
                    user.arbitrated_tournaments.filter(club=club).order_by("-date")[:5]
                ),
                "has_password": user.has_usable_password(),
            }
        )
    return people


@login_required
@require_http_methods(["GET", "POST"])
@once_per_form
def club_accounts_view(request: HttpRequest, club_pk: int) -> HttpResponse:
    """The club's organisers and arbiters; a new account's one-time link shown once."""
    club = get_object_or_404(Club, pk=club_pk)
    if not is_club_organiser(request.user, club):
        raise PermissionDenied
    form = AccountForm(request.POST or None, club=club)
    created = None
    if request.method == "POST" and form.is_valid():
        try:
            created = club_account_create(club=club, by=request.user, **form.cleaned_data)
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            form = AccountForm(club=club)
    context = {
        "club": club,
        "form": form,
        "people": _club_people(club),
        "created": created,
        "link": request.build_absolute_uri(created.set_password_path) if created else "",
    }
    status = 422 if request.method == "POST" and created is None else 200
    return render(request, "tournaments/organiser/club_accounts.html", context, status=status)


class SetPasswordView(PasswordResetConfirmView):
    """The one-time link of a new account: its owner chooses his password, then logs in."""

    template_name = "registration/set_password.html"
    success_url = reverse_lazy("login")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        messages.success(
            self.request, _("Your password is set: log in with your user name and it.")
        )
        return response
