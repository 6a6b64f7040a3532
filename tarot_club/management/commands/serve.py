"""`make run`: serve the site and, when Redis answers, a Celery worker beside it.

Both run in this terminal and stop together on Ctrl-C. Without Redis, tasks run in-process
(CELERY_EAGER=1) so the site still works completely. A worker that exits on its own is started
again (after a short pause that grows while it keeps dying): the site never stops because of it.

Which web server: on a loopback HOST (this machine only) Django's development server; on any
other HOST (the room's phones) gunicorn, with a fixed set of threads (`gunicorn_command`), so
a hall of phones opening pages at once waits in gunicorn's queue instead of opening a thread
and a database connection per phone. `--server` forces one or the other.
"""

from __future__ import annotations

import os
import secrets
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tarot_club.env import TRUE_WORDS
from tarot_club.health import redis_reachable
from tarot_club.room import WILDCARD_HOSTS, is_loopback, room_url, url_host

DEMO_LOGINS = (
    ("organisateur", "Organiser of the demo club"),
    ("arbitre", "Arbiter of the demo tournament"),
    ("joueur", "A player of the demo tournament"),
    ("admin", "Site administrator (Django admin)"),
)
DEMO_PASSWORD = "tarot-demo"
SERVERS = ("auto", "gunicorn", "runserver")
# Threads of each gunicorn process: each keeps one database connection for DB_CONN_MAX_AGE.
GUNICORN_THREADS = 8
GUNICORN_MAX_PROCESSES = 3


def gunicorn_size(cores: int, cmd_args: str = "") -> tuple[int, int]:
    """(processes, threads per process) for a machine of `cores` cores: a process per core
    (at least 2, so one busy process does not stall the room; at most
    GUNICORN_MAX_PROCESSES) and GUNICORN_THREADS threads each. The product bounds the
    requests served at once and the database connections the site holds (at most 24, well
    under PostgreSQL's default limit of 100 with the workers and the admin beside them).
    `--workers`/`-w` and `--threads` given in `cmd_args` (GUNICORN_CMD_ARGS) win; a value
    that is not a positive whole number raises CommandError."""
    processes, threads = max(2, min(cores, GUNICORN_MAX_PROCESSES)), GUNICORN_THREADS
    options = gunicorn_env_options(cmd_args)
    return (
        _positive(options.get("--workers"), processes, "--workers"),
        _positive(options.get("--threads"), threads, "--threads"),
    )


# gunicorn's short names of the options `gunicorn_command` passes.
GUNICORN_SHORT_OPTIONS = {
    "-w": "--workers",
    "-b": "--bind",
    "-k": "--worker-class",
    "-t": "--timeout",
}


def gunicorn_env_options(cmd_args: str) -> dict[str, str]:
    """The options set in GUNICORN_CMD_ARGS, by long name, with their value ("" for a flag).
    Unparseable text (an unclosed quote) raises CommandError."""
    try:
        words = shlex.split(cmd_args or "")
    except ValueError as exc:
        raise CommandError(f"GUNICORN_CMD_ARGS cannot be read: {exc}") from exc
    options: dict[str, str] = {}
    for index, word in enumerate(words):
        if not word.startswith("-"):
            continue
        name, equals, value = word.partition("=")
        if not equals and len(name) > 2 and not name.startswith("--"):
            name, value = name[:2], name[2:]  # -w4
        elif not equals and index + 1 < len(words) and not words[index + 1].startswith("-"):
            value = words[index + 1]
        options[GUNICORN_SHORT_OPTIONS.get(name, name)] = value
    return options


def _positive(value: str | None, default: int, name: str) -> int:
    """`value` as a positive whole number, `default` when None; CommandError otherwise."""
    if value is None:
        return default
    if not value.isdigit() or int(value) < 1:
        raise CommandError(
            f"GUNICORN_CMD_ARGS: {name} takes a positive whole number, not {value!r}"
        )
    return int(value)


