"""A throttle's history in Redis, checked and updated in one round trip.

DRF's SimpleRateThrottle keeps the times of the recent requests as a list in the cache: a
read and a write of the whole pickled list per request (two round trips, each through a
Redis client that Django's cache builds anew for every call). Here the same history is a
Redis sorted set (score: the request's time) and one Lua script does what
SimpleRateThrottle.allow_request does: drop the times older than the window, refuse when
the count is reached, otherwise add this request. Same rule (at most N requests in any
window of the rate's length), same clock (the web process's, passed in).

Only when the shared cache is Redis; otherwise, and while Redis does not answer, the caller
counts the usual way (tarot_club.kit.throttling).
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from typing import Any

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

# KEYS[1]: the history; ARGV: now, window (s), limit, a member unique to this request.
# Returns {allowed (1/0), count in the window (this request included when allowed), the
# oldest time in the window as a string (Lua would truncate a number)}.
_SCRIPT = """
local key, now, window, limit = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  redis.call('EXPIRE', key, ARGV[5])
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or ARGV[1]}
"""


@dataclass(frozen=True)
class Outcome:
    """What the script found: allowed or not, the requests in the window, the oldest's time."""

    allowed: bool
    count: int
    oldest: float


def redis_cache() -> RedisCache | None:
    """The shared cache when it is Redis, else None."""
    cache = caches["shared"]
    return cache if isinstance(cache, RedisCache) else None


def record(cache: RedisCache, key: str, now: float, window: float, limit: int) -> Outcome:
    """Check ``key``'s history against ``limit`` requests per ``window`` seconds and add this
    request when allowed, in one round trip. Raises Redis' errors (Redis down)."""
    client, script = _client(cache, key)
    allowed, count, oldest = script(
        keys=[cache.make_and_validate_key(f"{key}:log")],
        args=[repr(now), repr(float(window)), limit, uuid.uuid4().hex, math.ceil(window) + 1],
        client=client,
    )
    return Outcome(bool(allowed), int(count), float(oldest))


def _client(cache: RedisCache, key: str) -> tuple[Any, Any]:
    """A Redis client on the cache's connection pool and the registered script, made once
    per cache object (Django's cache builds a client for every call; building one costs
    more than the round trip)."""
    found = getattr(cache, "_tarot_rate_log", None)
    if found is None:
        client = cache._cache.get_client(key, write=True)  # on the cache's own pool
        found = (client, client.register_script(_SCRIPT))
        cache._tarot_rate_log = found  # type: ignore[attr-defined]
    return found
