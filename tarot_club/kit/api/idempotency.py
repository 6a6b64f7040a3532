"""Safe retries: a write sent with an ``Idempotency-Key`` header is answered once.

The first answer (status and body) is stored with the key, per user, in the same transaction
as the write itself; the same request again gets that answer back (header
``Idempotent-Replayed: true``) and changes nothing. The same key with a different request
(method, path, body or If-Match) is refused with 422. Two copies sent at the same moment
cannot both write: the second one's record insert hits the unique (user, key) constraint,
its whole transaction is rolled back and it answers with the first one's stored response.
Server errors (5xx) are not stored, so they can be retried. Records expire after
``API_IDEMPOTENCY_TTL`` seconds (24 hours by default). An expired record is deleted when its key
comes back, after a write of its user commits (at most every
``API_IDEMPOTENCY_PURGE_EVERY`` seconds per user and web process, 5 minutes by default) and by
the ``purge_idempotency`` management command (daily, from cron).

The record is not looked up before the write: the write runs and its record is inserted in
its transaction (one statement, no savepoint), and it is the unique constraint that finds a
key already used; the write is then rolled back and the stored answer replayed. A write that
fails looks the key up before answering (its first attempt may have caused the failure: a
retried creation meets the result it created). Retries are rare; every first attempt saves
a query.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.models import IdempotencyRecord

from .errors import ApiError

HEADER = "Idempotency-Key"
META_KEY = "HTTP_IDEMPOTENCY_KEY"
MAX_KEY_LENGTH = 255
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
REPLAYED_HEADERS = ("ETag", "Location")


def ttl() -> datetime.timedelta:
    return datetime.timedelta(seconds=int(getattr(settings, "API_IDEMPOTENCY_TTL", 86400)))


def purge_expired(*, user: Any = None) -> int:
    """Delete the expired records (of one user, or of everyone); return how many."""
    records = IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - ttl())
    if user is not None:
        records = records.filter(user=user)
    deleted, _by_model = records.delete()
    return deleted


def request_key(request: Request) -> str | None:
    """The client's key for this write, or None; a malformed key is a 400."""
    if request.method not in WRITE_METHODS:
        return None
    key = request.META.get(META_KEY)
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise ApiError(
            status_code=400,
            code="invalid_idempotency_key",
            message=_(
                "The Idempotency-Key header must hold 1 to %(max)s printable characters, for "
                "example a UUID."
            )
            % {"max": MAX_KEY_LENGTH},
        )
    return key


def fingerprint(request: Request) -> str:
    """What identifies the request: method, path, If-Match and the parsed body (compared by
    value, so key order and spacing do not matter). A body that does not parse raises the
    parser's 400 here, before anything is stored."""
    data = request.data
    if hasattr(data, "lists"):
        data = {k: v for k, v in data.lists()}
    body = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str).encode()
    digest = hashlib.sha256()
    for part in (
        request.method.encode(),
        request.path.encode(),
        (request.META.get("HTTP_IF_MATCH") or "").encode(),
        body,
    ):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def _lookup(user: Any, key: str) -> IdempotencyRecord | None:
    record = IdempotencyRecord.objects.filter(user=user, key=key).first()
    if record is not None and record.created_at < timezone.now() - ttl():
        IdempotencyRecord.objects.filter(pk=record.pk).delete()
        return None
    return record


def _replay(record: IdempotencyRecord, print_: str) -> Response:
    if record.fingerprint != print_:
        raise ApiError(
            status_code=422,
            code="idempotency_key_reused",
            message=_(
                "This Idempotency-Key was already used for a different request. Use a new key "
                "for a new request; send exactly the same request to get its first answer."
            ),
        )
    response = Response(record.body, status=record.status_code)
    for name, value in (record.headers or {}).items():
        response[name] = value
    response["Idempotent-Replayed"] = "true"
    return response


#: When each user's expired records were last purged by this process (monotonic seconds).
_purged_at: dict[Any, float] = {}


def _purge_now_and_then(user: Any) -> None:
    """Purge the user's expired records, unless this process did it lately."""
    every = float(getattr(settings, "API_IDEMPOTENCY_PURGE_EVERY", 300))
    now = time.monotonic()
    last = _purged_at.get(user.pk)
    if last is not None and now - last < every:
        return
    _purged_at[user.pk] = now
    purge_expired(user=user)


def _json(data: Any) -> Any:
    return json.loads(JSONRenderer().render(data) or b"null")


def _store(request: Request, key: str, print_: str, response: Response) -> None:
    IdempotencyRecord.objects.create(
        user=request.user,
        key=key,
        method=request.method,
        path=request.path[:500],
        fingerprint=print_,
        status_code=response.status_code,
        body=_json(response.data),
        headers={h: response[h] for h in REPLAYED_HEADERS if response.has_header(h)},
    )
    # Tidy the user's expired records once the write is committed: outside its transaction (no
    # extra locks held by the write), never undoing it (robust: a failure is only logged).
    transaction.on_commit(functools.partial(_purge_now_and_then, request.user), robust=True)


class _Failed(Exception):
    """Carries the handler's exception (or its 5xx answer) out of the transaction so that
    everything it did is rolled back."""

    def __init__(self, exc: BaseException | None = None, response: Response | None = None):
        super().__init__()
        self.exc = exc
        self.response = response


class _Taken(Exception):
    """Another copy of the request stored its answer first."""


def run_idempotent(
    request: Request,
    key: str,
    handler: Callable[[], Response],
    handle_exception: Callable[[BaseException], Response],
) -> Response:
    """Run a write once per (user, key): run it and store its answer with it, or, when the
    key is stored already, roll it back and replay the stored answer."""
    print_ = fingerprint(request)
    try:
        with transaction.atomic():
            try:
                response = handler()
            except Exception as exc:
                raise _Failed(exc=exc) from exc
            if response.status_code >= 500:
                raise _Failed(response=response)
            try:
                _store(request, key, print_, response)
            except IntegrityError:
                # No savepoint: the transaction is broken, leave it (rolled back) at once.
                raise _Taken from None
            return response
    except _Taken:
        record = _lookup(request.user, key)
        if record is None:  # expired: _lookup deleted it; the write was rolled back, run it again
            return run_idempotent(request, key, handler, handle_exception)
        return _replay(record, print_)
    except _Failed as failed:
        record = _lookup(request.user, key)
        if record is not None:  # a retry: its first attempt's answer is stored
            return _replay(record, print_)
        if failed.response is not None:
            return failed.response
        assert failed.exc is not None
        response = handle_exception(failed.exc)
        if 400 <= response.status_code < 500:
            # The refusal changed nothing; store it so a retry gets the same answer.
            try:
                with transaction.atomic():
                    _store(request, key, print_, response)
            except IntegrityError:
                record = _lookup(request.user, key)
                if record is not None:
                    return _replay(record, print_)
        return response
