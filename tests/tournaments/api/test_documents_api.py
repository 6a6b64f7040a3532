"""Documents through the API: ask, follow the build, download; never built twice; marked out
of date after a correction."""

from __future__ import annotations

import pytest

from scoring.documents.models import Document
from tests.tournaments.api.conftest import client_for
from tournaments.models import Table
from tournaments.services.results import ResultInput, result_save

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path) -> None:
    settings.MEDIA_ROOT = str(tmp_path)


def test_ask_follow_and_download(
    running_tournament, personas, django_capture_on_commit_callbacks
) -> None:
    t = running_tournament
    arbiter = client_for(personas.arbiter)
    root = f"/api/v1/tournaments/{t.pk}/documents/"
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = arbiter.post(root, {"kind": "route_cards", "language": "en"}, format="json")
        assert first.status_code == 202
        assert first.json()["status"] == "pending" and first.json()["download"] is None
        again = arbiter.post(root, {"kind": "route_cards", "language": "en"}, format="json")
        assert again.status_code == 202 and again.json()["id"] == first.json()["id"]
    assert Document.objects.count() == 1
    for callback in callbacks:  # the commit: the build runs (in-process without a broker)
        callback()
    doc_url = f"{root}{first.json()['id']}/"
    done = arbiter.get(doc_url).json()
    assert done["status"] == "done" and done["progress"] == 100 and done["pages"] >= 1
    assert done["download"] == f"{doc_url}download/"
    pdf = arbiter.get(done["download"])
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert b"".join(pdf.streaming_content).startswith(b"%PDF")
    # asked again while up to date: the finished one, at once
    same = arbiter.post(root, {"kind": "route_cards", "language": "en"}, format="json")
    assert same.status_code == 200 and same.json()["id"] == first.json()["id"]
    listed = arbiter.get(root).json()
    assert [d["id"] for d in listed["results"]] == [first.json()["id"]]
    # the player sees no organiser's document
    player = client_for(personas.player_user)
    assert player.get(root).json()["count"] == 0
    assert player.get(doc_url).status_code == 403


def test_results_documents_go_out_of_date(
    running_tournament, personas, django_capture_on_commit_callbacks
) -> None:
    t = running_tournament
    arbiter = client_for(personas.arbiter)
    root = f"/api/v1/tournaments/{t.pk}/documents/"
    with django_capture_on_commit_callbacks(execute=True):
        made = arbiter.post(root, {"kind": "ranking", "language": "fr"}, format="json")
    doc_url = f"{root}{made.json()['id']}/"
    assert arbiter.get(doc_url).json()["out_of_date"] is False
    result_save(
        tournament=t,
        table=Table.objects.get(tournament=t, number=1),
        donne=t.donnes.get(number=1),
        data=ResultInput(status="all_passed"),
        user=personas.arbiter,
        expected_version=None,
    )
    assert arbiter.get(doc_url).json()["out_of_date"] is True
    with django_capture_on_commit_callbacks(execute=True):
        rebuilt = arbiter.post(root, {"kind": "ranking", "language": "fr"}, format="json")
    assert rebuilt.json()["id"] != made.json()["id"]


def test_bad_requests(running_tournament, personas) -> None:
    t = running_tournament
    arbiter = client_for(personas.arbiter)
    root = f"/api/v1/tournaments/{t.pk}/documents/"
    unknown = arbiter.post(root, {"kind": "menu"}, format="json")
    assert unknown.status_code == 400 and "kind" in unknown.json()["details"]
    no_set = arbiter.post(root, {"kind": "hand_records", "part": 99}, format="json")
    assert no_set.status_code == 400 and no_set.json()["code"] == "refused"
    assert not Document.objects.exists()
    missing = arbiter.get(f"{root}999/download/")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"
