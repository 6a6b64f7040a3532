"""Who may do what, per tournament. Every screen and the API ask these functions.

Organisers of the club and arbiters of the tournament change it; registered players read it
while it runs; strangers see only what is published (and the tournament's public page).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

    from .models import Club, Tournament

    AnyUser = AbstractBaseUser | AnonymousUser


def is_club_organiser(user: AnyUser, club: Club) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return club.organisers.filter(pk=user.pk).exists()


def is_arbiter(user: AnyUser, tournament: Tournament) -> bool:
    if not user.is_authenticated:
        return False
    return tournament.arbiters.filter(pk=user.pk).exists()


def can_manage_tournament(user: AnyUser, tournament: Tournament) -> bool:
    """Organisers of the club and the tournament's arbiters prepare and run it."""
    return is_arbiter(user, tournament) or is_club_organiser(user, tournament.club)


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


def can_see_results(user: AnyUser, tournament: Tournament) -> bool:
    """Rankings and score cards: public once published, players of the tournament meanwhile."""
    status = tournament.Status
    if tournament.status == status.PUBLISHED:
        return True
    if can_manage_tournament(user, tournament):
        return True
    return tournament.status in (status.RUNNING, status.FINISHED) and is_registered_player(
        user, tournament
    )
