"""Every environment variable the site reads is in the README's table of settings, so a
deployment can set each from the environment knowing what it does."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
READS = re.compile(
    r"""(?:env_str|env_bool|env_list|os\.environ\.get|os\.environ\[)\(?\s*["']([A-Z][A-Z0-9_]*)["']"""
)
# Set by the tools around the site, not by a deployment.
NOT_SETTINGS = {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}


def variables_read() -> set[str]:
    found: set[str] = set()
    for package in ("tarot_club", "tournaments", "scoring"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "settings_test.py" or "migrations" in path.parts:
                continue
            found.update(READS.findall(path.read_text(encoding="utf-8")))
    return found - NOT_SETTINGS


def variables_documented() -> set[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    return {name for row in rows for name in re.findall(r"`([A-Z][A-Z0-9_]*)`", row.split("|")[1])}


def test_every_variable_the_site_reads_is_in_the_readme_table():
    read = variables_read()
    assert {"DATABASE_URL", "SIMULTANEOUS_RANKING_MIN_INTERVAL", "TAROT_SWEEP"} <= read
    assert sorted(read - variables_documented()) == []


def test_the_hub_settings_come_from_the_environment(monkeypatch):
    import importlib

    import tarot_club.settings as site_settings

    monkeypatch.setenv("SIMULTANEOUS_RANKING_MIN_INTERVAL", "7.5")
    monkeypatch.setenv("SIMULTANEOUS_RANKING_SWEEP_AFTER", "90")
    monkeypatch.setenv("SIMULTANEOUS_BOOKLET_INLINE", "0")
    monkeypatch.setenv("SECRET_KEY", "k" * 50)
    try:
        reloaded = importlib.reload(site_settings)
        assert reloaded.SIMULTANEOUS_RANKING_MIN_INTERVAL == 7.5
        assert reloaded.SIMULTANEOUS_RANKING_SWEEP_AFTER == 90.0
        assert reloaded.SIMULTANEOUS_BOOKLET_INLINE is False
        assert reloaded.SIMULTANEOUS_RANKING_INLINE is True
    finally:
        monkeypatch.undo()
        importlib.reload(site_settings)
