"""Where a user lands after logging in: where he works today.

An arbiter of a tournament played today goes to its dashboard; an organiser to his club's
tournaments; a player to his tournaments; anyone else to the home page.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone

from ..models import Club, Player, Tournament

TODAY_STATUSES = (Tournament.Status.REGISTRATION, Tournament.Status.RUNNING)


def landing_url(*, user: Any) -> str:
    """The page to open after login for `user` (an authenticated user)."""
    today = timezone.localdate()
    running_today = (
        Tournament.objects.filter(arbiters=user, date=today, status__in=TODAY_STATUSES)
        .order_by("-status", "pk")  # running before registration
        .values_list("pk", flat=True)
        .first()
    )
    if running_today is not None:
        return reverse("arbiter_dashboard", args=[running_today])
    if user.is_superuser or Club.objects.filter(organisers=user).exists():
        return reverse("organiser_home")
    player = Player.objects.filter(user=user).values_list("pk", flat=True).first()
    if player is not None:
        return reverse("player_detail", args=[player])
    if Tournament.objects.filter(arbiters=user).exists():
        return reverse("organiser_home")
    return reverse("home")