def machine_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def bind_address(host: str, port: str) -> str:
    """host:port as gunicorn and runserver take it (an IPv6 address in brackets)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def gunicorn_command(*, host: str, port: str, cores: int, cmd_args: str = "") -> list[str]:
    """The room's web server: gunicorn with threaded workers (gthread) sized to the machine.
    Static files are served by WhiteNoise (a middleware of the site). An option also set in
    `cmd_args` (GUNICORN_CMD_ARGS, which gunicorn reads itself) is left out here: gunicorn
    applies its command line after that variable, so passing it would undo the variable."""
    processes, threads = gunicorn_size(cores, cmd_args)
    overridden = gunicorn_env_options(cmd_args)
    options = [
        ("--bind", bind_address(host, port)),
        ("--worker-class", "gthread"),
        ("--workers", str(processes)),
        ("--threads", str(threads)),
        ("--timeout", "120"),
        ("--graceful-timeout", "5"),
        ("--keep-alive", "5"),
    ]
    if Path("/dev/shm").is_dir():
        options.append(("--worker-tmp-dir", "/dev/shm"))
    cmd = [sys.executable, "-m", "gunicorn", "tarot_club.wsgi:application"]
    for name, value in options:
        if name not in overridden:
            cmd += [name, value]
    cmd += ["--no-control-socket"]  # one per user by default: two sites would share it
    return cmd


def runserver_command(*, host: str, port: str) -> list[str]:
    """Django's development server (a thread per connection: for this machine only)."""
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
    return [*manage, "runserver", bind_address(host, port), "--noreload"]


def web_server_command(
    *, host: str, port: str, server: str, cores: int, cmd_args: str = ""
) -> list[str]:
    """gunicorn for the room (a HOST that is not a loopback address, or --server gunicorn),
    else the development server. `cmd_args`: GUNICORN_CMD_ARGS (see gunicorn_command)."""
    if server == "gunicorn" or (server == "auto" and not is_loopback(host)):
        return gunicorn_command(host=host, port=port, cores=cores, cmd_args=cmd_args)
    return runserver_command(host=host, port=port)


