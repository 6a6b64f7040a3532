"""IdempotencyRecord now belongs to tarot_club (its 0003): tournaments forgets it in state
only, the table ``tournaments_idempotencyrecord`` and its rows stay. Reversed, the model comes
back to tournaments' state, the database untouched."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0014_phone_bindings_code_throttles"),
        ("tarot_club", "0003_idempotencyrecord"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyRecord")],
            database_operations=[],
        ),
    ]
