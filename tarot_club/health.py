"""State of the parts the site depends on, for /healthz and for `make run`.

/healthz must answer a load balancer in a few milliseconds: the database is asked each time
(one SELECT 1), while Redis and the workers (a broadcast ping that waits for replies) are
checked at most every HEALTH_CACHE_SECONDS in a background thread; a request reads the last
result and never waits for a ping (except the very first one of a process, bounded).

Each ping uses a broker connection of its own. The replies to a ping come back on a reply
queue named after the asking thread; on a connection shared by several threads (the app's
pool), a ping from a thread other than the previous one's gets no reply over Redis, so the
background refresh (a new thread each time) would report the workers "stopped" right after
the request thread saw them "up".
"""

from __future__ import annotations

import threading
import time
from typing import Any

import redis
from django.conf import settings
from django.db import connection


def database_state() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down"
        return {"ok": False, "error": type(exc).__name__}  # no host, port or message
    return {"ok": True, "vendor": connection.vendor}


def redis_reachable(url: str, timeout: float = 0.5) -> bool:
    if not url:
        return False
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
        return bool(client.ping())
    except redis.RedisError:
        return False


def redis_state() -> dict[str, Any]:
    if not settings.REDIS_URL:
        return {"ok": False, "state": "not_configured"}
    if redis_reachable(settings.REDIS_URL):
        return {"ok": True, "state": "up"}
    return {"ok": False, "state": "down"}


def workers_state(redis_ok: bool, timeout: float = 1.0) -> dict[str, Any]:
    """The workers that answer a broadcast ping within `timeout` seconds, from any thread."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "state": "in_process", "count": 0}
    if not redis_ok:
        return {"ok": False, "state": "unreachable", "count": 0}
    from tarot_club.celery import app

    try:
        with app.connection_for_write() as conn:
            replies = app.control.ping(timeout=timeout, connection=conn) or []
    except Exception as exc:  # broker errors surface here
        return {"ok": False, "state": "unreachable", "count": 0, "error": str(exc)[:200]}
    names = sorted(name for reply in replies for name in reply)
    if not names:
        return {"ok": False, "state": "stopped", "count": 0}
    return {"ok": True, "state": "up", "count": len(names), "workers": names}


class _BrokerCheck:
    """The last Redis and workers state, refreshed in the background when older than
    HEALTH_CACHE_SECONDS (stale-while-revalidate); one refresh at a time per process."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.value: tuple[dict[str, Any], dict[str, Any]] | None = None
        self.checked = 0.0
        self.refreshing = False

    def _compute(self) -> tuple[dict[str, Any], dict[str, Any]]:
        redis_part = redis_state()
        return redis_part, workers_state(redis_part["ok"], timeout=0.5)

    def _refresh(self) -> None:
        try:
            value = self._compute()
            with self.lock:
                self.value, self.checked = value, time.monotonic()
        finally:
            self.refreshing = False

    def get(self) -> tuple[dict[str, Any], dict[str, Any]]:
        max_age = float(getattr(settings, "HEALTH_CACHE_SECONDS", 5))
        with self.lock:
            value, age = self.value, time.monotonic() - self.checked
            start = value is not None and age > max_age and not self.refreshing
            if start:
                self.refreshing = True
        if value is None or max_age <= 0:
            self._refresh_now()
            return self.value  # type: ignore[return-value]
        if start:
            threading.Thread(target=self._refresh, name="healthz", daemon=True).start()
        return value

    def _refresh_now(self) -> None:
        value = self._compute()
        with self.lock:
            self.value, self.checked = value, time.monotonic()

    def clear(self) -> None:
        with self.lock:
            self.value, self.checked = None, 0.0


broker_check = _BrokerCheck()


def health_report() -> dict[str, Any]:
    """Everything, for staff. `status` is "ok" only when every part the site uses answers."""
    database = database_state()
    if settings.CELERY_TASK_ALWAYS_EAGER:
        redis_part: dict[str, Any] = {"ok": True, "state": "not_used"}
        workers = workers_state(False)
    else:
        redis_part, workers = broker_check.get()
    return {
        "status": "ok" if database["ok"] and redis_part["ok"] and workers["ok"] else "degraded",
        "database": database,
        "redis": redis_part,
        "workers": workers,
    }
