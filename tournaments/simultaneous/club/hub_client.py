"""HTTP to a simultaneous event's hub: the event for joining, the uploads.

Every request carries ``Authorization: Bearer <token>``; an upload also carries
``X-Simultaneous-Signature: sha256=<HMAC-SHA256 of the raw body, keyed by the token>``.
Failures are typed: `HubRefused` (the hub answered 4xx: its translated ``detail`` and machine
``code``, not worth retrying as is) and `HubUnavailable` (unreachable, timeout, 5xx, 429 —
the hub's API throttles writes per client address —, not JSON: worth retrying later).

The hub's address is typed by a user, so the server connects only where a hub may be
(RULES §6.3; issue 30.5): an ``https`` address whose host resolves to public addresses only
(no loopback, private, link-local, shared or reserved range), the connection made to the very
address checked (no second resolution, so no DNS rebinding), no redirect followed, a short
timeout. `settings.SIMULTANEOUS_HUB_ALLOWED_URLS` lists the addresses allowed besides (a hub
in the club's room without internet, the tests' loopback hubs): ``http://hub.local`` or
``https://10.0.0.5:8443``; an entry without a port allows every port of its host. What the
server met (refused connection, the answer of whatever listens there) is logged, never
shown: the user reads that the hub could not be reached.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

logger = logging.getLogger(__name__)

API_PREFIX = "api/v1/simultaneous/"
TIMEOUT_SECONDS = 5.0
MAX_ANSWER_BYTES = 4 * 1024 * 1024
MAX_DETAIL_CHARS = 600
MAX_URL_CHARS = 300  # SimultaneousLink.hub_url
# The refusal codes a hub answers (docs/API.md, "Refusals"): only an answer carrying one of
# them is a hub's refusal whose sentence the club reads; anything else is "not a hub".
HUB_CODES = frozenset(
    {
        "invalid",
        "invalid_characters",
        "too_large",
        "too_deep",
        "not_invited",
        "bad_signature",
        "closed",
        "licence_elsewhere",
        "commitment_mismatch",
        "throttled",
    }
)


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


# --- where the server may connect -------------------------------------------------------------


def _bad_url() -> HubRefused:
    return HubRefused(
        _("The hub's address must start with https://, e.g. https://hub.example.org."),
        code="bad_url",
    )


def _forbidden() -> HubRefused:
    return HubRefused(
        _(
            "This address is not one a hub can have (a local or private network address): "
            "type the hub's public https:// address."
        ),
        code="forbidden_address",
    )


@dataclass(frozen=True)
class Target:
    """A hub's address as the server will connect to it: ``allowed`` when the site's settings
    list it (any scheme among http/https, any address class)."""

    scheme: str
    host: str
    port: int
    allowed: bool
    where: str  # host[:port] as typed, for the messages


def _allowed_entries() -> list[tuple[str, str, int | None]]:
    entries = []
    for raw in getattr(settings, "SIMULTANEOUS_HUB_ALLOWED_URLS", None) or []:
        parts = urlsplit(str(raw).strip())
        try:
            port = parts.port
        except ValueError:
            continue
        if parts.scheme in ("http", "https") and parts.hostname:
            entries.append((parts.scheme, parts.hostname.lower(), port))
    return entries


def hub_target(hub_url: str) -> Target:
    """Where ``hub_url`` points, or HubRefused (``bad_url``) when it is not an https address
    the server may use: http only for an address the settings allow; no user name or
    password in it."""
    if len(hub_url.strip()) > MAX_URL_CHARS:
        raise _bad_url()
    try:
        parts = urlsplit(hub_url.strip())
        port = parts.port
    except ValueError:
        raise _bad_url() from None
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host or parts.username or parts.password:
        raise _bad_url()
    allowed = any(
        scheme == parts.scheme and name == host and (entry_port is None or entry_port == port)
        for scheme, name, entry_port in _allowed_entries()
    )
    if parts.scheme != "https" and not allowed:
        raise _bad_url()
    default = 443 if parts.scheme == "https" else 80
    return Target(parts.scheme, host, port or default, allowed, parts.netloc)


def is_public_address(address: str) -> bool:
    """Whether the server may connect to this IP address: a global unicast address, neither
    loopback, private, link-local, shared (100.64/10), reserved, multicast nor unspecified
    (an IPv4-mapped IPv6 address is judged as the IPv4 one it holds)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return bool(
        ip.is_global
        and not ip.is_multicast
        and not ip.is_loopback
        and not ip.is_private
        and not ip.is_link_local
        and not ip.is_reserved
        and not ip.is_unspecified
    )


