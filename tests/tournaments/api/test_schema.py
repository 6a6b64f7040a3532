"""The OpenAPI description: it validates, every operation has a summary and examples, the docs
are served by the app itself, and Schemathesis finds no 5xx and no answer outside the schema
when it throws generated requests at every operation (as an arbiter, with a token)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from scoring.documents.models import Document
from tests.fixtures.tournaments import open_round_for
from tournaments.models import Player, Table
from tournaments.services.penalties import penalty_give
from tournaments.services.results import ResultInput, result_save

HTTP_METHODS = ("get", "post", "put", "patch", "delete")


def test_schema_validates_without_warnings(tmp_path: Path) -> None:
    """drf-spectacular's own validation (OpenAPI 3 JSON schema), failing on any warning."""
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    assert out.read_text().startswith("openapi: 3")


def _schema(client: Any) -> dict[str, Any]:
    response = client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


@pytest.mark.django_db
def test_every_operation_has_a_summary_examples_and_documented_errors(client) -> None:
    schema = _schema(client)
    operations = [
        (path, method, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if method in HTTP_METHODS
    ]
    assert len(operations) >= 45
    for path, method, op in operations:
        where = f"{method.upper()} {path}"
        assert op.get("summary"), f"{where} has no summary"
        assert path.startswith("/api/v1/"), where
        examples = [
            example
            for content in [
                *op.get("requestBody", {}).get("content", {}).values(),
                *(c for r in op["responses"].values() for c in r.get("content", {}).values()),
            ]
            for example in content.get("examples", {}).values()
        ]
        if method != "delete":
            assert examples, f"{where} has no example"
        codes = set(op["responses"])
        assert "401" in codes, f"{where}: a bad token answers 401"
        if method != "get":
            assert {"400", "429"} <= codes, where


@pytest.mark.django_db
def test_the_schema_lists_every_document_kind_and_the_forced_rebuild(client) -> None:
    schemas = _schema(client)["components"]["schemas"]
    kinds = next(
        s["enum"]
        for name, s in schemas.items()
        if name.endswith("Enum") and "movement_chart" in s.get("enum", [])
    )
    assert set(kinds) == set(Document.Kind.values)
    for name in ("DocumentRequestRequest", "DocumentSetRequestRequest"):
        assert schemas[name]["properties"]["force"]["type"] == "boolean", name


@pytest.mark.django_db
def test_docs_are_served_by_the_app_without_a_cdn(client) -> None:
    for url in ("/api/docs/", "/api/redoc/"):
        response = client.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        sources = re.findall(r'(?:src|href)="([^"]+)"', html)
        assert sources, url
        for source in sources:
            assert not source.startswith(("http:", "https:", "//")), (url, source)
        assert "drf_spectacular_sidecar" in html
    # the assets themselves are served (whitenoise finders in tests)
    assert (
        client.get(
            "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"
        ).status_code
        == 200
    )
    assert (
        client.get("/static/drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js").status_code
        == 200
    )


# --- Schemathesis ----------------------------------------------------------------------------
# Run operation by operation with Hypothesis directly: schemathesis' pytest loader
# (`from_fixture`) relies on pytest internals that pytest 9 renamed.

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
MAX_EXAMPLES = 10


def _stage_rows(tournament: Any, personas: Any) -> None:
    """Results at both tables for donne 1 and a penalty, so requests reach real rows."""
    donne = tournament.donnes.get(number=1)
    for table in Table.objects.filter(tournament=tournament):
        open_round_for(table, donne, personas.arbiter)
        result_save(
            tournament=tournament,
            table=table,
            donne=donne,
            data=ResultInput(status="all_passed"),
            user=personas.arbiter,
            expected_version=None,
        )
    doc = Document.objects.create(
        tournament=tournament, kind="ranking", language="fr", status="done", progress=100
    )
    doc.file.save("ranking.pdf", ContentFile(b"%PDF-1.4 test file"), save=True)
    penalty_give(
        tournament=tournament,
        player=personas.player_user.player,
        kind="warning",
        user=personas.arbiter,
    )


def _steer(name: str, value: Any, known: dict[str, list[int]]) -> Any:
    """Most generated ids go to rows that exist; every seventh stays as generated (a 404)."""
    if not isinstance(value, int) or isinstance(value, bool) or value % 7 == 0:
        return value
    if name in known:
        return known[name][value % len(known[name])]
    return value % 12  # table, donne and round numbers


@pytest.fixture
def wsgi_keeps_test_connection() -> Any:
    """Calling the real WSGI app closes "old" connections at each request's start and end,
    which would close the test's transaction; Django's test client disconnects the same
    handlers for the same reason."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.mark.django_db
def test_generated_requests_get_no_server_error_and_match_the_schema(
    running_tournament, personas, wsgi_keeps_test_connection, settings, tmp_path
) -> None:
    settings.MEDIA_ROOT = str(tmp_path)
    from tarot_club.wsgi import application

    tournament = running_tournament
    _stage_rows(tournament, personas)
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)
    known = {
        "tournament": [tournament.pk],
        "club": [tournament.club_id],
        "player": list(
            Player.objects.filter(registrations__tournament=tournament).values_list("pk", flat=True)
        ),
        "penalty": list(tournament.penalties.values_list("pk", flat=True)),
        "document": list(tournament.documents.values_list("pk", flat=True)),
    }
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
        @hypothesis_settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
        )
        def check(case: Any) -> None:
            if case.path_parameters:
                case.path_parameters = {
                    k: _steer(k, v, known) for k, v in case.path_parameters.items()
                }
            # A generated DELETE /auth/token/ revokes the token: give the arbiter one back.
            token, _ = Token.objects.get_or_create(user=personas.arbiter)
            response = case.call(
                headers={"Authorization": f"Token {token.key}", "Accept-Language": "en"}
            )
            case.validate_response(response, checks=CHECKS)

        try:
            check()
        except Exception as exc:  # collect every operation's failure, report them together
            failures.append(f"{operation.label}: {exc}"[:3000])
    assert operations >= 45
    assert not failures, "\n\n".join(failures)
