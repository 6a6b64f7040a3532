"""Fault drills: results keep being sent to the API while a fault strikes; afterwards every
acknowledged result must be in the database (row and ledger entry, none twice), the worker
must still be there (or be back, as systemd brings it back), and the ranking must be current
within RANKING_STALE_AFTER without any page read.

The services are the drill's own (bench/drill_services.py): a PostgreSQL cluster started
with initdb + pg_ctl on a free port (so restarting it touches no other database), a Redis
server with a password, one gunicorn web process (2 workers) and one Celery worker (prefork,
2 processes), all on 127.0.0.1. A client sends 40 results one after the other, each with an
Idempotency-Key, and sends a result again (same key) while it gets no answer or a 5xx, as
the table page's queue does. After the 10th acknowledged result the fault strikes, in a
thread; it is repaired as systemd or an operator would:
- redis_stopped: Redis killed (SIGKILL, its data lost) and started again 5 s later;
- postgres_restarted: PostgreSQL stopped (fast shutdown: connections cut) and started 3 s later;
- worker_killed: the worker killed (SIGKILL, mid-task) and started again 2 s later;
- web_killed: the web process and its workers killed (SIGKILL) and started again 2 s later.

The ranking's freshness is read in the database (RankingSnapshot), never through a page.

    .venv/bin/python bench/drill_faults.py                  # all drills, one line each
    .venv/bin/python bench/drill_faults.py worker_killed    # one drill
Figures go to docs/RELIABILITY.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.drill_services import (
    ROOT,
    Client,
    PrivatePostgres,
    PrivateRedis,
    free_port,
    post_result,
    web_process,
    worker_process,
)

STALE_AFTER = 6
RESULTS = 40
FAULT_AT = 10
DRILLS = ("redis_stopped", "postgres_restarted", "worker_killed", "web_killed")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("drills", nargs="*", help=f"some of {', '.join(DRILLS)} (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs)")
    args = parser.parse_args()
    unknown = set(args.drills) - set(DRILLS)
    if unknown:
        parser.error(f"unknown drills: {', '.join(sorted(unknown))}")
    args.drills = args.drills or list(DRILLS)

    work = Path(tempfile.mkdtemp(prefix="tarot-drill-"))
    (work / "pg").mkdir()
    pg = PrivatePostgres(work / "pg")
    redis = PrivateRedis()
    web_port = free_port()
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "tarot_club.settings",
            "DEBUG": "0",
            "SECRET_KEY": "drill-only-secret-key-" + "x" * 40,
            "DATABASE_URL": pg.url(),
            "REDIS_URL": redis.url(),
            "CELERY_EAGER": "0",
            "CELERY_QUEUE": "drill",
            "RANKING_STALE_AFTER": str(STALE_AFTER),
            "MEDIA_ROOT": str(work / "media"),
            "TAROT_VAR_DIR": str(work / "var"),
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
            "TAROT_SWEEP": "1",
        }
    )
    os.environ.update(env)
    worker = web = None
    failures = 0
    try:
        pg.init()
        redis.start()
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.db import connections

        from scoring.models import RankingSnapshot
        from tests.fixtures.tournaments import stage_tournament
        from tests.rankings.helpers import schedule
        from tournaments.api.tokens import token_create
        from tournaments.models import LedgerEntry, Result, Tournament

        call_command("migrate", verbosity=0)
        user = get_user_model().objects.create_user("drill-arbiter", password="x")
        token = token_create(user=user).key
        connections.close_all()

        worker = worker_process("drill-worker", cwd=ROOT, env=env, log_dir=work)
        web = web_process(
            "drill-web", cwd=ROOT, env=env, log_dir=work, host="127.0.0.1", port=web_port
        )
        worker.start()
        web.start()
        time.sleep(4)  # the worker connects and sweeps once
        client = Client(f"http://127.0.0.1:{web_port}")

        def db_read(fn: Callable[[], object]) -> object:
            """Read from the drill's process, reconnecting after PostgreSQL restarted."""
            for _ in range(50):
                try:
                    return fn()
                except Exception:
                    connections.close_all()
                    time.sleep(0.2)
            return fn()

        def drill(name: str, fault: Callable[[], None], repair: Callable[[], None]) -> bool:
            tournament = stage_tournament(players=16, rounds=4, name=f"Drill {name}")
            tournament.arbiters.add(user)
            cells = [(t, d) for _r, t, d in schedule(tournament)][:RESULTS]
            connections.close_all()
            worker_pid = worker.process.pid if worker.process else None
            web_pid = web.process.pid if web.process else None
            acknowledged = tries = 0
            striking: threading.Thread | None = None
            for n, (table, donne) in enumerate(cells):
                if n == FAULT_AT:
                    striking = threading.Thread(target=lambda: (fault(), repair()))
                    striking.start()
                ok, sent = post_result(
                    [client], tournament_id=tournament.pk, table=table, donne=donne, token=token
                )
                acknowledged += ok
                tries += sent
                time.sleep(0.1)
            entered_at = time.monotonic()
            if striking is not None:
                striking.join()
            current_after = computed_in = None
            while time.monotonic() < entered_at + STALE_AFTER + 30:
                version = db_read(lambda: Tournament.objects.get(pk=tournament.pk).results_version)
                snap = db_read(
                    lambda v=version: RankingSnapshot.objects.filter(
                        tournament_id=tournament.pk, results_version=v
                    ).first()
                )
                if snap is not None:
                    current_after = time.monotonic() - entered_at
                    computed_in = snap.computed_in
                    break
                time.sleep(0.2)
            persisted = db_read(lambda: Result.objects.filter(tournament=tournament).count())
            ledger = db_read(lambda: LedgerEntry.objects.filter(tournament=tournament).count())
            if worker.alive():
                same = worker.process is not None and worker.process.pid == worker_pid
                worker_state = "alive (same process)" if same else "started again"
            else:
                worker_state = "DEAD"
            if web.alive():
                same = web.process is not None and web.process.pid == web_pid
                web_state = "up (same process)" if same else "started again"
            else:
                web_state = "DOWN"
            current = "never" if current_after is None else f"{current_after:.1f} s"
            print(
                f"{name}: acknowledged {acknowledged}/{len(cells)}, persisted {persisted} rows / "
                f"{ledger} ledger entries, {tries} requests sent again, "
                f"worker {worker_state}, web {web_state}, ranking current {current} after "
                f"the last result (limit {STALE_AFTER} s, computed by {computed_in})",
                flush=True,
            )
            return (
                acknowledged == persisted == ledger == len(cells)
                and worker_state != "DEAD"
                and current_after is not None
                and current_after <= STALE_AFTER
            )

        faults = {
            "redis_stopped": (redis.kill, lambda: (time.sleep(5), redis.start())),
            "postgres_restarted": (pg.stop, lambda: (time.sleep(3), pg.start())),
            "worker_killed": (worker.kill, lambda: (time.sleep(2), worker.start())),
            "web_killed": (web.kill, lambda: (time.sleep(2), web.start())),
        }
        for name in args.drills:
            fault, repair = faults[name]
            failures += not drill(name, fault, repair)
        log = worker.log_text()
        if "Unrecoverable error" in log:
            print("the worker logged an unrecoverable error")
            failures += 1
    finally:
        for process in (web, worker):
            if process is not None:
                process.stop()
        redis.kill()
        pg.stop()
        if args.keep or failures:
            print(f"logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
