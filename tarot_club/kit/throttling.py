"""Throttles on logging in (API token and the site's login page) and on writes.

Rates come from REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] and are read on each request (DRF's
own classes read them once at import), so the settings (and tests) can change them:
- ``login``: attempts per client address and user name (guessing one account's password);
- ``login_ip``: attempts per client address, whatever the name (a club's Wi-Fi shares one
  address, hence a higher rate);
- ``signup``: sign-up attempts per client address (the site's sign-up page);
- ``write``: writes per user (a runaway client cannot flood the arbiters' tournament);
- ``login_failures``: failed logins per client address and user name, and
  ``login_address_failures``: failed logins per client address; counted when authentication
  fails, checked before the next attempt. Failures are never counted per user name alone:
  a stranger could then lock the account's owner out. Instead, after LOGIN_SLOWDOWN_AFTER
  failures on a name from anywhere in an hour, each attempt for it waits
  LOGIN_SLOWDOWN_SECONDS (`login_pause`, a few seconds at most) before its password is
  checked: guessing from many addresses is slowed, the right password still gets in.

The client is the connection's address; X-Forwarded-For is read only when TRUSTED_PROXIES
says how many proxies append to it (the address the nearest of them saw), so a client
cannot pick a new identity per request. Counters live in the cache every process shares
(settings.CACHES["shared"]: Redis, or the database), so four web processes count as one;
while Redis does not answer they go to the database.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.signals import user_login_failed
from django.core.cache import caches
from django.core.exceptions import NON_FIELD_ERRORS
from django.forms.utils import ErrorDict, ErrorList
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import ngettext
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from . import rate_log

logger = logging.getLogger(__name__)

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def client_address(request: Any) -> str:
    """The client's address: REMOTE_ADDR, or with TRUSTED_PROXIES = n the n-th address from
    the right of X-Forwarded-For (what the outermost of our proxies saw connecting)."""
    meta = getattr(request, "META", {})
    remote = meta.get("REMOTE_ADDR") or ""
    proxies = int(getattr(settings, "TRUSTED_PROXIES", 0) or 0)
    if proxies <= 0:
        return remote
    forwarded = [a.strip() for a in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
    if not forwarded:
        return remote
    return forwarded[-min(proxies, len(forwarded))]


class SharedCounters:
    """The throttles' cache: the shared one, or the database while it fails (Redis down)."""

    def _try(self, method: str, *args: Any) -> Any:
        try:
            return getattr(caches["shared"], method)(*args)
        except Exception as exc:
            if caches["shared"] is caches["shared_fallback"]:
                raise
            logger.warning("shared cache unavailable, counting in the database: %s", exc)
            return getattr(caches["shared_fallback"], method)(*args)

    def get(self, key: str, default: Any = None) -> Any:
        return self._try("get", key, default)

    def set(self, key: str, value: Any, timeout: Any = None) -> None:
        self._try("set", key, value, timeout)

    def count(self, key: str, window: int) -> int:
        """Add one to ``key`` (kept ``window`` seconds from its first count); the new count."""
        self._try("add", key, 0, window)
        try:
            return int(self._try("incr", key))
        except ValueError:  # expired between add and incr
            self._try("set", key, 1, window)
            return 1


class _SettingsRateThrottle(SimpleRateThrottle):
    """A throttle whose rate is looked up in the settings at each request, counted in the
    shared cache, keyed on the real client address."""

    scope = ""
    cache = SharedCounters()

    def get_ident(self, request: Any) -> str:
        return client_address(request)

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


class SignupRateThrottle(_SettingsRateThrottle):
    """Sign-up attempts (forms posted) per client address: SIGNUP_RATE."""

    scope = "signup"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def signup_wait(request: HttpRequest) -> float | None:
    """Counts this sign-up attempt; seconds to wait when over the rate, else None."""
    throttle = SignupRateThrottle()
    if throttle.allow_request(request, None):
        return None
    return throttle.wait() or 1


class WriteRateThrottle(_SettingsRateThrottle):
    """Writes (POST, PUT, PATCH, DELETE) per user; reads are not counted. Every API write
    pays it: with Redis as the shared cache the history is checked and updated in one round
    trip (tarot_club.kit.rate_log, same rule); while Redis fails, in the database."""

    scope = "write"

    def __init__(self) -> None:
        self.outcome: rate_log.Outcome | None = None

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        if request.method in SAFE_METHODS:
            return None
        user = request.user
        ident = f"u{user.pk}" if user and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: Any, view: Any) -> bool:
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        redis = rate_log.redis_cache()
        if redis is None:
            return super().allow_request(request, view)
        self.now = self.timer()
        try:
            self.outcome = rate_log.record(
                redis, self.key, self.now, self.duration, self.num_requests
            )
        except Exception as exc:
            logger.warning("shared cache unavailable, counting in the database: %s", exc)
            self.cache = caches["shared_fallback"]  # Redis was just tried: not again
            return super().allow_request(request, view)
        return self.outcome.allowed

    def wait(self) -> float | None:
        """DRF's wait, from the Redis history's count and oldest time."""
        outcome = self.outcome
        if outcome is None:
            return super().wait()
        remaining = self.duration - (self.now - outcome.oldest) if outcome.count else self.duration
        available = self.num_requests - outcome.count + 1
        if available <= 0:
            return None
        return remaining / float(available)


