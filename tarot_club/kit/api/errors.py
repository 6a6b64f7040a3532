"""Every API error as one JSON shape: ``{"code", "message", "details": {field: [messages]}}``.

The services raise domain exceptions (ResultInvalid, ResultConflict, TournamentError, Django's
PermissionDenied...); this module turns each into the same shape with the right status, in
the language the request asked for (LocaleMiddleware has activated it). Some errors add keys:
``warnings`` (a confirmation is needed), ``current`` and ``version`` (a version conflict),
``retry_after`` (throttled).

The kit knows no app's exceptions: an app registers how to answer each of its own with
``register_error_mapping`` (tournaments does it in ``tournaments/api/errors.py``, loaded by
its AppConfig), and ``api_exception_handler`` asks those converters first, in the order they
were registered (the first whose class matches answers).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

logger = logging.getLogger(__name__)

NON_FIELD = "__all__"


class ApiError(exceptions.APIException):
    """An error with its code, translated message, per-field details and extra keys."""

    def __init__(
        self,
        *,
        status_code: int,
        code: str,
        message: str,
        details: Mapping[str, list[str]] | None = None,
        extra: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.status_code = status_code
        self.code = code
        self.message = str(message)
        self.details = {k: [str(m) for m in v] for k, v in (details or {}).items()}
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})
        super().__init__(detail=self.message, code=code)


def error_body(
    code: str,
    message: str,
    details: Mapping[str, list[str]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": str(message), "details": dict(details or {})}
    body.update(extra)
    return body


def flatten_details(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested validation errors as {"field" or "field.sub" or "field.0": [messages]}."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, Mapping):
        for key, value in detail.items():
            name = NON_FIELD if key in ("non_field_errors", NON_FIELD) else str(key)
            path = f"{prefix}.{name}" if prefix else name
            for k, v in flatten_details(value, path).items():
                out.setdefault(k, []).extend(v)
    elif isinstance(detail, list | tuple):
        if all(not isinstance(item, Mapping | list | tuple) for item in detail):
            out.setdefault(prefix or NON_FIELD, []).extend(str(item) for item in detail)
        else:
            for index, item in enumerate(detail):
                if not item:
                    continue
                path = f"{prefix}.{index}" if prefix else str(index)
                for k, v in flatten_details(item, path).items():
                    out.setdefault(k, []).extend(v)
    else:
        out.setdefault(prefix or NON_FIELD, []).append(str(detail))
    return out


def invalid(details: Mapping[str, list[str]]) -> ApiError:
    """400 with the services' per-field messages (the same the screens show)."""
    messages = [m for msgs in details.values() for m in msgs]
    message = (
        messages[0]
        if len(messages) == 1
        else _("Some values are not valid; the details say what to fix in each field.")
    )
    return ApiError(status_code=400, code="invalid", message=message, details=details)


def refused(message: str) -> ApiError:
    """400 for a change the tournament's state refuses (TournamentError and the like)."""
    return ApiError(
        status_code=400, code="refused", message=message, details={NON_FIELD: [message]}
    )


#: A converter turns a domain exception (and the request) into the API's error, or None to
#: let the handler answer as it would without it.
ErrorConverter = Callable[[Any, Any], "ApiError | None"]

#: (exception class, converter), in registration order: the first matching class answers.
_MAPPINGS: list[tuple[type[BaseException], ErrorConverter]] = []


def register_error_mapping(exc_class: type[BaseException], converter: ErrorConverter) -> None:
    """Answer ``exc_class`` (and its subclasses) with ``converter(exc, request)``. Mappings are
    tried in the order they were registered, so register a subclass before its base class.
    Registering the same (class, converter) pair again changes nothing."""
    if (exc_class, converter) not in _MAPPINGS:
        _MAPPINGS.append((exc_class, converter))


def from_registered(exc: BaseException, request: Any) -> ApiError | None:
    """The API error of a registered domain exception, or None when none of them matches."""
    for exc_class, converter in _MAPPINGS:
        if isinstance(exc, exc_class):
            return converter(exc, request)
    return None


def api_exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """REST_FRAMEWORK["EXCEPTION_HANDLER"]: the one JSON shape for every error."""
    request = context.get("request")
    converted = from_registered(exc, request)
    if converted is not None:
        exc = converted
    elif isinstance(exc, DjangoValidationError):
        if hasattr(exc, "error_dict"):
            details = {
                (NON_FIELD if k in ("__all__", "non_field_errors") else k): [str(m) for m in v]
                for k, v in exc.message_dict.items()
            }
        else:
            details = {NON_FIELD: [str(m) for m in exc.messages]}
        exc = invalid(details)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        message = str(exc) if exc.args else _("You do not have permission to do this.")
        exc = exceptions.PermissionDenied(message)

    if isinstance(exc, ApiError):
        set_rollback()
        body = error_body(exc.code, exc.message, exc.details, **exc.extra)
        return Response(body, status=exc.status_code, headers=exc.headers or None)
    if isinstance(exc, exceptions.APIException):
        set_rollback()
        headers: dict[str, str] = {}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
        extra: dict[str, Any] = {}
        if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
            headers["Retry-After"] = str(int(exc.wait))
            extra["retry_after"] = int(exc.wait)
        if isinstance(exc, exceptions.ValidationError):
            details = flatten_details(exc.detail)
            api = invalid(details)
            body = error_body(api.code, api.message, api.details)
        else:
            code = exc.get_codes() if not isinstance(exc.detail, dict | list) else None
            message = exc.detail if isinstance(exc.detail, str) else exc.default_detail
            body = error_body(str(code or exc.default_code), str(message), {}, **extra)
        return Response(body, status=exc.status_code, headers=headers or None)
    return None


def server_error_response(exc: BaseException) -> Response:
    """An unexpected failure, still as JSON (the details are in the server's log). The
    database not answering is 503 with Retry-After: nothing was saved, try again soon."""
    from django.db import InterfaceError, OperationalError

    if isinstance(exc, (OperationalError, InterfaceError)):
        logger.warning("API request failed, database unavailable: %s", exc)
        return Response(
            error_body(
                "unavailable",
                _("The service is briefly unavailable. Nothing was saved; try again shortly."),
            ),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": "5"},
        )
    logger.exception("API request failed", exc_info=exc)
    return Response(
        error_body(
            "server_error",
            _(
                "The server failed to answer this request. Try again; if it persists, tell the "
                "club's organiser."
            ),
        ),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )
