"""Every API endpoint × every persona, with the status each one must get.

The rules are those of the screens (tournaments/permissions.py): the club's organisers and
the tournament's arbiters manage it and write its results; its registered players read its
results while it runs; strangers see what is public; anonymous callers get 401 (they may
authenticate) where a logged-in stranger gets 403. A refused write changes nothing.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.db import transaction
from django.test import override_settings

from scoring.documents.models import Document
from tests.fixtures.shared import copy_for_the_test, rolled_back
from tests.fixtures.tournaments import Personas, make_personas, open_round_for, stage_tournament
from tests.tournaments.api.conftest import client_for
from tournaments.models import (
    ArbiterCall,
    Club,
    LedgerEntry,
    Penalty,
    Player,
    Registration,
    Result,
    Round,
    Table,
    TableRound,
    Tournament,
)
from tournaments.services.checks import WARNING_CODES
from tournaments.services.penalties import penalty_give
from tournaments.services.results import ResultInput, result_save

pytestmark = pytest.mark.django_db

PERSONAS = ("organiser", "arbiter", "other_arbiter", "player", "stranger", "anonymous")

# Expected statuses, persona by persona (same order as PERSONAS).
PUBLIC = (200, 200, 200, 200, 200, 200)
RESULTS = (200, 200, 403, 200, 403, 401)  # can_see_results while running
MANAGE = (200, 200, 403, 403, 403, 401)  # can_manage_tournament / can_write_results
DRAFT = (200, 200, 403, 403, 403, 401)  # can_see_tournament of a draft
CHAMPIONSHIP_SERIES = PUBLIC


def writes(ok: int) -> tuple[int, ...]:
    """Managers succeed with `ok`; the others are refused."""
    return (ok, ok, 403, 403, 403, 401)


def club_writes(ok: int) -> tuple[int, ...]:
    """Only the club's organisers (not the tournament's arbiters)."""
    return (ok, 403, 403, 403, 403, 401)


def logged_in(ok: int) -> tuple[int, ...]:
    return (ok, ok, ok, ok, ok, 401)


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    path: str  # formatted with the context of `setup`
    expected: tuple[int, ...]
    body: dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]] = field(default_factory=dict)
    status: str = "running"  # the tournament's status for this row
    headers: dict[str, str] = field(default_factory=dict)


C = "/api/v1/championships/{championship}/"
PLAYER_PAGES = (200, 403, 403, 200, 403, 401)  # the player and his club's organisers
CLUB_STAFF = (200, 200, 403, 200, 403, 401)  # ... and his club's arbiters
T = "/api/v1/tournaments/{t}/"
ENDPOINTS = [
    # public
    Endpoint("me", "GET", "/api/v1/me/", PUBLIC),
    Endpoint("clubs_list", "GET", "/api/v1/clubs/", PUBLIC),
    Endpoint("clubs_retrieve", "GET", "/api/v1/clubs/{club}/", PUBLIC),
    Endpoint("players_list", "GET", "/api/v1/players/?search=a", PUBLIC),
    Endpoint("players_retrieve", "GET", "/api/v1/players/{player}/", PUBLIC),
    # a player's own pages (issue 35): his events and his rating
    Endpoint("player_history", "GET", "/api/v1/players/{player}/history/", PLAYER_PAGES),
    Endpoint("player_rating", "GET", "/api/v1/players/{player}/rating/", CLUB_STAFF),
    Endpoint(
        "club_rating_switch",
        "PUT",
        "/api/v1/clubs/{club}/rating/",
        club_writes(200),
        {"enabled": True},
    ),
    # championships (issue 33): public reads; the championship's organisers write
    Endpoint("championships_list", "GET", "/api/v1/championships/", PUBLIC),
    Endpoint("championship", "GET", C, PUBLIC),
    Endpoint("championship_ranking", "GET", C + "ranking/", PUBLIC),
    Endpoint("championship_qualifiers", "GET", C + "qualifiers/", PUBLIC),
    Endpoint("championship_series", "GET", C + "series/", CHAMPIONSHIP_SERIES),
    Endpoint(
        "championships_create",
        "POST",
        "/api/v1/championships/",
        club_writes(201),
        lambda c: {
            "name": "Championnat d’hiver",
            "season_start": "2026-09-01",
            "season_end": "2027-08-31",
            "club": c["club"],
            "kind": "total",
        },
    ),
    Endpoint("championship_edit", "PATCH", C, club_writes(200), {"name": "Championnat 2027"}),
    Endpoint(
        "championship_events_add",
        "POST",
        C + "events/",
        club_writes(201),
        lambda c: {"tournament": c["t"]},
    ),
    Endpoint(
        "championship_events_remove",
        "DELETE",
        C + "events/{championship_entry}/",
        club_writes(204),
    ),
    Endpoint(
        "championship_events_agree",
        "POST",
        C + "events/{championship_entry}/agree/",
        club_writes(200),
    ),
    Endpoint(
        "championship_series_set",
        "POST",
        C + "series/",
        club_writes(200),
        {"series": [{"licence": "0188888", "serie": "2e"}]},
    ),
    Endpoint("tournaments_list", "GET", "/api/v1/tournaments/", PUBLIC),
    Endpoint("schema", "GET", "/api/schema/", PUBLIC),
    Endpoint("swagger_ui", "GET", "/api/docs/", PUBLIC),
    Endpoint("redoc", "GET", "/api/redoc/", PUBLIC),
    # any signed-in user creates a club
    Endpoint(
        "clubs_create",
        "POST",
        "/api/v1/clubs/",
        logged_in(201),
        {"name": "Nouveau club", "federation_number": "0987654"},
    ),
    # the club's organisers
    Endpoint(
        "clubs_accounts_create",
        "POST",
        "/api/v1/clubs/{club}/accounts/",
        club_writes(201),
        lambda c: {"username": "arbitre-neuf", "role": "arbiter", "tournaments": [c["t"]]},
    ),
    Endpoint(
        "players_create",
        "POST",
        "/api/v1/players/",
        club_writes(201),
        lambda c: {
            "club": c["club"],
            "licence": "0199999",
            "last_name": "Neuf",
            "first_name": "Léo",
        },
    ),
    Endpoint(
        "players_update",
        "PATCH",
        "/api/v1/players/{player}/",
        club_writes(200),
        {"first_name": "Camille-Marie"},
    ),
    Endpoint(
        "clubs_players_import",
        "POST",
        "/api/v1/clubs/{club}/players/import/",
        club_writes(200),
        {"csv": "licence,last_name,first_name\n0199998,Nouveau,Paul\n"},
    ),
    Endpoint(
        "tournaments_create",
        "POST",
        "/api/v1/tournaments/",
        club_writes(201),
        lambda c: {"club": c["club"], "name": "Tournoi de Noël", "date": "2026-12-20"},
    ),
    # the tournament's public page and its shape
    Endpoint("tournaments_retrieve", "GET", T, PUBLIC),
    Endpoint("tournaments_retrieve_draft", "GET", T, DRAFT, status="draft"),
    Endpoint("rounds_list", "GET", T + "rounds/", PUBLIC),
    Endpoint("rounds_retrieve", "GET", T + "rounds/1/", PUBLIC),
    Endpoint("tables_list", "GET", T + "tables/", PUBLIC),
    Endpoint("tables_retrieve", "GET", T + "tables/1/", PUBLIC),
    # managing the tournament
    Endpoint("tournaments_update", "PATCH", T, writes(200), {"venue": "Salle B"}),
    Endpoint(
        "tournaments_status",
        "POST",
        T + "status/",
        writes(200),
        {"status": "finished", "confirm_missing": True},
    ),
    Endpoint(
        "tournaments_generate", "POST", T + "generate/", writes(200), {}, status="registration"
    ),
    Endpoint("tournaments_reveal_seed", "POST", T + "reveal-seed/", writes(200), status="finished"),
    Endpoint("registrations_list", "GET", T + "registrations/", MANAGE),
    Endpoint("registrations_retrieve", "GET", T + "registrations/{player}/", MANAGE),
    Endpoint(
        "registrations_create",
        "POST",
        T + "registrations/",
        writes(201),
        lambda c: {"player": c["outsider"]},
        status="registration",
    ),
    Endpoint(
        "registrations_create_many",
        "POST",
        T + "registrations/",
        writes(201),
        lambda c: {"players": [c["outsider"]]},
        status="registration",
    ),
    Endpoint(
        "registrations_delete",
        "DELETE",
        T + "registrations/{player}/",
        writes(204),
        status="registration",
    ),
    Endpoint(
        "registrations_check_in",
        "POST",
        T + "registrations/{player}/check-in/",
        writes(200),
        status="registration",
    ),
    Endpoint(
        "registrations_check_out",
        "POST",
        T + "registrations/{player}/check-out/",
        writes(200),
        status="registration",
    ),
    Endpoint(
        "registrations_check_in_all",
        "POST",
        T + "registrations/check-in-all/",
        writes(200),
        status="registration",
    ),
    Endpoint("rounds_open", "POST", T + "rounds/1/open/", writes(200)),
    # a round with missing results cannot be closed: the managers get the refusal, not 403
    Endpoint("rounds_close", "POST", T + "rounds/2/close/", writes(400)),
    Endpoint(
        "rounds_close_annulling",
        "POST",
        T + "rounds/1/close/",
        writes(200),
        {"annul_missing": True, "reason": "out of time"},
    ),
    # seating, donnes and results: read like the results pages
    Endpoint("seats_list", "GET", T + "seats/", RESULTS),
    Endpoint("etuis_list", "GET", T + "etuis/", RESULTS),
    Endpoint("donnes_list", "GET", T + "donnes/", RESULTS),
    Endpoint("donnes_retrieve", "GET", T + "donnes/1/", RESULTS),
    Endpoint("results_list", "GET", T + "results/", RESULTS),
    Endpoint("results_retrieve", "GET", T + "results/1/1/", RESULTS),
    Endpoint("ranking_retrieve", "GET", T + "ranking/", RESULTS),
    Endpoint("ranking_retrieve_published", "GET", T + "ranking/", PUBLIC, status="published"),
    Endpoint("ranking_csv", "GET", T + "ranking/csv/", RESULTS),
    Endpoint("ranking_csv_published", "GET", T + "ranking/csv/", PUBLIC, status="published"),
    Endpoint("score_cards_retrieve", "GET", T + "score-cards/{player}/", RESULTS),
    Endpoint("score_cards_csv", "GET", T + "score-cards/csv/", RESULTS),
    Endpoint(
        "score_cards_csv_published", "GET", T + "score-cards/csv/", PUBLIC, status="published"
    ),
    Endpoint("travellers_retrieve", "GET", T + "travellers/1/", RESULTS),
    # writing results
    Endpoint(
        "results_create",
        "POST",
        T + "results/",
        writes(201),
        {"table": 1, "donne": 2, "status": "all_passed"},
    ),
    Endpoint(
        "results_preview",
        "POST",
        T + "results/preview/",
        writes(200),
        {"table": 1, "donne": 2, "taker": "N", "contract": "garde", "bouts": 2, "points": 50},
    ),
    Endpoint(
        "results_save",
        "PUT",
        T + "results/1/1/",
        writes(200),
        {
            "taker": "N",
            "contract": "garde",
            "bouts": 0,
            "points": 30,
            "confirm": list(WARNING_CODES),
            "version": 1,
            "reason": "Score sheet misread",
        },
    ),
    Endpoint(
        "results_annul",
        "POST",
        T + "results/1/1/annul/",
        writes(200),
        {"reason": "Cards of two étuis mixed", "version": 1},
    ),
    # penalties and the ledger: the arbiter's pages
    Endpoint("penalties_list", "GET", T + "penalties/", MANAGE),
    Endpoint("penalties_retrieve", "GET", T + "penalties/{penalty}/", MANAGE),
    Endpoint(
        "penalties_create",
        "POST",
        T + "penalties/",
        writes(201),
        lambda c: {"player": c["player"], "kind": "early_pickup", "donne": 1},
    ),
    Endpoint(
        "penalties_withdraw",
        "POST",
        T + "penalties/{penalty}/withdraw/",
        writes(200),
        {"reason": "Given to the wrong player"},
    ),
    Endpoint("ledger_list", "GET", T + "ledger/", MANAGE),
    # calls to the arbiter (issue 34): the arbiters list, take and rule; a player of the
    # table calls, proving himself in the body (without his code: the body's 400)
    Endpoint("calls_list", "GET", T + "calls/", MANAGE),
    Endpoint(
        "calls_create",
        "POST",
        T + "calls/",
        (400, 400, 400, 400, 400, 401),
        lambda c: {"table": 1, "donne": 1, "irregularity": "renonce", "player": c["player"]},
    ),
    Endpoint("calls_take", "POST", T + "calls/{call}/take/", writes(200)),
    Endpoint("calls_rule", "POST", T + "calls/{call}/rule/", writes(200), {"ruling": "none"}),
    # claims (issue 34): the arbiters read and settle; a registered player files their own.
    # No window is open here (finished by hand): the managers and the player get its 400.
    Endpoint("claims_list", "GET", T + "claims/", MANAGE, status="finished"),
    Endpoint(
        "claims_create",
        "POST",
        T + "claims/",
        (400, 400, 403, 400, 403, 401),
        {"table": 1, "donne": 1, "kind": "result", "text": "Poignée oubliée"},
        status="finished",
    ),
    Endpoint(
        "claims_settle",
        "POST",
        T + "claims/999999/settle/",
        (404, 404, 403, 403, 403, 401),
        {"state": "rejected", "reason": "Feuille signée"},
        status="finished",
    ),
    # documents: their own rules (scoring.documents.services), on top of the tournament's page
    Endpoint("documents_list", "GET", T + "documents/", PUBLIC),
    Endpoint("documents_create", "POST", T + "documents/", writes(202), {"kind": "route_cards"}),
    Endpoint(
        "documents_create_own_score_card",
        "POST",
        T + "documents/",
        (202, 202, 403, 202, 403, 401),
        lambda c: {"kind": "score_cards", "part": c["player"], "language": "en"},
    ),
    Endpoint("documents_create_all", "POST", T + "documents/all/", writes(202)),
    Endpoint(
        "documents_create_all_forced",
        "POST",
        T + "documents/all/",
        writes(202),
        {"language": "en", "force": True},
    ),
    *[
        Endpoint(f"documents_create_{kind}", "POST", T + "documents/", writes(202), {"kind": kind})
        for kind in (
            "movement_chart",
            "table_cards",
            "check_in_list",
            "etui_labels",
            "arbiter_log",
            "results_summary",
        )
    ],
    Endpoint(
        "documents_download_arbiter_log_published",
        "GET",
        T + "documents/{log_doc}/download/",
        MANAGE,
        status="published",
    ),
    Endpoint(
        "documents_download_results_summary_published",
        "GET",
        T + "documents/{summary_doc}/download/",
        PUBLIC,
        status="published",
    ),
    Endpoint("documents_retrieve", "GET", T + "documents/{ranking_doc}/", MANAGE),
    Endpoint("documents_download", "GET", T + "documents/{ranking_doc}/download/", MANAGE),
    Endpoint(
        "documents_download_own_score_card",
        "GET",
        T + "documents/{card_doc}/download/",
        (200, 200, 403, 200, 403, 401),
    ),
    Endpoint(
        "documents_download_published",
        "GET",
        T + "documents/{ranking_doc}/download/",
        PUBLIC,
        status="published",
    ),
    # tokens
    Endpoint("token_revoke", "DELETE", "/api/v1/auth/token/", (204, 204, 204, 204, 204, 401)),
]


def _a_call(tournament: Tournament) -> ArbiterCall:
    """A call to the arbiter from table 1 about its first donne (issue 34)."""
    table_round = TableRound.objects.select_related("round", "table", "etui_set").get(
        round__tournament=tournament, round__number=1, table__number=1
    )
    seat = table_round.seats.select_related("player").first()
    return ArbiterCall.objects.create(
        tournament=tournament,
        round=table_round.round,
        table=table_round.table,
        table_round=table_round,
        donne=table_round.etui_set.donnes.order_by("number").first(),
        irregularity="renonce",
        called_by=seat.player,
    )


def setup(personas: Personas, status: str) -> dict[str, Any]:
    """A staged tournament in `status` with, at both tables, a result for donne 1 (so it is
    complete and its traveller visible) and a penalty."""
    tournament = stage_tournament(personas=personas, status=status)
    # The matrix checks the rule for registered players; public during play is tested apart.
    Tournament.objects.filter(pk=tournament.pk).update(public_during_play=False)
    player = personas.player_user.player
    outsider = Player.objects.create(
        first_name="Zoé", last_name="Extérieure", licence="0188888", club=tournament.club
    )
    context = {
        "t": tournament.pk,
        "club": tournament.club_id,
        "player": player.pk,
        "outsider": outsider.pk,
        "penalty": 0,
        "call": 0,
    }
    context.update(_a_championship(tournament, personas))
    if status in ("running", "finished", "published"):
        was = tournament.status
        Tournament.objects.filter(pk=tournament.pk).update(status="running")
        tournament.refresh_from_db()
        for table in Table.objects.filter(tournament=tournament):
            open_round_for(table, tournament.donnes.get(number=1), personas.arbiter)
            result_save(
                tournament=tournament,
                table=table,
                donne=tournament.donnes.get(number=1),
                data=ResultInput(status="all_passed"),
                user=personas.arbiter,
                expected_version=None,
            )
        penalty = penalty_give(
            tournament=tournament, player=player, kind="warning", user=personas.arbiter
        )
        context["penalty"] = penalty.pk
        context["call"] = _a_call(tournament).pk
        Tournament.objects.filter(pk=tournament.pk).update(status=was)
        context["ranking_doc"] = finished_document(tournament, "ranking", 0).pk
        context["card_doc"] = finished_document(tournament, "score_cards", player.pk).pk
        context["log_doc"] = finished_document(tournament, "arbiter_log", 0).pk
        context["summary_doc"] = finished_document(tournament, "results_summary", 0).pk
    return context


def _a_championship(tournament: Tournament, personas: Personas) -> dict[str, int]:
    """A championship of the tournament's club by its organiser, counting another tournament
    of the club (an entry to remove or agree to)."""
    from tournaments.championships import services as championships

    championship = championships.championship_create(
        user=personas.organiser,
        club=tournament.club,
        name="Championnat du club",
        season_start=datetime.date(2026, 9, 1),
        season_end=datetime.date(2027, 8, 31),
        kind="total",
    )
    other = Tournament.objects.create(
        club=tournament.club, name="Tournoi d’automne", date=datetime.date(2026, 10, 3)
    )
    entry = championships.event_add(championship, user=personas.organiser, tournament=other)
    return {"championship": championship.pk, "championship_entry": entry.pk}


def finished_document(tournament: Tournament, kind: str, part: int) -> Document:
    """A finished document row with a small file (what the download streams)."""
    doc = Document.objects.create(
        tournament=tournament, kind=kind, part=part, language="fr", status="done", progress=100
    )
    doc.file.save(f"{kind}.pdf", ContentFile(b"%PDF-1.4 test file"), save=True)
    return doc


def user_of(personas: Personas, persona: str) -> Any:
    return {
        "organiser": personas.organiser,
        "arbiter": personas.arbiter,
        "other_arbiter": personas.other_arbiter,
        "player": personas.player_user,
        "stranger": personas.stranger,
        "anonymous": None,
    }[persona]


def state(tournament_id: int) -> tuple[Any, ...]:
    """Everything a write could change."""
    tournament = Tournament.objects.get(pk=tournament_id)
    return (
        tournament.status,
        tournament.venue,
        tournament.results_version,
        tournament.seed_revealed_at,
        Tournament.objects.count(),
        Player.objects.count(),
        sorted(Player.objects.values_list("first_name", flat=True)),
        sorted(Registration.objects.values_list("pk", "checked_in_at")),
        sorted(Result.objects.values_list("pk", "version", "status")),
        sorted(Penalty.objects.values_list("pk", "withdrawn_at")),
        LedgerEntry.objects.count(),
        sorted(Round.objects.values_list("pk", "state")),
        get_user_model().objects.filter(auth_token__isnull=False).count(),
        get_user_model().objects.count(),
        sorted(Club.objects.values_list("pk", "name")),
        sorted(Club.organisers.through.objects.values_list("club_id", "user_id")),
        sorted(Tournament.arbiters.through.objects.values_list("tournament_id", "user_id")),
        Document.objects.count(),
    )


@pytest.fixture(scope="module")
def personas_of_the_module(module_transaction, django_db_blocker, tmp_path_factory):
    """The personas, made once for the module's matrix (tests/fixtures/shared.py), with the
    documents' files under a folder of the module's."""
    with override_settings(MEDIA_ROOT=str(tmp_path_factory.mktemp("media"))):
        with django_db_blocker.unblock():
            personas = make_personas()
        yield personas


@pytest.fixture(scope="module")
def staged(request, personas_of_the_module, django_db_blocker):
    """`setup` for the tournament status `request.param`, made once for the rows of that
    status (pytest runs them one after the other), rolled back before the next status's."""
    with rolled_back(django_db_blocker):
        with django_db_blocker.unblock():
            users = get_user_model().objects
            personas = Personas(  # read again: no cached reverse relation of another status
                **{
                    role: users.get(pk=getattr(personas_of_the_module, role).pk)
                    for role in ("organiser", "arbiter", "other_arbiter", "player_user", "stranger")
                }
            )
            context = setup(personas, request.param)
        yield personas, context


