"""The database cache table (settings.SHARED_CACHE_TABLE): throttle counters shared by every
process when Redis is not the broker, and while it does not answer."""

from __future__ import annotations

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor) -> None:
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("tarot_club", "0001_initial")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