def resolve(target: Target) -> str:
    """The address to connect to: the host resolved once; refused (``forbidden_address``)
    when any address it resolves to is not public, unless the settings allow the host."""
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as err:
        logger.info("hub %s: no address (%s)", target.host, err)
        raise _unreachable(target.where) from err
    addresses = [str(info[4][0]) for info in infos]
    if not addresses:
        raise _unreachable(target.where)
    if not target.allowed and not all(is_public_address(a) for a in addresses):
        logger.warning("hub %s refused: resolves to %s", target.host, ", ".join(addresses))
        raise _forbidden()
    return addresses[0]


def check_hub_url(hub_url: str) -> str:
    """The base address stripped, or HubRefused when the server may not connect to it (see
    `hub_target`; the address's resolution is checked when connecting)."""
    hub_target(hub_url)
    return hub_url.strip()


def _unreachable(where: str) -> HubUnavailable:
    return HubUnavailable(
        _("The hub at %(where)s could not be reached.") % {"where": where}, code="unreachable"
    )


class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to the address already checked (the Host header keeps the name)."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """HTTPS to the address already checked; the certificate is checked against the name."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def _exchange(
    target: Target, url: str, headers: dict[str, str], body: bytes | None, timeout: float
) -> tuple[int, bytes]:
    """One request to the checked address; (status, answer), no redirect followed."""
    address = resolve(target)
    kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    connection = kind(target.host, target.port, address, timeout)
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST" if body else "GET", path or "/", body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read(MAX_ANSWER_BYTES + 1)
        return response.status, raw
    except (OSError, http.client.HTTPException) as err:
        logger.info("hub %s unreachable: %r", target.where, err)
        raise _unreachable(target.where) from err
    finally:
        connection.close()


def _refusal(data: Any, status: int) -> HubRefused:
    """A 4xx: the hub's own sentence when the answer is a hub's refusal, else a plain one."""
    if isinstance(data, dict) and str(data.get("code", "")) in HUB_CODES and data.get("detail"):
        detail = "".join(c for c in str(data["detail"]) if c.isprintable())[:MAX_DETAIL_CHARS]
        return HubRefused(detail, code=str(data["code"]), status=status)
    if status in (401, 403):
        return HubRefused(_("The hub refused the token."), code="not_invited", status=status)
    return HubRefused(
        _("The address does not answer as a simultaneous-event hub: check it."),
        code="not_a_hub",
        status=status,
    )


def _request(
    hub_url: str, path: str, token: str, *, body: bytes | None = None, timeout: float
) -> dict[str, Any]:
    target = hub_target(hub_url)
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if body is not None:
        headers["Content-Type"] = "application/json"
        headers["X-Simultaneous-Signature"] = signature(token, body)
    status, raw = _exchange(target, api_url(hub_url, path), headers, body, timeout)
    try:
        data = json.loads(raw.decode("utf-8")) if raw and len(raw) <= MAX_ANSWER_BYTES else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if 300 <= status < 400:
        logger.info("hub %s answered a redirect (HTTP %s)", target.host, status)
        raise HubRefused(
            _(
                "The address answers with a redirect, which is not followed: type the hub's "
                "exact address."
            ),
            code="redirect",
            status=status,
        )
    if 400 <= status < 500 and status != 429:
        raise _refusal(data, status)
    if status >= 500 or status == 429 or not isinstance(data, dict):
        logger.info("hub %s answered HTTP %s", target.host, status)
        raise HubUnavailable(
            _("The hub at %(where)s did not answer usefully; trying again later.")
            % {"where": target.where},
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
