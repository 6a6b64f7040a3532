"""Run the test suite in its two lanes, at the same time, and end with one summary line.

The fast lane (`-m "not slow_lane"`: pure rules, services, API, pages without a browser)
and the slow lane (Chromium, live servers, real workers, subprocesses, PDFs; see
tests/conftest.py) are two pytest runs started together, each with pytest-xdist on one
worker per core (at least two) unless TEST_FAST_WORKERS / TEST_SLOW_WORKERS say otherwise,
each worker on a test database of its own (the lane's name is added to TOX_PARALLEL_ENV, so
the lanes' databases never meet). The slow lane spends much of its time waiting (on a live
server, a worker starting, a page's poll), which the fast lane's work fills. The slow lane
starts first, its longest tests first (tests/conftest.py, LONGEST_FIRST); the fast lane's
output is shown as it runs, the slow lane's when it ends (it is kept in
var/test-reports/slow.log meanwhile). Arguments after the script go to both pytest runs
(e.g. `-k ranking`).

Before the lanes start, one pytest process collects the suite, so that the workers read the
rewritten test modules instead of each rewriting them. On PostgreSQL the schema is migrated
once meanwhile, into a template database: each worker's test database is then a copy of it
(`CREATE DATABASE … TEMPLATE`, see tests/conftest.py, which waits for TEMPLATE_READY)
instead of a migration of its own, and the template is dropped when the lanes end.

TEST_SERIAL=1 runs the whole suite instead as one pytest process, without xdist, as it ran
before the lanes: to compare the two on the same tests (CONTRIBUTING.md gives the figures),
or to rule out a test that fails only beside others.

The last line is the total: "tests: N passed, N failed, N skipped" (errors count as
failed); the exit status is non-zero when either lane failed or no test ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import psycopg

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "var" / "test-reports"
TEMPLATE_READY = REPORTS / "template.ready"  # "ok", or why the template could not be made


def workers(variable: str) -> str:
    """The number of xdist workers for a lane: the variable, else one per core (at least 2)."""
    return os.environ.get(variable) or str(max(2, os.cpu_count() or 2))


def lane_command(name: str, marker: str, n: str, extra: list[str]) -> list[str]:
    """The pytest command line of a lane, writing its JUnit report under REPORTS."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", marker]
    if n not in ("", "0", "1"):
        command += ["-n", n, "--dist", "load"]
    return [*command, f"--junitxml={REPORTS / f'{name}.xml'}", *extra]


def template_name(database_url: str) -> str:
    """The template database of a run on `database_url`: '' unless it is PostgreSQL; named
    after the database and TOX_PARALLEL_ENV, as the workers' test databases are."""
    if not database_url.startswith(("postgres://", "postgresql://")):
        return ""
    database = urlsplit(database_url).path.lstrip("/") or "postgres"
    parallel = os.environ.get("TOX_PARALLEL_ENV", "")
    return f"test_{database}_{parallel}_template" if parallel else f"test_{database}_template"


def admin_connection(database_url: str) -> psycopg.Connection:
    """A connection to the server's `postgres` database, in autocommit (CREATE/DROP DATABASE)."""
    import psycopg

    url = urlsplit(database_url)._replace(path="/postgres").geturl()
    return psycopg.connect(url.replace("postgres://", "postgresql://", 1), autocommit=True)


def drop_template(database_url: str, name: str) -> None:
    """Drop the template database `name` if it exists (ending any session still on it)."""
    with admin_connection(database_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def make_template(database_url: str, name: str) -> None:
    """Create the template database `name` afresh and migrate it (`manage.py migrate`)."""
    drop_template(database_url, name)
    with admin_connection(database_url) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = urlsplit(database_url)._replace(path=f"/{name}").geturl()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=dict(os.environ, DATABASE_URL=url),
        check=True,
    )


def prepare_template(database_url: str, name: str) -> None:
    """make_template, then TEMPLATE_READY says how it went ("ok" or the error), written
    whole at once (a rename) for the workers that wait for it."""
    began = time.monotonic()
    try:
        make_template(database_url, name)
        state = "ok"
        print(f"== template database {name} migrated in {time.monotonic() - began:.0f} s")
    except Exception as error:  # whatever it is, the waiting workers must hear of it
        state = f"failed: {error}"
    partial = TEMPLATE_READY.with_suffix(".partial")
    partial.write_text(state, encoding="utf-8")
    partial.replace(TEMPLATE_READY)


def lane_env(name: str) -> dict[str, str]:
    """The environment of a lane: its own test databases (TOX_PARALLEL_ENV + the lane), and
    bytecode written even where PYTHONDONTWRITEBYTECODE is set: each pytest worker compiles
    and rewrites the assertions of every test module it collects, 11 s of CPU on this
    project's machine, 4.4 s once they are cached in `__pycache__` (which git ignores)."""
    parallel = os.environ.get("TOX_PARALLEL_ENV", "")
    env = dict(os.environ, TOX_PARALLEL_ENV=f"{parallel}_{name}" if parallel else name)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def counts(report: Path) -> dict[str, int]:
    """Passed, failed (failures and errors) and skipped tests of a JUnit report."""
    total = {"tests": 0, "failed": 0, "skipped": 0}
    if not report.exists():
        return total
    for suite in ET.parse(report).getroot().iter("testsuite"):
        total["tests"] += int(suite.get("tests", 0))
        total["failed"] += int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        total["skipped"] += int(suite.get("skipped", 0))
    return total


