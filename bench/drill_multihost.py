"""Multi-host drill: the README's federation deployment run on one machine, step by step, with
every role on its own loopback address and every web and worker process started from its own
checkout with the command line and environment files of the units the README ships.

- PostgreSQL (a cluster of the drill's own, initdb + pg_ctl, the role `tarot` with a password,
  scram-sha-256, listening on its address only: steps db-role, db-listen);
- Redis from the README's `/etc/redis/tarot.conf` (password, appendonly, its own folder) run
  by the ExecStart of docs/deploy/redis-tarot.service; the appendonly file must appear
  (redis-conf, redis-unit);
- one virtual environment made with `python -m venv` + `pip install -r requirements.txt`
  alone, kept under the drill's folder between runs (remade when requirements.txt changes),
  used as each checkout's `.venv` (venv);
- the README's shared environment file and a host file per host (BIND, WEB_WORKERS,
  WORKER_CONCURRENCY), addresses and paths replaced by the drill's (env-shared, env-host);
- four checkouts cloned from this repository's HEAD (web1, web2, worker1, worker2), prepared
  with docs/deploy/tarot-manage (compile_translations, collectstatic; migrate once: prepare,
  migrate);
- gunicorn and the Celery workers started from the ExecStart= and EnvironmentFile= lines of
  docs/deploy/tarot-web.service and tarot-worker@.service (units), probed by IP and with the
  balancer's headers (probe); a database dump as the nightly job does it (backup).

The orchestrator (this script, in the development environment) stands for the administrator
and the load balancer: it stages the tournament and reads the database. It checks, one line
each: /healthz by IP on each web host; Host + X-Forwarded-Proto give the login page and their
absence a redirect; a session opened on web1 is valid on web2; results entered on web1 make
the ranking current on web2; a PDF asked on web1, built by a worker, downloaded from web2,
carries SITE_URL; a simultaneous event's hub takes four clubs' signed uploads on web1 and
web2 in turn (one sent again to the other host: unchanged), a worker computes the overall
ranking (equal to a recomputation from the database), web2's API lists it to the organiser
(docs/deploy/simultaneous-hub.md); web1 and worker1 killed while results keep coming lose
nothing and the ranking is current within RANKING_STALE_AFTER; both workers stopped, /healthz answers 503.
It ends with the README's steps it ran. Run it as root (tarot-manage starts manage.py with
runuser). About three minutes, more when the virtual environment is made.

    .venv/bin/python bench/drill_multihost.py [--folder /tmp/multihost] [--keep] \
        [--pg 127.0.0.2:8145] [--redis 127.0.0.3:8146] [--web1 127.0.0.4:8147] \
        [--web2 127.0.0.5:8148]
Figures go to docs/RELIABILITY.md.
"""

from __future__ import annotations

import argparse
import getpass
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.drill_services import (
    ROOT,
    Client,
    NoAnswer,
    PrivatePostgres,
    Process,
    _pg_bin,
    free_port,
    overall_equal,
    post_result,
    post_upload,
    wait_overall_current,
    wait_port,
)

SITE = "tarot.example.org"
STALE_AFTER = 15  # the default
README = ROOT / "README.md"
UNITS = ROOT / "docs" / "deploy"
SHARED_ENV, HOST_ENV = "/etc/tarot_club.env", "/etc/tarot_club.host.env"


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=value lines, as systemd's EnvironmentFile reads them."""
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


