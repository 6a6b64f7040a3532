"""Clubs run by their organisers themselves: creating a club, and the accounts of its
organisers and arbiters.

Any signed-in user may create a club; he becomes its organiser. Only the club's organisers
create accounts for it: an organiser account organises the club, an arbiter account is one
of the club's arbiters (listed with its accounts at once) and may be named arbiter of the
club's tournaments (at once for the ones chosen, later in a tournament's form). A new account has no password: it comes with a one-time link, printed
or sent by the organiser, where its owner chooses his password. The link stops working once
used (Django's password-reset token: it depends on the password and the last login) or
after ``PASSWORD_RESET_TIMEOUT`` seconds; the organiser can then make a new one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from ..models import Club, Tournament
from ..permissions import is_club_organiser

__all__ = [
    "ROLES",
    "NewAccount",
    "club_account_create",
    "club_account_link",
    "club_create",
    "club_staff",
    "club_staff_check",
    "club_staff_named",
    "organiser_account_create",
]

ORGANISER = "organiser"
ARBITER = "arbiter"
ROLES = (ORGANISER, ARBITER)


@dataclass(frozen=True)
class NewAccount:
    """An account made for a club and the path of its one-time link to set the password."""

    user: Any
    role: str
    set_password_path: str


def club_create(*, user: Any, name: str, federation_number: str, city: str = "") -> Club:
    """Create a club organised by ``user`` (any signed-in user). ValidationError (by field)
    for a bad or taken federation number or a bad name."""
    if not user.is_authenticated:
        raise PermissionDenied(_("Log in to create a club."))
    club = Club(name=(name or "").strip(), federation_number=federation_number, city=city or "")
    club.full_clean()
    with transaction.atomic():
        club.save()
        club.organisers.add(user)
    return club


def club_account_link(user: Any) -> str:
    """The path of the one-time link where ``user`` sets his password."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    token = default_token_generator.make_token(user)
    return reverse("account_set_password", args=[uid, token])


def club_account_create(
    *,
    club: Club,
    by: Any,
    username: str,
    role: str,
    first_name: str = "",
    last_name: str = "",
    tournaments: Iterable[Tournament] = (),
) -> NewAccount:
    """Create an organiser or arbiter account for ``club`` (only its organisers may), with no
    password and a one-time link to set it; an arbiter is named arbiter of ``tournaments``
    (of this club). ValidationError (by field) for a bad or taken user name, a role or a
    tournament not offered."""
    if not is_club_organiser(by, club):
        raise PermissionDenied(_("Only the club's organisers may create accounts for it."))
    User = get_user_model()
    errors: dict[str, list[str]] = {}
    if role not in ROLES:
        errors["role"] = [_("Choose the role: organiser or arbiter.")]
    chosen = list(tournaments)
    if any(t.club_id != club.pk for t in chosen):
        errors["tournaments"] = [_("Choose tournaments of this club.")]
    if role == ORGANISER and chosen:
        errors["tournaments"] = [_("An organiser manages every tournament of the club already.")]
    account = User(username=(username or "").strip(), first_name=first_name, last_name=last_name)
    try:
        account.full_clean(exclude=["password"])
    except ValidationError as exc:
        for key, messages in exc.message_dict.items():
            errors.setdefault(key, []).extend(messages)
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        account.set_unusable_password()
        account.save()
        if role == ORGANISER:
            club.organisers.add(account)
        else:
            club.arbiters.add(account)  # one of the club's accounts from now on
        for tournament in chosen:
            tournament.arbiters.add(account)
    return NewAccount(account, role, club_account_link(account))


def organiser_account_create(*, username: str, email: str = "") -> NewAccount:
    """An account for a first organiser, made by the site's owner (manage.py
    create_organiser): no password yet, a one-time link to set it, no club (its owner creates
    theirs). ValidationError (by field) for a bad or taken user name or a bad email address."""
    User = get_user_model()
    account = User(username=(username or "").strip(), email=(email or "").strip())
    account.full_clean(exclude=["password"])
    if User.objects.filter(username__iexact=account.get_username()).exists():
        raise ValidationError({"username": [_("A user with that user name already exists.")]})
    account.set_unusable_password()
    account.save()
    return NewAccount(account, ORGANISER, club_account_link(account))


def club_staff(club: Club) -> Any:
    """The active accounts the club's tournaments may name arbiter: its organisers and its
    arbiters (made on the club's page), by user name. Nobody else: not another club's
    arbiter, not a player, not the site's administrator."""
    User = get_user_model()
    return (
        User.objects.filter(is_active=True)
        .filter(Q(organised_clubs=club) | Q(arbitrated_clubs=club))
        .distinct()
        .order_by("username")
    )


def _not_staff_error(names: Iterable[str]) -> ValidationError:
    listed = ", ".join(f"“{name}”" for name in names)
    return ValidationError(
        {
            "arbiters": [
                _(
                    "Not an organiser or arbiter of this club: %(names)s. Name only the club's "
                    "own organisers and arbiters (its page creates their accounts)."
                )
                % {"names": listed}
            ]
        }
    )


def club_staff_named(club: Club, usernames: Iterable[str], kept: Iterable[Any] = ()) -> list[Any]:
    """The club's staff (`club_staff`, or among ``kept``: a tournament's arbiters already
    named) with these user names, in the order given; a ValidationError on ``arbiters``
    names the others, the same whether such an account exists elsewhere or not (it tells
    nothing of other clubs' accounts)."""
    wanted = list(dict.fromkeys(usernames))
    found = {u.get_username(): u for u in kept}
    found.update({u.get_username(): u for u in club_staff(club).filter(username__in=wanted)})
    unknown = [name for name in wanted if name not in found]
    if unknown:
        raise _not_staff_error(unknown)
    return [found[name] for name in wanted]


def club_staff_check(club: Club, arbiters: Iterable[Any], kept: Iterable[Any] = ()) -> list[Any]:
    """``arbiters`` as a list, once each is the club's staff or among ``kept`` (the
    tournament's arbiters already named); else the ValidationError of `club_staff_named`."""
    chosen = list(arbiters)
    allowed = set(club_staff(club).values_list("pk", flat=True)) | {u.pk for u in kept}
    refused = [u.get_username() for u in chosen if u.pk not in allowed]
    if refused:
        raise _not_staff_error(refused)
    return chosen
