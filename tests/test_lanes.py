"""`tests/lanes.py`, the runner behind `make test`: its counts, commands and environments."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests import lanes

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="2" skipped="3" tests="20">
</testsuite></testsuites>"""


def test_counts_add_errors_to_failures_and_read_a_missing_report_as_nothing(tmp_path: Path):
    report = tmp_path / "lane.xml"
    report.write_text(JUNIT, encoding="utf-8")
    assert lanes.counts(report) == {"tests": 20, "failed": 3, "skipped": 3}
    assert lanes.counts(tmp_path / "missing.xml") == {"tests": 0, "failed": 0, "skipped": 0}


def test_a_lane_has_its_own_databases_and_writes_bytecode(monkeypatch):
    monkeypatch.setenv("TOX_PARALLEL_ENV", "lead")
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    env = lanes.lane_env("slow")
    assert env["TOX_PARALLEL_ENV"] == "lead_slow"
    assert "PYTHONDONTWRITEBYTECODE" not in env
    monkeypatch.delenv("TOX_PARALLEL_ENV")
    assert lanes.lane_env("fast")["TOX_PARALLEL_ENV"] == "fast"


def test_each_lane_has_a_worker_per_core_unless_told(monkeypatch):
    monkeypatch.delenv("TEST_FAST_WORKERS", raising=False)
    monkeypatch.delenv("TEST_SLOW_WORKERS", raising=False)
    monkeypatch.setattr(lanes.os, "cpu_count", lambda: 2)
    fast, slow = lanes.lane_commands(["-k", "ranking"])
    assert fast[fast.index("-n") + 1] == "2" and slow[slow.index("-n") + 1] == "2"
    monkeypatch.setattr(lanes.os, "cpu_count", lambda: 1)  # at least two
    assert lanes.lane_commands([])[1][-3:-1] == ["--dist", "load"]
    assert fast[fast.index("pytest") + 1 :].count("-m") == 1 and "not slow_lane" in fast
    assert "slow_lane" in slow and "not slow_lane" not in slow and fast[-2:] == ["-k", "ranking"]
    monkeypatch.setenv("TEST_SLOW_WORKERS", "1")  # one worker: no xdist at all
    assert "-n" not in lanes.lane_commands([])[1]


@pytest.mark.parametrize(("value", "on"), [("", False), ("0", False), ("1", True), ("yes", True)])
def test_an_on_off_variable(monkeypatch, value, on):
    monkeypatch.setenv("TEST_SERIAL", value)
    assert lanes.chosen("TEST_SERIAL") is on


def test_a_template_only_on_postgresql_named_like_the_workers_databases(monkeypatch):
    monkeypatch.setenv("TOX_PARALLEL_ENV", "lead")
    assert lanes.template_name("postgres://u@127.0.0.1:5432/club") == "test_club_lead_template"
    assert lanes.template_name("postgresql://u@h/club") == "test_club_lead_template"
    assert lanes.template_name("sqlite:///var/db.sqlite3") == ""
    assert lanes.template_name("") == ""
    monkeypatch.delenv("TOX_PARALLEL_ENV")
    assert lanes.template_name("postgres://u@h/club") == "test_club_template"


def postgresql_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith(("postgres://", "postgresql://")) else ""


@pytest.mark.slow  # migrates a database in a subprocess
@pytest.mark.skipif(not postgresql_url(), reason="the template is made on PostgreSQL only")
def test_the_template_holds_every_migration_and_is_dropped_afterwards():
    import psycopg
    from django.db.migrations.loader import MigrationLoader

    url = postgresql_url()
    name = f"test_template_check_{uuid.uuid4().hex[:8]}"
    lanes.make_template(url, name)
    try:
        copy = urlsplit(url)._replace(path=f"/{name}").geturl()
        with psycopg.connect(copy.replace("postgres://", "postgresql://", 1)) as conn:
            applied = set(conn.execute("SELECT app, name FROM django_migrations").fetchall())
        assert set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations) <= applied
    finally:
        lanes.drop_template(url, name)
    with lanes.admin_connection(url) as conn:
        left = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    assert left is None


@pytest.mark.slow
def test_one_collection_writes_the_rewritten_test_modules_the_workers_read():
    """write_rewritten_modules leaves pytest's rewritten bytecode of the modules it collects
    in __pycache__ (what each worker would otherwise compile again), here for this module."""
    cache = Path(lanes.__file__).parent / "__pycache__"
    for pyc in cache.glob("test_lanes.*-pytest-*.pyc"):
        pyc.unlink()
    lanes.write_rewritten_modules([str(Path(__file__))])
    assert list(cache.glob("test_lanes.*-pytest-*.pyc")), "no rewritten bytecode of this module"
