"""Multi-host drill: the README's federation deployment on one machine, with every role on its
own loopback address and every web and worker process run from its own checkout.

- PostgreSQL on 127.0.0.2 (a cluster of the drill's own, initdb + pg_ctl, a role with a
  password, scram-sha-256), Redis on 127.0.0.3 with `requirepass`;
- four checkouts cloned from this repository's HEAD (web1, web2, worker1, worker2), each
  prepared as the README says (compile_translations, collectstatic; migrate once, from web1),
  each reading the same environment file (mode 0640) as systemd's EnvironmentFile would;
- gunicorn web hosts on 127.0.0.4 and 127.0.0.5, behind a "load balancer" (this script:
  Host tarot.example.org, X-Forwarded-Proto https, TRUSTED_PROXIES=1, SECURE_COOKIES=1);
  Celery workers named tarot@worker1 and tarot@worker2 (the unit names them tarot@%H).

It checks, and prints one line per check:
1. /healthz by IP address on each web host (no Host the site knows): 200 "ok";
2. a session opened on web1 (login form, CSRF) is valid on web2;
3. results entered on web1: the ranking read on web2 is current (time after the last result);
4. a score-sheet PDF asked on web1, built by a worker, downloaded from web2, carries SITE_URL;
5. web1 killed (SIGKILL) and worker1 killed while results keep coming: the load balancer sends
   unanswered writes again (same Idempotency-Key) to web2; acknowledged = persisted, and the
   ranking is current within RANKING_STALE_AFTER without any page read (read in the database);
6. both workers stopped: /healthz by IP says "degraded" with 503.

The checkouts use this machine's virtual environment (`.ci/deploy_check` is what proves
that requirements.txt alone installs and runs). Bounded: about two minutes.

    .venv/bin/python bench/drill_multihost.py [--keep]
Figures go to docs/RELIABILITY.md.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.drill_services import (
    ROOT,
    Client,
    NoAnswer,
    PrivatePostgres,
    PrivateRedis,
    free_port,
    post_result,
    web_process,
    worker_process,
)

PG_HOST, REDIS_HOST, WEB1_HOST, WEB2_HOST = "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"
SITE = "tarot.example.org"
STALE_AFTER = 15  # the default


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=value lines, as systemd's EnvironmentFile reads them."""
    out = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            out[key.strip()] = value.strip()
    return out


def checkout(work: Path, name: str) -> Path:
    target = work / name
    subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(target)], check=True)
    return target


def manage(where: Path, env: dict[str, str], *args: str) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=where,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


