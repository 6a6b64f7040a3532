"""The club's side of a simultaneous event without a hub: the event's donnes seat the
tournament, the upload holds what counts, the client maps the hub's answers, a failed upload
waits and a refused one stays refused (tournaments/simultaneous/club)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
from django.utils import timezone, translation

from scoring.rules import cards, dealing
from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Donne, Result, Table, TableRound, Tournament
from tournaments.services.penalties import penalty_give, penalty_withdraw
from tournaments.services.preparation import PreparationError, tournament_generate
from tournaments.services.results import (
    ResultInput,
    ResultNeedsConfirmation,
    result_annul,
    result_save,
)
from tournaments.simultaneous.club import hub_client, services
from tournaments.simultaneous.club.models import SimultaneousLink
from tournaments.simultaneous.club.upload import UploadRefused, build_upload
from tournaments.simultaneous.hub.wire import parse_upload

ROOT = Path(__file__).resolve().parents[3]

EVENT_SEED = "ab" * 32
IDENTITY = "simultaneous:test-event"


def event_rows(sets: int) -> list[dict]:
    return [
        {
            "number": d.number,
            "dealer": d.dealer,
            "hands": {p: cards.format_hand(d.hand(p)) for p in "NESW"},
            "chien": cards.format_hand(d.chien),
        }
        for d in dealing.generate_donnes(EVENT_SEED, IDENTITY, 4 * sets)
    ]


def link(
    tournament: Tournament, *, sets: int, hub_url: str = "http://127.0.0.1:9/"
) -> SimultaneousLink:
    """The link `services.join` would store, made directly (no hub here)."""
    Tournament.objects.filter(pk=tournament.pk).update(
        identity=IDENTITY,
        commitment=dealing.commitment(EVENT_SEED, IDENTITY),
        seed="",
        seed_revealed_at=None,
    )
    tournament.refresh_from_db()
    return SimultaneousLink.objects.create(
        tournament=tournament,
        hub_url=hub_url,
        token="club-token",
        event="test-event",
        event_name="Simultané test",
        invitation="inv-1",
        sets=sets,
        donnes=event_rows(sets),
    )


def seated(players: int, rounds: int, sets: int) -> Tournament:
    tournament = stage_tournament(players=players, rounds=rounds, status="registration")
    link(tournament, sets=sets)
    tournament_generate(tournament=tournament)
    Tournament.objects.filter(pk=tournament.pk).update(status="running")
    tournament.refresh_from_db()
    return tournament


@pytest.mark.django_db
def test_a_linked_tournament_is_seated_with_the_events_donnes_and_verified_after_the_reveal():
    tournament = seated(players=9, rounds=3, sets=5)
    sets = tournament.movement["sets"]
    rows = list(Donne.objects.filter(tournament=tournament).order_by("number"))
    event = dealing.generate_donnes(EVENT_SEED, IDENTITY, 4 * sets)
    assert [r.number for r in rows] == list(range(1, 4 * sets + 1))
    for row, donne in zip(rows, event, strict=True):
        assert (row.dealer, row.hand_n, row.hand_w, row.chien) == (
            donne.dealer,
            cards.format_hand(donne.hand("N")),
            cards.format_hand(donne.hand("W")),
            cards.format_hand(donne.chien),
        )
    assert tournament.seed == ""  # the club does not know the event's seed
    assert tournament.commitment == dealing.commitment(EVENT_SEED, IDENTITY)
    the_link = tournament.simultaneous_link
    ok, summary = services.verify_donnes(link=the_link, seed=EVENT_SEED)
    assert ok, summary
    # A donne changed at the club no longer matches the event's commitment.
    Donne.objects.filter(tournament=tournament, number=2).update(
        hand_n=rows[1].hand_e, hand_e=rows[1].hand_n
    )
    ok, summary = services.verify_donnes(link=the_link, seed=EVENT_SEED)
    assert not ok and "2" in summary


@pytest.mark.django_db
def test_a_movement_needing_more_sets_than_the_event_deals_is_refused():
    tournament = stage_tournament(players=16, rounds=4, status="registration")
    link(tournament, sets=2)
    with translation.override("en"), pytest.raises(PreparationError, match="only 8"):
        tournament_generate(tournament=tournament)


def save(tournament, table_no, donne_no, user, **fields):
    kwargs = {
        "tournament": tournament,
        "table": Table.objects.get(tournament=tournament, number=table_no),
        "donne": Donne.objects.get(tournament=tournament, number=donne_no),
        "data": ResultInput(status="played", **fields),
        "user": user,
        "expected_version": None,
    }
    try:
        return result_save(**kwargs)
    except ResultNeedsConfirmation as exc:
        return result_save(**kwargs, confirmed=list(exc.warnings))


@pytest.mark.django_db
def _session(tournament: Tournament, arbiter) -> SimpleNamespace:
    """A played, an all-passed, an annulled and a pending result, a penalty kept and one
    withdrawn, at a table of five and a table of four of round 1."""
    from tournaments.services.results import round_open

    round_open(round_=tournament.round_set.get(number=1), user=arbiter)
    five = Table.objects.get(tournament=tournament, size=5)
    four = Table.objects.exclude(pk=five.pk).get(tournament=tournament)
    first = TableRound.objects.get(table=five, round__number=1).etui_set.donnes.order_by("number")[
        0
    ]
    played = save(
        tournament,
        five.number,
        first.number,
        arbiter,
        taker="N",
        contract="garde",
        bouts=2,
        points=Decimal(51),
    )
    passed = result_save(
        tournament=tournament,
        table=five,
        donne=Donne.objects.get(tournament=tournament, number=first.number + 1),
        data=ResultInput(status="all_passed"),
        user=arbiter,
        expected_version=None,
    )
    tr = TableRound.objects.get(table=four, round__number=1)
    other = tr.etui_set.donnes.order_by("number")[0]
    annulled = result_annul(
        tournament=tournament,
        table=four,
        donne=other,
        user=arbiter,
        reason="étui mélangé",
        expected_version=None,
    )
    # A table entry waiting for the other camp's confirmation does not count.
    pending = save(
        tournament,
        four.number,
        other.number + 1,
        arbiter,
        taker="E",
        contract="prise",
        bouts=1,
        points=Decimal(41),
    )
    Result.objects.filter(pk=pending.pk).update(entry_status="awaiting")
    player = tournament.registrations.first().player
    kept = penalty_give(
        tournament=tournament,
        player=player,
        kind="other",
        points=10,
        user=arbiter,
        reason="retard",
    )
    gone = penalty_give(tournament=tournament, player=player, kind="early_pickup", user=arbiter)
    penalty_withdraw(penalty=gone, user=arbiter, reason="erreur")

    return SimpleNamespace(
        five=five, four=four, first=first, other=other, played=played, passed=passed,
        annulled=annulled, kept=kept, gone=gone, player=player,
    )  # fmt: skip


def test_the_upload_holds_what_counts_with_licences_sitters_and_withdrawn_penalties(personas):
    tournament = seated(players=9, rounds=3, sets=5)
    tournament.arbiters.add(personas.arbiter)
    session = _session(tournament, personas.arbiter)
    five, four, first, other = session.five, session.four, session.first, session.other
    played, passed, annulled = session.played, session.passed, session.annulled
    kept, gone, player = session.kept, session.gone, session.player

    the_link = SimultaneousLink.objects.get(tournament=tournament)
    upload = build_upload(link=the_link, sequence=3)
    assert upload["format"] == "tarot_club/simultaneous-upload" and upload["version"] == 1
    assert (upload["event"], upload["club"], upload["sequence"], upload["final"]) == (
        "test-event",
        "inv-1",
        3,
        False,
    )
    assert upload["commitment"] == tournament.commitment and upload["identity"] == IDENTITY
    rows = {(r["table"], r["donne"]): r for r in upload["results"]}
    assert set(rows) == {
        (five.number, first.number),
        (five.number, first.number + 1),
        (four.number, other.number),
    }
    assert rows[(five.number, first.number + 1)]["status"] == passed.status == "all_passed"
    row = rows[(five.number, first.number)]
    licence = {p.pk: p.licence for p in tournament.club.players.all()}
    assert row["holders"] == {pos: licence[pid] for pos, pid in played.holders.items()}
    assert row["sitter"] == licence[played.sitter_id] and played.sitter_id
    assert row["scores"] == played.scores and row["points"] == "51" and row["version"] == 1
    assert rows[(four.number, other.number)]["status"] == "annulled"
    assert "scores" not in rows[(four.number, other.number)]
    assert annulled.status == "annulled"
    assert {(p["ref"], p["points"], p["withdrawn"]) for p in upload["penalties"]} == {
        (str(kept.pk), 10, False),
        (str(gone.pk), 100, True),
    }
    assert {p["licence"] for p in upload["players"]} == set(licence.values())
    assert len(upload["donnes"]) == 4 * tournament.movement["sets"]
    # The hub's schema and its parser (which recomputes the scores) take it as it is.
    schema = json.loads((ROOT / "docs" / "simultaneous-upload.schema.json").read_text())
    jsonschema.validate(json.loads(hub_client.upload_body(upload)), schema)
    parsed = parse_upload(json.loads(hub_client.upload_body(upload)))
    assert len(parsed.results) == 3 and parsed.sequence == 3
    Tournament.objects.filter(pk=tournament.pk).update(status="finished")
    the_link = SimultaneousLink.objects.get(tournament=tournament)
    assert build_upload(link=the_link, sequence=4)["final"] is True
    type(player).objects.filter(pk=player.pk).update(licence="")
    with pytest.raises(UploadRefused, match=player.first_name):
        build_upload(link=the_link, sequence=5)


class _Hub(BaseHTTPRequestHandler):
    """A loopback server answering what a hub answers when it refuses: JSON 4xx."""

    seen: list[tuple[str, dict, bytes]] = []

    def _answer(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        _Hub.seen.append((self.path, dict(self.headers), body))
        status, payload = (401, {"detail": "Jeton inconnu.", "code": "not_invited"})
        if "boom" in self.path or self.headers.get("Authorization") == "Bearer boom":
            status, payload = 503, {"detail": "down"}
        if self.headers.get("Authorization") == "Bearer busy":
            status, payload = 429, {"detail": "Trop de requêtes.", "code": "throttled"}
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = _answer

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def hub_url():
    server = HTTPServer(("127.0.0.1", 0), _Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Hub.seen.clear()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def test_the_client_signs_uploads_and_types_the_hubs_answers(hub_url):
    body = b'{"sequence": 1}'
    with pytest.raises(hub_client.HubRefused) as refused:
        hub_client.send_upload(hub_url, "secret", body, timeout=5)
    assert (refused.value.detail, refused.value.code, refused.value.status) == (
        "Jeton inconnu.",
        "not_invited",
        401,
    )
    path, headers, sent = _Hub.seen[-1]
    assert path == "/api/v1/simultaneous/club/uploads/" and sent == body
    assert headers["Authorization"] == "Bearer secret"
    expected = hmac.new(b"secret", body, hashlib.sha256).hexdigest()
    assert headers["X-Simultaneous-Signature"] == f"sha256={expected}"
    with pytest.raises(hub_client.HubUnavailable):
        hub_client.fetch_event(hub_url, "boom", timeout=5)
    with pytest.raises(hub_client.HubUnavailable, match=r"127\.0\.0\.1:9"):
        hub_client.fetch_event("http://127.0.0.1:9/", "x", timeout=5)


@pytest.mark.django_db
def test_a_throttled_upload_is_tried_again_later_not_taken_as_acknowledged(hub_url):
    """The hub's API throttles writes per client address (429): the club's task must retry
    with backoff; the upload was not applied, so it is not acknowledged."""
    with pytest.raises(hub_client.HubUnavailable) as busy:
        hub_client.send_upload(hub_url, "busy", b'{"sequence": 1}', timeout=5)
    assert busy.value.status == 429
    tournament = seated(players=8, rounds=2, sets=4)
    SimultaneousLink.objects.filter(tournament=tournament).update(hub_url=hub_url, token="busy")
    assert services.upload_run(tournament_id=tournament.pk) == "failing"
    the_link = SimultaneousLink.objects.get(tournament=tournament)
    assert (the_link.state, the_link.acked_sequence) == ("failing", 0)


@pytest.mark.django_db
def test_joining_says_why_it_is_refused(hub_url, personas):
    tournament = stage_tournament(players=8, rounds=2, status="registration")
    with pytest.raises(services.JoinError, match="Jeton inconnu"):
        services.join(
            hub_url=hub_url, token="wrong", user=personas.organiser, tournament=tournament
        )
    with (
        translation.override("en"),
        pytest.raises(services.JoinError, match="could not be reached"),
    ):
        services.join(hub_url="http://127.0.0.1:9/", token="t", user=None, tournament=tournament)
    with pytest.raises(services.JoinError):
        services.join(hub_url="ftp://hub", token="t", user=None, tournament=tournament)
    assert not SimultaneousLink.objects.exists()


@pytest.mark.django_db
def test_a_failed_upload_waits_and_a_refused_one_waits_for_the_arbiter(hub_url, personas):
    tournament = seated(players=8, rounds=2, sets=4)
    SimultaneousLink.objects.filter(tournament=tournament).update(hub_url="http://127.0.0.1:9/")
    assert services.upload_run(tournament_id=tournament.pk) == "failing"
    the_link = SimultaneousLink.objects.get(tournament=tournament)
    assert the_link.state == "failing" and the_link.attempts == 1 and the_link.sequence == 1
    assert the_link.retry_at > timezone.now()
    assert tournament.pk not in services.links_behind()  # waits for its backoff
    SimultaneousLink.objects.filter(pk=the_link.pk).update(retry_at=timezone.now())
    assert tournament.pk in services.links_behind()
    SimultaneousLink.objects.filter(pk=the_link.pk).update(hub_url=hub_url)
    assert services.upload_run(tournament_id=tournament.pk) == "refused"
    the_link.refresh_from_db()
    assert (the_link.state, the_link.error, the_link.error_code) == (
        "refused",
        "Jeton inconnu.",
        "not_invited",
    )
    assert the_link.sequence == 2 and the_link.acked_sequence == 0
    assert tournament.pk not in services.links_behind()


@pytest.mark.django_db
def test_the_link_page_and_the_upload_file_are_for_the_tournaments_managers(client, personas):
    tournament = seated(players=8, rounds=2, sets=4)
    tournament.club.organisers.add(personas.organiser)
    page = f"/t/{tournament.pk}/simultaneous/"
    client.force_login(personas.stranger)
    assert client.get(page).status_code == 403
    assert client.get(page + "upload.json").status_code == 403
    client.force_login(personas.organiser)
    shown = client.get(page)
    assert shown.status_code == 200
    assert 'data-state="joined"' in shown.content.decode()
    assert tournament.commitment in shown.content.decode()
    first = client.get(page + "upload.json")
    second = client.get(page + "upload.json")
    assert first["Content-Disposition"].startswith("attachment;")
    files = [json.loads(r.content) for r in (first, second)]
    schema = json.loads((ROOT / "docs" / "simultaneous-upload.schema.json").read_text())
    for upload in files:
        jsonschema.validate(upload, schema)
    # Each file is numbered after the last: the hub takes the newest as the club's state.
    assert files[1]["sequence"] == files[0]["sequence"] + 1
    assert files[0]["event"] == "test-event" and files[0]["final"] is False


@pytest.mark.django_db
def test_the_hand_records_print_the_events_donnes():
    """The documents read the tournament's donnes: a linked tournament's are the event's."""
    from scoring.documents.models import Document
    from tests.scoring.documents.pdf import pdf_text
    from tests.scoring.documents.test_renderers import expected_hand, render

    tournament = seated(players=8, rounds=2, sets=4)
    text = pdf_text(render(tournament, Document.Kind.HAND_RECORDS))
    event = dealing.generate_donnes(EVENT_SEED, IDENTITY, 4 * tournament.movement["sets"])
    for donne in event:
        for position, label in zip("NESW", ("North", "East", "South", "West"), strict=True):
            hand = expected_hand(cards.format_hand(donne.hand(position)))
            assert hand in text and label in text, (donne.number, position)
        assert f"Chien {expected_hand(cards.format_hand(donne.chien))}" in text


@pytest.mark.django_db
def test_an_unlinked_tournament_schedules_no_upload_query_once_seen(django_assert_num_queries):
    """Every committed change schedules an upload: a tournament without a link pays one
    look the first time this process sees it, nothing after; linking it makes the process
    ask again at once."""
    tournament = stage_tournament(players=8, rounds=2, status="registration")
    services._UNLINKED.pop(tournament.pk, None)
    with django_assert_num_queries(2):  # the UPDATE that claims nothing, then the look
        services.schedule_upload(tournament.pk)
    with django_assert_num_queries(0):
        services.schedule_upload(tournament.pk)
    with django_assert_num_queries(2):  # the sweep never trusts the memory
        services.schedule_upload(tournament.pk, recall=False)
    link(tournament, sets=2)
    assert tournament.pk not in services._UNLINKED
    SimultaneousLink.objects.filter(tournament=tournament).update(queued_at=timezone.now())
    with django_assert_num_queries(2):  # claims nothing (one is queued), the link is there
        services.schedule_upload(tournament.pk)
    assert tournament.pk not in services._UNLINKED
