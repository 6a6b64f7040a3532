"""Public reads rendered once per results version: the one seam of the polled pages (the
hub's overall ranking, a club's players in it, a player's card across the field, the room's
screen, a tournament's live ranking).

A read is named by a `ReadKey`: what may change its answer — the subject (a ranking of one
event or tournament), the version of the results it reflects, the view asked for (page, the
path's arguments, the query the view reads), the reader's visibility class (what he may see:
the embargo, the arbiter's provisional ranking) and the active language. The caller decides
who may read *before* it asks here: the seam never answers a reader the view would refuse,
and what it keeps is the same for every reader of the class (nothing personal: a page's
shell with the reader's name and CSRF token is rendered around it per request).

- `cached(key, render)`: `render()` once per key for every web process, kept in this
  process's cache and in the shared one (Redis, every web host shares it); a Redis that does
  not answer is a miss (the read is rendered here), never an error.
- `etag(key, reader)`: the ETag of the answer, derived from the key (plus, for a page whose
  shell carries the reader's session, a `reader` stamp: the ETag is sent, never cached).
- `not_modified(request, tag)`: the 304 when the request's ``If-None-Match`` names it.
- `tagged(response, tag)`: the headers that make browsers and pollers ask again with it.

`CACHED_READS = False` (setting) renders every read: the baseline of `bench/bench_polls.py`.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers

logger = logging.getLogger(__name__)

CACHE_SECONDS = 600
"""How long a rendering is kept: a new version is a new key, so this only bounds memory."""

T = TypeVar("T")


@dataclass(frozen=True)
class ReadKey:
    """What may change a read's answer. `subject`: which ranking (with an identifier that a
    restored database does not give again, e.g. a public id, or a pk with a computation
    time in `version`); `version`: the results it reflects; `view`: page and arguments;
    `visibility`: the reader's class ("public", "embargo", "provisional", …)."""

    subject: str
    version: str
    view: str = ""
    visibility: str = "public"

    def text(self) -> str:
        """The cache key, in the active language (every field is part of it)."""
        language = translation.get_language() or "-"
        view = self.view if len(self.view) <= 120 else _digest(self.view)
        return f"read:{self.subject}:{self.version}:{view}:{self.visibility}:{language}"


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def etag(key: ReadKey, reader: str = "") -> str:
    """A weak ETag (the body may be compressed on the way) derived from the key in the
    active language and from `reader` (what the page's shell holds of the reader)."""
    return f'W/"{_digest(key.text() + chr(0) + reader)}"'


def _tags(header: str) -> set[str]:
    """The entity tags of an If-None-Match header, compared weakly (W/ dropped)."""
    return {part.strip().removeprefix("W/") for part in header.split(",") if part.strip()}


def not_modified(request: HttpRequest, tag: str) -> HttpResponse | None:
    """A 304 with `tag` when the request's If-None-Match names it (a poll that already shows
    this answer), else None. ``*`` is not honoured: a poller names what it has."""
    header = request.headers.get("If-None-Match", "")
    if not header or tag.removeprefix("W/") not in _tags(header):
        return None
    return tagged(HttpResponseNotModified(), tag)


def tagged(response: HttpResponse, tag: str) -> HttpResponse:
    """`response` with its ETag, and told to be checked again at every use (``no-cache``,
    ``private``: a shared proxy keeps nothing, the reader's browser revalidates with
    If-None-Match), varying with the language and the session."""
    response["ETag"] = tag
    patch_cache_control(response, private=True, no_cache=True)
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response


def _shared() -> Any:
    """The shared cache when it is Redis (the database's would cost more than it saves)."""
    from django.core.cache import caches
    from django.core.cache.backends.redis import RedisCache

    shared = caches["shared"]
    return shared if isinstance(shared, RedisCache) else None


def cached(key: ReadKey, render: Callable[[], T]) -> T:
    """`render()` once per key (this process's cache, then the shared one); rendered here
    when neither has it or Redis does not answer (logged, never raised)."""
    if not getattr(settings, "CACHED_READS", True):
        return render()
    from django.core.cache import cache

    text = key.text()
    value = cache.get(text)
    if value is not None:
        return value
    shared = _shared()
    try:
        value = shared.get(text) if shared is not None else None
    except Exception:  # Redis down: rendered here
        logger.warning("shared cache unavailable for %s", key.subject, exc_info=True)
        shared = value = None
    if value is None:
        value = render()
        try:
            if shared is not None:
                shared.set(text, value, CACHE_SECONDS)
        except Exception:
            logger.warning("shared cache unavailable for %s", key.subject, exc_info=True)
    cache.set(text, value, CACHE_SECONDS)
    return value


def reader_stamp(request: HttpRequest) -> str:
    """What a page's shell (base.html) holds of the reader: his account and his CSRF secret
    (the cookie's, or the one the shell's rendering just made: take the stamp of a 200
    after rendering it). Part of the page's ETag only: a 304 never keeps another's name or
    a stale token in a browser."""
    user = getattr(request, "user", None)
    pk = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    return f"{pk or ''}:{request.META.get('CSRF_COOKIE', '')}"
