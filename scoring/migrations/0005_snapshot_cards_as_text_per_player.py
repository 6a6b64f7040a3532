"""Score-card lines stored as one JSON text per player, compressed with lz4 on PostgreSQL.

The snapshot's `cards` hold a megabyte for a 1,000-player tournament: PostgreSQL's default
compression (pglz) took several times the rest of the write; lz4 is several times faster for
the same size. Skipped where the server was built without lz4 (and on SQLite)."""

from django.db import migrations

import scoring.rankings.fields


def cards_lz4(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 'lz4' = ANY(enumvals) FROM pg_settings "
            "WHERE name = 'default_toast_compression'"
        )
        row = cursor.fetchone()
        if row and row[0]:
            cursor.execute(
                "ALTER TABLE scoring_rankingsnapshot ALTER COLUMN cards SET COMPRESSION lz4"
            )


def cards_default_compression(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "ALTER TABLE scoring_rankingsnapshot ALTER COLUMN cards SET COMPRESSION DEFAULT"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0004_document_fingerprint"),
    ]

    operations = [
        migrations.AlterField(
            model_name="rankingsnapshot",
            name="cards",
            field=scoring.rankings.fields.CardLinesField(default=dict),
        ),
        migrations.RunPython(cards_lz4, cards_default_compression),
    ]