class Command(BaseCommand):
    help = "Serve the site (and a Celery worker when Redis answers) until Ctrl-C."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", default=os.environ.get("PORT", "8000"))
        parser.add_argument(
            "--server",
            choices=SERVERS,
            default="auto",
            help="web server: gunicorn beyond this machine, the development server on a "
            "loopback address (auto), or the one named",
        )

    def handle(self, *args, host: str, port: str, server: str, **options) -> None:
        env = dict(os.environ)
        cmd_args = env.get("GUNICORN_CMD_ARGS", "")
        gunicorn_size(machine_cores(), cmd_args)  # a bad value stops here, before any child
        for_room = server == "gunicorn" or not is_loopback(host)
        address = self._room_environment(env, host=host, port=port, for_room=for_room)
        children: list[subprocess.Popen] = []
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
            self._worker = Supervised(worker, env=env, cwd=str(settings.BASE_DIR))
            self._worker.start()
            self.stdout.write(f"Celery worker started (broker {settings.REDIS_URL}).")
        else:
            env["CELERY_EAGER"] = "1"
            self.stdout.write(
                f"Redis does not answer at {settings.REDIS_URL or '(REDIS_URL empty)'}: "
                "tasks run in-process, the site works completely."
            )
        if server == "auto":
            server = "gunicorn" if for_room else "runserver"
        web = web_server_command(
            host=host, port=port, server=server, cores=machine_cores(), cmd_args=cmd_args
        )
        web_env = dict(env)  # the worker's environment stays as it is
        if server == "gunicorn":
            processes, threads = gunicorn_size(machine_cores(), cmd_args)
            served_by = f"gunicorn, {processes} processes of {threads} threads"
        else:
            # A thread per request: a connection kept after it would be left behind.
            web_env["DB_CONN_MAX_AGE"] = "0"
            served_by = "Django's development server"
        children.append(subprocess.Popen(web, env=web_env, cwd=str(settings.BASE_DIR)))
        self.stdout.write(self.style.SUCCESS(f"tarot_club is served on {address}/ ({served_by})"))
        self.stdout.write(f"Demo logins (password {DEMO_PASSWORD}):")
        for login, role in DEMO_LOGINS:
            self.stdout.write(f"  {login:<13} {role}")
        self._print_way_in(address)
        self.stdout.write("Press Ctrl-C to stop.")
        self._wait(children)

    def _print_way_in(self, address: str) -> None:
        """How a club's first organiser gets an account (README, "The first account")."""
        command = ".venv/bin/python manage.py create_organiser NAME"
        if settings.SIGNUP_OPEN:
            self.stdout.write(
                f"A club's first organiser opens an account at {address}/signup/ "
                f"(SIGNUP_OPEN=0 closes it), or you open one: {command}"
            )
        else:
            self.stdout.write(f"Sign-up is closed: open a first organiser's account with {command}")

    def _room_environment(
        self, env: dict[str, str], *, host: str, port: str, for_room: bool
    ) -> str:
        """Set SITE_URL (QR codes), DEBUG and ALLOWED_HOSTS for the site and its worker;
        return the address to print. Served for the room (beyond this machine, or by
        gunicorn when asked), the site never runs in DEBUG."""
        address = room_url(host=host, port=port, site_url=env.get("SITE_URL", ""))
        env["SITE_URL"] = address
        if not for_room:
            return address
        # WhiteNoise serves from the apps' folders until collectstatic fills this one.
        Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
        if env_bool_value(env.get("DEBUG")):
            self.stdout.write("DEBUG=1 is ignored: the site serves the room's network.")
        env["DEBUG"] = "0"
        if not env.get("SECRET_KEY") and not Path(settings.SECRET_KEY_FILE).is_file():
            env["SECRET_KEY"] = secrets.token_urlsafe(50)  # generated for this run
        hosts = [h for h in env.get("ALLOWED_HOSTS", "").split(",") if h.strip()]
        hosts = hosts or list(settings.ALLOWED_HOSTS)
        for extra in (url_host(address), host if host not in WILDCARD_HOSTS else ""):
            if extra and extra not in hosts:
                hosts.append(extra)
        env["ALLOWED_HOSTS"] = ",".join(hosts)
        self.stdout.write(
            self.style.WARNING(
                f"Serving the room: phones in the room open {address}/ "
                "(DEBUG is off; set SITE_URL to print another address)."
            )
        )
        return address

    _worker: Supervised | None = None

    def _wait(self, children: list[subprocess.Popen]) -> None:
        """Until Ctrl-C or the web server exits; a worker that died is started again."""
        signal.signal(signal.SIGTERM, _interrupt)
        signal.signal(signal.SIGINT, _interrupt)
        worker = self._worker
        if worker is not None:
            children = [worker.process, *children]  # type: ignore[list-item]
        try:
            while all(child.poll() is None for child in children[1 if worker else 0 :]):
                if worker is not None and worker.restart_if_dead():
                    self.stderr.write(
                        f"The Celery worker stopped (exit {worker.last_exit}); "
                        f"started again (restart {worker.restarts})."
                    )
                    children[0] = worker.process  # type: ignore[assignment]
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


def env_bool_value(value: str | None) -> bool:
    return (value or "").strip().lower() in TRUE_WORDS


class Supervised:
    """A child process started again when it exits, after a pause that doubles (1 s up to
    30 s) while it keeps dying within a minute of its start, like a service manager would."""

    def __init__(self, cmd: list[str], *, env: dict[str, str], cwd: str) -> None:
        self.cmd, self.env, self.cwd = cmd, env, cwd
        self.process: subprocess.Popen | None = None
        self.restarts = 0
        self.last_exit: int | None = None
        self._started = 0.0
        self._pause = 0.5
        self._due: float | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(self.cmd, env=self.env, cwd=self.cwd)
        self._started = time.monotonic()

    def restart_if_dead(self) -> bool:
        """Called periodically; True when it has just started the process again."""
        if self.process is None or self.process.poll() is None:
            return False
        now = time.monotonic()
        if self._due is None:
            self.last_exit = self.process.returncode
            lived = now - self._started
            self._pause = 0.5 if lived > 60 else min(30.0, self._pause * 2)
            self._due = now + self._pause
        if now < self._due:
            return False
        self._due = None
        self.restarts += 1
        self.start()
        return True


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C in the terminal, or a service manager's SIGTERM: stop both children."""
    raise KeyboardInterrupt
