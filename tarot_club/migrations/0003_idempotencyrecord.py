"""IdempotencyRecord moves from tournaments to tarot_club (the kit's idempotency) in state
only: its table stays ``tournaments_idempotencyrecord`` with its rows. Reversed, tarot_club
forgets it and tournaments' 0015 gives it back; the database is never touched."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tarot_club", "0002_cache_table"),
        ("tournaments", "0003_idempotency"),  # made the table
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyRecord",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("key", models.CharField(max_length=255, verbose_name="idempotency key")),
                        ("method", models.CharField(max_length=10)),
                        ("path", models.CharField(max_length=500)),
                        ("fingerprint", models.CharField(max_length=64)),
                        ("status_code", models.PositiveSmallIntegerField()),
                        ("body", models.JSONField(blank=True, null=True)),
                        ("headers", models.JSONField(blank=True, default=dict)),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="idempotency_records",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "idempotency record",
                        "verbose_name_plural": "idempotency records",
                        "db_table": "tournaments_idempotencyrecord",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("user", "key"), name="unique_idempotency_key"
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
