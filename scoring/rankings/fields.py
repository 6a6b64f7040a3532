"""A JSON field for the snapshot's score-card lines, stored as one JSON text per player."""

from __future__ import annotations

from typing import Any

import msgspec
from django.db import models
from django.db.models.fields.json import KeyTransform

_encode = msgspec.json.encode
_decode = msgspec.json.decode


def _lines(value: Any) -> Any:
    """One player's lines from what the database holds (JSON text; older snapshots: a list)."""
    return _decode(value) if isinstance(value, str) else value


class CardLinesField(models.JSONField):
    """A JSON object of player key -> score-card lines, each player's lines kept as one JSON
    string inside the document; Python sees the lines themselves.

    Why: PostgreSQL parses a jsonb of 1,000 players' nested arrays (24,000 lines of eight
    values) in several times what the rest of a recomputation costs, and 1,000 strings in a
    fraction of it; a score card still reads only its own key (`KeyTransform`), decoded here.
    """

    @staticmethod
    def key_text_pairs(value: dict[str, Any]) -> list[str]:
        """[key, lines as JSON text, key, ...]: what jsonb_object(text[]) makes the stored
        document of (a bulk write on PostgreSQL then parses no JSON at all)."""
        pairs: list[str] = []
        add = pairs.extend
        for key, lines in value.items():
            add((key, lines if isinstance(lines, str) else _encode(lines).decode()))
        return pairs

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if isinstance(value, dict):  # each player's lines as one JSON text
            value = {
                key: lines if isinstance(lines, str) else _encode(lines).decode()
                for key, lines in value.items()
            }
        return super().get_db_prep_value(value, connection, prepared)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        value = super().from_db_value(value, expression, connection)
        if isinstance(value, dict):
            return {key: _lines(lines) for key, lines in value.items()}
        if isinstance(expression, KeyTransform):
            return _lines(value)
        return value


class JSONTextField(models.JSONField):
    """A JSONField held as PostgreSQL's ``json`` type (the text, checked as JSON when
    written) rather than ``jsonb`` (parsed into a binary tree); other databases: JSONField.

    Why: a simultaneous event's overall ranking keeps each club's results as ranked (a few
    hundred nested lists each) and each group's values; parsing them into jsonb costs
    PostgreSQL several times the COPY of the same text, and nothing queries inside them. The
    value read back is the same list (psycopg decodes the json type itself; older jsonb text
    is decoded as JSONField does).
    """

    def db_type(self, connection: Any) -> str | None:
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is None or not isinstance(value, str):
            return value  # the driver decoded the json type
        return super().from_db_value(value, expression, connection)