def readme_heredoc(target: str) -> str:
    """The text the README writes into `target` with `cat > target <<'X'`."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"cat > {re.escape(target)} <<'(\w+)'\n(.*?)\n\1\n", text, re.S)
    if not match:
        raise SystemExit(f"the README no longer writes {target}")
    return match.group(2)


def readme_steps() -> list[str]:
    """The step ids the README marks (`# step <id>`), in order."""
    return re.findall(r"# step ([a-z-]+)", README.read_text(encoding="utf-8"))


def unit_command(
    unit: str, *, home: Path, env_files: dict[str, Path], instance: str = "", host: str = ""
) -> tuple[list[str], dict[str, str]]:
    """The unit's ExecStart as argv and its environment (Environment=, EnvironmentFile=),
    with the checkout at `home`, the environment files at `env_files`, %i and %H given."""
    env: dict[str, str] = {}
    exec_start = ""
    for line in (UNITS / unit).read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "EnvironmentFile":
            env.update(read_env_file(env_files[value.lstrip("-")]))
        elif key == "Environment":
            for pair in shlex.split(value):
                name, _, val = pair.partition("=")
                env[name] = val
        elif key == "ExecStart":
            exec_start = value
    command = exec_start.replace("/srv/tarot_club", str(home))
    command = command.replace("%i", instance).replace("%H", host)
    command = re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], command)
    return shlex.split(command), env


def cached_venv(folder: Path) -> Path:
    """A virtual environment with requirements.txt alone, remade when the file changes."""
    venv = folder / "venv"
    digest = hashlib.sha256((ROOT / "requirements.txt").read_bytes()).hexdigest()
    stamp = venv / "requirements.sha256"
    if stamp.exists() and stamp.read_text() == digest:
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    python = shutil.which("python3.11") or sys.executable
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [
            str(venv / "bin" / "pip"),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "-r",
            str(ROOT / "requirements.txt"),
        ],
        check=True,
    )
    stamp.write_text(digest)
    return venv


def checkout(work: Path, name: str, venv: Path) -> Path:
    target = work / name
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(target)], check=True)
    (target / ".venv").symlink_to(venv)
    return target


def tarot_manage(home: Path, shared: Path, host_env: Path, *args: str) -> None:
    """docs/deploy/tarot-manage, pointed at the checkout and the drill's environment files."""
    env = {
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        "TAROT_HOME": str(home),
        "TAROT_ENV": str(shared),
        "TAROT_HOST_ENV": str(host_env),
        "TAROT_USER": getpass.getuser(),
    }
    subprocess.run(
        ["sh", str(UNITS / "tarot-manage"), *args],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def address(value: str) -> tuple[str, int]:
    host, _, port = value.partition(":")
    return host, int(port or 0)


class Report:
    def __init__(self) -> None:
        self.failures = 0

    def check(self, ok: bool, line: str) -> None:
        self.failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {line}", flush=True)


def start_redis(work: Path, host: str, port: int, password: str) -> Process:
    """The README's /etc/redis/tarot.conf (port, address, password and folder the drill's),
    run by the ExecStart of docs/deploy/redis-tarot.service; waits for its appendonly file."""
    conf = readme_heredoc("/etc/redis/tarot.conf")
    data = work / "redis-tarot"
    data.mkdir(exist_ok=True)
    conf = re.sub(r"^port .*$", f"port {port}", conf, flags=re.M)
    conf = re.sub(r"^bind .*$", f"bind {host}", conf, flags=re.M)
    conf = re.sub(r"^requirepass .*$", f"requirepass {password}", conf, flags=re.M)
    conf = re.sub(r"^dir .*$", f"dir {data}", conf, flags=re.M)
    (work / "tarot.conf").write_text(conf + "\n")
    (work / "tarot.conf").chmod(0o640)
    exec_start = next(
        line.split("=", 1)[1]
        for line in (UNITS / "redis-tarot.service").read_text().splitlines()
        if line.startswith("ExecStart=")
    )
    cmd = shlex.split(exec_start.replace("/etc/redis/tarot.conf", str(work / "tarot.conf")))
    redis = Process("redis-tarot", cmd, data, {"PATH": os.environ["PATH"]}, work)
    redis.start()
    wait_port(host, port, timeout=20)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(data.rglob("*.aof*")):
        time.sleep(0.2)
    if not any(data.rglob("*.aof*")):
        raise SystemExit(f"Redis wrote no appendonly file in {data}")
    return redis


def write_env_files(
    work: Path, *, pg_url: str, redis_url: str, hosts: dict[str, tuple[str, int]]
) -> tuple[Path, dict[str, Path]]:
    """The README's shared file and one host file per host, with the drill's addresses."""
    shared = dict(
        line.split("=", 1) for line in readme_heredoc(SHARED_ENV).splitlines() if "=" in line
    )
    shared.update(
        {
            "DATABASE_URL": pg_url,
            "REDIS_URL": redis_url,
            "SECRET_KEY": "multihost-drill-" + "k" * 50,
            "MEDIA_ROOT": str(work / "media"),
            "LOG_LEVEL": "INFO",
        }
    )
    (work / "media").mkdir(exist_ok=True)
    shared_file = work / "tarot_club.env"
    shared_file.write_text("".join(f"{k}={v}\n" for k, v in shared.items()))
    shared_file.chmod(0o640)
    host_template = dict(
        line.split("=", 1) for line in readme_heredoc(HOST_ENV).splitlines() if "=" in line
    )
    host_files = {}
    for name, (host, port) in hosts.items():
        values = {**host_template, "BIND": f"{host}:{port}"}
        values.update({"WEB_WORKERS": "2", "WORKER_CONCURRENCY": "2"})
        host_files[name] = work / f"{name}.host.env"
        host_files[name].write_text("".join(f"{k}={v}\n" for k, v in values.items()))
        host_files[name].chmod(0o640)
    return shared_file, host_files


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, help="work folder; the venv is kept there")
    parser.add_argument("--pg", default="127.0.0.2:0", help="PostgreSQL's address:port")
    parser.add_argument("--redis", default="127.0.0.3:0", help="Redis' address:port")
    parser.add_argument("--web1", default="127.0.0.4:0", help="web1's BIND address:port")
    parser.add_argument("--web2", default="127.0.0.5:0", help="web2's BIND address:port")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs)")
    return parser.parse_args()


