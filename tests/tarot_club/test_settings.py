"""Settings read the environment and refuse to start unsafely."""

from __future__ import annotations

import os
import subprocess
import sys

from django.db import connection


def run_settings(env: dict[str, str]) -> subprocess.CompletedProcess:
    base = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "tarot_club.settings"}
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); print('ok')"],
        env={**base, **env},
        capture_output=True,
        text=True,
    )


def test_refuses_to_start_without_secret_key_when_debug_is_off(tmp_path):
    out = run_settings({"DEBUG": "0", "SECRET_KEY_FILE": str(tmp_path / "absent")})
    assert out.returncode != 0
    assert "SECRET_KEY is not set" in out.stderr


def test_starts_with_secret_key(tmp_path):
    env = {"DEBUG": "0", "SECRET_KEY": "k" * 50, "SECRET_KEY_FILE": str(tmp_path / "absent")}
    assert run_settings(env).stdout.strip() == "ok"


def test_reads_the_secret_key_from_a_file(tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text("from-a-file-" + "k" * 40 + "\n")
    code = "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY)"
    base = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "tarot_club.settings"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**base, "DEBUG": "0", "SECRET_KEY_FILE": str(key_file)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "from-a-file-" + "k" * 40


def test_database_follows_database_url(db):
    url = os.environ.get("DATABASE_URL", "")
    expected = "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"
    assert connection.vendor == expected
    if os.environ.get("CI", "").lower() == "true":
        assert connection.vendor == "postgresql", "CI runs the suite on PostgreSQL"
