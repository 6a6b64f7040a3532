"""An outsider can check the donnes from the API and the documentation alone: the tournament
carries its identity next to its commitment, and both recompute with the standard library."""

from __future__ import annotations

import hashlib

import pytest

from tests.tournaments.api.conftest import client_for
from tournaments.services.preparation import tournament_identity

pytestmark = pytest.mark.django_db


def test_the_api_returns_the_identity_bound_by_the_commitment(running_tournament, personas):
    t = running_tournament
    body = client_for(personas.arbiter).get(f"/api/v1/tournaments/{t.pk}/").json()
    assert body["identity"] == tournament_identity(t) == t.identity
    assert body["identity"].startswith("tarot_club/") and body["commitment"] == t.commitment
    # Once the seed is known, the commitment is the SHA-256 of the documented bytes.
    recomputed = hashlib.sha256(
        b"tarot_club/v1\n" + body["identity"].encode("utf-8") + b"\n" + bytes.fromhex(t.seed)
    ).hexdigest()
    assert recomputed == body["commitment"]