def check_probe(d: SimpleNamespace) -> None:
    """/healthz by IP on each web host; the balancer's headers matter."""

    # 1. health by IP address, the balancer's headers
    for name, client in d.by_ip.items():
        answer = None
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            answer = client.request("GET", "/healthz")
            if answer.status == 200:
                break
            time.sleep(1)
        d.report.check(
            answer is not None and answer.status == 200 and b'"ok"' in answer.body,
            f"{name}: /healthz by IP answers {answer.status if answer else '-'} "
            f"{answer.body.decode()[:40] if answer else ''}",
        )
    with_headers = d.lb["web1"].request("GET", "/login/").status
    no_proto = Client(f"http://{d.web1_host}:{d.web_ports[d.web1_host]}", host_header=SITE)
    without = no_proto.request("GET", "/login/").status
    d.report.check(
        with_headers == 200 and without == 301,
        f"web1 /login/ with Host and X-Forwarded-Proto: {with_headers}; "
        f"without X-Forwarded-Proto: {without}",
    )
    d.steps.append("probe")


def check_session(d: SimpleNamespace) -> None:
    """A session opened on web1 is valid on web2."""

    # 2. a session opened on web1 is valid on web2
    page = d.lb["web1"].request("GET", "/login/")
    csrf_cookie = page.cookies.get("csrftoken", "")
    match = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
    form = f"username=arbitre-drill&password={d.password}&csrfmiddlewaretoken="
    form += match.group(1).decode() if match else ""
    login = d.lb["web1"].request(
        "POST",
        "/login/",
        raw=form.encode(),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={csrf_cookie}",
            "Referer": f"https://{SITE}/login/",
            "Origin": f"https://{SITE}",
        },
    )
    session = login.cookies.get("sessionid", "")
    me = d.lb["web2"].request("GET", "/api/v1/me/", headers={"Cookie": f"sessionid={session}"})
    d.report.check(
        login.status == 302 and me.status == 200 and b"arbitre-drill" in me.body,
        f"session opened on web1 (login {login.status}) is valid on web2 (me {me.status})",
    )


