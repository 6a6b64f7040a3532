"""Compile the .po files into .mo with Babel (no system gettext needed)."""

from __future__ import annotations

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile every locale/*/LC_MESSAGES/*.po into .mo when the .po is newer."
    requires_system_checks: list[str] = []

    def handle(self, *args, **options) -> None:
        for base in settings.LOCALE_PATHS:
            for po_path in sorted(Path(base).glob("*/LC_MESSAGES/*.po")):
                mo_path = po_path.with_suffix(".mo")
                if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
                    continue
                with po_path.open("rb") as po_file:
                    catalog = read_po(po_file, locale=po_path.parent.parent.name)
                with mo_path.open("wb") as mo_file:
                    write_mo(mo_file, catalog, use_fuzzy=False)
                self.stdout.write(f"compiled {mo_path.relative_to(settings.BASE_DIR)}")