def _failure_key(scope: str, ident: str) -> str:
    digest = hashlib.sha256(ident.encode()).hexdigest()[:24]
    return f"throttle_{scope}_{digest}"


class _FailedLoginThrottle(_SettingsRateThrottle):
    """Refuses attempts once the failures recorded under its key in the window reach the
    rate. Failures are recorded by `_record_failure` (Django's user_login_failed signal);
    the check alone costs a success nothing."""

    def failure_key(self, username: str, address: str) -> str | None:
        raise NotImplementedError

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.failure_key(_posted_username(request), client_address(request))

    def allow_request(self, request: Any, view: Any) -> bool:
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        self.history = [t for t in self.cache.get(self.key, []) if t > self.now - self.duration]
        return len(self.history) < self.num_requests


class FailedLoginThrottle(_FailedLoginThrottle):
    """Failed logins per (user name, client address): guessing one account's password from
    one place. Failures from elsewhere never block the account's owner."""

    scope = "login_failures"

    def failure_key(self, username: str, address: str) -> str | None:
        name = username.strip().lower()
        return _failure_key(self.scope, f"{address}|{name}") if name else None


class FailedLoginAddressThrottle(_FailedLoginThrottle):
    """Failed logins per client address, whatever the names tried."""

    scope = "login_address_failures"

    def failure_key(self, username: str, address: str) -> str | None:
        return _failure_key(self.scope, address)


SLOWDOWN_WINDOW = 3600
SLOWDOWN_MAX_SECONDS = 5.0


def _name_key(username: str) -> str:
    return _failure_key("login_name_failures", username.strip().lower())


def login_pause(username: str) -> float:
    """Seconds every login attempt for ``username`` waits before its password is checked:
    LOGIN_SLOWDOWN_SECONDS (at most five) once LOGIN_SLOWDOWN_AFTER failures were recorded
    for that name, from any address, in the last hour; else 0. Failures elsewhere slow the
    owner down a little but never refuse him."""
    after = int(getattr(settings, "LOGIN_SLOWDOWN_AFTER", 0) or 0)
    seconds = float(getattr(settings, "LOGIN_SLOWDOWN_SECONDS", 0) or 0)
    if not username or after <= 0 or seconds <= 0:
        return 0.0
    now = time.time()
    try:
        history = SharedCounters().get(_name_key(username), []) or []
    except Exception:
        return 0.0
    recent = [t for t in history if t > now - SLOWDOWN_WINDOW]
    return min(seconds, SLOWDOWN_MAX_SECONDS) if len(recent) >= after else 0.0


def login_slow_down(request: Any) -> None:
    """Wait `login_pause` for the user name posted in ``request``."""
    pause = login_pause(_posted_username(request))
    if pause > 0:
        time.sleep(pause)


def _append(cache: SharedCounters, key: str, now: float, window: float) -> None:
    history = [t for t in cache.get(key, []) if t > now - window]
    cache.set(key, [now, *history][:1000], window)


def _record_failure(
    sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
) -> None:
    username = credentials.get("username")
    if not isinstance(username, str) or not username:
        return
    address = client_address(request) if request is not None else ""
    cache = SharedCounters()
    now = time.time()
    try:
        for throttle_class in (FailedLoginThrottle, FailedLoginAddressThrottle):
            throttle = throttle_class()
            rate = throttle.get_rate()
            key = throttle.failure_key(username, address)
            if rate is None or key is None:
                continue
            _num, duration = throttle.parse_rate(rate)
            _append(cache, key, now, duration)
        _append(cache, _name_key(username), now, SLOWDOWN_WINDOW)
    except Exception:
        logger.warning("could not count a failed login", exc_info=True)


user_login_failed.connect(_record_failure, dispatch_uid="tarot_login_failures")


def _posted_username(request: Any) -> str:
    data = getattr(request, "data", None)
    if data is None:
        data = request.POST
    try:
        value = data.get("username", "")
    except AttributeError:
        value = ""
    return value if isinstance(value, str) else ""


LOGIN_THROTTLES = (
    LoginRateThrottle,
    LoginAddressRateThrottle,
    FailedLoginThrottle,
    FailedLoginAddressThrottle,
)


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
                message = ngettext(
                    "Too many login attempts. Wait %(seconds)s second, then try again.",
                    "Too many login attempts. Wait %(seconds)s seconds, then try again.",
                    seconds,
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
            login_slow_down(request)
        return view(request, *args, **kwargs)

    wrapper.__doc__ = view.__doc__
    wrapper.__name__ = getattr(view, "__name__", "login")
    return wrapper
