"""`make run` with a HOST beyond this machine: DEBUG off, the room's address printed and
used as SITE_URL, phones answered at that address."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tarot_club.room import is_loopback, lan_address, room_url, url_host
from tests.fixtures.services import database_url_for_current_test_db

ROOT = Path(__file__).resolve().parents[3]


def test_loopback_hosts():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("[::1]")
    assert is_loopback("127.0.1.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.20")


def test_room_url_prefers_site_url_then_the_lan_address():
    assert room_url(host="0.0.0.0", port=8000, site_url="http://tarot.local/") == (
        "http://tarot.local"
    )
    lan = lan_address()
    expected = f"http://{lan}:8000" if lan else "http://127.0.0.1:8000"
    assert room_url(host="0.0.0.0", port=8000) == expected
    assert room_url(host="192.168.1.20", port=8100) == "http://192.168.1.20:8100"
    assert room_url(host="::1", port=80) == "http://[::1]:80"
    assert url_host("http://[fe80::1]:8000") == "[fe80::1]"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, host: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@pytest.mark.django_db(transaction=True)
def test_serving_the_room_turns_debug_off_and_prints_the_phones_address(tmp_path):
    port = _free_port()
    env = {
        **os.environ,
        "HOST": "0.0.0.0",
        "PORT": str(port),
        "DEBUG": "1",
        "REDIS_URL": "",
        "SITE_URL": "",
        "SECRET_KEY": "",
        "SECRET_KEY_FILE": str(tmp_path / "absent"),
        "DATABASE_URL": database_url_for_current_test_db(),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    log = tmp_path / "serve.log"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve"],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        address = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            text = log.read_text()
            if address is None and "phones in the room open " in text:
                address = text.split("phones in the room open ")[1].split()[0].rstrip("/")
            if address:
                try:
                    status, _ = _get(f"http://127.0.0.1:{port}/healthz")
                    if status in (200, 503):
                        break
                except OSError:
                    pass
            time.sleep(0.3)
        else:
            raise AssertionError(log.read_text())
        text = log.read_text()
        assert "DEBUG=1 is ignored" in text
        assert address == room_url(host="0.0.0.0", port=port)
        # A phone asks for the room's address (its Host): answered, with the styled 404.
        status, page = _get(f"http://127.0.0.1:{port}/nulle-part/", host=url_host(address))
        assert status == 404
        assert "Page introuvable" in page
        assert "URLconf" not in page
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
