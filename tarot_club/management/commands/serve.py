"""`make run`: serve the site and, when Redis answers, a Celery worker beside it.

Both run in this terminal and stop together on Ctrl-C. Without Redis, tasks run in-process
(CELERY_EAGER=1) so the site still works completely.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from tarot_club.health import redis_reachable

DEMO_LOGINS = (
    ("organisateur", "Organiser of the demo club"),
    ("arbitre", "Arbiter of the demo tournament"),
    ("joueur", "A player of the demo tournament"),
    ("admin", "Site administrator (Django admin)"),
)
DEMO_PASSWORD = "tarot-demo"


class Command(BaseCommand):
    help = "Serve the site (and a Celery worker when Redis answers) until Ctrl-C."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", default=os.environ.get("PORT", "8000"))

    def handle(self, *args, host: str, port: str, **options) -> None:
        env = dict(os.environ)
        children: list[subprocess.Popen] = []
        manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
        if redis_reachable(settings.REDIS_URL):
            env["CELERY_EAGER"] = "0"
            worker = [sys.executable, "-m", "celery", "-A", "tarot_club", "worker"]
            worker += [
                "--loglevel",
                "INFO",
                "--concurrency",
                "2",
                "-Q",
                settings.CELERY_TASK_DEFAULT_QUEUE,
            ]
            children.append(subprocess.Popen(worker, env=env, cwd=settings.BASE_DIR))
            self.stdout.write(f"Celery worker started (broker {settings.REDIS_URL}).")
        else:
            env["CELERY_EAGER"] = "1"
            self.stdout.write(
                f"Redis does not answer at {settings.REDIS_URL or '(REDIS_URL empty)'}: "
                "tasks run in-process, the site works completely."
            )
        children.append(
            subprocess.Popen([*manage, "runserver", f"{host}:{port}", "--noreload"], env=env)
        )
        shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        self.stdout.write(
            self.style.SUCCESS(f"tarot_club is served on http://{shown_host}:{port}/")
        )
        self.stdout.write(f"Demo logins (password {DEMO_PASSWORD}):")
        for login, role in DEMO_LOGINS:
            self.stdout.write(f"  {login:<13} {role}")
        self.stdout.write("Press Ctrl-C to stop.")
        self._wait(children)

    def _wait(self, children: list[subprocess.Popen]) -> None:
        signal.signal(signal.SIGTERM, _interrupt)
        signal.signal(signal.SIGINT, _interrupt)
        try:
            while all(child.poll() is None for child in children):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 10
            for child in children:
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    child.kill()
            self.stdout.write("Stopped.")


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C in the terminal, or a service manager's SIGTERM: stop both children."""
    raise KeyboardInterrupt
