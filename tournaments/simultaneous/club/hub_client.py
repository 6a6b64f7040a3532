"""HTTP to a simultaneous event's hub (stdlib urllib): the event for joining, the uploads.

Every request carries ``Authorization: Bearer <token>``; an upload also carries
``X-Simultaneous-Signature: sha256=<HMAC-SHA256 of the raw body, keyed by the token>``.
Failures are typed: `HubRefused` (the hub answered 4xx: its translated ``detail`` and machine
``code``, not worth retrying as is) and `HubUnavailable` (unreachable, timeout, 5xx, 429 —
the hub's API throttles writes per client address —, not JSON: worth retrying later).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from django.utils.translation import gettext as _

API_PREFIX = "api/v1/simultaneous/"
TIMEOUT_SECONDS = 10.0


class HubError(Exception):
    """The hub could not be used; ``detail`` is a translated sentence for the arbiter."""

    def __init__(self, detail: str, code: str = "", status: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code
        self.status = status


class HubRefused(HubError):
    """The hub answered 4xx: it refuses this request; its reason is in ``detail``/``code``."""


class HubUnavailable(HubError):
    """The hub did not answer usefully (unreachable, timeout, 5xx): try again later."""


def signature(token: str, body: bytes) -> str:
    """The upload's signature header value: ``sha256=<hex HMAC-SHA256(token, body)>``."""
    return "sha256=" + hmac.new(token.encode(), body, hashlib.sha256).hexdigest()


def api_url(hub_url: str, path: str) -> str:
    """The hub API's URL for ``path`` (e.g. "club/event/"), from the hub's base address."""
    base = hub_url.strip()
    if not base.endswith("/"):
        base += "/"
    return urljoin(base, API_PREFIX + path)


RANKING_PATH = "simultanes/{event}/classement/"


def ranking_url(hub_url: str, event: str) -> str:
    """The hub's public page of the event's overall ranking (published after the embargo)."""
    base = hub_url.strip()
    if not base.endswith("/"):
        base += "/"
    return urljoin(base, RANKING_PATH.format(event=quote(event, safe="")))


def check_hub_url(hub_url: str) -> str:
    """The base address stripped, or HubRefused when it is not an http(s) address."""
    parts = urlsplit(hub_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise HubRefused(
            _(
                "The hub's address must start with https:// (or http://), e.g. https://hub.example.org."
            ),
            code="bad_url",
        )
    return hub_url.strip()


def _request(
    hub_url: str, path: str, token: str, *, body: bytes | None = None, timeout: float
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
        headers["X-Simultaneous-Signature"] = signature(token, body)
    request = urllib.request.Request(
        api_url(hub_url, path), data=body, headers=headers, method="POST" if body else "GET"
    )
    where = urlsplit(hub_url).netloc
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            status = response.status
    except urllib.error.HTTPError as err:
        raw, status = err.read(), err.code
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise HubUnavailable(
            _("The hub at %(where)s cannot be reached (%(reason)s).")
            % {"where": where, "reason": reason},
            code="unreachable",
        ) from err
    try:
        data = json.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, ValueError):
        data = None
    if 400 <= status < 500 and status != 429:
        detail = data.get("detail") if isinstance(data, dict) else None
        raise HubRefused(
            str(detail)
            if detail
            else _("The hub refused the request (HTTP %(status)s).") % {"status": status},
            code=str(data.get("code", "")) if isinstance(data, dict) else "",
            status=status,
        )
    if status >= 500 or status == 429 or not isinstance(data, dict):
        raise HubUnavailable(
            _("The hub at %(where)s answered with an error (HTTP %(status)s); trying again later.")
            % {"where": where, "status": status},
            code="hub_error",
            status=status,
        )
    return data


def fetch_event(hub_url: str, token: str, *, timeout: float = TIMEOUT_SECONDS) -> dict[str, Any]:
    """The event as the hub describes it to this club (``GET club/event/``)."""
    return _request(hub_url, "club/event/", token, timeout=timeout)


def upload_body(upload: dict[str, Any]) -> bytes:
    """The exact bytes sent (and signed) for an upload; also the downloadable file."""
    return json.dumps(upload, ensure_ascii=False, sort_keys=True, indent=1).encode("utf-8")


def send_upload(
    hub_url: str, token: str, body: bytes, *, timeout: float = TIMEOUT_SECONDS
) -> dict[str, Any]:
    """POST one upload (``club/uploads/``); returns the hub's answer."""
    return _request(hub_url, "club/uploads/", token, body=body, timeout=timeout)
