"""The API's access rules: each one is a function of tournaments.permissions, the module the
screens ask too, so a reader or writer has the same rights in both.

An anonymous caller refused gets 401 (log in, or send a token); a logged-in one gets 403.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy as _

from tarot_club.kit.api.access import deny, require_login
from tournaments import permissions as rules

if TYPE_CHECKING:
    from tournaments.models import Club, Tournament


@dataclass(frozen=True)
class Rule:
    """A named check on (user, tournament) and what a refused caller is told."""

    name: str
    check: Callable[[Any, Tournament], bool]
    message: Any


SEE_TOURNAMENT = Rule(
    "see_tournament",
    rules.can_see_tournament,
    _("This tournament is still a draft: only its organisers and arbiters can see it."),
)
SEE_RESULTS = Rule(
    "see_results",
    rules.can_see_results,
    _(
        "The results of this tournament are shown to its registered players while it runs, "
        "and to everyone once it is published."
    ),
)
MANAGE = Rule(
    "manage",
    rules.can_manage_tournament,
    _("Only the club's organisers and the tournament's arbiters may do this."),
)
WRITE_RESULTS = Rule(
    "write_results",
    rules.can_write_results,
    _("Only the tournament's arbiters and the club's organisers may change results."),
)


def require(user: Any, tournament: Tournament, rule: Rule) -> None:
    if not rule.check(user, tournament):
        raise deny(user, rule.message)


def require_club_organiser(user: Any, club: Club) -> None:
    if not rules.is_club_organiser(user, club):
        raise deny(user, _("Only the club's organisers may do this."))


def require_organiser_of_body_club(user: Any, body: Any) -> None:
    """Who may create in a club, before the body is validated: its errors (a user name or a
    licence that does not exist, a club that does not exist) would tell a stranger what
    exists. The club named in the body must be one the user organises; without a club he
    must organise one (the body's validation then says what is missing)."""
    from tournaments.models import Club
    from tournaments.params import id_param

    require_login(user)
    club_id = body.get("club") if isinstance(body, dict) else None
    if isinstance(club_id, int) and not isinstance(club_id, bool):
        club_id = str(club_id)
    club_id = id_param(club_id) if isinstance(club_id, str) else None
    club = Club.objects.filter(pk=club_id).first() if club_id is not None else None
    if club is not None:
        require_club_organiser(user, club)
    elif not Club.objects.filter(organisers=user).exists():
        raise deny(user, _("Only the club's organisers may do this."))
