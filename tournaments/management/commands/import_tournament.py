"""Restore a tournament from its archive (docs/archive.md), here or on another instance."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from scoring.rankings.services import ranking_recompute
from tournaments.services.archive import ArchiveError, tournament_import


class Command(BaseCommand):
    help = "Import a tournament archive written by export_tournament (a new tournament)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("archive", help="the JSON file written by export_tournament")

    def handle(self, *args, archive: str, **options) -> None:
        try:
            with open(archive, encoding="utf-8") as stream:
                data = json.load(stream)
        except (OSError, ValueError) as exc:
            raise CommandError(f"Cannot read {archive}: {exc}") from exc
        try:
            tournament = tournament_import(data=data)
        except ArchiveError as exc:
            raise CommandError(f"Nothing was imported: {exc}") from exc
        ranking_recompute(tournament_id=tournament.pk)
        self.stdout.write(f"Imported as tournament {tournament.pk}: {tournament}.")
