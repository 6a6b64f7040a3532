"""Where a club's site connects when a user types a hub's address (issue 30.5): https to a
public address only, or an address the site's settings allow; the address checked is the one
connected to; no redirect followed; nothing of what the server met is echoed.

Traffic goes to the loopback only: the private and link-local ranges are judged by the
address check itself, and a name that resolves to them is refused before any connection."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.test import Client
from django.utils import translation

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Club, Tournament
from tournaments.simultaneous.club import hub_client, services
from tournaments.simultaneous.club.models import SimultaneousLink

SECRET_BANNER = "PostgreSQL-internal-banner-4242"


class _Listener(BaseHTTPRequestHandler):
    """Whatever listens on a port of the machine: records each request it receives and
    answers with ``answer`` (status, headers, body)."""

    seen: list[str] = []
    answer: tuple[int, dict[str, str], bytes] = (200, {}, b"")

    def _reply(self) -> None:
        _Listener.seen.append(self.path)
        status, headers, body = _Listener.answer
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _reply

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def listener():
    server = HTTPServer(("127.0.0.1", 0), _Listener)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Listener.seen.clear()
    _Listener.answer = (200, {"Content-Type": "text/plain"}, SECRET_BANNER.encode())
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def nothing_allowed(settings):
    settings.SIMULTANEOUS_HUB_ALLOWED_URLS = []


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "::1",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.20",
        "169.254.169.254",
        "fe80::1",
        "fc00::5",
        "100.64.0.1",
        "0.0.0.0",
        "::",
        "224.0.0.1",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "240.0.0.1",
        "not an address",
    ],
)
def test_loopback_private_link_local_and_reserved_addresses_are_not_a_hubs(address):
    assert not hub_client.is_public_address(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1::1", "1.1.1.1"])
def test_public_addresses_may_be_a_hubs(address):
    assert hub_client.is_public_address(address)


@pytest.mark.parametrize(
    "url",
    [
        "http://hub.example.org/",  # http: only where the settings allow it
        "ftp://hub.example.org/",
        "https://user:pw@hub.example.org/",
        "https:///nohost",
        "https://hub.example.org:99999/",
        "file:///etc/passwd",
        "https://[::1",
        "https://" + "a" * 300 + ".org/",
    ],
)
def test_only_https_addresses_are_taken(url, nothing_allowed):
    with pytest.raises(hub_client.HubRefused) as refused:
        hub_client.check_hub_url(url)
    assert refused.value.code == "bad_url"


@pytest.mark.django_db
def test_a_loopback_address_is_refused_without_a_connection(listener, nothing_allowed, personas):
    tournament = stage_tournament(players=8, rounds=2, status="registration")
    for url in (
        f"http://127.0.0.1:{listener}/",
        f"https://127.0.0.1:{listener}/",
        f"https://localhost:{listener}/",
        f"https://[::ffff:127.0.0.1]:{listener}/",
    ):
        with translation.override("en"), pytest.raises(services.JoinError) as refused:
            services.join(hub_url=url, token="t", user=personas.organiser, tournament=tournament)
        assert SECRET_BANNER not in str(refused.value)
    assert _Listener.seen == []  # nothing was sent to the port
    assert not SimultaneousLink.objects.exists()


def test_a_name_resolving_to_a_private_address_is_refused_before_connecting(
    monkeypatch, nothing_allowed
):
    """The names are resolved by the test (no DNS, no traffic): one resolving to a private or
    link-local address is refused; nothing is connected to."""
    connected: list[tuple] = []

    def fake_resolution(host, port, *args, **kwargs):
        address = {"internal.example.org": "10.0.0.7", "meta.example.org": "169.254.169.254"}
        family = socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address[host], port))]

    monkeypatch.setattr(socket, "getaddrinfo", fake_resolution)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: connected.append(a))
    for host in ("internal.example.org", "meta.example.org"):
        with pytest.raises(hub_client.HubRefused) as refused:
            hub_client.fetch_event(f"https://{host}/", "t")
        assert refused.value.code == "forbidden_address"
    assert connected == []


def test_the_connection_goes_to_the_address_checked(monkeypatch, nothing_allowed):
    """DNS rebinding: the name is resolved once; a second answer (now the loopback) is never
    used, the socket opens to the public address that was checked."""
    answers = iter(["93.184.216.34", "127.0.0.1", "127.0.0.1"])
    connected: list[tuple] = []

    def fake_resolution(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (next(answers), port))]

    def no_traffic(address, *args, **kwargs):
        connected.append(address)
        raise ConnectionRefusedError("stopped by the test")

    monkeypatch.setattr(socket, "getaddrinfo", fake_resolution)
    monkeypatch.setattr(socket, "create_connection", no_traffic)
    with pytest.raises(hub_client.HubUnavailable):
        hub_client.fetch_event("https://rebind.example.org/", "t")
    assert connected == [("93.184.216.34", 443)]


@pytest.mark.django_db
def test_the_join_page_does_not_echo_what_it_met(listener, nothing_allowed, personas):
    club = Club.objects.create(name="Club", federation_number="0420")
    club.organisers.add(personas.organiser)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(personas.organiser)
    for port in (listener, 9):  # something listening, and nothing listening
        page = client.post(
            "/simultaneous/join/",
            {"club": str(club.pk), "hub_url": f"http://127.0.0.1:{port}/", "token": "t"},
        )
        text = page.content.decode()
        assert page.status_code == 400
        for echoed in (SECRET_BANNER, "refused", "HTTP 200", "Remote end", "Errno"):
            assert echoed not in text
        assert "https://" in text  # what to type instead
    assert _Listener.seen == [] and not Tournament.objects.exists()


def test_an_allowed_address_is_reached_but_what_it_answers_is_not_echoed(listener):
    """The tests' loopback is allowed (tests/tournaments/simultaneous/conftest.py): a server that is not a
    hub is told apart without its answer being repeated."""
    answers = [
        (200, {"Content-Type": "text/plain"}, SECRET_BANNER.encode()),
        (404, {"Content-Type": "text/html"}, f"<h1>{SECRET_BANNER}</h1>".encode()),
        (400, {"Content-Type": "application/json"}, json.dumps({"detail": SECRET_BANNER}).encode()),
        (500, {"Content-Type": "text/plain"}, SECRET_BANNER.encode()),
    ]
    for answer in answers:
        _Listener.answer = answer
        with translation.override("en"), pytest.raises(hub_client.HubError) as failed:
            hub_client.fetch_event(f"http://127.0.0.1:{listener}/", "t")
        assert SECRET_BANNER not in failed.value.detail
        assert str(answer[0]) not in failed.value.detail
    assert len(_Listener.seen) == len(answers)


def test_a_redirect_is_not_followed(listener):
    target = HTTPServer(("127.0.0.1", 0), _Listener)
    threading.Thread(target=target.serve_forever, daemon=True).start()
    try:
        location = f"http://127.0.0.1:{target.server_port}/elsewhere/"
        _Listener.answer = (302, {"Location": location}, b"")
        with pytest.raises(hub_client.HubRefused) as refused:
            hub_client.fetch_event(f"http://127.0.0.1:{listener}/", "t")
        assert refused.value.code == "redirect"
        assert not any(path.startswith("/elsewhere") for path in _Listener.seen)
        assert len(_Listener.seen) == 1
    finally:
        target.shutdown()
        target.server_close()


def test_an_allowed_entry_without_a_port_allows_every_port_of_its_host_only(settings):
    settings.SIMULTANEOUS_HUB_ALLOWED_URLS = ["http://hub.local", "https://10.0.0.5:8443"]
    assert hub_client.hub_target("http://hub.local:8000/").allowed
    assert hub_client.hub_target("https://10.0.0.5:8443/").allowed
    assert not hub_client.hub_target("https://10.0.0.5:9443/").allowed
    assert not hub_client.hub_target("https://hub.local/").allowed  # not the scheme allowed
    with pytest.raises(hub_client.HubRefused):
        hub_client.hub_target("http://other.local/")
