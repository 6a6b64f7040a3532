"""Tokens: obtained with a user name and password (throttled), revoked by their owner; and
who the caller is."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.authtoken.models import Token
from rest_framework.request import Request
from rest_framework.response import Response

from tarot_club.kit.api.access import require_login
from tarot_club.kit.api.errors import ApiError
from tarot_club.kit.api.views import ApiView
from tarot_club.kit.throttling import LOGIN_THROTTLES, WriteRateThrottle, login_slow_down

from ..schema import errors
from ..serializers import MeSerializer, TokenRequestSerializer, TokenSerializer


class TokenView(ApiView):
    """POST: a token for a user name and password; DELETE: revoke the caller's token."""

    throttle_classes = [*LOGIN_THROTTLES]
    serializer_class = TokenSerializer
    anonymous_writes = True

    def get_throttles(self) -> list[Any]:
        if self.request.method == "POST":
            return [t() for t in LOGIN_THROTTLES]
        return [WriteRateThrottle()]

    @extend_schema(
        operation_id="token_obtain",
        summary="Get your API token",
        description="Exchange a user name and password for your token (the same one the "
        "account page shows). Send it afterwards as `Authorization: Token <key>`. Attempts and "
        "failures are throttled per address and user name, and per address (429 with "
        "Retry-After); after many failures on a user name from anywhere, its attempts wait "
        "a few seconds.",
        request=TokenRequestSerializer,
        responses={200: TokenSerializer, **errors(400, 401, 429)},
        auth=[],
        tags=["authentication"],
        examples=[
            OpenApiExample(
                "Credentials",
                value={"username": "arbitre", "password": "correct-horse-battery"},
                request_only=True,
            ),
            OpenApiExample(
                "Token",
                value={
                    "token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
                    "created": "2026-12-05T09:12:00+01:00",
                },
                response_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> Response:
        data = self.valid(TokenRequestSerializer).validated_data
        login_slow_down(request)
        user = authenticate(request._request, username=data["username"], password=data["password"])
        if user is None or not user.is_active:
            message = _("Wrong user name or password.")
            raise ApiError(
                status_code=400,
                code="invalid_credentials",
                message=message,
                details={"__all__": [message]},
            )
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key, "created": token.created})

    @extend_schema(
        operation_id="token_revoke",
        summary="Revoke your API token",
        description="Deletes the caller's token: clients using it get 401 from now on. A new "
        "one can be created from the account page or with POST.",
        request=None,
        responses={204: None, **errors(400, 401, 429)},
        tags=["authentication"],
    )
    def delete(self, request: Request) -> Response:
        require_login(request.user)
        Token.objects.filter(user=request.user).delete()
        return Response(status=204)


class MeView(ApiView):
    serializer_class = MeSerializer

    @extend_schema(
        operation_id="me",
        summary="Who you are",
        description="The authenticated user (or anonymous), their player, the clubs they "
        "organise and the tournaments they arbitrate.",
        responses={200: MeSerializer, **errors(401)},
        tags=["authentication"],
        examples=[
            OpenApiExample(
                "An arbiter",
                value={
                    "username": "arbitre",
                    "authenticated": True,
                    "player": None,
                    "organised_clubs": [],
                    "arbitrated_tournaments": [3],
                    "has_token": True,
                },
            )
        ],
    )
    def get(self, request: Request) -> Response:
        user = request.user
        if not user.is_authenticated:
            data: dict[str, Any] = {
                "username": None,
                "authenticated": False,
                "player": None,
                "organised_clubs": [],
                "arbitrated_tournaments": [],
                "has_token": False,
            }
        else:
            player = getattr(user, "player", None)
            data = {
                "username": user.get_username(),
                "authenticated": True,
                "player": player.pk if player is not None else None,
                "organised_clubs": sorted(user.organised_clubs.values_list("pk", flat=True)),
                "arbitrated_tournaments": sorted(
                    user.arbitrated_tournaments.values_list("pk", flat=True)
                ),
                "has_token": Token.objects.filter(user=user).exists(),
            }
        return Response(data)