def check_ranking(d: SimpleNamespace) -> None:
    """Results entered on web1: the ranking read on web2 is current."""
    from django.db import connections

    from scoring.models import RankingSnapshot
    from tournaments.models import Tournament

    # 3. results on web1, the ranking current on web2 (read once first: each gunicorn
    # worker loads the ranking's code on its first read)
    auth = {"Authorization": f"Token {d.token}"}
    ranking_path = f"/api/v1/tournaments/{d.tournament.pk}/ranking/"
    for _ in range(4):
        d.lb["web2"].request("GET", ranking_path, headers=auth)
    for table, donne in d.cells[:20]:
        ok, _resent = post_result(
            [d.lb["web1"]], tournament_id=d.tournament.pk, table=table, donne=donne, token=d.token
        )
        if not ok:
            d.report.check(False, f"result table {table} donne {donne} not acknowledged")
    last = time.monotonic()
    current_after = stored_after = None
    reads: list[float] = []
    while time.monotonic() < last + STALE_AFTER and current_after is None:
        if (
            stored_after is None
            and RankingSnapshot.objects.filter(
                tournament_id=d.tournament.pk,
                results_version=Tournament.objects.get(pk=d.tournament.pk).results_version,
            ).exists()
        ):
            stored_after = time.monotonic() - last
        asked_at = time.monotonic()
        body = d.lb["web2"].request("GET", ranking_path, headers=auth).json()
        reads.append(time.monotonic() - asked_at)
        if isinstance(body, dict) and body.get("is_current") and body.get("version"):
            current_after = time.monotonic() - last
        time.sleep(0.1)
    connections.close_all()
    d.report.check(
        current_after is not None and current_after <= STALE_AFTER,
        "20 results on web1: ranking stored by a worker "
        + (f"{stored_after:.1f} s" if stored_after is not None else "-")
        + ", read as current on web2 "
        + (f"{current_after:.1f} s" if current_after is not None else "never")
        + f" after the last (a ranking read on web2 takes {1000 * min(reads):.0f}–"
        f"{1000 * max(reads):.0f} ms)",
    )


def check_documents(d: SimpleNamespace) -> None:
    """A PDF asked on web1, built by a worker, downloaded from web2."""

    # 4. a PDF asked on web1, built by a worker, downloaded from web2
    auth = {"Authorization": f"Token {d.token}"}
    docs = f"/api/v1/tournaments/{d.tournament.pk}/documents/"
    asked = d.lb["web1"].request(
        "POST", docs, body={"kind": "score_sheets", "language": "fr"}, headers=auth
    )
    doc = asked.json() if asked.status in (200, 202) else {}
    pdf = b""
    started = time.monotonic()
    while isinstance(doc, dict) and doc.get("id") and time.monotonic() < started + 120:
        doc = d.lb["web2"].request("GET", f"{docs}{doc['id']}/", headers=auth).json()
        if isinstance(doc, dict) and doc.get("status") == "done":
            pdf = d.lb["web2"].request("GET", doc["download"], headers=auth).body
            break
        time.sleep(0.5)
    (d.work / "score_sheets.pdf").write_bytes(pdf)
    text = ""
    if pdf.startswith(b"%PDF"):
        text = subprocess.run(
            ["pdftotext", str(d.work / "score_sheets.pdf"), "-"],
            capture_output=True,
            text=True,
        ).stdout
    d.report.check(
        pdf.startswith(b"%PDF") and SITE in text,
        f"score sheets asked on web1 ({asked.status}), downloaded from web2 "
        f"({len(pdf)} bytes, {time.monotonic() - started:.1f} s), "
        f"{'carry' if SITE in text else 'lack'} {SITE}",
    )


