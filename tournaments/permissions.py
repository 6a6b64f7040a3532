"""Who may do what, per tournament. Every screen and the API ask these functions.

Organisers of the club and arbiters of the tournament change it; registered players read it
while it runs (everyone, when it is public during play); strangers see only what is published
(and the tournament's public page).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Exists, OuterRef, Q, Value

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
    from django.db.models import QuerySet

    from .models import Club, Player, Tournament

    AnyUser = AbstractBaseUser | AnonymousUser


def with_roles(queryset: QuerySet[Tournament], user: AnyUser) -> QuerySet[Any]:
    """The tournaments with ``user``'s roles in them (arbiter, organiser of the club) read in
    the same query, so the checks below ask the database nothing more for these rows: an API
    write checks them twice (the view, then the service) and must stay within a few queries.
    """
    if not user.is_authenticated:
        return queryset
    from .models import Club, Tournament

    arbiters = Tournament.arbiters.through.objects.filter(
        tournament_id=OuterRef("pk"), user_id=user.pk
    )
    organisers = Club.organisers.through.objects.filter(
        club_id=OuterRef("club_id"), user_id=user.pk
    )
    return queryset.annotate(
        roles_user_id=Value(user.pk),
        roles_arbiter=Exists(arbiters),
        roles_organiser=Exists(organisers),
    )


def tournament_with_roles(pk: int, user: AnyUser) -> Tournament | None:
    """The tournament (with its club) and ``user``'s roles in it, as `with_roles` reads them,
    in one plain query: the API reads it on every request, where building the queryset cost
    more than running it. None when there is no such tournament."""
    from .sql import run, tournament_roles_statement

    signed_in = bool(user.is_authenticated)
    sql = tournament_roles_statement(with_user=signed_in)
    params = [user.pk, user.pk, pk] if signed_in else [pk]
    rows = run(sql, params).rows
    if not rows:
        return None
    return tournament_from_row(rows[0], 0, user if signed_in else None)


def tournament_from_row(row: Any, start: int, user: AnyUser | None) -> Tournament | None:
    """The tournament, its club and (with ``user``) his two roles, as the columns of
    `tournaments.sql.tournament_roles_statement` (or ``token_statement``) hold them from
    ``row[start]`` on; None when the
    tournament's columns are empty (a LEFT JOIN that found none)."""
    from .models import Club, Tournament
    from .sql import columns

    t, c = columns(Tournament), columns(Club)
    if row[start + t.attnames.index("id")] is None:
        return None
    tournament = t.load(row, start)
    Tournament._meta.get_field("club").set_cached_value(tournament, c.load(row, start + t.width))
    if user is not None:
        at = start + t.width + c.width
        tournament.roles_user_id = user.pk
        tournament.roles_arbiter = bool(row[at])
        tournament.roles_organiser = bool(row[at + 1])
    return tournament


def _known_role(tournament: Tournament, user: AnyUser, role: str) -> bool | None:
    """The role read by `with_roles` for this user, or None when it was not read."""
    if getattr(tournament, "roles_user_id", None) != user.pk:
        return None
    return bool(getattr(tournament, role))


def is_club_organiser(user: AnyUser, club: Club) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return club.organisers.filter(pk=user.pk).exists()


def is_arbiter(user: AnyUser, tournament: Tournament) -> bool:
    if not user.is_authenticated:
        return False
    known = _known_role(tournament, user, "roles_arbiter")
    if known is not None:
        return known
    return tournament.arbiters.filter(pk=user.pk).exists()


def can_manage_tournament(user: AnyUser, tournament: Tournament) -> bool:
    """Organisers of the club and the tournament's arbiters prepare and run it."""
    if is_arbiter(user, tournament):
        return True
    if user.is_authenticated and not user.is_superuser:
        known = _known_role(tournament, user, "roles_organiser")
        if known is not None:
            return known
    return is_club_organiser(user, tournament.club)


def can_write_results(user: AnyUser, tournament: Tournament) -> bool:
    """Only the tournament's arbiters and the club's organisers record results."""
    return can_manage_tournament(user, tournament)


def is_registered_player(user: AnyUser, tournament: Tournament) -> bool:
    if not user.is_authenticated:
        return False
    return tournament.registrations.filter(player__user_id=user.pk).exists()


def can_see_tournament(user: AnyUser, tournament: Tournament) -> bool:
    """The public page (name, date, venue, commitment) exists once registration opens."""
    return tournament.status != tournament.Status.DRAFT or can_manage_tournament(user, tournament)


