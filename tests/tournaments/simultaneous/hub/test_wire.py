"""The upload format: the parser, its faults with their JSON paths, and the JSON Schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from django.conf import settings
from django.utils import translation

from scoring.rules import dealing
from tournaments.simultaneous.hub.wire import UploadInvalid, parse_upload, parse_upload_bytes

from .builders import IDENTITY, SEED, annulled, donne_dicts, played, player, upload

SCHEMA = json.loads(
    (Path(settings.BASE_DIR) / "docs" / "simultaneous-upload.schema.json").read_text()
)
LICENCES = ["0000001", "0000002", "0000003", "0000004", "0000005"]


def sample() -> dict:
    return upload(
        event="ev1",
        club="inv1",
        identity=IDENTITY,
        commitment=dealing.commitment(SEED, IDENTITY),
        donnes=donne_dicts(SEED, IDENTITY, 4),
        players=[player(x) for x in LICENCES],
        results=[
            played(1, 1, LICENCES[:4], sitter=LICENCES[4], poignees={"N": "simple"}),
            annulled(1, 2, LICENCES[1:]),
            {**annulled(1, 3, LICENCES[:4]), "status": "all_passed", "scores": {}},
        ],
        penalties=[
            {"ref": "12", "licence": LICENCES[0], "points": 10, "donne": None, "withdrawn": False}
        ],
        sequence=3,
    )


def faults(data: object) -> dict[str, list[str]]:
    with pytest.raises(UploadInvalid) as caught:
        parse_upload(data)
    return caught.value.details


def test_a_valid_upload_parses_and_follows_the_schema():
    data = sample()
    jsonschema.validate(data, SCHEMA)
    parsed = parse_upload(data)
    assert parsed.sequence == 3 and not parsed.final
    assert [r.status for r in parsed.results] == ["played", "annulled", "all_passed"]
    assert parsed.results[0].scores == {"N": 270, "E": -90, "S": -90, "W": -90}
    assert parsed.results[2].scores == {p: 0 for p in "NESW"}
    assert parsed.results[0].sitter == LICENCES[4]
    assert parsed.penalties[0].ref == "12"
    assert len(parsed.donnes) == 4 and parsed.donnes[0].hands["N"].startswith("S:")


def test_scores_that_disagree_with_the_engine_are_refused_at_their_path():
    data = sample()
    data["results"][0]["scores"]["N"] += 1
    assert list(faults(data)) == ["results[0].scores"]


def test_an_impossible_contract_is_refused_with_the_engines_words():
    data = sample()
    data["results"][0].update(bouts=0, petit_au_bout="attack")
    with translation.override("en"):
        errors = faults(data)
    assert list(errors) == ["results[0]"]
    assert "bout" in errors["results[0]"][0].lower()


def test_faults_name_their_path_and_are_translated():
    data = sample()
    data["results"][1]["holders"]["E"] = "12"
    data["players"][0]["licence"] = "abc"
    del data["sequence"]
    data["extra"] = 1
    errors = faults(data)
    assert {"results[1].holders.E", "players[0].licence", "sequence", "extra"} <= set(errors)
    assert "7 chiffres" in errors["players[0].licence"][0]  # French by default


def test_cross_checks():
    data = sample()
    data["results"].append(copy.deepcopy(data["results"][0]))  # same table and donne
    data["penalties"][0]["licence"] = "0999999"
    data["results"][1]["donne"] = 9
    errors = faults(data)
    assert (
        "results[3]" in errors and "penalties[0].licence" in errors and "results[1].donne" in errors
    )


@pytest.mark.parametrize("body", [b"{", b"\xff", b"[]", b'"x"'])
def test_bodies_that_are_not_an_upload(body):
    with pytest.raises(UploadInvalid) as caught:
        parse_upload_bytes(body)
    assert list(caught.value.details) == ["$"]


def test_wrong_format_and_version():
    data = sample()
    data["format"], data["version"] = "other", 2
    assert set(faults(data)) == {"format", "version"}


def test_control_characters_are_refused_before_the_database_sees_them():
    data = sample()
    data["players"][1]["last_name"] = "Martin\x00"
    data["penalties"][0]["ref"] = "1\x00"
    assert {"players[1].last_name", "penalties[0].ref"} <= set(faults(data))