class Report:
    def __init__(self) -> None:
        self.failures = 0

    def check(self, ok: bool, line: str) -> None:
        self.failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {line}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tarot-multihost-"))
    (work / "pg").mkdir()
    pg = PrivatePostgres(work / "pg", host=PG_HOST, password="pg-Secret-4-drill")
    redis = PrivateRedis(host=REDIS_HOST, password="redis-Secret-4-drill")
    web_ports = {WEB1_HOST: free_port(WEB1_HOST), WEB2_HOST: free_port(WEB2_HOST)}
    report = Report()
    processes = []
    try:
        pg.init()
        redis.start()
        env_file = work / "tarot_club.env"
        env_file.write_text(
            "\n".join(
                [
                    f"DATABASE_URL={pg.url()}",
                    f"REDIS_URL={redis.url()}",
                    "SECRET_KEY=multihost-drill-" + "k" * 50,
                    f"ALLOWED_HOSTS={SITE}",
                    f"CSRF_TRUSTED_ORIGINS=https://{SITE}",
                    f"SITE_URL=https://{SITE}",
                    "SECURE_COOKIES=1",
                    "TRUSTED_PROXIES=1",
                    f"MEDIA_ROOT={work / 'media'}",
                    "CELERY_QUEUE=tarot_club",
                    "WEB_WORKERS=2",
                    "WORKER_CONCURRENCY=2",
                    "DEBUG=0",
                    "LOG_LEVEL=INFO",
                ]
            )
            + "\n"
        )
        env_file.chmod(0o640)
        base_env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", **read_env_file(env_file)}

        hosts = {name: checkout(work, name) for name in ("web1", "web2", "worker1", "worker2")}
        for name, where in hosts.items():
            env = {**base_env, "TAROT_VAR_DIR": str(where / "var")}
            manage(where, env, "compile_translations")
            if name.startswith("web"):
                manage(where, env, "collectstatic", "--noinput")
        manage(hosts["web1"], {**base_env, "TAROT_VAR_DIR": str(work / "var")}, "migrate")

        # The orchestrator stands for the administrator: the arbiter and a staged tournament.
        os.environ.update({**base_env, "DJANGO_SETTINGS_MODULE": "tarot_club.settings"})
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.db import connections

        from scoring.models import RankingSnapshot
        from tests.fixtures.tournaments import stage_tournament
        from tests.rankings.helpers import schedule
        from tournaments.api.tokens import token_create
        from tournaments.models import LedgerEntry, Result, Tournament

        password = "Drill-arbiter-password-7"
        user = get_user_model().objects.create_user("arbitre-drill", password=password)
        token = token_create(user=user).key
        tournament = stage_tournament(players=16, rounds=4, name="Multi-host drill")
        tournament.arbiters.add(user)
        cells = [(t, d) for _r, t, d in schedule(tournament)][:40]
        connections.close_all()

        workers = {}
        for name in ("worker1", "worker2"):
            env = {**base_env, "TAROT_VAR_DIR": str(hosts[name] / "var")}
            workers[name] = worker_process(name, cwd=hosts[name], env=env, log_dir=work)
            workers[name].start()
            processes.append(workers[name])
        webs = {}
        for name, host in (("web1", WEB1_HOST), ("web2", WEB2_HOST)):
            env = {**base_env, "TAROT_VAR_DIR": str(hosts[name] / "var")}
            webs[name] = web_process(
                name, cwd=hosts[name], env=env, log_dir=work, host=host, port=web_ports[host]
            )
            webs[name].start()
            processes.append(webs[name])
        lb = {
            name: Client(f"http://{host}:{web_ports[host]}", host_header=SITE, proxy_https=True)
            for name, host in (("web1", WEB1_HOST), ("web2", WEB2_HOST))
        }
        by_ip = {
            name: Client(f"http://{host}:{web_ports[host]}")
            for name, host in (("web1", WEB1_HOST), ("web2", WEB2_HOST))
        }

        # 1. health by IP address
        for name, client in by_ip.items():
            answer = None
            deadline = time.monotonic() + 40
            while time.monotonic() < deadline:
                answer = client.request("GET", "/healthz")
                if answer.status == 200:
                    break
                time.sleep(1)
            report.check(
                answer is not None and answer.status == 200 and b'"ok"' in answer.body,
                f"{name}: /healthz by IP answers {answer.status if answer else '-'} "
                f"{answer.body.decode()[:40] if answer else ''}",
            )

        # 2. a session opened on web1 is valid on web2
        page = lb["web1"].request("GET", "/login/")
        csrf_cookie = page.cookies.get("csrftoken", "")
        match = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
        form = f"username=arbitre-drill&password={password}&csrfmiddlewaretoken="
        form += match.group(1).decode() if match else ""
        login = lb["web1"].request(
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
        me = lb["web2"].request("GET", "/api/v1/me/", headers={"Cookie": f"sessionid={session}"})
        report.check(
            login.status == 302 and me.status == 200 and b"arbitre-drill" in me.body,
            f"session opened on web1 (login {login.status}) is valid on web2 (me {me.status})",
        )

        # 3. results on web1, the ranking current on web2 (read once first: each gunicorn
        # worker loads the ranking's code on its first read)
        auth = {"Authorization": f"Token {token}"}
        ranking_path = f"/api/v1/tournaments/{tournament.pk}/ranking/"
        for _ in range(4):
            lb["web2"].request("GET", ranking_path, headers=auth)
        for table, donne in cells[:20]:
            ok, _resent = post_result(
                [lb["web1"]], tournament_id=tournament.pk, table=table, donne=donne, token=token
            )
            if not ok:
                report.check(False, f"result table {table} donne {donne} not acknowledged")
        last = time.monotonic()
        current_after = stored_after = None
        reads: list[float] = []
        while time.monotonic() < last + STALE_AFTER and current_after is None:
            if (
                stored_after is None
                and RankingSnapshot.objects.filter(
                    tournament_id=tournament.pk,
                    results_version=Tournament.objects.get(pk=tournament.pk).results_version,
                ).exists()
            ):
                stored_after = time.monotonic() - last
            asked_at = time.monotonic()
            body = lb["web2"].request("GET", ranking_path, headers=auth).json()
            reads.append(time.monotonic() - asked_at)
            if isinstance(body, dict) and body.get("is_current") and body.get("version"):
                current_after = time.monotonic() - last
            time.sleep(0.1)
        connections.close_all()
        report.check(
            current_after is not None and current_after <= STALE_AFTER,
            "20 results on web1: ranking stored by a worker "
            + (f"{stored_after:.1f} s" if stored_after is not None else "-")
            + ", read as current on web2 "
            + (f"{current_after:.1f} s" if current_after is not None else "never")
            + f" after the last (a ranking read on web2 takes {1000 * min(reads):.0f}–"
            f"{1000 * max(reads):.0f} ms)",
        )

        # 4. a PDF asked on web1, built by a worker, downloaded from web2
        docs = f"/api/v1/tournaments/{tournament.pk}/documents/"
        asked = lb["web1"].request(
            "POST", docs, body={"kind": "score_sheets", "language": "fr"}, headers=auth
        )
        doc = asked.json() if asked.status in (200, 202) else {}
        pdf = b""
        started = time.monotonic()
        while isinstance(doc, dict) and doc.get("id") and time.monotonic() < started + 120:
            doc = lb["web2"].request("GET", f"{docs}{doc['id']}/", headers=auth).json()
            if isinstance(doc, dict) and doc.get("status") == "done":
                pdf = lb["web2"].request("GET", doc["download"], headers=auth).body
                break
            time.sleep(0.5)
        (work / "score_sheets.pdf").write_bytes(pdf)
        text = ""
        if pdf.startswith(b"%PDF"):
            text = subprocess.run(
                ["pdftotext", str(work / "score_sheets.pdf"), "-"],
                capture_output=True,
                text=True,
            ).stdout
        report.check(
            pdf.startswith(b"%PDF") and SITE in text,
            f"score sheets asked on web1 ({asked.status}), downloaded from web2 "
            f"({len(pdf)} bytes, {time.monotonic() - started:.1f} s), "
            f"{'carry' if SITE in text else 'lack'} {SITE}",
        )

        # 5. web1 and worker1 killed while results keep coming
        acknowledged = resent = 0
        for n, (table, donne) in enumerate(cells[20:]):
            if n == 5:
                webs["web1"].kill()
            if n == 10:
                workers["worker1"].kill()
            ok, sent = post_result(
                [lb["web1"], lb["web2"]],
                tournament_id=tournament.pk,
                table=table,
                donne=donne,
                token=token,
            )
            acknowledged += ok
            resent += sent
        last = time.monotonic()
        current_after = computed_in = None
        while time.monotonic() < last + STALE_AFTER + 10:
            version = Tournament.objects.get(pk=tournament.pk).results_version
            snap = RankingSnapshot.objects.filter(
                tournament_id=tournament.pk, results_version=version
            ).first()
            if snap is not None:
                current_after, computed_in = time.monotonic() - last, snap.computed_in
                break
            time.sleep(0.2)
        persisted = Result.objects.filter(tournament=tournament).count()
        ledger = LedgerEntry.objects.filter(tournament=tournament).count()
        report.check(
            acknowledged == 20 and persisted == ledger == 40,
            f"web1 killed after 5 and worker1 after 10 of 20 more results: acknowledged "
            f"{20 + acknowledged}/40, persisted {persisted} rows / {ledger} ledger entries, "
            f"{resent} requests sent again (the balancer tries web1 first each time)",
        )
        report.check(
            current_after is not None and current_after <= STALE_AFTER,
            "ranking current "
            + (f"{current_after:.1f} s" if current_after is not None else "never")
            + f" after the last result, computed by {computed_in} (limit {STALE_AFTER:g} s, "
            "no page read)",
        )
        report.check(workers["worker2"].alive(), "worker2 still running")

        # 6. no worker: the probe says degraded
        workers["worker2"].stop()
        answer = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                answer = by_ip["web2"].request("GET", "/healthz")
            except NoAnswer:
                answer = None
            if answer is not None and answer.status == 503:
                break
            time.sleep(1)
        report.check(
            answer is not None and answer.status == 503 and b"degraded" in answer.body,
            "no worker left: web2's /healthz by IP answers "
            f"{answer.status if answer else '-'} {answer.body.decode()[:40] if answer else ''}",
        )
        for process in processes:
            if "Unrecoverable error" in process.log_text():
                report.check(False, f"{process.name} logged an unrecoverable error")
    finally:
        for process in processes:
            process.stop()
        redis.kill()
        pg.stop()
        if args.keep or report.failures:
            print(f"logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