def is_public_during_play(tournament: Tournament) -> bool:
    """The room reads the live ranking and the seating without an account (a tournament
    setting, on by default) while the tournament runs and until it is published."""
    status = tournament.Status
    return tournament.public_during_play and tournament.status in (status.RUNNING, status.FINISHED)


def can_see_seating(user: AnyUser, tournament: Tournament) -> bool:
    """ "Où suis-je assis ?": who sits where, round by round, once the tournament runs."""
    status = tournament.Status
    if can_manage_tournament(user, tournament):
        return tournament.status != status.DRAFT
    if tournament.status not in (status.RUNNING, status.FINISHED, status.PUBLISHED):
        return False
    return is_public_during_play(tournament) or is_registered_player(user, tournament)


def results_are_public(tournament: Tournament) -> bool:
    """Anyone may read the rankings: published, or public during play (see can_see_results);
    needs no user, so a ranking poll can be answered before the session is read."""
    return tournament.status == tournament.Status.PUBLISHED or is_public_during_play(tournament)


def can_see_results(user: AnyUser, tournament: Tournament) -> bool:
    """Rankings and score cards: public once published, players of the tournament meanwhile
    (anyone, when the tournament is public during play). Travellers of donnes not yet played
    everywhere and other players' lines of such donnes stay hidden all the same (the
    selectors hide them from whoever does not manage the tournament)."""
    status = tournament.Status
    if results_are_public(tournament):
        return True
    if can_manage_tournament(user, tournament):
        return True
    return tournament.status in (status.RUNNING, status.FINISHED) and is_registered_player(
        user, tournament
    )


def can_see_player(user: AnyUser, player: Player) -> bool:
    """A player's own pages and answers (his history, his reports, his rating, his
    licence): the player himself, the organisers and arbiters of his club; one query at
    most."""
    if not user.is_authenticated:
        return False
    if user.is_superuser or (player.user_id is not None and player.user_id == user.pk):
        return True
    from .models import Club

    staff = Q(organisers__pk=user.pk) | Q(arbiters__pk=user.pk)
    return Club.objects.filter(staff, pk=player.club_id).exists()


# --- licences ---------------------------------------------------------------------------------


def _is_staff(user: AnyUser) -> bool:
    return bool(user.is_authenticated and (user.is_staff or user.is_superuser))


def can_see_licence(user: AnyUser, player: Player) -> bool:
    """A player's licence (issue 35: never to the public): the player himself, the site's
    staff, the organisers and arbiters of his club (`can_see_player`) and those of a
    tournament he is registered in; two queries at most."""
    if not user.is_authenticated:
        return False
    if _is_staff(user) or can_see_player(user, player):
        return True
    from .models import Registration

    organiser = Q(tournament__club__organisers__pk=user.pk)
    arbiter = Q(tournament__arbiters__pk=user.pk)
    return Registration.objects.filter(organiser | arbiter, player_id=player.pk).exists()


@dataclass(frozen=True)
class LicenceReader:
    """Whose licences a user may read, decided once for a page or an answer that lists many
    players (no query per player): all of them for the staff and, in a tournament's lists,
    for those who manage it (`can_manage_tournament`); else his own and those of the clubs he
    organises or arbitrates. Anonymous readers: none. Where a single player is shown,
    `can_see_licence` is exact (a tournament of another club he played in)."""

    user_id: int | None
    everyone: bool
    clubs: frozenset[int]

    @classmethod
    def of(cls, user: AnyUser, tournament: Tournament | None = None) -> LicenceReader:
        """The reader for `user` (one query for a signed-in user, two with `tournament`)."""
        if not user.is_authenticated:
            return cls(None, False, frozenset())
        if _is_staff(user) or (tournament is not None and can_manage_tournament(user, tournament)):
            return cls(user.pk, True, frozenset())
        from .models import Club

        staff = Q(organisers__pk=user.pk) | Q(arbiters__pk=user.pk)
        clubs = frozenset(Club.objects.filter(staff).values_list("pk", flat=True))
        return cls(user.pk, False, clubs)

    @property
    def searches_licences(self) -> bool:
        """Whether a search may match the start of a licence: only for a reader who reads
        licences beyond his own (a match would tell a stranger whose licence it is)."""
        return self.everyone or bool(self.clubs)

    def shows(self, player: Player) -> bool:
        return (
            self.everyone
            or (self.user_id is not None and player.user_id == self.user_id)
            or player.club_id in self.clubs
        )

    def licence(self, player: Player) -> str | None:
        """The player's licence, or None for this reader."""
        return player.licence if self.shows(player) else None
