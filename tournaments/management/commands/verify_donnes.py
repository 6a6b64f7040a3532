"""`manage.py verify_donnes <tournament>`: regenerate the donnes from the revealed seed and
confirm they are those that were played. Exit status 1 when anything differs."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Tournament
from tournaments.services.preparation import PreparationError, tournament_verify


class Command(BaseCommand):
    help = "Check a tournament's donnes against its revealed seed and public commitment."

    def add_arguments(self, parser) -> None:
        parser.add_argument("tournament", help="tournament id")
        parser.add_argument("--seed", help="verify with this seed (before it is revealed)")

    def handle(self, *args, tournament: str, seed: str | None = None, **options) -> None:
        try:
            row = Tournament.objects.select_related("club").get(pk=int(tournament))
        except (ValueError, Tournament.DoesNotExist) as err:
            raise CommandError(f"No tournament with id {tournament!r}.") from err
        try:
            report = tournament_verify(tournament=row, seed=seed)
        except PreparationError as err:
            raise CommandError(str(err)) from err
        self.stdout.write(f"{row} — identity {row.identity}")
        self.stdout.write(f"commitment {row.commitment}")
        self.stdout.write(report.summary())
        if report.ok:
            self.stdout.write(self.style.SUCCESS(f"OK: {report.checked} donnes verified."))
            return
        self.stdout.write(self.style.ERROR("MISMATCH: the donnes played are not those committed."))
        sys.exit(1)
