"""Screens of a club run by its organisers themselves: the sign-up page where a newcomer opens
his account (unless the site's owner closed it: SIGNUP_OPEN), creating the club (any
signed-in user, who becomes its organiser), the accounts of its organisers and arbiters, and the page where a
new account's owner sets his password from the one-time link.

Views stay thin: permissions come from tournaments.permissions, writes from the services.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import PasswordResetConfirmView
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from tarot_club.kit.throttling import signup_wait

from ..forms import AccountForm, ClubForm, SignupForm
from ..models import Club
from ..once import once_per_form
from ..permissions import is_club_organiser
from ..services.clubs import club_account_create, club_create


@require_http_methods(["GET", "POST"])
def signup_view(request: HttpRequest) -> HttpResponse:
    """A newcomer opens his account, is logged in and goes on to create his club. 403 with
    the way to ask for an account when the site's owner closed the sign-up (SIGNUP_OPEN=0);
    429 past SIGNUP_RATE attempts from one address; 422 with the form's errors, nothing
    saved, for a taken name or a weak or mistyped password."""
    template = "registration/signup.html"
    if not settings.SIGNUP_OPEN:
        return render(request, template, {"closed": True}, status=403)
    if request.user.is_authenticated:
        return redirect("organiser_home")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        wait = signup_wait(request)
        if wait is not None:
            seconds = max(1, int(wait))
            # Nothing is checked: the form comes back with the name and address typed.
            form = SignupForm(initial={k: request.POST.get(k, "") for k in ("username", "email")})
            message = ngettext(
                "Too many sign-ups from this address. Wait %(seconds)s second, then try again.",
                "Too many sign-ups from this address. Wait %(seconds)s seconds, then try again.",
                seconds,
            ) % {"seconds": seconds}
            response = render(request, template, {"form": form, "throttled": message}, status=429)
            response["Retry-After"] = str(seconds)
            return response
        if form.is_valid():
            user = form.save()
            login(request, user)
            messages.success(
                request,
                _("Your account %(name)s is open. Now create your club: you will be its organiser.")
                % {"name": user.get_username()},
            )
            return redirect("organiser_club_create")
    return render(request, template, {"form": form}, status=422 if form.errors else 200)


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
    """The club's organisers, its arbiter accounts (named for a tournament or not yet) and the
    arbiters of its tournaments, with their roles."""
    users = (
        get_user_model()
        .objects.filter(
            Q(organised_clubs=club)
            | Q(arbitrated_clubs=club)
            | Q(arbitrated_tournaments__club=club)
        )
        .distinct()
        .order_by("username")
    )
    organisers = set(club.organisers.values_list("pk", flat=True))
    arbiters = set(club.arbiters.values_list("pk", flat=True))
    people = []
    for user in users:
        people.append(
            {
                "user": user,
                "organiser": user.pk in organisers,
                "arbiter": user.pk in arbiters,
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
