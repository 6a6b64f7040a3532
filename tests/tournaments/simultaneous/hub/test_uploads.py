"""Applying a club's upload: every refusal, idempotence, corrections, removals, the log."""

from __future__ import annotations

import json

import pytest

from scoring.rules import dealing
from tournaments.simultaneous.hub import services
from tournaments.simultaneous.hub.models import (
    FieldPenalty,
    FieldPlayer,
    FieldResult,
    SimultaneousEvent,
    UploadLog,
)
from tournaments.simultaneous.hub.services import UploadRefused

from .builders import annulled, played

pytestmark = pytest.mark.django_db

A = ["1000001", "1000002", "1000003", "1000004"]
B = ["2000001", "2000002", "2000003", "2000004"]


def results_a(version: int = 1) -> list[dict]:
    return [played(1, 1, A, version=version), played(1, 2, A, taker="E", points="40")]


def refused(call) -> UploadRefused:
    with pytest.raises(UploadRefused) as caught:
        call()
    return caught.value


def test_the_event_is_dealt_like_a_tournament(hub):
    event = hub.event
    assert event.identity == f"simultaneous:{event.public_id}"
    assert event.commitment == dealing.commitment(event.seed, event.identity)
    donnes = hub.donnes()
    assert len(donnes) == 12 and donnes[0]["dealer"] == "N"
    assert hub.organiser in event.organisers.all()
    # the token is kept as its hash only
    invitation, token = hub.clubs[0]
    assert token not in invitation.token_sha256 and len(invitation.token_sha256) == 64
    assert services.invitation_for_token(token) == invitation


def test_an_upload_is_applied_and_logged(hub):
    penalties = [{"ref": "1", "licence": A[0], "points": 10, "donne": 1, "withdrawn": False}]
    outcome = hub.send(0, hub.upload(0, results_a(), A, penalties=penalties))
    assert outcome.results == {"new": 2, "replaced": 0, "unchanged": 0, "removed": 0}
    assert outcome.penalties["new"] == 1 and not outcome.stale
    assert FieldResult.objects.count() == 2 and FieldPlayer.objects.count() == 4
    assert FieldPenalty.objects.get().points == 10
    log = UploadLog.objects.get()
    assert log.outcome == "applied" and log.results_new == 2 and log.invitation == hub.clubs[0][0]
    assert SimultaneousEvent.objects.get().results_version == 1


def test_the_same_upload_twice_doubles_nothing(hub):
    data = hub.upload(0, results_a(), A)
    hub.send(0, data)
    again = hub.send(0, data)
    assert again.results == {"new": 0, "replaced": 0, "unchanged": 2, "removed": 0}
    assert FieldResult.objects.count() == 2 and FieldPlayer.objects.count() == 4
    assert SimultaneousEvent.objects.get().results_version == 1  # nothing changed
    assert UploadLog.objects.filter(outcome="applied").count() == 2


def test_a_correction_replaces_and_a_missing_result_is_removed(hub):
    hub.send(0, hub.upload(0, results_a(), A, sequence=1))
    corrected = [played(1, 1, A, version=2, points="60")]  # donne 2 dropped
    outcome = hub.send(0, hub.upload(0, corrected, A, sequence=2))
    assert outcome.results == {"new": 0, "replaced": 1, "unchanged": 0, "removed": 1}
    row = FieldResult.objects.get()
    assert (row.donne, row.version, str(row.points)) == (1, 2, "60.0")
    # an older version of a result in a newer upload is ignored
    outcome = hub.send(0, hub.upload(0, [played(1, 1, A, version=1)], A, sequence=3))
    assert outcome.results["unchanged"] == 1 and FieldResult.objects.get().version == 2


def test_a_stale_sequence_changes_nothing(hub):
    hub.send(0, hub.upload(0, results_a(version=2), A, sequence=5))
    outcome = hub.send(0, hub.upload(0, [played(1, 1, A, version=3)], A, sequence=4))
    assert outcome.stale and outcome.results["unchanged"] == 1
    assert outcome.as_json()["stale"] is True
    assert FieldResult.objects.count() == 2 and set(
        FieldResult.objects.values_list("version", flat=True)
    ) == {2, 1}
    assert UploadLog.objects.filter(outcome="stale").count() == 1


