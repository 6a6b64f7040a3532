"""Players get a sort column (the one order of names, tournaments/search.py), and both folded
columns are computed again: `fold` now drops apostrophes and reads hyphens as spaces."""

import tournaments.search
from django.conf import settings
from django.db import migrations, models


def refold(apps, schema_editor):
    Player = apps.get_model("tournaments", "Player")
    players = list(Player.objects.only("pk", "first_name", "last_name"))
    for player in players:
        names = {"first_name": player.first_name, "last_name": player.last_name}
        player.search_name = tournaments.search.player_search_name(**names)
        player.sort_name = tournaments.search.player_sort_name(**names)
    Player.objects.bulk_update(players, ["search_name", "sort_name"], batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0012_club_arbiters'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='player',
            options={'ordering': [tournaments.search.CodePoints(models.F('sort_name')), 'pk'], 'verbose_name': 'player', 'verbose_name_plural': 'players'},
        ),
        migrations.AlterModelOptions(
            name='registration',
            options={'ordering': [tournaments.search.CodePoints(models.F('player__sort_name')), 'player__pk'], 'verbose_name': 'registration', 'verbose_name_plural': 'registrations'},
        ),
        migrations.AddField(
            model_name='player',
            name='sort_name',
            field=models.CharField(blank=True, default='', editable=False, max_length=200),
        ),
        migrations.AddIndex(
            model_name='player',
            index=models.Index(tournaments.search.CodePoints(models.F('sort_name')), name='player_sort_name_idx'),
        ),
        migrations.RunPython(refold, migrations.RunPython.noop),
    ]
