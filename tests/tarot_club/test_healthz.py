"""/healthz says what is up: database, Redis, workers. The public answer says only healthy
(200) or not (503); staff see the parts; a load balancer may probe it by IP address."""

from __future__ import annotations

import time

import pytest

from tarot_club.health import broker_check


@pytest.fixture(autouse=True)
def fresh_check():
    broker_check.clear()
    yield
    broker_check.clear()


@pytest.fixture
def staff_client(client, make_user):
    client.force_login(make_user("veilleur", is_staff=True))
    return client


@pytest.mark.django_db
def test_public_answer_says_only_healthy_or_not(client, settings):
    from tarot_club.celery import app

    assert client.get("/healthz").json() == {"status": "ok"}
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    try:
        response = client.get("/healthz")
    finally:
        app.conf.task_always_eager = True
    assert response.status_code == 503
    assert response.json() == {"status": "degraded"}
    assert response["Retry-After"]


@pytest.mark.django_db
def test_a_load_balancer_may_probe_by_ip_address(client, settings):
    settings.ALLOWED_HOSTS = ["tarot.example.org"]
    response = client.get("/healthz", HTTP_HOST="10.0.0.21:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert client.get("/", HTTP_HOST="10.0.0.21:8000").status_code == 400  # only the probe


@pytest.mark.django_db
def test_worker_ping_is_cached_and_refreshed_in_the_background(staff_client, settings):
    from tarot_club.celery import app

    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.HEALTH_CACHE_SECONDS = 60
    app.conf.task_always_eager = False
    try:
        first = staff_client.get("/healthz").json()
        checked = broker_check.checked
        started = time.perf_counter()
        for _ in range(20):
            assert staff_client.get("/healthz").json()["workers"] == first["workers"]
        assert broker_check.checked == checked  # not pinged again within the period
    finally:
        app.conf.task_always_eager = True
    assert (time.perf_counter() - started) / 20 < 1.0  # far below one ping timeout each


@pytest.mark.django_db
def test_healthz_ok_in_process(staff_client):
    response = staff_client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["database"]["ok"] is True
    assert body["workers"]["state"] == "in_process"


@pytest.mark.django_db
def test_healthz_reports_redis_down_with_503(staff_client, settings):
    from tarot_club.celery import app

    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.task_always_eager = False
    try:
        response = staff_client.get("/healthz")
    finally:
        app.conf.task_always_eager = True
    assert response.status_code == 503
    body = response.json()
    assert body["redis"]["state"] == "down"
    assert body["workers"]["state"] == "unreachable"
    assert body["status"] == "degraded"


@pytest.mark.services
def test_healthz_reports_stopped_worker(celery_worker, staff_client, settings, redis_url):
    settings.REDIS_URL = redis_url
    settings.HEALTH_CACHE_SECONDS = 0  # check now
    client = staff_client
    body = client.get("/healthz").json()
    assert body["redis"]["state"] == "up"
    assert body["workers"]["state"] == "up"
    assert celery_worker.name in body["workers"]["workers"]

    celery_worker.stop()
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["workers"]["state"] == "stopped"
    assert body["workers"]["count"] == 0
    assert body["status"] == "degraded"


@pytest.mark.django_db
def test_healthz_is_503_when_the_database_does_not_answer(staff_client, monkeypatch):
    from django.db import OperationalError, connection

    client = staff_client

    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "degraded"}  # no error text, host or port


@pytest.mark.services
def test_background_refresh_sees_the_workers_the_request_saw(celery_worker, settings, redis_url):
    """A fresh process pings in the request's thread, then refreshes in a new thread each
    period: every one of those pings must find the running worker (no 503 after a 200)."""
    import threading

    settings.REDIS_URL = redis_url
    settings.HEALTH_CACHE_SECONDS = 60
    first = broker_check.get()[1]
    assert first["state"] == "up", first
    states = []
    for _ in range(3):
        with broker_check.lock:
            broker_check.checked = 0.0  # the period has passed
        broker_check.get()  # starts the background refresh
        for thread in threading.enumerate():
            if thread.name == "healthz":
                thread.join(timeout=30)
        states.append(broker_check.get()[1]["state"])
    assert states == ["up", "up", "up"]
