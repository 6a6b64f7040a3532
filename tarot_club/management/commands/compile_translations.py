"""Compile the .po files into .mo with Babel (no system gettext needed).

Each .mo is written beside its final name and renamed over it, so a process reading the
catalogues while another compiles them (a server starting, a second checkout's check) sees
the old file or the new one, never half of one; a write that fails leaves the old file and
no partial one."""

from __future__ import annotations

import os
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Compile every locale/*/LC_MESSAGES/*.po into .mo when the .po is newer."
    requires_system_checks: list[str] = []

    def handle(self, *args, **options) -> None:
        base_dir = Path(settings.BASE_DIR)
        for base in settings.LOCALE_PATHS:
            for po_path in sorted(Path(base).glob("*/LC_MESSAGES/*.po")):
                mo_path = po_path.with_suffix(".mo")
                if mo_path.exists() and mo_path.stat().st_mtime >= po_path.stat().st_mtime:
                    continue
                with po_path.open("rb") as po_file:
                    catalog = read_po(po_file, locale=po_path.parent.parent.name)
                partial = mo_path.with_name(f"{mo_path.name}.{os.getpid()}.partial")
                try:
                    with partial.open("wb") as mo_file:
                        write_mo(mo_file, catalog, use_fuzzy=False)
                    partial.replace(mo_path)
                except BaseException:
                    partial.unlink(missing_ok=True)  # the old .mo stays; nothing half-written
                    raise
                shown = (
                    mo_path.relative_to(base_dir) if mo_path.is_relative_to(base_dir) else mo_path
                )
                self.stdout.write(f"compiled {shown}")
