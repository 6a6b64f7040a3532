"""GUNICORN_CMD_ARGS, as the README documents it, changes the room's gunicorn under
`manage.py serve`: gunicorn applies its command line after that variable, so serve leaves out
the options the variable sets (else `--threads 4` in it would be silently undone)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.core.management.base import CommandError

from tarot_club.management.commands.serve import gunicorn_command, gunicorn_size
from tests.fixtures.services import ROOT


def _effective(cmd: list[str], cmd_args: str) -> dict[str, str]:
    """gunicorn's own reading of `cmd` with GUNICORN_CMD_ARGS=`cmd_args` (--print-config)."""
    env = dict(os.environ, GUNICORN_CMD_ARGS=cmd_args)
    out = subprocess.run(
        [*cmd, "--print-config"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
    ).stdout
    settings = {}
    for line in out.splitlines():
        name, _equals, value = line.partition("=")
        settings[name.strip()] = value.strip()
    return settings


@pytest.mark.parametrize(
    ("cmd_args", "workers", "threads"),
    [
        ("", "2", "8"),
        ("--threads 4", "2", "4"),
        ("--workers=1 --threads=3", "1", "3"),
        ("-w 5 --log-level debug", "5", "8"),
        ("-w3", "3", "8"),
    ],
)
def test_gunicorn_applies_the_workers_and_threads_of_gunicorn_cmd_args(cmd_args, workers, threads):
    cmd = gunicorn_command(host="127.0.0.1", port="8123", cores=2, cmd_args=cmd_args)
    effective = _effective(cmd, cmd_args)
    assert (effective["workers"], effective["threads"]) == (workers, threads)
    assert effective["bind"] == "['127.0.0.1:8123']"  # what it does not set stays serve's
    assert effective["worker_class"] == "gthread"
    assert gunicorn_size(2, cmd_args) == (int(workers), int(threads))  # what serve prints


def test_a_bind_in_gunicorn_cmd_args_wins_too():
    cmd = gunicorn_command(host="127.0.0.1", port="8123", cores=2, cmd_args="-b 127.0.0.3:9")
    assert _effective(cmd, "-b 127.0.0.3:9")["bind"] == "['127.0.0.3:9']"


@pytest.mark.parametrize("cmd_args", ["--threads 0", "--workers many", "--threads 'x"])
def test_a_bad_value_stops_serve_with_a_clear_message_before_starting_anything(cmd_args):
    with pytest.raises(CommandError, match="GUNICORN_CMD_ARGS"):
        gunicorn_size(2, cmd_args)
    env = dict(os.environ, GUNICORN_CMD_ARGS=cmd_args, REDIS_URL="", SECRET_KEY="test-only")
    done = subprocess.run(
        [sys.executable, "manage.py", "serve", "--server", "gunicorn", "--port", "1"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "GUNICORN_CMD_ARGS" in done.stderr and "Traceback" not in done.stderr
    assert "served on" not in done.stdout
