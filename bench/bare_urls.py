"""The site's URLs plus the baseline of bench/bench_api_writes.py: a bare DRF endpoint that
parses a JSON body and does one INSERT (no authentication, no throttle, no check). It lives
in the bench only; the shipped site never routes to it."""

from __future__ import annotations

import json
from typing import Any

from django.db import connection
from django.urls import path
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tarot_club.urls import urlpatterns as site_urlpatterns

TABLE = "bench_bare_write"


class BareWrite(APIView):
    """POST: one row inserted, its id answered (201)."""

    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []
    throttle_classes: list[Any] = []
    parser_classes = [JSONParser]

    def post(self, request: Request) -> Response:
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {TABLE} (body) VALUES (%s) RETURNING id",
                [json.dumps(request.data)],
            )
            (row_id,) = cursor.fetchone()
        return Response({"id": row_id}, status=201)


urlpatterns = [path("bench/bare/", BareWrite.as_view()), *site_urlpatterns]
