"""`tournament_with_roles`, the API's one plain query for the tournament, its club and the
caller's roles, reads what the ORM's `with_roles` reads, for every kind of caller."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from tests.fixtures.tournaments import stage_tournament
from tournaments.models import Tournament
from tournaments.permissions import (
    can_manage_tournament,
    is_arbiter,
    tournament_with_roles,
    with_roles,
)

pytestmark = pytest.mark.django_db


def fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_same_rows_and_roles_as_the_orm(personas, django_assert_num_queries) -> None:
    t = stage_tournament(personas=personas)
    callers = [
        personas.organiser,
        personas.arbiter,
        personas.other_arbiter,
        personas.player_user,
        AnonymousUser(),
    ]
    roles = set()
    for user in callers:
        with django_assert_num_queries(1):
            fast = tournament_with_roles(t.pk, user)
        orm = with_roles(Tournament.objects.select_related("club"), user).get(pk=t.pk)
        assert fast is not None
        assert fields(fast) == fields(orm) and fields(fast.club) == fields(orm.club)
        for role in ("roles_user_id", "roles_arbiter", "roles_organiser"):
            assert getattr(fast, role, None) == getattr(orm, role, None), (user, role)
        with django_assert_num_queries(0):  # the roles are read: no query more
            answer = (is_arbiter(user, fast), can_manage_tournament(user, fast))
        assert answer == (is_arbiter(user, orm), can_manage_tournament(user, orm))
        roles.add(answer)
    assert roles == {(False, True), (True, True), (False, False)}  # every kind met


def test_unknown_tournament(personas) -> None:
    assert tournament_with_roles(999_999, personas.arbiter) is None
    assert tournament_with_roles(999_999, AnonymousUser()) is None


class _View:
    """What the token's authentication asks of a view under /tournaments/<id>/."""

    preloaded = None

    def __init__(self, pk: int) -> None:
        self.pk = pk

    def preload_tournament(self) -> int:
        return self.pk


def test_the_token_reads_the_same_tournament_and_roles(personas, django_assert_num_queries):
    """Under /tournaments/<id>/ the token's one statement also reads the tournament, its
    club and the user's roles: the same as `tournament_with_roles`; none for an unknown id;
    the same refusals as without a tournament (unknown token, inactive user)."""
    from rest_framework import exceptions
    from rest_framework.authtoken.models import Token

    from tournaments.api.tokens import TokenAuthentication

    t = stage_tournament(personas=personas)
    users = [personas.organiser, personas.arbiter, personas.other_arbiter, personas.stranger]
    roles = set()
    for user in users:
        key = Token.objects.create(user=user).key
        auth, view = TokenAuthentication(), _View(t.pk)
        auth._view = view
        with django_assert_num_queries(1):
            got_user, token = auth.authenticate_credentials(key)
        assert got_user.pk == user.pk and token.key == key
        pk, user_pk, fast = view.preloaded
        slow = tournament_with_roles(t.pk, user)
        assert (pk, user_pk) == (t.pk, user.pk) and fast is not None
        assert fields(fast) == fields(slow) and fields(fast.club) == fields(slow.club)
        assert (fast.roles_arbiter, fast.roles_organiser) == (
            slow.roles_arbiter,
            slow.roles_organiser,
        )
        roles.add((fast.roles_arbiter, fast.roles_organiser))
        auth._view = view = _View(999_999)
        auth.authenticate_credentials(key)
        assert view.preloaded == (999_999, user.pk, None)
    assert roles == {(False, True), (True, False), (False, False)}
    auth._view = _View(t.pk)
    with pytest.raises(exceptions.AuthenticationFailed):
        auth.authenticate_credentials("0" * 40)
    personas.arbiter.is_active = False
    personas.arbiter.save(update_fields=["is_active"])
    with pytest.raises(exceptions.AuthenticationFailed):
        auth.authenticate_credentials(Token.objects.get(user=personas.arbiter).key)