def check_simultaneous(d: SimpleNamespace, clubs: int = 4) -> None:
    """A simultaneous event's hub across the hosts: clubs' signed uploads sent to web1 and
    web2 in turn (each acknowledged, one sent again to the other host: all unchanged), the
    overall ranking computed by a worker through the hub's queue, read from web2's API as the
    event's organiser, and stored equal to a recomputation from the database."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_simultaneous import DONNES, PLAYERS, club_upload, contract_pool
    from django.contrib.auth import get_user_model
    from django.db import connections

    from tournaments.simultaneous.hub import services
    from tournaments.simultaneous.hub.models import FieldResult

    organiser = get_user_model().objects.get(username="arbitre-drill")
    event = services.event_create(
        user=organiser, name="Drill", date=date(2027, 1, 16), rounds=6, sets=DONNES // 4
    )
    donnes, pool = services.event_donnes(event), contract_pool()
    uploads = []
    for index in range(clubs):
        invitation, token = services.invitation_create(
            event=event, user=organiser, club_name=f"Club {index}"
        )
        uploads.append((club_upload(event, invitation, index, donnes, pool), token))
    connections.close_all()
    hosts = [d.lb["web1"], d.lb["web2"]]
    statuses = []
    for index, (body, token) in enumerate(uploads):
        answer, _resent = post_upload([hosts[index % 2]], body=body, token=token)
        statuses.append(answer.status if answer else None)
    again, _resent = post_upload([hosts[1]], body=uploads[0][0], token=uploads[0][1])
    unchanged = (again.json() or {}).get("results", {}) if again else {}  # type: ignore[union-attr]
    d.report.check(
        statuses == [200] * clubs and unchanged.get("unchanged") == PLAYERS * DONNES // 4,
        f"{clubs} clubs' uploads of {PLAYERS * DONNES} results on web1 and web2 in turn: "
        f"{statuses}; club 0's sent again to web2: {unchanged}",
    )
    started = time.monotonic()
    lag = wait_overall_current(event.pk, timeout=STALE_AFTER + 30)
    auth = {"Authorization": f"Token {d.token}"}
    path = f"/api/v1/simultaneous/events/{event.public_id}/ranking/"
    read = d.lb["web2"].request("GET", path, headers=auth)
    count = (read.json() or {}).get("count") if read.status == 200 else None  # type: ignore[union-attr]
    equal, computed_in = overall_equal(event.pk)
    results = FieldResult.objects.filter(event=event).count()
    connections.close_all()
    d.report.check(
        lag is not None and count == clubs * PLAYERS and equal and results == clubs * 240,
        f"hub: {results} field results; overall ranking stored by {computed_in} "
        + (f"{lag:.1f} s" if lag is not None else f"never ({time.monotonic() - started:.0f} s)")
        + f" after the last upload, {'equal' if equal else 'NOT EQUAL'} to a recomputation; "
        f"web2's API lists {count} players to the organiser ({read.status})",
    )


def check_failover(d: SimpleNamespace) -> None:
    """web1 and worker1 killed while results keep coming."""

    from scoring.models import RankingSnapshot
    from tournaments.models import LedgerEntry, Result, Tournament

    # 5. web1 and worker1 killed while results keep coming
    acknowledged = resent = 0
    for n, (table, donne) in enumerate(d.cells[20:]):
        if n == 5:
            d.webs["web1"].kill()
        if n == 10:
            d.workers["worker1"].kill()
        ok, sent = post_result(
            [d.lb["web1"], d.lb["web2"]],
            tournament_id=d.tournament.pk,
            table=table,
            donne=donne,
            token=d.token,
        )
        acknowledged += ok
        resent += sent
    last = time.monotonic()
    current_after = computed_in = None
    while time.monotonic() < last + STALE_AFTER + 10:
        version = Tournament.objects.get(pk=d.tournament.pk).results_version
        snap = RankingSnapshot.objects.filter(
            tournament_id=d.tournament.pk, results_version=version
        ).first()
        if snap is not None:
            current_after, computed_in = time.monotonic() - last, snap.computed_in
            break
        time.sleep(0.2)
    persisted = Result.objects.filter(tournament=d.tournament).count()
    ledger = LedgerEntry.objects.filter(tournament=d.tournament).count()
    d.report.check(
        acknowledged == 20 and persisted == ledger == 40,
        f"web1 killed after 5 and worker1 after 10 of 20 more results: acknowledged "
        f"{20 + acknowledged}/40, persisted {persisted} rows / {ledger} ledger entries, "
        f"{resent} requests sent again (the balancer tries web1 first each time)",
    )
    d.report.check(
        current_after is not None and current_after <= STALE_AFTER,
        "ranking current "
        + (f"{current_after:.1f} s" if current_after is not None else "never")
        + f" after the last result, computed by {computed_in} (limit {STALE_AFTER:g} s, "
        "no page read)",
    )
    d.report.check(d.workers["worker2"].alive(), "worker2 still running")


def check_degraded(d: SimpleNamespace) -> None:
    """No worker left: /healthz answers 503."""

    # 6. no worker: the probe says degraded
    d.workers["worker2"].stop()
    answer = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            answer = d.by_ip["web2"].request("GET", "/healthz")
        except NoAnswer:
            answer = None
        if answer is not None and answer.status == 503:
            break
        time.sleep(1)
    d.report.check(
        answer is not None and answer.status == 503 and b"degraded" in answer.body,
        "no worker left: web2's /healthz by IP answers "
        f"{answer.status if answer else '-'} {answer.body.decode()[:40] if answer else ''}",
    )
    for process in d.processes:
        if "Unrecoverable error" in process.log_text():
            d.report.check(False, f"{process.name} logged an unrecoverable error")


def check_backup(d: SimpleNamespace) -> None:
    """The nightly dump, with the server's own pg_dump."""

    # the nightly dump, with the server's own pg_dump
    dump = d.work / "backup" / "tarot_club.dump"
    dump.parent.mkdir(mode=0o700, exist_ok=True)
    dumped = subprocess.run(
        [_pg_bin("pg_dump"), "--format=custom", f"--file={dump}", d.pg.url()],
        capture_output=True,
        text=True,
    )
    d.report.check(
        dumped.returncode == 0 and dump.stat().st_size > 0,
        f"pg_dump of the database: {dump.stat().st_size if dump.exists() else 0} bytes "
        + dumped.stderr.strip()[:120],
    )
    d.steps.append("backup")


