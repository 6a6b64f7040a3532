"""How the API answers the tournaments' domain errors, registered with the kit's handler
(``tarot_club.kit.api.errors``) by ``register()``, which TournamentsConfig.ready() calls.

Order matters: the kit tries the mappings in registration order and the first matching class
answers, so a subclass comes before its base (PublishNeedsConfirmation before TournamentError,
RegistrationsRefused before RegistrationError)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from tarot_club.kit.api.errors import ApiError, invalid, refused, register_error_mapping
from tournaments.services.calls import CallAlreadyRuled
from tournaments.services.claims import ClaimAlreadySettled
from tournaments.services.preparation import PreparationError
from tournaments.services.registration import RegistrationError, RegistrationsRefused
from tournaments.services.results import ResultConflict, ResultInvalid, ResultNeedsConfirmation
from tournaments.services.rounds import RoundOpenNeedsConfirmation
from tournaments.services.tournaments import PublishNeedsConfirmation, TournamentError

from .serializers import ResultSerializer


def publish_needs_confirmation(exc: PublishNeedsConfirmation, request: Any) -> ApiError:
    """400: publishing (or finishing) with results missing or rounds open needs a confirm."""
    extra: dict[str, Any] = {"missing": [{"table": t, "donne": d} for t, d in exc.missing]}
    if hasattr(exc, "open_rounds"):
        extra["open_rounds"] = list(exc.open_rounds)
    return ApiError(
        status_code=400,
        code="needs_confirmation",
        message=exc.message,
        details={"confirm_missing": [exc.message]},
        extra=extra,
    )


def round_open_needs_confirmation(exc: RoundOpenNeedsConfirmation, request: Any) -> ApiError:
    """400: opening a round while others are open needs a confirm."""
    return ApiError(
        status_code=400,
        code="needs_confirmation",
        message=exc.message,
        details={"confirm_open": [exc.message]},
        extra={"open_rounds": list(exc.open_rounds)},
    )


def registrations_refused(exc: RegistrationsRefused, request: Any) -> ApiError:
    """400 with each refused player and why."""
    return ApiError(
        status_code=400,
        code="refused",
        message=exc.message,
        details={"players": [f"{name}: {reason}" for _pk, name, reason in exc.refused]},
        extra={
            "refused": [
                {"player": pk, "name": name, "reason": reason} for pk, name, reason in exc.refused
            ]
        },
    )


def result_needs_confirmation(exc: ResultNeedsConfirmation, request: Any) -> ApiError:
    """422: a possible but unlikely result, with the warnings to confirm."""
    return ApiError(
        status_code=422,
        code="needs_confirmation",
        message=_(
            "This result is possible but unlikely. Check it, then send it again with the "
            "codes of the warnings you confirm in the 'confirm' list."
        ),
        details={"confirm": list(exc.warnings.values())},
        extra={"warnings": dict(exc.warnings)},
    )


def result_conflict(exc: ResultConflict, request: Any) -> ApiError:
    """409 (412 when the request sent If-Match) with the current version of the result."""
    precondition = getattr(request, "api_if_match", None) is not None
    current = exc.current
    return ApiError(
        status_code=412 if precondition else 409,
        code="precondition_failed" if precondition else "conflict",
        message=str(exc),
        extra={"version": current.version, "current": ResultSerializer(current).data},
        headers={"ETag": f'"{current.version}"'},
    )


def call_already_ruled(exc: CallAlreadyRuled, request: Any) -> ApiError:
    """409: the call was ruled already; nothing was changed."""
    return ApiError(status_code=409, code="conflict", message=str(exc), details=dict(exc.errors))


def claim_already_settled(exc: ClaimAlreadySettled, request: Any) -> ApiError:
    """409: the claim was settled before; nothing changed."""
    return ApiError(
        status_code=409,
        code="conflict",
        message=str(exc),
        extra={"state": exc.claim.state},
    )


def result_invalid(exc: ResultInvalid, request: Any) -> ApiError:
    """400 with the per-field messages the screens show."""
    return invalid(exc.errors)


def state_refused(exc: Exception, request: Any) -> ApiError:
    """400 for a change the tournament's state refuses."""
    return refused(str(exc))


def register() -> None:
    """Register the tournaments' domain errors with the kit's handler (idempotent)."""
    register_error_mapping(PublishNeedsConfirmation, publish_needs_confirmation)
    register_error_mapping(RoundOpenNeedsConfirmation, round_open_needs_confirmation)
    register_error_mapping(RegistrationsRefused, registrations_refused)
    register_error_mapping(ResultNeedsConfirmation, result_needs_confirmation)
    register_error_mapping(ResultConflict, result_conflict)
    register_error_mapping(CallAlreadyRuled, call_already_ruled)
    register_error_mapping(ClaimAlreadySettled, claim_already_settled)
    register_error_mapping(ResultInvalid, result_invalid)
    for refused_class in (TournamentError, RegistrationError, PreparationError):
        register_error_mapping(refused_class, state_refused)
