"""Read-replica drill (docs/deploy/read-replicas.md): a real PostgreSQL streaming replica on this
machine takes the public pages' reads while the hub takes the clubs' uploads, then is stopped
and the site goes on reading the primary without an error.

- a primary cluster of the drill's own (bench/drill_services.py's PrivatePostgres) allowing
  replication; a standby made from it with `pg_basebackup -R -X stream` on its own port,
  streaming (checked in pg_stat_replication);
- the hub as in production: gunicorn (`--web-workers`) and a Celery worker, with
  `DATABASE_REPLICA_URLS` pointing at the standby;
- phase "uploads": `--clubs` clubs' uploads (bench/drill_simultaneous.py's) while `--pollers`
  strangers' phones read the event's public pages (the overall ranking, a club's page: during
  the embargo, the site's redirect to the event's notice) and the organiser's session reads
  the same ranking (the primary);
- phase "published": the organiser closes the event (the embargo ends), the strangers now read
  the ranking itself; the place-1 player the primary holds must show on a stranger's page;
- phase "replica stopped": the standby is stopped (immediate) while the phones go on; then
  phase "after": a few more seconds of polls.

Checked: every upload acknowledged; no poll answered an error in any phase, and every poll
answered 200 once the event was published; the standby ran the strangers' reads (its
transactions counted in pg_stat_database) and the primary the organiser's; after the stop,
the site answers from the primary. Figures go to docs/RELIABILITY.md ("Read replicas").

    .venv/bin/python bench/drill_replica.py [--clubs 40] [--window 20] [--pollers 12] \\
        [--web-workers 2] [--folder /tmp/replicadrill] [--keep]
About two minutes on 2 cores; run as root or as a user who may run PostgreSQL's binaries.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench.drill_services import (
    Client,
    NoAnswer,
    PrivatePostgres,
    PrivateRedis,
    Process,
    _pg_bin,
    drill_environment,
    free_port,
    wait_overall_current,
)
from bench.drill_simultaneous import run_senders, stage, start_hub


class StreamingReplica:
    """A hot standby of `primary` made by pg_basebackup, on its own port and socket folder."""

    def __init__(self, primary: PrivatePostgres, work: Path) -> None:
        self.primary = primary
        self.work = work
        self.port = free_port()
        self.data = work / "standby"
        self.log = work / "standby.log"

    def allow_replication(self) -> None:
        """Let the primary's superuser replicate over the loopback, then reload it."""
        with (self.primary.data / "pg_hba.conf").open("a") as fh:
            fh.write("host replication postgres 127.0.0.0/8 scram-sha-256\n")
        self.primary._run(_pg_bin("pg_ctl"), "-D", str(self.primary.data), "reload")

    def create(self) -> float:
        """The base backup and the standby's own settings; returns the seconds it took."""
        began = time.monotonic()
        source = (
            f"host={self.primary.host} port={self.primary.port} user=postgres "
            f"password={self.primary.password}"
        )
        self.primary._run(
            _pg_bin("pg_basebackup"), "-d", source, "-D", str(self.data), "-R", "-X", "stream",
            "-c", "fast",
        )  # fmt: skip
        with (self.data / "postgresql.conf").open("a") as fh:
            fh.write(
                f"\nport = {self.port}\nunix_socket_directories = '{self.work}'\nhot_standby = on\n"
            )
        return time.monotonic() - began

    def start(self) -> None:
        self.primary._run(
            _pg_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "start"
        )

    def stop(self) -> None:
        self.primary._run(
            _pg_bin("pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False
        )

    def url(self) -> str:
        return self.primary.url().replace(f":{self.primary.port}/", f":{self.port}/")

    def query(self, sql: str, *, port: int | None = None) -> str:
        """One value from psql on the standby (or on `port`)."""
        done = self.primary._run(
            _pg_bin("psql"), "-h", str(self.work), "-p", str(port or self.port), "-U", "postgres",
            "-d", "tarot_club", "-Atc", sql,
        )  # fmt: skip
        return done.stdout.strip()

    def transactions(self) -> int:
        return int(
            self.query("SELECT xact_commit FROM pg_stat_database WHERE datname = 'tarot_club'")
        )


@dataclass
class Polls:
    """Each phase's answers: {phase: {status: count}} (appended from the phones' threads)."""

    phase: str = "uploads"
    seen: dict[str, dict[str, int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, status: str) -> None:
        with self.lock:
            counts = self.seen.setdefault(self.phase, {})
            counts[status] = counts.get(status, 0) + 1

    def bad(self) -> int:
        """Answers that are errors (5xx, none) in any phase, or not the page once published."""
        return sum(
            n
            for phase, counts in self.seen.items()
            for status, n in counts.items()
            if status[0] not in "23" or (phase not in ("uploads", "closing") and status != "200")
        )


def poll(client: Client, paths: list[tuple[str, dict[str, str]]], polls: Polls, every: float,
         stop: threading.Event, number: int) -> None:  # fmt: skip
    """One phone: the paths in turn, every `every` seconds, until `stop`."""
    turn = number
    while not stop.is_set():
        path, headers = paths[turn % len(paths)]
        turn += 1
        try:
            status = str(client.request("GET", path, headers=headers, timeout=30).status)
        except NoAnswer:
            status = "no answer"
        polls.add(status)
        stop.wait(every)


def drive(
    args: argparse.Namespace, staged: dict[str, Any], replica: StreamingReplica
) -> dict[str, Any]:
    """The phases; returns what the checks need."""
    from tournaments.simultaneous.hub import services
    from tournaments.simultaneous.hub.models import OverallRankingRow

    event = staged["event"]
    public = f"/simultanes/{event.public_id}"
    first_club = staged["uploads"][0][0]
    strangers = [(f"{public}/classement/", {}), (f"{public}/clubs/{first_club}/", {})]
    organiser = [(f"{public}/classement/", {"Cookie": f"sessionid={staged['session']}"})]
    client = Client(f"http://127.0.0.1:{args.web_port}")
    polls, stop = Polls(), threading.Event()
    phones = [
        threading.Thread(target=poll, args=(client, organiser if n == 0 else strangers, polls,
                                             args.poll_every, stop, n))
        for n in range(args.pollers + 1)
    ]  # fmt: skip
    for phone in phones:
        phone.start()
    out: dict[str, Any] = {"standby_before": replica.transactions()}
    tally = run_senders(client, staged["uploads"], args.window, args.senders)
    out["acks"], out["failed"] = len(tally.acks), tally.failed
    out["lag"] = wait_overall_current(event.pk, timeout=300)
    polls.phase = "closing"
    services.event_close(event=event, user=event.created_by)
    wait_overall_current(event.pk, timeout=300)
    time.sleep(1)
    polls.phase = "published"
    time.sleep(args.phase_seconds)
    leader = OverallRankingRow.objects.filter(event_id=event.pk).order_by("place").first()
    page = client.request("GET", f"{public}/classement/", timeout=30).body.decode()
    out["leader_shown"] = leader is not None and leader.last_name in page
    out["standby_during"] = replica.transactions()
    polls.phase = "replica stopped"
    stopped = time.monotonic()
    replica.stop()
    out["stop_took"] = time.monotonic() - stopped
    time.sleep(args.phase_seconds)
    polls.phase = "after"
    time.sleep(args.phase_seconds)
    stop.set()
    for phone in phones:
        phone.join()
    out["polls"] = polls
    return out


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clubs", type=int, default=40)
    parser.add_argument("--window", type=float, default=20, help="seconds the uploads span")
    parser.add_argument("--senders", type=int, default=4)
    parser.add_argument("--pollers", type=int, default=12, help="strangers' phones")
    parser.add_argument("--poll-every", type=float, default=1.0)
    parser.add_argument("--phase-seconds", type=float, default=8.0)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--worker-concurrency", type=int, default=1)
    parser.add_argument("--folder", type=Path)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    args.web_port = free_port()
    return args


def report(out: dict[str, Any], args: argparse.Namespace, base_backup: float) -> tuple[str, int]:
    """The drill's lines and the number of failed checks."""
    polls: Polls = out["polls"]
    checks = {
        f"every upload acknowledged ({out['acks']}/{args.clubs})": out["acks"] == args.clubs
        and not out["failed"],
        "the standby ran the strangers' reads": out["standby_during"] > out["standby_before"] + 10,
        "a stranger's page shows the primary's place 1": out["leader_shown"],
        "every poll answered 200, before and after the standby stopped": polls.bad() == 0
        and bool(polls.seen.get("after")),
    }
    lines = [
        f"base backup {base_backup:.1f} s; ranking current {out['lag']:.1f} s after the last upload"
        if out["lag"] is not None
        else "ranking not current in time",
        f"standby transactions: {out['standby_during'] - out['standby_before']} during the drill",
        *(f"polls {phase}: {counts}" for phase, counts in polls.seen.items()),
        *(f"[{'ok' if ok else 'FAILED'}] {name}" for name, ok in checks.items()),
    ]
    return "\n".join(lines), sum(not ok for ok in checks.values())


def main() -> int:
    args = parse_args()
    work = args.folder or Path(tempfile.mkdtemp(prefix="tarot-replicadrill-"))
    shutil.rmtree(work / "pg", ignore_errors=True)
    (work / "pg").mkdir(parents=True)
    pg, redis = PrivatePostgres(work / "pg"), PrivateRedis()
    replica = StreamingReplica(pg, work / "pg")
    processes: list[Process] = []
    failures = 1
    try:
        pg.init()
        replica.allow_replication()
        base_backup = replica.create()
        replica.start()
        streaming = pg._run(_pg_bin("psql"), "-h", str(pg.work), "-p", str(pg.port), "-U",
                            "postgres", "-Atc", "SELECT state FROM pg_stat_replication").stdout  # fmt: skip
        print(f"standby on port {replica.port}: {streaming.strip() or 'not streaming'}", flush=True)
        redis.start()
        env = drill_environment(
            work, pg, redis, CELERY_QUEUE="replicadrill", DATABASE_REPLICA_URLS=replica.url()
        )
        os.environ.update({k: v for k, v in env.items() if k != "DATABASE_REPLICA_URLS"})
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connections

        call_command("migrate", verbosity=0)
        staged = stage(args.clubs)
        connections.close_all()
        processes = start_hub(work, env, args)
        text, failures = report(drive(args, staged, replica), args, base_backup)
        print(text)
    finally:
        for process in reversed(processes):
            process.stop()
        replica.stop()
        redis.kill()
        pg.stop()
        if args.keep or failures or args.folder:
            print(f"logs in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
