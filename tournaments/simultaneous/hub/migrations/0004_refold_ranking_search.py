"""The overall ranking's "find me" column is folded again: `tournaments.search.fold` now drops
apostrophes ("N’Diaye" typed on a phone finds "N'Diaye") and reads hyphens as spaces."""

from django.db import migrations

from tournaments.search import player_search_name


def refold(apps, schema_editor):
    Row = apps.get_model("simultaneous_hub", "OverallRankingRow")
    rows = list(Row.objects.only("pk", "first_name", "last_name", "licence"))
    for row in rows:
        names = player_search_name(first_name=row.first_name, last_name=row.last_name)
        row.search_name = f"{names} {row.licence}"
    Row.objects.bulk_update(rows, ["search_name"], batch_size=500)


class Migration(migrations.Migration):

    dependencies = [
        ("simultaneous_hub", "0003_event_booklet"),
    ]

    operations = [
        migrations.RunPython(refold, migrations.RunPython.noop),
    ]
