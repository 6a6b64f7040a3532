"""What the hub refuses from a valid token reaches the organiser's upload log (issue 30.10):
a bad signature, a NUL character in a name, a body too large or too deep; every refusal
carries `detail` and a code that docs/API.md lists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.tournaments.api.conftest import client_for
from tournaments.simultaneous.hub.models import UploadLog

from .builders import played
from .test_api import BASE, club_upload, event_id, invite, organiser, send  # noqa: F401

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[4]
A = ["1000001", "1000002", "1000003", "1000004"]


def documented_codes() -> set[str]:
    """The codes of the hub's "Refusals" table in docs/API.md."""
    text = (ROOT / "docs" / "API.md").read_text()
    table = text.split("### Refusals", 1)[1].split("###", 1)[0]
    return set(re.findall(r"^\| \d{3} \| `([a-z_]+)`", table, flags=re.M))


@pytest.mark.parametrize("case", ["signature", "nul", "nul_raw", "too_large", "too_deep"])
def test_a_refusal_of_a_valid_token_is_in_the_organisers_log(
    organiser,  # noqa: F811
    event_id,  # noqa: F811
    settings,
    case,
):
    invitation, token = invite(organiser, event_id, "Club A")
    data = club_upload(token, A, [played(1, 1, A)])
    body = json.dumps(data).encode()
    signature = None
    if case == "signature":
        signature = "sha256=" + "0" * 64
    elif case == "nul":
        data["players"][0]["last_name"] = "Mar\u0000tin"
        body = json.dumps(data).encode()
    elif case == "nul_raw":
        body = body.replace(b'"Anne"', b'"An\x00ne"', 1)
    elif case == "too_large":
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE = len(body) - 1
    elif case == "too_deep":
        body = body[:-1] + b', "x": ' + b"[" * 40 + b"]" * 40 + b"}"
    response = send(token, body, signature=signature)
    answer = response.json()
    expected = {
        "signature": (401, "bad_signature"),
        "nul": (400, "invalid_characters"),
        "nul_raw": (400, "invalid_characters"),
        "too_large": (413, "too_large"),
        "too_deep": (400, "too_deep"),
    }[case]
    assert (response.status_code, answer["code"]) == expected, answer
    assert answer["detail"] == answer["message"] and answer["detail"]
    assert answer["code"] in documented_codes()
    log = UploadLog.objects.get()
    assert (log.invitation.public_id, log.event.public_id, log.code) == (
        invitation,
        event_id,
        expected[1],
    )
    listed = client_for(organiser).get(f"{BASE}events/{event_id}/uploads/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [(r["invitation"], r["code"]) for r in rows] == [(invitation, expected[1])]


def test_an_unknown_token_is_not_invited_whatever_the_body(organiser, event_id, settings):  # noqa: F811
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    response = send("not-a-token", b'{"a": "\\u0000"}', signature="sha256=00")
    answer = response.json()
    assert (response.status_code, answer["code"]) == (401, "not_invited") and answer["detail"]
    assert UploadLog.objects.get().event is None


def test_every_code_the_hub_answers_is_documented():
    from tournaments.simultaneous.hub import services

    assert set(services.BODY_CODES) <= documented_codes()
    source = (ROOT / "tournaments/simultaneous/hub/services.py").read_text()
    raised = set(re.findall(r'UploadRefused\(\s*"([a-z_]+)"', source))
    assert raised and raised <= documented_codes()
