"""The club's arbiters (issue 30.9): the accounts its tournaments may name arbiter, with its
organisers. Filled with the arbiters its tournaments already have."""

from django.conf import settings
from django.db import migrations, models


def arbiters_of_tournaments(apps, schema_editor):
    """Every user named arbiter of a club's tournament becomes an arbiter of the club."""
    Tournament = apps.get_model("tournaments", "Tournament")
    Club = apps.get_model("tournaments", "Club")
    through = Club.arbiters.through
    pairs = set(
        Tournament.arbiters.through.objects.values_list("tournament__club_id", "user_id")
    )
    through.objects.bulk_create(
        [through(club_id=club, user_id=user) for club, user in sorted(pairs)],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0011_merge_20261202_2225"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="club",
            name="arbiters",
            field=models.ManyToManyField(
                blank=True,
                related_name="arbitrated_clubs",
                to=settings.AUTH_USER_MODEL,
                verbose_name="arbiters",
            ),
        ),
        migrations.RunPython(arbiters_of_tournaments, migrations.RunPython.noop),
    ]
