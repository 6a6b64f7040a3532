"""State of the parts the site depends on, for /healthz and for `make run`."""

from __future__ import annotations

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
        return {"ok": False, "error": str(exc)[:200]}
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
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "state": "in_process", "count": 0}
    if not redis_ok:
        return {"ok": False, "state": "unreachable", "count": 0}
    from tarot_club.celery import app

    try:
        replies = app.control.ping(timeout=timeout) or []
    except Exception as exc:  # broker errors surface here
        return {"ok": False, "state": "unreachable", "count": 0, "error": str(exc)[:200]}
    names = sorted(name for reply in replies for name in reply)
    if not names:
        return {"ok": False, "state": "stopped", "count": 0}
    return {"ok": True, "state": "up", "count": len(names), "workers": names}


def health_report() -> dict[str, Any]:
    database = database_state()
    redis_part = redis_state()
    workers = workers_state(redis_part["ok"])
    return {
        "status": "ok" if database["ok"] and redis_part["ok"] and workers["ok"] else "degraded",
        "database": database,
        "redis": redis_part,
        "workers": workers,
    }
