"""Pieces of the OpenAPI description shared by the views: the documented error answers and
the path parameters. Every operation lists the errors it can give, so that a client (and
the schema tests) know every status it may see."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse

from .serializers import (
    ConflictSerializer,
    ErrorSerializer,
    NeedsConfirmationSerializer,
    ThrottledSerializer,
)

DESCRIPTIONS = {
    400: "Invalid request: `details` says what to fix in each field.",
    401: "Not authenticated: log in or send `Authorization: Token <key>`.",
    403: "Authenticated, but without the right for this tournament.",
    404: "Not found.",
    409: "Version conflict: someone changed it first; `current` holds their version.",
    412: "If-Match does not match the current version; `current` holds it.",
    422: "Needs confirmation (`warnings`, send their codes in `confirm`), or an "
    "Idempotency-Key reused for a different request.",
    429: "Too many requests: wait `retry_after` seconds.",
}

EXAMPLES = {
    400: OpenApiExample(
        "Invalid",
        value={
            "code": "invalid",
            "message": "Some values are not valid; the details say what to fix in each field.",
            "details": {
                "points": [
                    "With 2 bouts the attack has between 9 and 86.5 points; 90 is impossible. "
                    "Check the bouts or the points."
                ],
                "taker": ["Choose the taker (the player who won the bidding)."],
            },
        },
        status_codes=["400"],
        response_only=True,
    ),
    401: OpenApiExample(
        "Not authenticated",
        value={
            "code": "not_authenticated",
            "message": "Log in, or send your API token in the Authorization header "
            "(Authorization: Token <key>).",
            "details": {},
        },
        status_codes=["401"],
        response_only=True,
    ),
    403: OpenApiExample(
        "Forbidden",
        value={
            "code": "permission_denied",
            "message": "Only the tournament's arbiters and the club's organisers may change "
            "results.",
            "details": {},
        },
        status_codes=["403"],
        response_only=True,
    ),
    404: OpenApiExample(
        "Not found",
        value={"code": "not_found", "message": "Not found.", "details": {}},
        status_codes=["404"],
        response_only=True,
    ),
    429: OpenApiExample(
        "Throttled",
        value={
            "code": "throttled",
            "message": "Request was throttled. Expected available in 42 seconds.",
            "details": {},
            "retry_after": 42,
        },
        status_codes=["429"],
        response_only=True,
    ),
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """Documented error answers, all in the one error shape."""
    out: dict[int, OpenApiResponse] = {}
    for code in codes:
        serializer: Any = ErrorSerializer
        if code == 422:
            serializer = NeedsConfirmationSerializer
        elif code == 429:
            serializer = ThrottledSerializer
        elif code in (409, 412):
            serializer = ConflictSerializer
        out[code] = OpenApiResponse(serializer, description=DESCRIPTIONS[code])
    return out


def error_examples(*codes: int) -> list[OpenApiExample]:
    return [EXAMPLES[c] for c in codes if c in EXAMPLES]


READ = (401, 403, 404)
WRITE = (400, 401, 403, 404, 422, 429)

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="Any unique string (a UUID): repeating the request with the same key returns "
    "the first answer and changes nothing.",
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description='The version you are changing, as the ETag you read: "3". A newer version '
    "on the server answers 412.",
)
