"""Asking for documents and building them: one build at a time per document, out-of-date
marking after a correction, failures recorded, progress reported (with the module's played
tournament; what needs a tournament of its own, a re-seating among them, is in
test_own_tournaments.py)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone

from scoring.documents.fingerprint import document_fingerprint
from scoring.documents.models import Document
from scoring.documents.services import (
    WHOLE_SET,
    DocumentError,
    document_build,
    document_is_out_of_date,
    document_request,
    document_request_all,
    document_rows,
)
from tournaments.models import Donne, Result, Tournament
from tournaments.services.results import ResultInput, ResultNeedsConfirmation, result_save

from .pdf import pdf_text

pytestmark = pytest.mark.django_db

Kind = Document.Kind
Status = Document.Status


def ask(tournament: Tournament, user, kind: str = Kind.RANKING, **kw) -> Document:
    return document_request(
        tournament=tournament, kind=kind, language=kw.pop("language", "en"), user=user, **kw
    )


def test_a_request_builds_the_document_once_committed(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        document = ask(played_tournament, personas.arbiter)
        assert document.status == Status.PENDING
    assert len(callbacks) == 1
    document.refresh_from_db()
    assert document.status == Status.DONE
    assert document.progress == 100
    assert document.pages == 1
    assert document.results_version == played_tournament.results_version
    assert document.fingerprint == document_fingerprint(played_tournament, Kind.RANKING, "en")
    assert document.requested_by == personas.arbiter
    with document.file.open("rb") as handle:
        text = pdf_text(handle.read())
    assert "Ranking" in text and "Cartes relevées avant la fin" in text


def test_asking_again_while_it_is_built_returns_the_same_build(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = ask(played_tournament, personas.arbiter)
        second = ask(played_tournament, personas.organiser)
    assert second.pk == first.pk
    assert len(callbacks) == 1  # one build dispatched
    assert Document.objects.filter(tournament=played_tournament).count() == 1
    # Another language or another part is another document.
    with django_capture_on_commit_callbacks(execute=False):
        french = ask(played_tournament, personas.arbiter, language="fr")
        one_set = ask(played_tournament, personas.arbiter, kind=Kind.HAND_RECORDS, part=1)
    assert len({first.pk, french.pk, one_set.pk}) == 3


def test_the_database_refuses_a_second_build_in_progress(played_tournament):
    Document.objects.create(tournament=played_tournament, kind=Kind.RANKING, language="en")
    with pytest.raises(IntegrityError), transaction.atomic():
        Document.objects.create(
            tournament=played_tournament, kind=Kind.RANKING, language="en", status=Status.RUNNING
        )
    # Finished documents are not limited.
    for _ in range(2):
        Document.objects.create(
            tournament=played_tournament, kind=Kind.RANKING, language="en", status=Status.DONE
        )


def test_a_build_whose_worker_died_is_replaced(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    dead = Document.objects.create(
        tournament=played_tournament,
        kind=Kind.RANKING,
        language="en",
        status=Status.RUNNING,
        progress=30,
        heartbeat_at=timezone.now() - timedelta(hours=1),
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        fresh = ask(played_tournament, personas.arbiter)
    assert fresh.pk != dead.pk
    dead.refresh_from_db()
    assert dead.status == Status.FAILED
    assert "worker" in dead.error
    for callback in callbacks:
        callback()
    fresh.refresh_from_db()
    assert fresh.status == Status.DONE
    assert not Document.objects.filter(pk=dead.pk).exists()  # superseded by the new build


def test_a_live_build_is_not_taken_over(played_tournament):
    running = Document.objects.create(
        tournament=played_tournament,
        kind=Kind.RANKING,
        language="en",
        status=Status.RUNNING,
        heartbeat_at=timezone.now(),
    )
    assert document_build(document_id=running.pk) is None
    running.refresh_from_db()
    assert running.status == Status.RUNNING and not running.file


def test_a_worker_whose_clock_runs_ahead_does_not_take_a_live_build_over(
    played_tournament, monkeypatch
):
    """Heartbeats are written and compared with the database's clock: a worker whose own
    clock is ten minutes ahead sees a build that beat just now as alive."""
    running = Document.objects.create(
        tournament=played_tournament,
        kind=Kind.RANKING,
        language="en",
        status=Status.RUNNING,
        heartbeat_at=timezone.now(),
    )
    on_time = timezone.now
    monkeypatch.setattr(timezone, "now", lambda: on_time() + timedelta(minutes=10))
    assert document_build(document_id=running.pk) is None
    running.refresh_from_db()
    assert running.status == Status.RUNNING and not running.file


def test_building_is_idempotent(played_tournament, personas, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        document = ask(played_tournament, personas.arbiter)
    document.refresh_from_db()
    name = document.file.name
    assert document_build(document_id=document.pk) is None  # already built: left alone
    document.refresh_from_db()
    assert document.file.name == name
    assert document_build(document_id=987654) is None  # gone: nothing to do


def test_an_up_to_date_document_is_returned_not_rebuilt(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        built = ask(played_tournament, personas.arbiter)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        again = ask(played_tournament, personas.arbiter)
    assert again.pk == built.pk
    assert callbacks == []


def correct_first_result(tournament: Tournament, user) -> Result:
    """An arbiter's correction of the first result (all passed instead of what was played)."""
    result = Result.objects.filter(tournament=tournament).order_by(
        "donne__number", "table__number"
    )[0]
    status = "played" if result.status == "all_passed" else "all_passed"
    data = ResultInput(status=status)
    if status == "played":
        data = ResultInput(
            status="played", taker="N", contract="prise", bouts=1, points=Decimal(60)
        )
    kwargs = {
        "tournament": tournament,
        "table": result.table,
        "donne": result.donne,
        "data": data,
        "user": user,
        "expected_version": result.version,
        "reason": "Erreur de saisie",
    }
    try:
        return result_save(**kwargs)
    except ResultNeedsConfirmation as exc:
        return result_save(**kwargs, confirmed=list(exc.warnings))


