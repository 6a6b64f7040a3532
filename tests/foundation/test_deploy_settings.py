"""The README's production settings pass `manage.py check --deploy` with no warning, and
every answer carries the security headers (CSP without inline scripts, Permissions-Policy)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys

import pytest

from tests.fixtures.services import ROOT


def test_check_deploy_is_clean_with_the_production_settings(tmp_path):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "SECRET_KEY_FILE": str(tmp_path / "none"),
        "ALLOWED_HOSTS": "tarot.example.org",
        "CSRF_TRUSTED_ORIGINS": "https://tarot.example.org",
        "SECURE_COOKIES": "1",
        "TRUSTED_PROXIES": "1",
        "SITE_URL": "https://tarot.example.org",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout


@pytest.mark.django_db
def test_pages_carry_csp_and_permissions_policy(client):
    response = client.get("/")
    csp = response["Content-Security-Policy"]
    assert csp.split("script-src")[1].split(";")[0].strip() == "'self'"  # no inline script
    assert "frame-ancestors 'none'" in csp
    assert "camera=()" in response["Permissions-Policy"]
