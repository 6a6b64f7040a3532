"""Fault drills: results keep being entered while a fault strikes; afterwards every
acknowledged result must be in the database (row and ledger entry), the worker must still be
there (or be back, as systemd brings it back), and the ranking must be current within
RANKING_STALE_AFTER without any page read.

Drills (bounded, loopback only, private services started here; the machine's shared Redis
and PostgreSQL are not touched):
- redis_stopped: the broker is killed mid-entry and restarted 5 s later;
- worker_killed: the worker is killed (SIGKILL) mid-entry and started again 2 s later.

    .venv/bin/python bench/drill_faults.py            # prints one line per drill
Figures go to docs/RELIABILITY.md.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
WORK = Path(tempfile.mkdtemp(prefix="tarot-drill-"))
STALE_AFTER = 6


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


REDIS_PORT = free_port()
os.environ.update(
    {
        "DJANGO_SETTINGS_MODULE": "tarot_club.settings",
        "DEBUG": "0",
        "SECRET_KEY": "drill-only-secret-key-" + "x" * 40,
        "DATABASE_URL": f"sqlite:///{WORK / 'drill.sqlite3'}",
        "REDIS_URL": f"redis://127.0.0.1:{REDIS_PORT}/0",
        "CELERY_EAGER": "0",
        "CELERY_QUEUE": "drill",
        "RANKING_STALE_AFTER": str(STALE_AFTER),
        "MEDIA_ROOT": str(WORK / "media"),
        "LOG_LEVEL": "ERROR",
    }
)


class Redis:
    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        cmd = ["redis-server", "--port", str(REDIS_PORT), "--bind", "127.0.0.1"]
        cmd += ["--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        time.sleep(0.3)

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Worker:
    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        cmd = [sys.executable, "-m", "celery", "-A", "tarot_club", "worker", "-Q", "drill"]
        cmd += ["-n", f"drill{self.starts}@%h", "--concurrency", "2", "--loglevel", "WARNING"]
        log = (WORK / f"worker{self.starts}.log").open("wb")
        self.process = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        self.starts += 1
        time.sleep(4)

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.alive():
            self.process.send_signal(signal.SIGKILL)  # type: ignore[union-attr]
            self.process.wait()  # type: ignore[union-attr]

    def stop(self) -> None:
        if self.alive():
            self.process.terminate()  # type: ignore[union-attr]
            try:
                self.process.wait(timeout=20)  # type: ignore[union-attr]
            except subprocess.TimeoutExpired:
                self.kill()


def main() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from scoring.models import RankingSnapshot
    from tests.fixtures.tournaments import stage_tournament
    from tests.rankings.helpers import enter, schedule
    from tournaments.models import LedgerEntry, Result, Tournament

    user = get_user_model().objects.create_user("drill-arbiter", password="x")
    redis_server, worker = Redis(), Worker()
    redis_server.start()
    worker.start()

    def drill(name: str, fault, recover, *, rounds: int = 4) -> None:
        tournament = stage_tournament(players=16, rounds=rounds, name=f"Drill {name}")
        tournament.arbiters.add(user)
        cells = [(t, d) for _r, t, d in schedule(tournament)][:40]
        acknowledged = 0
        first_pid = worker.process.pid if worker.process else None
        for n, cell in enumerate(cells):
            if n == 10:
                fault()
            if n == 25:
                recover()
            try:
                enter(tournament, *cell, user)
                acknowledged += 1
            except Exception as exc:  # not acknowledged: the arbiter is told and retries
                print(f"  {name}: result {n} refused: {type(exc).__name__}")
            time.sleep(0.15)
        entered_at = time.monotonic()
        tournament.refresh_from_db()
        deadline = entered_at + STALE_AFTER + 20
        current_after = None
        while time.monotonic() < deadline:
            version = Tournament.objects.get(pk=tournament.pk).results_version
            if RankingSnapshot.objects.filter(
                tournament=tournament, results_version=version
            ).exists():
                current_after = time.monotonic() - entered_at
                break
            time.sleep(0.2)
        persisted = Result.objects.filter(tournament=tournament).count()
        ledger = LedgerEntry.objects.filter(tournament=tournament).count()
        same_worker = worker.process is not None and worker.process.pid == first_pid
        current = "never" if current_after is None else f"{current_after:.1f} s"
        print(
            f"{name}: acknowledged {acknowledged}, persisted {persisted} rows / {ledger} ledger "
            f"entries, worker {'alive (same process)' if same_worker and worker.alive() else ('restarted' if worker.alive() else 'DEAD')}, "
            f"ranking current {current} after the last result (limit {STALE_AFTER} s)"
        )

    def restart_redis_later() -> None:
        time.sleep(5)
        redis_server.start()

    try:
        drill("redis_stopped", redis_server.kill, restart_redis_later)
        drill(
            "worker_killed",
            worker.kill,
            lambda: (time.sleep(2), worker.start()),
        )
    finally:
        worker.stop()
        redis_server.kill()


if __name__ == "__main__":
    main()