def test_a_correction_marks_result_documents_out_of_date_and_a_request_rebuilds(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        ranking = ask(played_tournament, personas.arbiter)
        hands = ask(played_tournament, personas.arbiter, kind=Kind.HAND_RECORDS)
    ranking.refresh_from_db()
    hands.refresh_from_db()
    old_file = ranking.file.name
    version = played_tournament.results_version

    with django_capture_on_commit_callbacks(execute=True):
        correct_first_result(played_tournament, personas.arbiter)
    played_tournament.refresh_from_db()
    assert played_tournament.results_version == version + 1
    assert document_is_out_of_date(
        ranking, current=document_fingerprint(played_tournament, Kind.RANKING, "en")
    )
    # Hand records do not show results: still good.
    assert not document_is_out_of_date(
        hands, current=document_fingerprint(played_tournament, Kind.HAND_RECORDS, "en")
    )
    rows = document_rows(
        tournament=played_tournament,
        user=personas.arbiter,
        language="en",
        wanted=[(Kind.RANKING, 0), (Kind.HAND_RECORDS, 0)],
    )
    assert [(r.kind, r.out_of_date) for r in rows] == [
        (Kind.RANKING, True),
        (Kind.HAND_RECORDS, False),
    ]

    with django_capture_on_commit_callbacks(execute=True):
        rebuilt = ask(played_tournament, personas.arbiter)
    assert rebuilt.pk != ranking.pk
    rebuilt.refresh_from_db()
    assert rebuilt.status == Status.DONE
    assert rebuilt.results_version == played_tournament.results_version
    assert not document_is_out_of_date(
        rebuilt, current=document_fingerprint(played_tournament, Kind.RANKING, "en")
    )
    # The older file is replaced, not kept beside it.
    assert not Document.objects.filter(pk=ranking.pk).exists()
    assert not rebuilt.file.storage.exists(old_file)


def test_build_everything_asks_for_the_whole_set(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        documents = document_request_all(
            tournament=played_tournament, language="fr", user=personas.organiser
        )
    assert [d.kind for d in documents] == list(WHOLE_SET)
    statuses = set(
        Document.objects.filter(tournament=played_tournament).values_list("status", flat=True)
    )
    assert statuses == {Status.DONE}
    with pytest.raises(PermissionDenied):
        document_request_all(tournament=played_tournament, language="fr", user=personas.stranger)


@pytest.mark.parametrize(
    ("kind", "language", "part", "message"),
    [
        ("poster", "en", 0, "Unknown document poster"),
        (Kind.RANKING, "de", 0, "de is not available"),
        (Kind.HAND_RECORDS, "en", 9, "no étui set 9"),
        (Kind.RANKING, "en", 1, "whole tournament only"),
        (Kind.SCORE_CARDS, "en", 999999, "does not play in this tournament"),
    ],
)
def test_bad_requests_say_what_to_fix_and_change_nothing(
    played_tournament, personas, kind, language, part, message
):
    with pytest.raises(DocumentError, match=message):
        document_request(
            tournament=played_tournament,
            kind=kind,
            language=language,
            user=personas.arbiter,
            part=part,
        )
    assert not Document.objects.exists()


def test_a_failing_build_is_recorded_with_its_error(
    played_tournament, personas, django_capture_on_commit_callbacks
):
    Donne.objects.filter(tournament=played_tournament, number=1).update(hand_n="S:Z")
    with django_capture_on_commit_callbacks(execute=True):
        document = ask(played_tournament, personas.arbiter, kind=Kind.HAND_RECORDS)
    document.refresh_from_db()
    assert document.status == Status.FAILED
    assert "NotationError" in document.error
    assert not document.file
    # The failure does not block the next request.
    Donne.objects.filter(tournament=played_tournament, number=1).update(
        hand_n=Donne.objects.get(tournament=played_tournament, number=2).hand_n
    )
    with django_capture_on_commit_callbacks(execute=False):
        retry = ask(played_tournament, personas.arbiter, kind=Kind.HAND_RECORDS)
    assert retry.pk != document.pk and retry.status == Status.PENDING


def test_progress_is_recorded_while_building(played_tournament, personas, monkeypatch):
    from scoring.documents import services

    seen: list[int] = []
    record = services._progress

    def spy(document_id: int, fraction: float) -> None:
        record(document_id, fraction)
        seen.append(Document.objects.get(pk=document_id).progress)

    monkeypatch.setattr(services, "_progress", spy)
    document = Document.objects.create(
        tournament=played_tournament, kind=Kind.SCORE_CARDS, language="en"
    )
    monkeypatch.setattr("scoring.documents.base.Renderer.report_interval", 0.0)
    document_build(document_id=document.pk)
    assert len(seen) >= 3
    assert seen == sorted(seen) and seen[0] < 50 and seen[-1] >= 90
    document.refresh_from_db()
    assert document.progress == 100
