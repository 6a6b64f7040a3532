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
