"""A site form that writes is acted on once: a double click or a resend changes nothing twice.

Every such form carries a one-time token (``{% once_field %}``, a hidden ``_once`` input, fresh
at each rendering). The view, wrapped in ``once_per_form``, claims the token before running:
the claim is an ``IdempotencyRecord`` (the storage of the API's ``Idempotency-Key``, keyed
``form:<token>`` per user), whose unique (user, key) constraint lets only one copy run. A
second copy of the same form waits for the first to finish, then gets the first's outcome:
the same redirect with the same messages (or the same page), plus a note that the form had
already been sent. A first copy that was refused (4xx: nothing written) releases its token,
so the same form sent again is judged again. A form without a token works as before.
"""

from __future__ import annotations

import functools
import hashlib
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _

from tarot_club.models import IdempotencyRecord

__all__ = ["FIELD", "once_per_form", "once_token"]

FIELD = "_once"
PENDING = 0  # status_code of a claim whose outcome is not known yet
WAIT_SECONDS = 30.0  # how long a second copy waits for the first one's outcome
_TOKEN = re.compile(r"^[0-9a-f]{32}$")
_IGNORED = frozenset({FIELD, "csrfmiddlewaretoken"})

View = Callable[..., HttpResponse]


def once_token() -> str:
    """A fresh token for one rendering of one form."""
    return uuid.uuid4().hex


def _fingerprint(request: HttpRequest) -> str:
    digest = hashlib.sha256(request.path.encode())
    for name in sorted(set(request.POST) - _IGNORED):
        for value in request.POST.getlist(name):
            digest.update(b"\0" + name.encode() + b"=" + value.encode())
    for name in sorted(request.FILES):
        for upload in request.FILES.getlist(name):
            digest.update(b"\0" + name.encode() + b":" + str(upload.name).encode())
            for chunk in upload.chunks():
                digest.update(chunk)
            upload.seek(0)
    return digest.hexdigest()


def _queued_messages(request: HttpRequest) -> list[list[Any]]:
    storage = messages.get_messages(request)
    queued = getattr(storage, "_queued_messages", [])
    return [[m.level, str(m.message), m.extra_tags or ""] for m in queued]


def _outcome(request: HttpRequest, response: HttpResponse) -> dict[str, Any]:
    body: dict[str, Any] = {"messages": _queued_messages(request)}
    if not isinstance(response, HttpResponseRedirect) and not getattr(response, "streaming", 0):
        body["content"] = response.content.decode(response.charset or "utf-8", "replace")
        body["content_type"] = response.get("Content-Type", "text/html")
    headers = {h: response[h] for h in ("Location", "HX-Trigger") if response.has_header(h)}
    return {"status_code": response.status_code, "body": body, "headers": headers}


def _replay(request: HttpRequest, record: IdempotencyRecord) -> HttpResponse:
    body = record.body or {}
    for level, text, tags in body.get("messages", []):
        messages.add_message(request, level, text, extra_tags=tags)
    messages.info(
        request, _("This form had already been sent: it was acted on once, as shown here.")
    )
    if "content" in body:
        response = HttpResponse(
            body["content"], status=record.status_code, content_type=body.get("content_type")
        )
    else:
        response = HttpResponse(status=record.status_code)
    for name, value in (record.headers or {}).items():
        response[name] = value
    response["X-Form-Replayed"] = "true"
    return response


def _back(request: HttpRequest) -> str:
    back = request.META.get("HTTP_REFERER") or "/"
    if not url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        back = "/"
    return back


def _wait(request: HttpRequest, key: str) -> IdempotencyRecord | None:
    """The first copy's finished record; None when it released the token (it was refused)."""
    deadline = time.monotonic() + WAIT_SECONDS
    delay = 0.05
    while True:
        record = IdempotencyRecord.objects.filter(user=request.user, key=key).first()
        if record is None or record.status_code != PENDING:
            return record
        if time.monotonic() > deadline:
            return record
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def once_per_form(view: View) -> View:
    """Run a writing view once per form token (see the module's docstring)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        token = (request.POST.get(FIELD) or "") if request.method == "POST" else ""
        if not _TOKEN.match(token) or not request.user.is_authenticated:
            return view(request, *args, **kwargs)
        key = f"form:{token}"
        print_ = _fingerprint(request)
        for _attempt in range(3):
            try:
                with transaction.atomic():
                    claim = IdempotencyRecord.objects.create(
                        user=request.user,
                        key=key,
                        method="POST",
                        path=request.path[:500],
                        fingerprint=print_,
                        status_code=PENDING,
                    )
            except IntegrityError:
                record = _wait(request, key)
                if record is None:
                    continue  # the first copy was refused and changed nothing: judge this one
                if record.fingerprint != print_:
                    # Same form, other content (sent back and edited): a new request, judged
                    # on its own without a token.
                    return view(request, *args, **kwargs)
                if record.status_code == PENDING:
                    messages.warning(
                        request,
                        _(
                            "This form was already sent and is still being processed. Reload "
                            "the page in a moment to see its outcome."
                        ),
                    )
                    return HttpResponseRedirect(_back(request))
                return _replay(request, record)
            break
        else:
            return view(request, *args, **kwargs)
        try:
            response = view(request, *args, **kwargs)
        except BaseException:
            IdempotencyRecord.objects.filter(pk=claim.pk).delete()
            raise
        if response.status_code >= 400 or getattr(response, "streaming", False):
            IdempotencyRecord.objects.filter(pk=claim.pk).delete()
            return response
        outcome = _outcome(request, response)
        IdempotencyRecord.objects.filter(pk=claim.pk).update(**outcome)
        return response

    return wrapped
