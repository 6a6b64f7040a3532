"""The base of every app's API view: authentication (token first, so an anonymous caller is
told how to authenticate with a 401), throttled writes, idempotent retries (``idempotency``),
versions from If-Match, JSON errors (``errors``) and pagination. An app derives its own views
from ``ApiView`` (tournaments adds the tournament from the URL with its access rule)."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from rest_framework import authentication, generics
from rest_framework.metadata import SimpleMetadata
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response

from ..throttling import WriteRateThrottle
from .access import require_login
from .errors import ApiError, server_error_response
from .idempotency import request_key, run_idempotent

MAX_OFFSET = 10**9
_ETAG = re.compile(r'^\s*(?:W/)?"?(\d{1,9})"?\s*$')


_BUILT_FIELDS: dict[tuple[type, str | None], Any] = {}


def built_fields(serializer_class: Any) -> Any:
    """The fields of ``serializer_class``, built once per language (a serializer deep-copies
    its declared fields for each instance, the larger part of checking a small body). Only
    for serializers that say ``fields_built_once``: their fields keep no state between
    calls and read no context. Per language, because DRF formats a validator's message
    ("Ensure this value is less than or equal to 3.") once and keeps it."""
    key = (serializer_class, get_language())
    fields = _BUILT_FIELDS.get(key)
    if fields is None:
        fields = _BUILT_FIELDS[key] = serializer_class().fields
    return fields


class Pagination(LimitOffsetPagination):
    """``?limit=&offset=``; 100 rows by default, at most 1000."""

    default_limit = 100
    max_limit = 1000

    def get_offset(self, request: Request) -> int:
        return min(super().get_offset(request), MAX_OFFSET)


class ApiMetadata(SimpleMetadata):
    """What OPTIONS answers: the view's name, description and formats. The fields each
    method takes are in the OpenAPI schema (/api/schema/); DRF's own description of them
    needs a queryset and an object for every view, which these views do not have."""

    def determine_actions(self, request: Request, view: Any) -> dict[str, Any]:
        return {}


class ApiView(generics.GenericAPIView):
    """Base of every API view."""

    metadata_class = ApiMetadata

    authentication_classes = [
        authentication.TokenAuthentication,
        authentication.SessionAuthentication,
    ]
    permission_classes: list[Any] = []
    throttle_classes = [WriteRateThrottle]
    pagination_class = Pagination
    parser_classes = [JSONParser]

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        """DRF's dispatch, with the write run once per Idempotency-Key (idempotency.py)."""
        self.args = args
        self.kwargs = kwargs
        request = self.initialize_request(request, *args, **kwargs)
        self.request = request
        self.headers = self.default_response_headers
        try:
            self.initial(request, *args, **kwargs)
            method = request.method.lower()
            handler = (
                getattr(self, method, self.http_method_not_allowed)
                if method in self.http_method_names
                else self.http_method_not_allowed
            )
            key = request_key(request) if request.user.is_authenticated else None
            if key is not None and hasattr(self, method):
                response = run_idempotent(
                    request, key, lambda: handler(request, *args, **kwargs), self.handle_exception
                )
            else:
                response = handler(request, *args, **kwargs)
        except Exception as exc:
            response = self.handle_exception(exc)
        self.response = self.finalize_response(request, response, *args, **kwargs)
        return self.response

    def handle_exception(self, exc: Exception) -> Response:
        try:
            return super().handle_exception(exc)
        except Exception as unhandled:
            if settings.DEBUG:
                raise
            return server_error_response(unhandled)

    # --- helpers for the views -------------------------------------------------------------

    def paginated(self, queryset: Any, serializer_class: Any, **context: Any) -> Response:
        page = self.paginate_queryset(queryset)
        ctx = {**self.get_serializer_context(), **context}
        data = serializer_class(page, many=True, context=ctx).data
        return self.get_paginated_response(data)

    #: Views whose writes need no login (getting a token); every other write checks who the
    #: caller is before it reads the body, so known and unknown names answer alike.
    anonymous_writes = False

    def valid(self, serializer_class: Any, **kwargs: Any) -> Any:
        """The request body checked by an input serializer (400 with details otherwise).
        Writes by anonymous callers are refused (401) before any validation."""
        if self.request.method not in ("GET", "HEAD", "OPTIONS") and not self.anonymous_writes:
            require_login(self.request.user)
        serializer = serializer_class(
            data=self.request.data, context=self.get_serializer_context(), **kwargs
        )
        if not kwargs and getattr(serializer_class, "fields_built_once", False):
            serializer.__dict__["fields"] = built_fields(serializer_class)
        serializer.is_valid(raise_exception=True)
        return serializer

    def if_match(self) -> int | None:
        """The version in If-Match (``"3"``), remembered so a conflict answers 412."""
        header = self.request.META.get("HTTP_IF_MATCH")
        if header is None:
            return None
        match = _ETAG.match(header)
        if not match:
            raise ApiError(
                status_code=400,
                code="invalid_if_match",
                message=_(
                    "If-Match must hold the version of the result you are changing, for "
                    'example If-Match: "3" (the ETag of the result you read).'
                ),
                details={"If-Match": [_("Not a version: %(value)s") % {"value": header[:40]}]},
            )
        self.request.api_if_match = int(match.group(1))  # type: ignore[attr-defined]
        return int(match.group(1))
