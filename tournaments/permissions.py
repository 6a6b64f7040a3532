"""Who may do what, per tournament. Every screen and the API ask these functions.

Organisers of the club and arbiters of the tournament change it; registered players read it
while it runs (everyone, when it is public during play); strangers see only what is published
(and the tournament's public page).
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
