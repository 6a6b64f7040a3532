"""The API views under /tournaments/<id>/: the kit's base view (``tarot_club.kit.api.views``)
plus the tournament from the URL with its access rule, and the filters of their lists."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.utils.functional import cached_property
from rest_framework.request import Request

from tarot_club.kit.api.views import ApiView
from tournaments.models import Tournament
from tournaments.params import id_param
from tournaments.permissions import tournament_with_roles

from .. import permissions as api_permissions


def filter_by_params(qs: QuerySet[Any], request: Request, fields: dict[str, str]) -> QuerySet[Any]:
    """The queryset filtered by the numeric query parameters present (``{"table":
    "table__number"}``: ``?table=3`` keeps table 3); a value that is not a number of at most
    nine digits matches nothing."""
    for param, field in fields.items():
        value = request.query_params.get(param, "")
        if value:
            number = id_param(value)
            qs = qs.filter(**{field: number}) if number is not None else qs.none()
    return qs


class TournamentView(ApiView):
    """A view under /tournaments/<id>/: loads the tournament and checks the rule of the
    method (``read_rule`` for GET, ``write_rule`` for the others)."""

    read_rule: api_permissions.Rule = api_permissions.SEE_TOURNAMENT
    write_rule: api_permissions.Rule = api_permissions.MANAGE

    @cached_property
    def tournament(self) -> Tournament:
        # The caller's roles come with the row: the access rule (and the service's own check
        # of a write) then cost no further query.
        try:
            pk = int(self.kwargs["tournament"])
        except (TypeError, ValueError):
            raise Http404 from None
        user = self.request.user
        tournament = tournament_with_roles(pk, user)
        if tournament is None:
            raise Http404
        safe = self.request.method in ("GET", "HEAD", "OPTIONS")
        api_permissions.require(user, tournament, self.read_rule if safe else self.write_rule)
        return tournament

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        self.tournament  # noqa: B018 — check access before anything else

    @cached_property
    def can_manage(self) -> bool:
        return api_permissions.MANAGE.check(self.request.user, self.tournament)
