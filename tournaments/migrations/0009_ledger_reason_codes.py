"""Reasons the software wrote become codes, put in words when read in the reader's language.

Rows saved earlier hold those reasons already translated (in French or in English, whichever
the request spoke): the ones recognisable below are turned into their code; anything else is
left as it was typed. The texts are copied here so that this keeps working when the code
changes.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import migrations, models

REGENERATED = {"regenerated", "régénéré"}
PUBLISHED_MISSING = (
    re.compile(r"^published with (\d+) result\(s\) missing$"),
    re.compile(r"^publié avec (\d+) résultat\(s\) manquant\(s\)$"),
)
TABLE_ENTRY = (
    re.compile(r"^Corrected at the table by .+$"),
    re.compile(r"^Corrigé à la table par .+$"),
)


def code_of(reason: str, action: str, by_player: bool) -> tuple[str, dict[str, Any] | None]:
    """The code (and its parameters) of a reason the software wrote, or ("", None)."""
    if action == "seating_generated" and reason in REGENERATED:
        return "seating_regenerated", None
    if action == "status_changed":
        for pattern in PUBLISHED_MISSING:
            match = pattern.match(reason)
            if match:
                return "published_missing", {"count": int(match.group(1))}
    if by_player and any(pattern.match(reason) for pattern in TABLE_ENTRY):
        return "table_entry", None
    return "", None


def forwards(apps: Any, schema_editor: Any) -> None:
    entry_model = apps.get_model("tournaments", "LedgerEntry")
    rows = entry_model.objects.exclude(reason="").values_list(
        "pk", "reason", "action", "by_player_id"
    )
    for pk, reason, action, by_player in rows.iterator():
        code, params = code_of(reason, action, by_player is not None)
        if code:
            entry_model.objects.filter(pk=pk).update(
                reason="", reason_code=code, reason_params=params
            )


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0008_table_access_hands_answers"),
    ]

    operations = [
        migrations.AddField(
            model_name="ledgerentry",
            name="reason_code",
            field=models.CharField(blank=True, default="", max_length=40),
        ),
        migrations.AddField(
            model_name="ledgerentry",
            name="reason_params",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
