"""Throttles on logging in (API token and the site's login page) and on writes.

Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] and are read on each request (DRF's
own classes read them once at import), so the settings (and tests) can change them:
- ``login``: attempts per client address and user name (guessing one account's password);
- ``login_ip``: attempts per client address, whatever the name (a club's Wi-Fi shares one
  address, hence a higher rate);
- ``write``: writes per user (a runaway client cannot flood the arbiters' tournament).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import NON_FIELD_ERRORS
from django.forms.utils import ErrorDict, ErrorList
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class _SettingsRateThrottle(SimpleRateThrottle):
    """A throttle whose rate is looked up in the settings at each request."""

    scope = ""

    def __init__(self) -> None:
        """Nothing to read here: the rate is looked up per request (see allow_request)."""

    def get_rate(self) -> str | None:
        return (api_settings.DEFAULT_THROTTLE_RATES or {}).get(self.scope)

    def allow_request(self, request: Any, view: Any) -> bool:
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)


class LoginRateThrottle(_SettingsRateThrottle):
    """Login attempts per address and user name."""

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        username = _posted_username(request)
        digest = hashlib.sha256(username.lower().encode()).hexdigest()[:16]
        return self.cache_format % {
            "scope": self.scope,
            "ident": f"{self.get_ident(request)}:{digest}",
        }


class LoginAddressRateThrottle(_SettingsRateThrottle):
    """Login attempts per address."""

    scope = "login_ip"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class WriteRateThrottle(_SettingsRateThrottle):
    """Writes (POST, PUT, PATCH, DELETE) per user; reads are not counted."""

    scope = "write"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        user = request.user
        ident = f"u{user.pk}" if user and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def _posted_username(request: Any) -> str:
    data = getattr(request, "data", None)
    if data is None:
        data = request.POST
    try:
        value = data.get("username", "")
    except AttributeError:
        value = ""
    return value if isinstance(value, str) else ""


LOGIN_THROTTLES = (LoginRateThrottle, LoginAddressRateThrottle)


def login_wait(request: HttpRequest) -> float | None:
    """Seconds to wait before the next login attempt, or None when it may go ahead."""
    waits = []
    for throttle_class in LOGIN_THROTTLES:
        throttle = throttle_class()
        if not throttle.allow_request(request, None):
            waits.append(throttle.wait() or 1)
    return max(waits) if waits else None


def throttled_login(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Wrap the site's login view: too many attempts get 429 and the form with a message."""

    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            wait = login_wait(request)
            if wait is not None:
                seconds = max(1, int(wait))
                message = _(
                    "Too many login attempts. Wait %(seconds)s seconds, then try again."
                ) % {"seconds": seconds}
                # The password is not checked: the form only carries the message and the name.
                form = AuthenticationForm(request, data=request.POST)
                form._errors = ErrorDict({NON_FIELD_ERRORS: ErrorList([message])})
                response = TemplateResponse(
                    request,
                    "registration/login.html",
                    {"form": form, "next": request.POST.get("next", "")},
                    status=429,
                )
                response["Retry-After"] = str(seconds)
                return response
        return view(request, *args, **kwargs)

    wrapper.__doc__ = view.__doc__
    wrapper.__name__ = getattr(view, "__name__", "login")
    return wrapper
