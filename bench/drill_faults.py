"""Fault drills: results keep being sent to the API from 20 tables at once while a fault
strikes; afterwards every acknowledged result must be in the database (row and ledger
entry, none twice), the ranking must be current within RANKING_STALE_AFTER without any page
read, and the worker must still be running a while after the fault (or be back, when the
fault was its own death and the repair started it again).

The services are the drill's own (bench/drill_services.py): a PostgreSQL cluster started
with initdb + pg_ctl (so restarting it touches no other database), a Redis server with a
password, one gunicorn web process (2 workers), all on 127.0.0.1, on the ports and in the
folder given on the command line (a free port when none is given, a fresh folder under /tmp).
Each fault gets a fresh Celery worker of its own (prefork, 2 processes, named after the
fault), waited for (its "ready" line) before the results are sent, so a worker that dies is
reported under the fault that killed it.

Per fault, 20 tables each send their results one after the other (60 in all), each with an
Idempotency-Key, sending a result again (same key) while it gets no answer or a 5xx, as the
table page's queue does. After the 15th acknowledged result the fault strikes, in a thread,
and is repaired as systemd or an operator would:
- redis_stopped: Redis killed (SIGKILL, its data lost) and started again 5 s later;
- postgres_restarted: PostgreSQL stopped (fast shutdown: connections cut) and started 3 s later;
- worker_killed: the worker killed (SIGKILL, mid-task) and started again 2 s later;
- web_killed: the web process and its workers killed (SIGKILL) and started again 2 s later.
Once the ranking is current, the drill waits `--survival` seconds (20) and looks at the
fault's worker again: alive, started again (worker_killed only) or DEAD (with the last lines
of its log). The ranking's freshness is read in the database (RankingSnapshot), never
through a page.

    .venv/bin/python bench/drill_faults.py                  # all drills, one line each
    .venv/bin/python bench/drill_faults.py worker_killed    # one drill
    .venv/bin/python bench/drill_faults.py --folder /tmp/faults --pg-port 8142 \\
        --redis-port 8143 --web-port 8144 --keep
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
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.drill_services import (
    ROOT,
    Client,
    PrivatePostgres,
    PrivateRedis,
    Process,
    drill_environment,
    free_port,
    post_result,
    web_process,
    worker_process,
)

STALE_AFTER = 6
TABLES = 20
PER_TABLE = 3
FAULT_AT = 15
DRILLS = ("redis_stopped", "postgres_restarted", "worker_killed", "web_killed")


@dataclass
class Outcome:
    """What one drill measured."""

    name: str
    sent: int
    acknowledged: int = 0
    persisted: int = 0
    ledger: int = 0
    resent: int = 0
    current_after: float | None = None
    computed_in: str = ""
    worker: str = ""
    web: str = ""
    survival: float = 0.0

    def passed(self) -> bool:
        return (
            self.acknowledged == self.persisted == self.ledger == self.sent
            and not self.worker.startswith("DEAD")
            and not self.web.startswith("DOWN")
            and self.current_after is not None
            and self.current_after <= STALE_AFTER
        )

    def line(self) -> str:
        current = "never" if self.current_after is None else f"{self.current_after:.1f} s"
        return (
            f"{'ok  ' if self.passed() else 'FAIL'} {self.name}: acknowledged "
            f"{self.acknowledged}/{self.sent}, persisted {self.persisted} rows / {self.ledger} "
            f"ledger entries, {self.resent} requests sent again; ranking current {current} "
            f"after the last result (limit {STALE_AFTER} s, computed by {self.computed_in}); "
            f"worker {self.worker} {self.survival:g} s after the fault; web {self.web}"
        )


def send_concurrently(
    clients: list[Client],
    *,
    tournament_id: int,
    token: str,
    cells: list[tuple[int, int]],
    strike: Callable[[], None],
) -> tuple[int, int]:
    """Every table sends its results in a thread of its own; `strike` runs (in another
    thread) once FAULT_AT results were acknowledged. Returns (acknowledged, sent again)."""
    by_table: dict[int, list[int]] = {}
    for table, donne in cells:
        by_table.setdefault(table, []).append(donne)
    lock = threading.Lock()
    counts = {"acknowledged": 0, "resent": 0}
    striking: list[threading.Thread] = []

    def table_sends(table: int, donnes: list[int]) -> None:
        for donne in donnes:
            ok, resent = post_result(
                clients, tournament_id=tournament_id, table=table, donne=donne, token=token
            )
            with lock:
                counts["acknowledged"] += ok
                counts["resent"] += resent
                if counts["acknowledged"] >= FAULT_AT and not striking:
                    striking.append(threading.Thread(target=strike, name="fault"))
                    striking[0].start()
            time.sleep(0.2)

    threads = [
        threading.Thread(target=table_sends, args=(table, donnes), name=f"table-{table}")
        for table, donnes in by_table.items()
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for thread in striking:
        thread.join()
    return counts["acknowledged"], counts["resent"]


def process_state(process: Process, first_pid: int | None, *, up: str, down: str) -> str:
    """alive (same process) / started again / DEAD or DOWN with its log's last line."""
    if not process.alive():
        tail = [line for line in process.log_text().splitlines() if line.strip()][-1:]
        return f"{down} ({tail[0][:160] if tail else 'no log'})"
    same = process.process is not None and process.process.pid == first_pid
    return f"{up} (same process)" if same else "started again"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("drills", nargs="*", help=f"some of {', '.join(DRILLS)} (default: all)")
    parser.add_argument("--folder", type=Path, help="work folder (default: a new one in /tmp)")
    parser.add_argument("--pg-port", type=int, default=0, help="PostgreSQL's port (default: free)")
    parser.add_argument("--redis-port", type=int, default=0, help="Redis' port (default: free)")
    parser.add_argument("--web-port", type=int, default=0, help="gunicorn's port (default: free)")
    parser.add_argument(
        "--survival", type=float, default=20, help="seconds after the fault to look at the worker"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs)")
    args = parser.parse_args()
    unknown = set(args.drills) - set(DRILLS)
    if unknown:
        parser.error(f"unknown drills: {', '.join(sorted(unknown))}")
    args.drills = args.drills or list(DRILLS)
    return args


