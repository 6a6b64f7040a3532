"""Serving the room: which address phones use, and whether the site faces the network.

`make run` on the machine alone (a loopback HOST) is a developer's or an organiser's preview;
any other HOST serves the players' phones, so the site then runs with DEBUG off. The address
printed and put in every QR code is SITE_URL when set, else the machine's address on the local
network, found without sending anything: connecting a UDP socket only asks the kernel which
interface would route to a private address.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

WILDCARD_HOSTS = {"0.0.0.0", "::", ""}
# Private addresses whose route tells the LAN interface; no packet is sent to them.
_PROBES = ("10.255.255.255", "192.168.255.255", "172.31.255.255")


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost serve this machine only."""
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """The machine's IPv4 address on the local network, or None when it has none."""
    for probe in _PROBES:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))
                address = sock.getsockname()[0]
        except OSError:
            continue
        if address and not ipaddress.ip_address(address).is_loopback and address != "0.0.0.0":
            return address
    return None


def room_url(*, host: str, port: str | int, site_url: str = "") -> str:
    """The address phones open: SITE_URL when set, else the LAN address for a wildcard HOST,
    else HOST itself (127.0.0.1 when the machine has no network)."""
    if site_url:
        return site_url.rstrip("/")
    shown = (lan_address() or "127.0.0.1") if host in WILDCARD_HOSTS else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"  # an IPv6 address in a URL
    return f"http://{shown}:{port}"


def url_host(url: str) -> str:
    """The host name of a URL, as ALLOWED_HOSTS wants it (IPv6 in brackets)."""
    hostname = urlsplit(url).hostname or ""
    return f"[{hostname}]" if ":" in hostname else hostname
