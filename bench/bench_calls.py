"""A call to the arbiter reaches the arbiter's open dashboard (issue 34): how long from the
call at the table to the arbiter's live panel showing it, with the room's phones polling.

gunicorn (sync workers, DEBUG off) serves a running tournament on the loopback. Every table's
phones follow their table's page as its script does (`state.json` every 3 s with the ETag it
last got: a 304 while nothing changed); one arbiter's dashboard asks its live panel of calls
every second with its tag (a 204 while nothing changed), as htmx does. A player of a random
table calls the arbiter every 2 s; the delay is from the moment the phone sends the call (its
own request included) to the first panel that lists it. Baseline, in the same run: the same calls and the same arbiter's
panel with no phone polling (a quiet room). The target: within 2 s.

The phones reuse bench_load's machinery (its server, its loopback requests, its percentiles).
Bounded and local: 127.0.0.1 only, stops by itself after --seconds per phase (default 15),
stops the server it started, whatever happens; its database is test_<name>_calls.

Run: .venv/bin/python bench/bench_calls.py [--write] [--players 200] [--phones 3]
                                           [--seconds 15] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import random
import re
import resource
import sys
import time
from typing import Any
from urllib.parse import urlencode

import benchdoc
from bench_load import HOST, TIMEOUT, Server, _server_env, free_port, percentile
from django.db import connection
from django.test.utils import setup_test_environment

SECTION = "## A call reaches the arbiter's dashboard"
PHONE_PERIOD = 3.0  # the table page's poll (table.js POLL_MS)
PANEL_PERIOD = 1.0  # the dashboard's live panel (hx-trigger="every 1s")
CALL_PERIOD = 2.0


async def request(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, body: str = ""
) -> tuple[int, bytes, dict[str, str]]:
    """One request over a fresh connection (gunicorn's sync workers close after each)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", "Connection: close"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    if body:
        lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n" + body).encode())
        await writer.drain()
        data = await reader.read(-1)
    finally:
        writer.close()
    head, _, payload = data.partition(b"\r\n\r\n")
    rows = head.decode("latin-1").split("\r\n")
    found = {}
    for line in rows[1:]:
        name, _, value = line.partition(":")
        found[name.strip().lower()] = value.strip()
    return int(rows[0].split()[1]), payload, found


def room(players: int) -> dict[str, Any]:
    """A running tournament with its first round open, each table's page, who sits there with
    their code, and a logged-in arbiter's session."""
    from django.contrib.auth import get_user_model
    from django.test import Client, override_settings

    from tests.scoring.rankings.builders import build_tournament
    from tournaments.models import Round, Seat, TableRound
    from tournaments.services.table_entry import player_codes_get, table_access_issue

    built = build_tournament(players=players, rounds=3, per_relais=4, status="running", seed=5)
    tournament = built.tournament
    Round.objects.filter(tournament=tournament, number=1).update(state=Round.State.OPEN)
    codes = player_codes_get(tournament=tournament)
    tables = []
    for table_round in TableRound.objects.filter(round__tournament=tournament, round__number=1):
        access = table_access_issue(table_round=table_round)
        seat = Seat.objects.filter(table_round=table_round).order_by("position").first()
        donnes = list(
            table_round.etui_set.donnes.order_by("number").values_list("number", flat=True)
        )
        tables.append(
            {
                "secret": access.secret,
                "player": seat.player_id,
                "code": codes[seat.player_id],
                "donnes": donnes,
            }
        )
    arbiter = get_user_model().objects.create_user("bench-arbiter")
    tournament.arbiters.add(arbiter)
    client = Client()
    # The session is signed with the server's key (bench_load's environment sets it).
    with override_settings(SECRET_KEY=_server_env("", "")["SECRET_KEY"]):
        client.force_login(arbiter)
    return {"pk": tournament.pk, "tables": tables, "session": client.cookies["sessionid"].value}


async def phase(
    port: int, setup: dict[str, Any], phones: int, seconds: float, donne: int
) -> dict[str, Any]:
    """`phones` phones per table polling, the arbiter's panel, a call every 2 s; the delays."""
    deadline = time.monotonic() + seconds
    polls: list[float] = []
    errors: list[str] = []
    answered: dict[str, float] = {}
    seen: dict[str, float] = {}
    cookie = {"Cookie": f"sessionid={setup['session']}"}
    limit = asyncio.Semaphore(400)

    async def phone(index: int, table: dict[str, Any]) -> None:
        tag = ""
        await asyncio.sleep(random.Random(index).uniform(0, PHONE_PERIOD))
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                async with limit:
                    status, _body, headers = await asyncio.wait_for(
                        request(
                            port,
                            "GET",
                            f"/table/{table['secret']}/state.json",
                            {"If-None-Match": tag} if tag else {},
                        ),
                        TIMEOUT,
                    )
                tag = headers.get("etag", tag)
                polls.append(time.perf_counter() - started)
                if status >= 500:
                    errors.append(f"state {status}")
            except Exception as exc:  # counted and reported
                errors.append(type(exc).__name__)
            await asyncio.sleep(max(0.0, PHONE_PERIOD - (time.perf_counter() - started)))

    async def arbiter() -> None:
        tag = ""
        path = f"/t/{setup['pk']}/arbiter/calls/live/"
        while time.monotonic() < deadline + 3:
            started = time.perf_counter()
            try:
                status, body, _ = await asyncio.wait_for(
                    request(port, "GET", f"{path}?{urlencode({'tag': tag})}", cookie), TIMEOUT
                )
            except Exception as exc:  # counted and reported
                errors.append(f"panel {type(exc).__name__}")
                status, body = 0, b""
            if status == 200:
                now = time.time()
                found = re.search(rb"tag=([^\"&]+)\"", body)
                tag = found.group(1).decode() if found else tag
                for call in re.findall(rb'data-call="(\d+)"', body):
                    seen.setdefault(call.decode(), now)
            elif status not in (204, 0):
                errors.append(f"panel {status}")
            await asyncio.sleep(max(0.0, PANEL_PERIOD - (time.perf_counter() - started)))

    async def caller() -> None:
        rng = random.Random(11)
        tables = list(setup["tables"])
        rng.shuffle(tables)
        for table in tables:
            if time.monotonic() >= deadline - 2:
                break
            body = urlencode(
                {
                    "player": table["player"],
                    "code": table["code"],
                    "donne": table["donnes"][donne],
                    "irregularity": "renonce",
                }
            )
            sent = time.time()  # the player's tap: the delay counts the call's own request
            status, payload, _ = await request(
                port, "POST", f"/table/{table['secret']}/call/", {}, body
            )
            if status == 200:
                call = re.search(rb'"id": (\d+)', payload)
                if call:
                    answered[call.group(1).decode()] = sent
            else:
                errors.append(f"call {status}")
            await asyncio.sleep(CALL_PERIOD)

    tasks = [phone(i * 100 + k, t) for i, t in enumerate(setup["tables"]) for k in range(phones)]
    await asyncio.gather(arbiter(), caller(), *tasks)
    delays = [seen[c] - t for c, t in answered.items() if c in seen]
    return {
        "polls": polls,
        "errors": errors,
        "delays": delays,
        "calls": len(answered),
        "missed": len([c for c in answered if c not in seen]),
    }


async def warm(port: int, setup: dict[str, Any], workers: int) -> None:
    """Every worker answers the panel and a table's state once before the measures (its
    imports, its caches): a cold start is not a call's delay."""
    cookie = {"Cookie": f"sessionid={setup['session']}"}
    for _ in range(3 * workers):
        await request(port, "GET", f"/t/{setup['pk']}/arbiter/calls/live/", cookie)
        await request(port, "GET", f"/table/{setup['tables'][0]['secret']}/state.json")


def report(
    args: argparse.Namespace,
    quiet: dict[str, Any],
    busy: dict[str, Any],
    tables: int,
    load_avg: str,
) -> str:
    ms = lambda s: f"{s * 1000:.0f}"  # noqa: E731

    def row(name: str, out: dict[str, Any]) -> str:
        d = out["delays"]
        return (
            f"| {name} | {len(d)} of {out['calls']} | {ms(percentile(d, 0.5))} ms | "
            f"{ms(percentile(d, 0.95))} ms | {ms(max(d)) if d else 'nan'} ms | "
            f"{len(out['errors'])} |"
        )

    polls = busy["polls"]
    return (
        "\n".join(
            [
                SECTION,
                "",
                f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_calls.py --write`.",
                f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
                f"{platform.python_version()}, PostgreSQL {connection.pg_version // 10000}; "
                f"{benchdoc.machine_load(load_avg)} (the phones, the server and the database all "
                "ran on it).",
                f"gunicorn with {args.workers} sync workers (DEBUG off); a tournament of "
                f"{args.players} players ({tables} tables); a call every {CALL_PERIOD:g} s from a new "
                f"table; the arbiter's panel asked every {PANEL_PERIOD:g} s; {args.seconds:g} s a phase.",
                "",
                "| phase | calls seen | p50 call sent → on the dashboard | p95 | max | errors |",
                "|---|---|---|---|---|---|",
                row("quiet room: no phone polling (baseline)", quiet),
                row(
                    f"the room's phones polling: {args.phones} a table, every {PHONE_PERIOD:g} s "
                    f"({tables * args.phones} phones)",
                    busy,
                ),
                "",
                f"Errors: quiet {sorted(set(quiet['errors'])) or 'none'}, busy "
                f"{sorted(set(busy['errors'])) or 'none'}. "
                f"Under load the phones' polls took {ms(percentile(polls, 0.5))} ms (p50), "
                f"{ms(percentile(polls, 0.95))} ms (p95), {len(polls):,} polls. Target: a call on the "
                f"dashboard within 2 s (the panel's period is {PANEL_PERIOD:g} s of it). A phone's "
                "unchanged poll is a 304 of four small queries: when it takes seconds, the server is "
                "queueing behind the machine's other work, and a call waits in the same queue.",
            ]
        )
        + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--phones", type=int, default=3, help="phones polling per table")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(soft, 4096), hard), hard))
    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = f"test_{connection.settings_dict['NAME']}_calls"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    server = None
    try:
        setup = room(args.players)
        connection.close()
        port = free_port()
        redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/8")
        server = Server(_server_env(redis_url, "bench-calls"), port, args.workers)
        server.wait_ready()
        asyncio.run(asyncio.wait_for(warm(port, setup, args.workers), timeout=120))
        # Each phase calls about its own donne: a call never joins the other phase's.
        quiet = asyncio.run(phase(port, setup, 0, args.seconds, 0))
        busy = asyncio.run(phase(port, setup, args.phones, args.seconds, 1))
    finally:
        if server is not None:
            server.stop()
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)
    load_avg = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    text = report(args, quiet, busy, len(setup["tables"]), load_avg)
    print(text)
    if args.write:
        benchdoc.write_section(SECTION, text)


if __name__ == "__main__":
    main()
