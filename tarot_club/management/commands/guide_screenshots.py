"""Make the guide's screenshots from the demo, in French and English (`make guide`).

Why a command: the pictures must follow the screens. It loads the demo into a scratch SQLite
database, serves it with runserver on a free loopback port, drives Debian's Chromium through
Playwright (a development dependency) and writes docs/guide/img/<lang>/<name>.png.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
DEMO_PASSWORD = "tarot-demo"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.3)
    raise CommandError(f"The demo server did not answer at {url}.")


class Command(BaseCommand):
    help = "Photograph the demo's pages for the user guide (docs/guide/img/)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--only", nargs="*", help="names of the screenshots to make")

    def handle(self, *args, only: list[str] | None = None, **options) -> None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:  # pragma: no cover - a runtime-only install
            raise CommandError("Playwright is needed: install requirements-dev.txt.") from exc
        if not Path(CHROMIUM).exists():
            raise CommandError(f"Chromium is needed at {CHROMIUM} (apt-get install chromium).")
        root = Path(settings.BASE_DIR)
        with tempfile.TemporaryDirectory(prefix="tarot-guide-") as scratch:
            env = {
                **os.environ,
                "DATABASE_URL": f"sqlite:///{scratch}/guide.sqlite3",
                "DEBUG": "1",
                "CELERY_EAGER": "1",
                "REDIS_URL": "",
                "MEDIA_ROOT": f"{scratch}/media",
            }
            manage = [sys.executable, str(root / "manage.py")]
            for step in (["migrate", "--noinput"], ["load_demo"]):
                subprocess.run([*manage, *step], env=env, check=True, stdout=subprocess.DEVNULL)
            ids = subprocess.run(
                [
                    *manage,
                    "shell",
                    "-c",
                    "from tarot_club.guide.screenshots import demo_ids; "
                    "import json; print(json.dumps(demo_ids()))",
                ],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            port = _free_port()
            server = subprocess.Popen(
                [*manage, "runserver", "--noreload", f"127.0.0.1:{port}"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                base = f"http://127.0.0.1:{port}"
                _wait(base + "/")
                with sync_playwright() as pw:
                    browser = pw.chromium.launch(
                        executable_path=CHROMIUM,
                        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
                    )
                    try:
                        made = self._shoot(browser, base, json.loads(ids.splitlines()[-1]), only)
                    finally:
                        browser.close()
            finally:
                server.terminate()
                server.wait(timeout=10)
        self.stdout.write(f"{made} screenshots written to docs/guide/img/.")

    def _shoot(self, browser, base: str, ids: dict[str, int], only: list[str] | None) -> int:
        from tarot_club.guide.screenshots import SHOTS

        out = Path(settings.BASE_DIR) / "docs" / "guide" / "img"
        made = 0
        for language, locale in (("fr", "fr-FR"), ("en", "en-GB")):
            contexts: dict[str | None, object] = {}
            for shot in SHOTS:
                if only and shot.name not in only:
                    continue
                context = contexts.get(shot.persona)
                if context is None:
                    context = browser.new_context(locale=locale, base_url=base)
                    page = context.new_page()
                    if shot.persona:
                        page.goto("/login/")
                        page.fill("#id_username", shot.persona)
                        page.fill("#id_password", DEMO_PASSWORD)
                        page.locator("main form button[type=submit]").click()
                        page.wait_for_load_state("networkidle")
                    contexts[shot.persona] = context
                page = context.pages[0]
                page.set_viewport_size(shot.viewport)
                page.goto(shot.path.format(**ids))
                page.wait_for_load_state("load")  # not networkidle: some pages poll
                page.wait_for_timeout(1500)
                target = out / language / f"{shot.name}.png"
                target.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(target), full_page=False)
                made += 1
            for context in contexts.values():
                context.close()
        return made
