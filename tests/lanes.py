"""Run the test suite in its two lanes and end with one summary line.

The fast lane (`-m "not slow_lane"`: pure rules, services, API, pages without a browser)
runs first with pytest-xdist on every core, each worker on its own test database; the slow
lane (Chromium, live servers, real workers, subprocesses, PDFs; see tests/conftest.py) runs
after it, on two workers as well unless TEST_SLOW_WORKERS says otherwise. Both lanes run
even when the first fails, so one run shows every failure. Arguments after the script go
to both pytest runs (e.g. `-k ranking`).

The last line is the total: "tests: N passed, N failed, N skipped" (errors count as
failed); the exit status is non-zero when either lane failed or no test ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "var" / "test-reports"


def workers(variable: str) -> str:
    """The number of xdist workers for a lane: the variable, else one per core (at least 2)."""
    return os.environ.get(variable) or str(max(2, os.cpu_count() or 2))


def run_lane(name: str, marker: str, n: str, extra: list[str]) -> tuple[int, dict[str, int]]:
    """Run one lane; returns pytest's exit status and its counts from the JUnit report."""
    report = REPORTS / f"{name}.xml"
    report.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", marker]
    if n not in ("", "0", "1"):
        command += ["-n", n, "--dist", "load"]
    command += [f"--junitxml={report}", *extra]
    print(f"== {name} lane: {' '.join(command[1:])}", flush=True)
    began = time.monotonic()
    status = subprocess.call(command, cwd=ROOT)
    print(f"== {name} lane: exit {status} in {time.monotonic() - began:.0f} s", flush=True)
    return status, counts(report)


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


def main(extra: list[str]) -> int:
    REPORTS.mkdir(parents=True, exist_ok=True)
    fast_status, fast = run_lane("fast", "not slow_lane", workers("TEST_FAST_WORKERS"), extra)
    slow_status, slow = run_lane("slow", "slow_lane", workers("TEST_SLOW_WORKERS"), extra)
    tests = fast["tests"] + slow["tests"]
    failed = fast["failed"] + slow["failed"]
    skipped = fast["skipped"] + slow["skipped"]
    passed = tests - failed - skipped
    # pytest's 5 is "no test collected": fine for one lane (a -k that selects one of them).
    bad = [s for s in (fast_status, slow_status) if s not in (0, 5)]
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped", flush=True)
    return 1 if bad or failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