def stage(base_env: dict[str, str]) -> tuple[str, str, object, list[tuple[int, int]]]:
    """The orchestrator stands for the administrator: an arbiter with an API token and a
    staged tournament; returns (password, token, tournament, its first 40 cells)."""
    os.environ.update({**base_env, "DJANGO_SETTINGS_MODULE": "tarot_club.settings"})
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import connections

    from tests.fixtures.tournaments import stage_tournament
    from tests.scoring.rankings.helpers import schedule
    from tournaments.api.tokens import token_create

    password = "Drill-arbiter-password-7"
    user = get_user_model().objects.create_user("arbitre-drill", password=password)
    token = token_create(user=user).key
    tournament = stage_tournament(players=16, rounds=4, name="Multi-host drill")
    tournament.arbiters.add(user)
    cells = [(t, d) for _r, t, d in schedule(tournament)][:40]
    connections.close_all()
    return password, token, tournament, cells


def start_units(
    work: Path,
    hosts: dict[str, Path],
    shared_env: Path,
    host_envs: dict[str, Path],
    base_env: dict[str, str],
    web_addr: dict[str, tuple[str, int]],
    processes: list[Process],
) -> tuple[dict[str, Process], dict[str, Process]]:
    """The workers and web processes, from the units' ExecStart and EnvironmentFile lines."""
    workers = {}
    for name in ("worker1", "worker2"):
        env_files = {SHARED_ENV: shared_env, HOST_ENV: host_envs[name]}
        cmd, env = unit_command(
            "tarot-worker@.service", home=hosts[name], env_files=env_files, instance="1", host=name
        )
        workers[name] = Process(name, cmd, hosts[name], {**base_env, **env}, work)
        workers[name].start()
        processes.append(workers[name])
    webs = {}
    for name, (host, port) in web_addr.items():
        env_files = {SHARED_ENV: shared_env, HOST_ENV: host_envs[name]}
        cmd, env = unit_command("tarot-web.service", home=hosts[name], env_files=env_files)
        webs[name] = Process(
            name, cmd, hosts[name], {**base_env, **env}, work, ready_port=(host, port)
        )
        webs[name].start()
        processes.append(webs[name])
    return workers, webs


