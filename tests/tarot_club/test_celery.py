"""Tasks run through Redis in a real worker process, and in-process without a broker."""

from __future__ import annotations

import pytest

from tarot_club.models import Heartbeat
from tarot_club.tasks import heartbeat


@pytest.mark.services
def test_task_sent_through_redis_runs_in_real_worker(celery_worker):
    result = heartbeat.delay("through-redis")
    where = result.get(timeout=30)
    assert where == celery_worker.name
    row = Heartbeat.objects.get(name="through-redis")
    assert row.count == 1
    assert row.worker == celery_worker.name


@pytest.mark.django_db
def test_task_runs_in_process_without_broker(settings):
    from tarot_club.celery import app

    assert app.conf.task_always_eager, "the suite runs tasks in-process by default"
    assert heartbeat.delay("in-process").get() == "in-process"
    assert Heartbeat.objects.get(name="in-process").worker == "in-process"


def test_empty_redis_url_means_in_process(monkeypatch):
    """REDIS_URL="" (no broker configured) makes the settings run tasks in-process."""
    import subprocess
    import sys

    code = "from django.conf import settings; print(settings.CELERY_TASK_ALWAYS_EAGER)"
    env = {"REDIS_URL": "", "CELERY_EAGER": "0", "SECRET_KEY": "x", "PATH": "/usr/bin:/bin"}
    env["DJANGO_SETTINGS_MODULE"] = "tarot_club.settings"
    out = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); " + code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "True"