def test_tampered_hands_are_refused_naming_the_donne(hub):
    data = hub.upload(0, results_a(), A)
    hands = data["donnes"][1]["hands"]
    hands["N"], hands["E"] = hands["E"], hands["N"]
    error = refused(lambda: hub.send(0, data))
    assert (error.code, error.status, error.extra["donnes"]) == ("commitment_mismatch", 422, [2])
    assert "2" in error.message
    assert FieldResult.objects.count() == 0
    log = UploadLog.objects.get()
    assert log.outcome == "refused" and log.code == "commitment_mismatch" and log.reason


def test_a_wrong_commitment_is_refused(hub):
    data = hub.upload(0, results_a(), A)
    data["commitment"] = "0" * 64
    assert refused(lambda: hub.send(0, data)).code == "commitment_mismatch"


def test_a_licence_playing_in_another_club_is_refused(hub):
    hub.send(0, hub.upload(0, results_a(), A))
    b = [A[0], *B[1:]]
    error = refused(lambda: hub.send(1, hub.upload(1, [played(1, 1, b)], b)))
    assert (error.code, error.status) == ("licence_elsewhere", 409)
    assert error.extra["licences"] == [A[0]] and "Club A" not in error.message
    assert A[0] in error.message
    assert FieldResult.objects.count() == 2


def test_an_upload_after_closing_is_refused(hub):
    services.event_close(event=hub.event, user=hub.organiser)
    error = refused(lambda: hub.send(0, hub.upload(0, results_a(), A)))
    assert (error.code, error.status) == ("closed", 409)
    assert hub.event.embargo_over


def test_an_unknown_or_revoked_token_is_not_invited(hub):
    data = hub.upload(0, results_a(), A)
    assert refused(lambda: hub.send(0, data, token="nope")).status == 401
    services.invitation_revoke(invitation=hub.clubs[0][0])
    error = refused(lambda: hub.send(0, data))
    assert (error.code, error.status) == ("not_invited", 403)
    # another club's token for this club's upload
    error = refused(lambda: hub.send(1, data))
    assert (error.code, error.status) == ("not_invited", 403)


def test_a_bad_or_missing_signature_is_refused(hub):
    _invitation, token = hub.clubs[0]
    body = json.dumps(hub.upload(0, results_a(), A)).encode()
    for signature in (None, "sha256=00", services.signature_of("other", body)):
        error = refused(
            lambda s=signature: services.upload_receive(body=body, token=token, signature=s)
        )
        assert (error.code, error.status) == ("bad_signature", 401)
    assert UploadLog.objects.filter(code="bad_signature").count() == 3


def test_an_invalid_upload_names_the_path(hub):
    data = hub.upload(0, results_a(), A)
    data["results"][0]["scores"]["N"] = 1
    error = refused(lambda: hub.send(0, data))
    assert (error.code, error.status) == ("invalid", 400)
    assert list(error.extra["details"]) == ["results[0].scores"]
    assert error.message.startswith("results[0].scores")


def test_manual_upload_by_an_organiser_needs_no_token(hub):
    data = hub.upload(1, [played(2, 3, B), annulled(2, 4, B)], B)
    outcome = services.upload_receive(
        body=json.dumps(data).encode(), event=hub.event, user=hub.organiser
    )
    assert outcome.results["new"] == 2
    log = UploadLog.objects.get()
    assert (log.source, log.by_user, log.invitation) == ("manual", hub.organiser, hub.clubs[1][0])
    data["club"] = "unknown"
    error = refused(
        lambda: services.upload_receive(
            body=json.dumps(data).encode(), event=hub.event, user=hub.organiser
        )
    )
    assert error.code == "not_invited"


def test_the_embargo_ends_when_every_club_sent_its_final_upload(hub):
    hub.send(0, hub.upload(0, results_a(), A, final=True))
    hub.send(1, hub.upload(1, [played(1, 1, B)], B, final=True))
    hub.event.refresh_from_db()
    assert not hub.event.embargo_over
    services.invitation_revoke(invitation=hub.clubs[2][0])  # the third club never played
    hub.event.refresh_from_db()
    assert hub.event.embargo_over
    invitation = hub.clubs[0][0]
    invitation.refresh_from_db()
    assert invitation.final_received_at and invitation.session_ended_at.year == 2027


def test_players_no_longer_listed_free_their_licence(hub):
    hub.send(0, hub.upload(0, results_a(), A))
    hub.send(0, hub.upload(0, [], A[:2], sequence=2, donnes=hub.donnes(1)))
    assert set(FieldPlayer.objects.values_list("licence", flat=True)) == set(A[:2])
    b = [A[3], *B[1:]]
    assert hub.send(1, hub.upload(1, [played(1, 1, b)], b)).results["new"] == 1
