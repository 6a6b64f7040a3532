"""The simultaneous tests' hubs listen on the loopback: the sites' allow-setting lets the
club's side reach them (tournaments.simultaneous.club.hub_client); a test of the address
check sets it back to nothing."""

from __future__ import annotations

import pytest

LOOPBACK_HUBS = ["http://127.0.0.1", "http://localhost"]


@pytest.fixture(autouse=True)
def loopback_hubs_allowed(settings):
    settings.SIMULTANEOUS_HUB_ALLOWED_URLS = LOOPBACK_HUBS
