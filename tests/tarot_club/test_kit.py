"""The kit (tarot_club/kit) serves every app: each app's Celery entry point is a retrying
task that retries the transient failures only, and the SQL toolkit's instances are the
ORM's."""

from __future__ import annotations

import pytest

from tarot_club.kit.runtime import TRANSIENT_ERRORS

TASKS = (
    "scoring.recompute_ranking",
    "scoring.build_document",
    "simultaneous.upload_to_hub",
    "simultaneous_hub.build_booklet",
)


def test_every_apps_task_retries_the_transient_failures_only():
    from tarot_club.celery import app

    app.loader.import_default_modules()  # the apps' tasks modules (autodiscovery)
    registered = {name: app.tasks[name] for name in app.tasks if name in TASKS}
    assert set(registered) == set(TASKS)
    for name, task in registered.items():
        assert tuple(task.autoretry_for) == TRANSIENT_ERRORS, name
        assert task.retry_jitter and task.ignore_result, name
        assert task.max_retries >= 5, name


@pytest.mark.django_db
def test_the_toolkit_loads_the_instances_the_orm_builds():
    from django.contrib.auth import get_user_model

    from tarot_club.kit.sql import column, columns, quote, run

    User = get_user_model()
    user = User.objects.create_user("kit", email="kit@example.org")
    table = columns(User)
    sql = f"SELECT {table.select('u')} FROM {table.table} u WHERE u.{column(User, 'id')} = %s"
    ran = run(sql, [user.pk])
    loaded = table.load(ran.rows[0])
    assert (loaded.pk, loaded.username, loaded.email) == (user.pk, "kit", "kit@example.org")
    assert quote("x") in ('"x"', "`x`")
