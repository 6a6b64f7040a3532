"""Score cards built when read: the stored rows lose their card; each club's results as
ranked and each group's values are stored instead. A stored ranking has neither yet, so it
is marked as not stored and stale since long ago: the workers' sweep computes it again.
The rows keep the indexes their reads use, (event, place), (event, licence) and (invitation,
place), none of them unique, and no foreign key constraint (Django's deletions cascade)."""

import datetime

import django.db.models.deletion
from django.db import migrations, models

import scoring.rankings.fields


def recompute_stored_rankings(apps, schema_editor):
    state = apps.get_model("simultaneous_hub", "OverallRankingState")
    long_ago = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
    state.objects.filter(results_version__isnull=False).update(
        results_version=None, stale_since=long_ago
    )


class Migration(migrations.Migration):
    dependencies = [
        ("simultaneous_hub", "0007_ranking_card_as_json_text"),
    ]

    operations = [
        migrations.CreateModel(
            name="OverallRankingClub",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("serial", models.PositiveBigIntegerField()),
                ("results", scoring.rankings.fields.JSONTextField(default=list)),
            ],
        ),
        migrations.CreateModel(
            name="OverallRankingGroup",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("donne", models.PositiveSmallIntegerField()),
                ("position", models.CharField(max_length=1)),
                ("size", models.PositiveIntegerField()),
                ("values", scoring.rankings.fields.JSONTextField(default=list)),
            ],
        ),
        migrations.RemoveIndex(
            model_name="overallrankingrow",
            name="simultaneou_event_i_ef4be7_idx",
        ),
        migrations.RemoveField(
            model_name="overallrankingrow",
            name="card",
        ),
        migrations.AddField(
            model_name="invitation",
            name="results_serial",
            field=models.PositiveBigIntegerField(default=0, editable=False),
        ),
        migrations.AlterField(
            model_name="overallrankingrow",
            name="event",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="ranking_rows",
                to="simultaneous_hub.simultaneousevent",
            ),
        ),
        migrations.AlterField(
            model_name="overallrankingrow",
            name="invitation",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="ranking_rows",
                to="simultaneous_hub.invitation",
            ),
        ),
        migrations.AddIndex(
            model_name="overallrankingrow",
            index=models.Index(fields=["invitation", "place"], name="simultaneous_ranking_club"),
        ),
        migrations.AddField(
            model_name="overallrankingclub",
            name="event",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="ranking_clubs",
                to="simultaneous_hub.simultaneousevent",
            ),
        ),
        migrations.AddField(
            model_name="overallrankingclub",
            name="invitation",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="ranking_clubs",
                to="simultaneous_hub.invitation",
            ),
        ),
        migrations.AddField(
            model_name="overallrankinggroup",
            name="event",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="ranking_groups",
                to="simultaneous_hub.simultaneousevent",
            ),
        ),
        migrations.AddConstraint(
            model_name="overallrankingclub",
            constraint=models.UniqueConstraint(
                fields=("event", "invitation"), name="simultaneous_ranking_one_club"
            ),
        ),
        migrations.AddConstraint(
            model_name="overallrankinggroup",
            constraint=models.UniqueConstraint(
                fields=("event", "donne", "position"), name="simultaneous_ranking_one_group"
            ),
        ),
        migrations.RemoveConstraint(
            model_name="overallrankingrow",
            name="simultaneous_ranking_one_place",
        ),
        migrations.RemoveConstraint(
            model_name="overallrankingrow",
            name="simultaneous_ranking_one_row_per_licence",
        ),
        migrations.AddIndex(
            model_name="overallrankingrow",
            index=models.Index(fields=["event", "place"], name="simultaneous_ranking_place"),
        ),
        migrations.AddIndex(
            model_name="overallrankingrow",
            index=models.Index(fields=["event", "licence"], name="simultaneous_ranking_licence"),
        ),
        migrations.RunPython(recompute_stored_rankings, migrations.RunPython.noop),
    ]
