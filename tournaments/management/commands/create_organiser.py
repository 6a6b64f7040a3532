"""`manage.py create_organiser NAME`: the site's owner opens the account of a first organiser,
the way in when the sign-up page is closed (SIGNUP_OPEN=0) or for someone who cannot use it.

The account has no password: the command prints a one-time link (at SITE_URL) where its owner
chooses his, logs in and creates his club under "Organisation" (/organiser/). The link stops
working once used or after PASSWORD_RESET_TIMEOUT seconds; run the command with --link to print
a new one for an account whose password is still not set.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from tournaments.services.clubs import club_account_link, organiser_account_create


class Command(BaseCommand):
    help = (
        "Open the account of a first organiser and print the one-time link where they choose "
        "their password; they then create their club."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("username", help="the user name they will log in with")
        parser.add_argument("--email", default="", help="their email address (optional)")
        parser.add_argument(
            "--link",
            action="store_true",
            help="print a new link for this existing account whose password is not set yet",
        )

    def handle(self, *args: Any, username: str, email: str, link: bool, **options: Any) -> None:
        if link:
            path = self._new_link(username)
        else:
            try:
                path = organiser_account_create(username=username, email=email).set_password_path
            except ValidationError as exc:
                problems = "; ".join(m for ms in exc.message_dict.values() for m in ms)
                raise CommandError(f"No account created: {problems}") from exc
            self.stdout.write(self.style.SUCCESS(f"Account {username.strip()} created."))
        self.stdout.write(
            "Give them this link: they open it to choose their password (it works once, "
            f"for {settings.PASSWORD_RESET_TIMEOUT // 86400} days), then log in and create "
            "their club under Organisation:"
        )
        self.stdout.write(f"  {settings.SITE_URL}{path}")

    def _new_link(self, username: str) -> str:
        user = get_user_model().objects.filter(username__iexact=username.strip()).first()
        if user is None:
            raise CommandError(f"No account is named {username!r}.")
        if user.has_usable_password():
            raise CommandError(
                f"{user.get_username()} has set a password already: they log in with it."
            )
        return club_account_link(user)