def main() -> int:
    args = parse_args()
    work = args.folder or Path(tempfile.mkdtemp(prefix="tarot-drill-"))
    if args.folder:
        shutil.rmtree(work / "pg", ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    (work / "pg").mkdir()
    pg = PrivatePostgres(work / "pg", port=args.pg_port)
    redis = PrivateRedis(port=args.redis_port)
    web_port = args.web_port or free_port()
    env = drill_environment(work, pg, redis, RANKING_STALE_AFTER=str(STALE_AFTER))
    os.environ.update(env)
    processes: list[Process] = []
    failures = 0
    try:
        pg.init()
        redis.start()
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.db import connections

        from tournaments.api.tokens import token_create

        call_command("migrate", verbosity=0)
        user = get_user_model().objects.create_user("drill-arbiter", password="x")
        token = token_create(user=user).key
        connections.close_all()
        web = web_process(
            "drill-web", cwd=ROOT, env=env, log_dir=work, host="127.0.0.1", port=web_port
        )
        processes.append(web)
        web.start()
        client = Client(f"http://127.0.0.1:{web_port}")
        for name in args.drills:
            worker = worker_process(f"worker-{name}", cwd=ROOT, env=env, log_dir=work)
            processes.append(worker)
            faults = {
                "redis_stopped": (redis.kill, lambda: (time.sleep(5), redis.start())),
                "postgres_restarted": (pg.stop, lambda: (time.sleep(3), pg.start())),
                "worker_killed": (worker.kill, lambda w=worker: (time.sleep(2), w.start())),
                "web_killed": (web.kill, lambda: (time.sleep(2), web.start())),
            }
            fault, repair = faults[name]
            outcome = drill(
                name,
                worker=worker,
                web=web,
                client=client,
                user=user,
                token=token,
                strike=lambda f=fault, r=repair: (f(), r()),
                survival=args.survival,
            )
            print(outcome.line(), flush=True)
            failures += not outcome.passed()
            worker.stop()
    finally:
        for process in processes:
            process.stop()
        redis.kill()
        pg.stop()
        if args.keep or failures:
            print(f"logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


def drill(
    name: str,
    *,
    worker: Process,
    web: Process,
    client: Client,
    user: object,
    token: str,
    strike: Callable[[], None],
    survival: float,
) -> Outcome:
    """One fault against a fresh worker: writes from every table, the fault, the checks."""
    from django.db import connections

    from scoring.models import RankingSnapshot
    from tests.fixtures.tournaments import stage_tournament
    from tests.scoring.rankings.helpers import schedule
    from tournaments.models import LedgerEntry, Result, Tournament

    def db_read(fn: Callable[[], object]) -> object:
        """Read from the drill's process, reconnecting after PostgreSQL restarted."""
        for _ in range(100):
            try:
                return fn()
            except Exception:
                connections.close_all()
                time.sleep(0.2)
        return fn()

    worker.start()
    deadline = time.monotonic() + 90  # booting takes long on a loaded machine
    while time.monotonic() < deadline and " ready." not in worker.log_text():
        time.sleep(0.5)
    time.sleep(1)  # the worker sweeps once
    tournament = stage_tournament(players=4 * TABLES, rounds=2, name=f"Drill {name}")
    tournament.arbiters.add(user)
    per_table: dict[int, int] = {}
    cells = []
    for round_number, table, donne in schedule(tournament):
        if round_number == 1 and per_table.get(table, 0) < PER_TABLE:
            per_table[table] = per_table.get(table, 0) + 1
            cells.append((table, donne))
    connections.close_all()
    worker_pid = worker.process.pid if worker.process else None
    web_pid = web.process.pid if web.process else None
    outcome = Outcome(name=name, sent=len(cells), survival=survival)
    struck_at: list[float] = []
    outcome.acknowledged, outcome.resent = send_concurrently(
        [client],
        tournament_id=tournament.pk,
        token=token,
        cells=cells,
        strike=lambda: (struck_at.append(time.monotonic()), strike()),
    )
    entered_at = time.monotonic()
    while time.monotonic() < entered_at + STALE_AFTER + 30:
        version = db_read(lambda: Tournament.objects.get(pk=tournament.pk).results_version)
        snap = db_read(
            lambda v=version: RankingSnapshot.objects.filter(
                tournament_id=tournament.pk, results_version=v
            ).first()
        )
        if snap is not None:
            outcome.current_after = time.monotonic() - entered_at
            outcome.computed_in = str(snap.computed_in)
            break
        time.sleep(0.2)
    outcome.persisted = db_read(lambda: Result.objects.filter(tournament=tournament).count())
    outcome.ledger = db_read(lambda: LedgerEntry.objects.filter(tournament=tournament).count())
    connections.close_all()
    if struck_at:
        time.sleep(max(0.0, struck_at[0] + survival - time.monotonic()))
    outcome.worker = process_state(worker, worker_pid, up="alive", down="DEAD")
    if "Unrecoverable error" in worker.log_text() and not outcome.worker.startswith("DEAD"):
        outcome.worker = "DEAD (logged an unrecoverable error)"
    outcome.web = process_state(web, web_pid, up="up", down="DOWN")
    return outcome


if __name__ == "__main__":
    sys.exit(main())
