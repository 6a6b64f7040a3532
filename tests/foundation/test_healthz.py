"""/healthz says what is up: database, Redis, workers."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_healthz_ok_in_process(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["database"]["ok"] is True
    assert body["workers"]["state"] == "in_process"


@pytest.mark.django_db
def test_healthz_reports_redis_down_but_stays_200(client, settings):
    from tarot_club.celery import app

    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    try:
        body = client.get("/healthz").json()
    finally:
        app.conf.task_always_eager = True
    assert body["redis"]["state"] == "down"
    assert body["workers"]["state"] == "unreachable"
    assert body["status"] == "degraded"


@pytest.mark.services
def test_healthz_reports_stopped_worker(celery_worker, client, settings, redis_url):
    settings.REDIS_URL = redis_url
    body = client.get("/healthz").json()
    assert body["redis"]["state"] == "up"
    assert body["workers"]["state"] == "up"
    assert celery_worker.name in body["workers"]["workers"]

    celery_worker.stop()
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["workers"]["state"] == "stopped"
    assert body["workers"]["count"] == 0
    assert body["status"] == "degraded"


@pytest.mark.django_db
def test_healthz_is_503_when_the_database_does_not_answer(client, monkeypatch):
    from django.db import OperationalError, connection

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["database"]["ok"] is False
    assert "connection refused" in body["database"]["error"]
