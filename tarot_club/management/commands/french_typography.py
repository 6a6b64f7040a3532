"""Check (or, with --fix, put right) the French typography of the catalogues, the French
guide and the French text of templates: a no-break space before « : ; ? ! » and inside « »,
and one apostrophe, the typographic ’ (`tarot_club.typography`). --fix touches only msgstr
lines of the catalogues, never a msgid: run it again after merging catalogue changes. The check also reports plurals in brackets ("bout(s)") in the
catalogue, which --fix leaves to a person. Exits with status 1 when the check finds a fault."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from tarot_club import typography


def french_files() -> dict[str, list[Path]]:
    """The files checked, by kind: the French catalogues, the French guide, the templates."""
    base = Path(settings.BASE_DIR)
    catalogues = [
        po
        for root in settings.LOCALE_PATHS
        for po in sorted(Path(root).glob("fr/LC_MESSAGES/*.po"))
    ]
    return {
        "catalogue": catalogues,
        "guide": sorted((base / "docs" / "guide" / "fr").glob("*.md")),
        "template": sorted((base / "templates").rglob("*.html")),
    }


CHECKS = {
    "catalogue": (typography.catalogue_faults, typography.fix_catalogue),
    "guide": (typography.markdown_faults, typography.fix_markdown),
    "template": (typography.template_faults, typography.fix_template),
}


def faults() -> list[typography.Fault]:
    """Every fault of every French file."""
    found = []
    for kind, paths in french_files().items():
        check = CHECKS[kind][0]
        for path in paths:
            found.extend(check(path))
            found.extend(typography.apostrophe_faults(path))
            if kind == "catalogue":
                found.extend(typography.plural_faults(path))
    return found


class Command(BaseCommand):
    help = "Check the French typography (no-break spaces); --fix puts it right in place."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fix", action="store_true", help="Correct the files in place.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["fix"]:
            for kind, paths in french_files().items():
                fix = CHECKS[kind][1]
                for path in paths:
                    count = fix(path) + typography.fix_apostrophes(path)
                    if count:
                        lines = "line" if count == 1 else "lines"
                        self.stdout.write(f"{path.relative_to(settings.BASE_DIR)}: {count} {lines}")
            self.stdout.write("Run manage.py compile_translations to use the catalogue.")
            return
        found = faults()
        for fault in found:
            self.stdout.write(str(fault))
        if found:
            faults_word = "fault" if len(found) == 1 else "faults"
            raise CommandError(f"{len(found)} French typography {faults_word}; run with --fix.")
        self.stdout.write("French typography: no fault.")