# The rows of one status side by side (a stable sort), so that `staged` is made once per
# status: pytest keeps a module fixture while its parameter stays the same.
BY_STATUS = sorted(ENDPOINTS, key=lambda e: e.status)


@pytest.mark.parametrize(
    ("staged", "endpoint"),
    [(e.status, e) for e in BY_STATUS],
    ids=[e.name for e in BY_STATUS],
    indirect=["staged"],
    scope="module",
)
def test_permission_matrix(staged, endpoint: Endpoint, db) -> None:
    """One staged tournament per status (`staged`, the same rows as if made for this row);
    each persona's request runs in a savepoint rolled back afterwards, so every persona meets
    the same state."""
    personas, context = copy_for_the_test(staged)
    body = endpoint.body(context) if callable(endpoint.body) else endpoint.body
    path = endpoint.path.format(**context)
    got: dict[str, int] = {}
    for persona in PERSONAS:
        client = client_for(user_of(personas, persona))
        with transaction.atomic():
            # What a refused write must leave as it was (a read's refusal is not compared).
            before = state(context["t"]) if endpoint.method != "GET" else None
            response = client.generic(
                endpoint.method,
                path,
                data=None if endpoint.method == "GET" else json.dumps(body),
                content_type="application/json",
            )
            got[persona] = response.status_code
            if response.status_code in (401, 403):
                error = response.json()
                assert set(error) >= {"code", "message", "details"}, persona
                assert error["code"] in ("not_authenticated", "permission_denied"), persona
                if endpoint.method != "GET":
                    assert state(context["t"]) == before, f"{persona}: a refused write wrote"
            if response.status_code == 401:
                assert response.headers["WWW-Authenticate"] == "Token", persona
            transaction.set_rollback(True)
        cache.clear()  # throttles
    assert got == dict(zip(PERSONAS, endpoint.expected, strict=True))


def test_every_api_operation_is_in_the_matrix() -> None:
    """A new endpoint must be added to the matrix."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = {
        op["operationId"]
        for item in schema["paths"].values()
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }
    covered = {e.name for e in ENDPOINTS} | {"token_obtain"}
    # The simultaneous hub's callers are its events' organisers and the clubs' tokens: its
    # own matrix covers its operations (tests/tournaments/simultaneous/hub/test_api_permissions.py).
    from tests.tournaments.simultaneous.hub.test_api_permissions import MATRIX

    # A player's event report answers 403 `report_not_open` to everyone until every donne is
    # complete: its own tests walk the personas through a complete event and an open one
    # (tests/scoring/rankings/test_player_api.py).
    covered |= {"player_event_report"}
    missing = operations - covered - set(MATRIX)
    assert not missing, f"endpoints without a row in the permission matrix: {sorted(missing)}"
