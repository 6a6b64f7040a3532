"""The plain versions of the write path's fast paths, for measuring what each earns
(`bench_api_writes.py --in-process N --plain NAME[,NAME]`; docs/BENCHMARKS.md, "Fast paths
and what they earn"). Each replaces one fast path of tournaments/sql.py and its callers by
what the ORM or the constructor does; the answers stay the same (each pair is tied by a test
in tests/tournaments/test_sql.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any


def _cell() -> list[tuple[Any, str, Any]]:
    """The API's cell read in plain SQL -> the ORM's (`cell`, `result_context`)."""
    from tournaments.api.views import results as views

    return [(views, "result_cell", lambda **kwargs: None)]


def _roles() -> list[tuple[Any, str, Any]]:
    """The tournament with the caller's roles in plain SQL -> the ORM's (`with_roles`)."""
    from tournaments.api.views import base
    from tournaments.models import Tournament
    from tournaments.permissions import with_roles

    def tournament_with_roles(pk: int, user: Any) -> Any:
        return with_roles(Tournament.objects.select_related("club").filter(pk=pk), user).first()

    return [(base, "tournament_with_roles", tournament_with_roles)]


def _snapshot() -> list[tuple[Any, str, Any]]:
    """The snapshot's INSERT bound by the server, its lines as one text[] -> the ORM's
    ``save(force_insert=True)`` in a savepoint (its JSON as the field gives it)."""
    from django.db import IntegrityError, transaction

    from scoring.rankings import services

    def snapshot_insert(snapshot: Any, *, dumps: Any) -> bool:
        try:
            with transaction.atomic():
                snapshot.save(force_insert=True)
        except IntegrityError:
            return False
        return True

    return [(services, "snapshot_insert", snapshot_insert)]


PLAIN_RANKINGS: dict[str, Callable[[], list[tuple[Any, str, Any]]]] = {
    "snapshot": _snapshot,
}

PLAIN: dict[str, Callable[[], list[tuple[Any, str, Any]]]] = {
    "cell": _cell,
    "roles": _roles,
    **PLAIN_RANKINGS,
}


@contextmanager
def plain(names: Sequence[str]) -> Iterator[None]:
    """The fast paths ``names`` replaced by their plain versions while inside."""
    with ExitStack() as stack:
        for name in names:
            for owner, attr, value in PLAIN[name]() if name in PLAIN else _joined(name):
                old = owner.__dict__[attr] if isinstance(owner, type) else getattr(owner, attr)
                setattr(owner, attr, value)
                stack.callback(setattr, owner, attr, old)
        yield


def _joined(name: str) -> list[tuple[Any, str, Any]]:
    """The replacements of ``a+b``: those of a, then of b."""
    return [patch for part in name.split("+") for patch in PLAIN[part]()]