def note_end(process: subprocess.Popen, ended: list[float]) -> None:
    """Wait for `process` and append the moment it ended to `ended` (for the lane's time)."""
    process.wait()
    ended.append(time.monotonic())


def write_rewritten_modules(extra: list[str]) -> None:
    """Collect the tests once, in one process, before the lanes' workers start: pytest writes
    each test module it rewrites (its assertions) to `__pycache__`, which the four workers
    then read instead of each rewriting every module at the same time (most of a fresh
    worker's CPU before its first test). Its output is dropped: a collection error shows
    again in the lanes, which collect the same modules."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only"]
    subprocess.call(
        [*command, *extra],
        cwd=ROOT,
        env=lane_env("collect"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def lane_commands(extra: list[str]) -> tuple[list[str], list[str]]:
    """The pytest commands of the fast lane and of the slow lane."""
    fast = lane_command("fast", "not slow_lane", workers("TEST_FAST_WORKERS"), extra)
    slow = lane_command("slow", "slow_lane", workers("TEST_SLOW_WORKERS"), extra)
    return fast, slow


def run_lanes(extra: list[str]) -> tuple[list[int], list[dict[str, int]]]:
    """Start the slow lane (output to its log), run the fast lane in the foreground, wait for
    the slow lane and show its log; the exit statuses and counts of fast, then slow."""
    fast_command, slow_command = lane_commands(extra)
    slow_log = REPORTS / "slow.log"
    began = time.monotonic()
    write_rewritten_modules(extra)
    print(f"== tests collected once in {time.monotonic() - began:.0f} s", flush=True)
    print(f"== slow lane (output when it ends): {' '.join(slow_command[1:])}", flush=True)
    with slow_log.open("wb") as log:
        slow = subprocess.Popen(
            slow_command, cwd=ROOT, env=lane_env("slow"), stdout=log, stderr=subprocess.STDOUT
        )
        slow_ended: list[float] = []
        threading.Thread(target=note_end, args=(slow, slow_ended), daemon=True).start()
        try:
            print(f"== fast lane: {' '.join(fast_command[1:])}", flush=True)
            fast_status = subprocess.call(fast_command, cwd=ROOT, env=lane_env("fast"))
            print(f"== fast lane: exit {fast_status} in {time.monotonic() - began:.0f} s")
            print("== slow lane: waiting for it to end", flush=True)
            slow_status = slow.wait()
        finally:
            if slow.poll() is None:  # interrupted: stop the slow lane too
                slow.terminate()
                slow.wait()
    sys.stdout.write(slow_log.read_text(encoding="utf-8", errors="replace"))
    ended = slow_ended[0] if slow_ended else time.monotonic()
    print(f"== slow lane: exit {slow_status} in {ended - began:.0f} s", flush=True)
    statuses = [fast_status, slow_status]
    return statuses, [counts(REPORTS / "fast.xml"), counts(REPORTS / "slow.xml")]


def run_lanes_on_a_template(extra: list[str]) -> tuple[list[int], list[dict[str, int]]]:
    """run_lanes, on PostgreSQL with the workers' databases copied from a template migrated
    once here (TEST_DATABASE_TEMPLATE), dropped at the end."""
    database_url = os.environ.get("DATABASE_URL", "")
    template = template_name(database_url)
    if not template:
        return run_lanes(extra)
    TEMPLATE_READY.unlink(missing_ok=True)
    making = threading.Thread(target=prepare_template, args=(database_url, template))
    making.start()
    os.environ["TEST_DATABASE_TEMPLATE"] = template
    os.environ["TEST_DATABASE_TEMPLATE_READY"] = str(TEMPLATE_READY)
    try:
        return run_lanes(extra)
    finally:
        del os.environ["TEST_DATABASE_TEMPLATE"], os.environ["TEST_DATABASE_TEMPLATE_READY"]
        making.join()
        drop_template(database_url, template)


def run_serially(extra: list[str]) -> tuple[list[int], list[dict[str, int]]]:
    """Run every test in one pytest process, without xdist; its exit status and counts."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += [f"--junitxml={REPORTS / 'serial.xml'}", *extra]
    began = time.monotonic()
    print(f"== serially: {' '.join(command[1:])}", flush=True)
    status = subprocess.call(command, cwd=ROOT, env=lane_env("serial"))
    print(f"== serially: exit {status} in {time.monotonic() - began:.0f} s", flush=True)
    return [status], [counts(REPORTS / "serial.xml")]


def chosen(variable: str) -> bool:
    """Whether an on/off variable is on (set, and neither empty nor 0)."""
    return os.environ.get(variable, "") not in ("", "0")


def main(extra: list[str]) -> int:
    REPORTS.mkdir(parents=True, exist_ok=True)
    for name in ("fast", "slow", "serial"):  # no count from an earlier run
        (REPORTS / f"{name}.xml").unlink(missing_ok=True)
    if chosen("TEST_SERIAL"):
        statuses, lanes = run_serially(extra)
    else:
        statuses, lanes = run_lanes_on_a_template(extra)
    tests = sum(lane["tests"] for lane in lanes)
    failed = sum(lane["failed"] for lane in lanes)
    skipped = sum(lane["skipped"] for lane in lanes)
    passed = tests - failed - skipped
    # pytest's 5 is "no test collected": fine for one lane (a -k that selects one of them).
    bad = [s for s in statuses if s not in (0, 5)]
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 1 if bad or failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
