"""Write a tournament's archive (docs/archive.md) to a file or to standard output."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Tournament
from tournaments.services.archive import ENCODER, tournament_export


class Command(BaseCommand):
    help = "Export a tournament as a versioned JSON archive (to keep it or move it)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("tournament_id", type=int)
        parser.add_argument("--output", "-o", help="file to write (default: standard output)")

    def handle(self, *args, tournament_id: int, output: str | None = None, **options) -> None:
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            raise CommandError(f"There is no tournament {tournament_id}.")
        text = json.dumps(tournament_export(tournament=tournament), cls=ENCODER, indent=1)
        if output:
            with open(output, "w", encoding="utf-8") as stream:
                stream.write(text + "\n")
            self.stderr.write(f"{tournament} written to {output}.")
        else:
            self.stdout.write(text)
