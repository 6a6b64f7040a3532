"""The account page: who you are, and your API token (create, replace, revoke)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from .tokens import token_create, token_of, token_revoke


@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """GET shows the page; POST action=create makes a (new) token and shows it this once,
    action=revoke deletes it. Anonymous POSTs go to the login page and change nothing."""
    new_key = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            new_key = token_create(user=request.user).key
        elif action == "revoke":
            if token_revoke(user=request.user):
                messages.success(request, _("Your API token is revoked: it no longer works."))
            return redirect("account")
        else:
            messages.error(request, _("Choose to create or to revoke the token."))
            return redirect("account")
    token = token_of(request.user)
    player = getattr(request.user, "player", None)
    return render(
        request,
        "tournaments/account.html",
        {"token": token, "new_key": new_key, "player": player},
    )
