"""The README's production settings pass `manage.py check --deploy` with no warning and
turn on HTTPS (redirect, HSTS) behind the proxy they name; every answer carries the security
headers (CSP without inline scripts, Permissions-Policy); the deployment recipe (README,
docs/deploy/) pins what the workers import and runs them under a supervisor."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.services import ROOT


def readme_environment_file() -> dict[str, str]:
    """The environment file of the README's deployment (its `cat > /etc/tarot_club.env`)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"cat > /etc/tarot_club\.env <<'ENV'\n(.*?)\nENV\n", readme, re.S)
    assert match, "the README's deployment writes /etc/tarot_club.env"
    pairs = (line.split("=", 1) for line in match.group(1).splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def production_env(tmp_path: Path) -> dict[str, str]:
    """The README's environment file, with a local database and a fresh key."""
    env = readme_environment_file()
    env.update(
        {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "SECRET_KEY": secrets.token_urlsafe(50),
            "SECRET_KEY_FILE": str(tmp_path / "none"),
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            "MEDIA_ROOT": str(tmp_path / "media"),
            "TAROT_VAR_DIR": str(tmp_path / "var"),
        }
    )
    return env


def test_the_readme_environment_file_names_what_a_deployment_needs():
    env = readme_environment_file()
    for key in ("SITE_URL", "TRUSTED_PROXIES", "SECURE_COOKIES", "CELERY_QUEUE", "SECRET_KEY"):
        assert key in env, key
    assert env["SITE_URL"].startswith("https://")
    assert "DEBUG" not in env or env["DEBUG"] == "0"


def test_check_deploy_is_clean_with_the_production_settings(tmp_path):
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout


HTTPS_PROBE = """
import json
from django.test import Client
host = "%(host)s"
client = Client(HTTP_HOST=host)
plain = client.get("/")
secure = client.get("/", HTTP_X_FORWARDED_PROTO="https")
probe = client.get("/healthz")
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location", "")],
    "secure": [secure.status_code, secure.get("Strict-Transport-Security", "")],
    "probe": [probe.status_code, probe.get("Location", "")],
}))
"""


def test_behind_the_proxy_https_is_enforced_with_hsts_except_for_the_probe(tmp_path):
    env = production_env(tmp_path)
    env["REDIS_URL"] = ""  # no broker: the probe answers without one
    host = env["ALLOWED_HOSTS"].split(",")[0]
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    run = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", HTTPS_PROBE % {"host": host}],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    answers = json.loads(run.stdout.strip().splitlines()[-1])
    assert answers["plain"] == [301, f"https://{host}/"]
    status, hsts = answers["secure"]
    assert status == 200
    assert "max-age=31536000" in hsts and "includeSubDomains" in hsts
    assert answers["probe"][0] in (200, 503)  # the load balancer's probe is not redirected


STATIC_PROBE = """
from django.templatetags.static import static
print(static("tournaments/table/table.js"))
"""


def test_collectstatic_writes_hashed_and_compressed_files_that_pages_name(tmp_path):
    env = production_env(tmp_path)
    env["STATIC_ROOT"] = str(tmp_path / "static")
    run = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "Found another file" not in run.stdout + run.stderr  # each file collected once
    manifest = json.loads((tmp_path / "static" / "staticfiles.json").read_text())
    hashed = manifest["paths"]["tournaments/table/table.js"]
    assert re.fullmatch(r"tournaments/table/table\.[0-9a-f]{12}\.js", hashed)
    assert (tmp_path / "static" / (hashed + ".gz")).is_file()
    url = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", STATIC_PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert url.stdout.strip().splitlines()[-1] == "/static/" + hashed, url.stderr


def _requirement_names(path: Path) -> tuple[set[str], dict[str, set[str]]]:
    """Names pinned in a requirements file, and the extras asked for each."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    names: set[str] = set()
    extras: dict[str, set[str]] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            req = Requirement(line)
            names.add(canonicalize_name(req.name))
            extras[canonicalize_name(req.name)] = set(req.extras)
    return names, extras


# Extras whose code the site runs: the Redis transport of kombu and of Celery.
EXTRAS_USED = {"kombu": {"redis"}, "celery": {"redis"}}


def test_requirements_pin_everything_the_pinned_packages_need():
    """requirements.txt alone installs a working site: every dependency of a pinned package
    (and of the extras the site uses, such as kombu's Redis transport) is pinned too."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    pinned, asked_extras = _requirement_names(ROOT / "requirements.txt")
    missing = []
    for name in sorted(pinned):
        try:
            declared = requires(name) or []
        except PackageNotFoundError:
            continue
        extras = {""} | EXTRAS_USED.get(name, set()) | asked_extras.get(name, set())
        for line in declared:
            req = Requirement(line)
            applies = req.marker is None or any(
                req.marker.evaluate({"extra": extra}) for extra in extras
            )
            dep = canonicalize_name(req.name)
            installed_by_extra = bool(asked_extras.get(name)) and req.marker is not None
            if applies and dep not in pinned and not installed_by_extra:
                missing.append(f"{name} needs {dep}")
    assert not missing, missing


def test_service_units_restart_and_take_the_queue_and_name_from_the_host():
    units = {p.name: p.read_text() for p in (ROOT / "docs" / "deploy").glob("*.service")}
    assert set(units) >= {"tarot-web.service", "tarot-worker@.service", "redis-tarot.service"}
    for name, text in units.items():
        assert "Restart=always" in text, name
    for name in ("tarot-web.service", "tarot-worker@.service"):
        text = units[name]
        assert "User=tarot" in text, name
        assert "EnvironmentFile=/etc/tarot_club.env" in text, name  # shared by every host
        assert "EnvironmentFile=/etc/tarot_club.host.env" in text, name  # BIND and sizes
    worker = units["tarot-worker@.service"]
    exec_start = next(line for line in worker.splitlines() if line.startswith("ExecStart="))
    assert "-Q ${CELERY_QUEUE}" in exec_start  # not a queue written in the unit
    assert "-n tarot-%i@%H" in exec_start  # two workers of one host, or two hosts, stay apart


def test_the_redis_unit_can_write_its_appendonly_file():
    """Not a copy of Debian's redis-server.service: no ProtectSystem keeping it from its
    folder, no PIDFile of the other instance."""
    text = (ROOT / "docs" / "deploy" / "redis-tarot.service").read_text()
    unit = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    assert "ProtectSystem" not in unit and "PIDFile" not in unit
    assert "--supervised systemd" in unit and "Type=notify" in unit
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "appendonly yes" in readme and "dir /var/lib/redis-tarot" in readme


@pytest.mark.django_db
def test_pages_carry_csp_and_permissions_policy(client):
    response = client.get("/")
    csp = response["Content-Security-Policy"]
    assert csp.split("script-src")[1].split(";")[0].strip() == "'self'"  # no inline script
    assert "frame-ancestors 'none'" in csp
    assert "camera=()" in response["Permissions-Policy"]
