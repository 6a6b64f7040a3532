"""Public pages read from PostgreSQL streaming replicas; everything else reads the primary.

The one seam for read replicas (`DATABASE_REPLICA_URLS`, settings `DATABASE_REPLICAS`):

- `replica_reads(view)` marks a view whose answer is public and the same for every stranger
  (a ranking, a traveller, a room screen). Nothing else ever reads a replica: writes, the
  arbiter's and organiser's pages, the table pages, the API's writes, Celery tasks.
- `ReplicaReadsMiddleware` lets a marked view's request read a replica only when it is a
  GET or HEAD from a reader without a session (so never a signed-in arbiter or organiser;
  decided from the cookies, before the session is loaded, so that the room's poll answers
  are covered too) and who has not written in the last
  `DATABASE_REPLICA_STICKY_SECONDS` (a cookie set on the answer to any other method), so
  nobody sees their own entry vanish behind the replica's lag.
- `ReplicaRouter` sends those reads to a replica that answers: a replica's connection is
  checked at most once a second per process (`SELECT 1`, connect timeout of 2 s); one that
  does not answer is left out for `DATABASE_REPLICA_RETRY_SECONDS` and the read goes to
  the primary, so a stopped replica costs no error, only its share of the load.
"""

from __future__ import annotations

import contextvars
import itertools
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve

logger = logging.getLogger(__name__)

STICKY_COOKIE = "tc_primary"
SAFE_METHODS = frozenset({"GET", "HEAD"})
CHECK_EVERY_SECONDS = 1.0

View = TypeVar("View", bound=Callable[..., Any])

_reading_replicas: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "reading_replicas", default=False
)
_replica_read: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "replica_read", default=None
)
_down_until: dict[str, float] = {}
_checked_at: dict[str, float] = {}
_turn = itertools.count()


def replica_reads(view: View) -> View:
    """Mark `view` as a public read a replica may answer (see the module's contract)."""
    view.replica_reads = True  # type: ignore[attr-defined]
    return view


def replica_aliases() -> list[str]:
    """The configured replicas' database aliases, in order."""
    return list(getattr(settings, "DATABASE_REPLICAS", ()))


def may_read_replica(request: HttpRequest) -> bool:
    """Whether this request may read a replica: a safe method, a reader without a session,
    no write of theirs within the sticky period, and a view marked `replica_reads`."""
    if request.method not in SAFE_METHODS:
        return False
    if STICKY_COOKIE in request.COOKIES or settings.SESSION_COOKIE_NAME in request.COOKIES:
        return False
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return False
    return getattr(match.func, "replica_reads", False)


def _answers(alias: str, now: float, *, recheck: bool = False) -> bool:
    """Whether the replica `alias` answers; checked at most once a second per process
    (each time when `recheck`)."""
    if _down_until.get(alias, 0.0) > now:
        return False
    if not recheck and now - _checked_at.get(alias, -CHECK_EVERY_SECONDS) < CHECK_EVERY_SECONDS:
        return True
    connection = connections[alias]
    try:
        if connection.connection is None or not connection.is_usable():
            connection.close()
            connection.ensure_connection()
    except DatabaseError as error:
        connection.close()
        _down_until[alias] = now + settings.DATABASE_REPLICA_RETRY_SECONDS
        logger.warning("replica %s does not answer, reading the primary: %s", alias, error)
        return False
    _checked_at[alias] = now
    return True


def read_alias() -> str | None:
    """The replica this request's reads go to, or None for the primary (always inside a
    transaction on the primary: a read there belongs to a write, e.g. a catch-up that stores
    what it computed, and a standby refuses SELECT ... FOR UPDATE)."""
    if not _reading_replicas.get() or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return None
    aliases = replica_aliases()
    if not aliases:
        return None
    now = time.monotonic()
    start = next(_turn)
    for offset in range(len(aliases)):
        alias = aliases[(start + offset) % len(aliases)]
        if _answers(alias, now):
            _replica_read.set(alias)
            return alias
    return None


class ReplicaRouter:
    """Reads of a request `ReplicaReadsMiddleware` allowed go to a replica that answers;
    all writes and every other read go to the primary; only the primary is migrated."""

    def db_for_read(self, model: type, **hints: Any) -> str | None:
        return read_alias()

    def db_for_write(self, model: type, **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db not in replica_aliases()


class ReplicaReadsMiddleware:
    """Decides per request whether its reads may go to a replica, and after a write keeps
    the writer on the primary for `DATABASE_REPLICA_STICKY_SECONDS` (a cookie)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not replica_aliases():
            return self.get_response(request)
        reading = _reading_replicas.set(may_read_replica(request))
        used = _replica_read.set(None)
        try:
            response = self.get_response(request)
            replica = _replica_read.get()
            failed = response.status_code >= 500 and replica is not None
            if failed and not _answers(replica, time.monotonic(), recheck=True):
                # The replica went away during the request: the same read, on the primary.
                _reading_replicas.set(False)
                response = self.get_response(request)
        finally:
            _reading_replicas.reset(reading)
            _replica_read.reset(used)
        if request.method not in SAFE_METHODS:
            response.set_cookie(
                STICKY_COOKIE,
                "1",
                max_age=settings.DATABASE_REPLICA_STICKY_SECONDS,
                httponly=True,
                samesite="Lax",
                secure=request.is_secure(),
            )
        return response


def forget_health() -> None:
    """Forget which replicas were found down or checked (a test's or a drill's fresh start)."""
    _down_until.clear()
    _checked_at.clear()