def clean(work: Path, *, keep_logs: bool) -> None:
    """Empty the work folder except the virtual environment (kept for the next run), or say
    where the logs are."""
    if keep_logs:
        print(f"logs kept in {work}")
        return
    for child in work.iterdir():
        if child.is_dir() and child.name != "venv":
            shutil.rmtree(child, ignore_errors=True)
        elif child.is_file():
            child.unlink()


def main() -> int:
    args = parse_args()
    work = args.folder or Path(tempfile.mkdtemp(prefix="tarot-multihost-"))
    work.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(work / "pg", ignore_errors=True)
    (work / "pg").mkdir()
    pg_host, pg_port = address(args.pg)
    redis_host, redis_port = address(args.redis)
    web_addr = {name: address(getattr(args, name)) for name in ("web1", "web2")}
    web_addr = {n: (h, p or free_port(h)) for n, (h, p) in web_addr.items()}
    web1_host, web2_host = web_addr["web1"][0], web_addr["web2"][0]
    web_ports = {host: port for host, port in web_addr.values()}
    pg = PrivatePostgres(work / "pg", host=pg_host, password="pg-Secret-4-drill", port=pg_port)
    redis_port = redis_port or free_port(redis_host)
    redis_password = "redis-Secret-4-drill"
    report = Report()
    steps: list[str] = []
    processes: list[Process] = []
    try:
        pg.init()
        steps += ["db-role", "db-listen"]
        processes.append(start_redis(work, redis_host, redis_port, redis_password))
        steps += ["redis-conf", "redis-unit"]
        venv = cached_venv(work)
        steps.append("venv")
        shared_env, host_envs = write_env_files(
            work,
            pg_url=pg.url(),
            redis_url=f"redis://:{redis_password}@{redis_host}:{redis_port}/0",
            hosts={**web_addr, "worker1": ("127.0.0.1", 0), "worker2": ("127.0.0.1", 0)},
        )
        steps += ["env-shared", "env-host"]
        base_env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", **read_env_file(shared_env)}

        hosts = {
            name: checkout(work, name, venv) for name in ("web1", "web2", "worker1", "worker2")
        }
        for name, where in hosts.items():
            tarot_manage(where, shared_env, host_envs[name], "compile_translations")
            if name.startswith("web"):
                tarot_manage(where, shared_env, host_envs[name], "collectstatic", "--noinput")
        steps.append("prepare")
        tarot_manage(hosts["web1"], shared_env, host_envs["web1"], "migrate")
        steps.append("migrate")

        password, token, tournament, cells = stage(base_env)
        workers, webs = start_units(
            work, hosts, shared_env, host_envs, base_env, web_addr, processes
        )
        steps.append("units")
        lb = {
            name: Client(f"http://{host}:{web_ports[host]}", host_header=SITE, proxy_https=True)
            for name, host in (("web1", web1_host), ("web2", web2_host))
        }
        by_ip = {
            name: Client(f"http://{host}:{web_ports[host]}")
            for name, host in (("web1", web1_host), ("web2", web2_host))
        }

        d = SimpleNamespace(
            report=report,
            lb=lb,
            by_ip=by_ip,
            webs=webs,
            workers=workers,
            tournament=tournament,
            token=token,
            password=password,
            cells=cells,
            work=work,
            pg=pg,
            steps=steps,
            processes=processes,
            web1_host=web1_host,
            web_ports=web_ports,
        )
        for check in (
            check_probe,
            check_session,
            check_ranking,
            check_documents,
            check_simultaneous,
            check_failover,
            check_degraded,
            check_backup,
        ):
            check(d)
    finally:
        marked = readme_steps()
        print(f"README steps run: {' '.join(s for s in marked if s in steps)}")
        missing = [s for s in marked if s not in steps]
        print(f"README steps not run: {' '.join(missing) or 'none'}")
        for process in reversed(processes):
            process.stop()
        pg.stop()
        clean(work, keep_logs=args.keep or bool(report.failures))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
