"""Benchmark of a simultaneous event's booklet (issue 36, point 3): 300 clubs × 40 players ×
24 donnes (12,000 players, 72,000 table results), the overall ranking computed, the embargo
over; then the booklet built per language as the worker builds it (`BookletRenderer.render`:
read the donnes, every donne's frequencies and the ranking, lay out and write the PDF), its
CPU time (best of `--repeats`) against a bare ReportLab baseline of the same run drawing the
same pages and strings (one text object per page, a rule under each line).

Run: .venv/bin/python bench/bench_booklet.py [--clubs 300] [--repeats 2] [--write]
     [--keep] (keep the scratch database and reuse its event on the next run)
     [--profile FILE] (cProfile one French build to FILE)
Needs PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/tarot_club); the
bench creates (and unless --keep drops) its own database test_<name>_bookletbench (or
BENCH_DB_NAME). Target: under 5 s per language at 12,000 players.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import benchdoc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tarot_club.settings_test")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tarot_club")
os.environ.setdefault("LOG_LEVEL", "ERROR")
warnings.filterwarnings("ignore", message="No directory at")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext, setup_test_environment  # noqa: E402
from django.utils import timezone, translation  # noqa: E402

SECTION = "## Simultaneous booklet"


def stage(clubs: int) -> Any:
    """The event, every club's upload applied as the API applies it, the overall ranking
    computed and the embargo lifted; reused when a kept database already holds it."""
    from bench_simultaneous import DONNES, club_upload, contract_pool, send

    from tournaments.simultaneous.hub import services
    from tournaments.simultaneous.hub.models import SimultaneousEvent
    from tournaments.simultaneous.hub.ranking import overall_recompute

    event = SimultaneousEvent.objects.filter(name="Booklet bench").first()
    if event is not None:
        return event
    settings.SIMULTANEOUS_RANKING_INLINE = False
    started = time.perf_counter()
    event = services.event_create(
        user=None, name="Booklet bench", date=dt.date(2027, 1, 16), rounds=6, sets=DONNES // 4
    )
    donnes = services.event_donnes(event)
    pool = contract_pool()
    for index in range(clubs):
        invitation, token = services.invitation_create(
            event=event, user=None, club_name=f"Club {index}"
        )
        send(club_upload(event, invitation, index, donnes, pool), token)
    SimultaneousEvent.objects.filter(pk=event.pk).update(embargo_lifted_at=timezone.now())
    overall_recompute(event_id=event.pk)
    print(f"staged {clubs} clubs in {time.perf_counter() - started:.0f} s", flush=True)
    return SimultaneousEvent.objects.get(pk=event.pk)


def build(event: Any, language: str) -> tuple[float, float, bytes, int]:
    """One build of the booklet in `language` as the worker builds it: elapsed, CPU, the
    PDF and the number of queries."""
    from tournaments.simultaneous.hub.booklet import BookletRenderer
    from tournaments.simultaneous.hub.models import SimultaneousEvent

    event = SimultaneousEvent.objects.get(pk=event.pk)
    connection.queries_log.clear()
    with translation.override(language), CaptureQueriesContext(connection) as captured:
        start, start_cpu = time.perf_counter(), time.process_time()
        _name, _mime, content = BookletRenderer(event).render()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return elapsed, cpu, content, len(captured)


def page_lines(content: bytes) -> list[list[str]]:
    """Every page's text lines (pdftotext): what the bare baseline draws."""
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(content)
        f.flush()
        text = subprocess.run(
            ["pdftotext", "-layout", f.name, "-"], capture_output=True, check=True, text=True
        ).stdout
    return [[line for line in page.splitlines() if line.strip()] for page in text.split("\f")]


def bare_reportlab(pages: list[list[str]]) -> float:
    """The baseline: the same pages and lines drawn with ReportLab's canvas alone (one text
    object per page, the same condensed font, a rule under each line), written to memory.
    Its CPU time."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    from scoring.documents.fonts import register_fonts

    fonts = register_fonts()
    start = time.process_time()
    canvas = Canvas(io.BytesIO(), pagesize=A4)
    width, height = A4
    for lines in pages:
        text = canvas.beginText(40, height - 60)
        text.setFont(fonts.condensed, 8.5)
        rules = canvas.beginPath()
        y = height - 60
        for line in lines:
            text.textLine(line)
            rules.moveTo(40, y - 3)
            rules.lineTo(width - 40, y - 3)
            y -= 10.2
        canvas.drawText(text)
        canvas.drawPath(rules, stroke=1, fill=0)
        canvas.showPage()
    canvas.save()
    return time.process_time() - start


def measure(event: Any, repeats: int) -> list[dict[str, Any]]:
    """Each language's build (best CPU of `repeats`) against the baseline of its pages."""
    rows = []
    for language, _label in settings.LANGUAGES:
        runs = [build(event, language) for _ in range(repeats)]
        elapsed = min(r[0] for r in runs)
        cpu = min(r[1] for r in runs)
        content, queries = runs[0][2], runs[0][3]
        pages = page_lines(content)
        bare = min(bare_reportlab(pages) for _ in range(repeats))
        rows.append(
            {
                "language": language,
                "elapsed": elapsed,
                "cpu": cpu,
                "bare": bare,
                "pages": len([p for p in pages if p]),
                "size": len(content),
                "queries": queries,
            }
        )
        print(rows[-1], flush=True)
    return rows


def report(rows: list[dict[str, Any]], players: int, repeats: int, load: str) -> str:
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today():%Y-%m-%d} with `.venv/bin/python bench/bench_booklet.py "
        "--write`.",
        f"Machine: {os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, PostgreSQL {connection.pg_version // 10000}; "
        f"{benchdoc.machine_load(load)} (during the run); best of {repeats}.",
        f"The field: {players:,} players (300 clubs × 40, 24 donnes), every upload applied as "
        "the API applies it, the overall ranking computed, the embargo over. The booklet built "
        "as the worker builds it (`BookletRenderer.render`: hand records, each donne's "
        "frequencies, the overall ranking), in CPU time of the process (the database's own "
        "work is not in it), against a bare ReportLab canvas drawing the same pages and lines "
        "(one text object per page, a rule under each line) (target: under 5 s per language):",
        "",
        "| language | pages | booklet CPU (s) | elapsed (s) | queries | bare ReportLab CPU (s) "
        "| ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['language']} | {r['pages']} | **{r['cpu']:.2f}** | {r['elapsed']:.2f} | "
            f"{r['queries']} | {r['bare']:.2f} | {r['cpu'] / r['bare']:.1f}× |"
        )
    lines += [
        "",
        "Before issue 36 (the same database, the same session, load ~19): 9.2 s of CPU in "
        "French for 307 pages (25 queries: one per donne's results), 0.55 s for the bare "
        "baseline (17×); about 15 s elapsed per language on a busy worker. What the profile "
        "(`--profile`) found and what changed: the ranking's stripe was a colour string that "
        "ReportLab parsed again for each of 42,000 shaded cells (a quarter of the build; now a "
        "colour object, and a row's shaded cells one rectangle); each donne's 3,000 scores "
        "per position went one by one through exact differentials (now once per distinct "
        "score, `differentials_by_score`, tied to `differentials` by a property test); the "
        "field's results were read per donne and converted per table (now one query grouped "
        "by outcome). What remains is the drawing of 12,000 distinct names and licences "
        "(`FastTable._place`: each string's subsets and escaping worked out once) and their "
        "fitting (`one_line`).",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clubs", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep and reuse the database")
    parser.add_argument("--profile", metavar="FILE", help="cProfile one French build to FILE")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit("This benchmark runs on PostgreSQL: set DATABASE_URL.")
    settings.DEBUG = False
    setup_test_environment()
    connection.settings_dict["TEST"]["NAME"] = os.environ.get(
        "BENCH_DB_NAME", f"test_{connection.settings_dict['NAME']}_bookletbench"
    )
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=args.keep)
    try:
        event = stage(max(2, args.clubs))
        from tournaments.simultaneous.hub.models import FieldPlayer

        players = FieldPlayer.objects.filter(event=event).count()
        if args.profile:
            import cProfile

            profiler = cProfile.Profile(time.process_time)
            profiler.runcall(build, event, "fr")
            profiler.dump_stats(args.profile)
            print(f"profile written to {args.profile}")
        rows = measure(event, args.repeats)
    finally:
        if not args.keep:
            connection.creation.destroy_test_db(old_name, verbosity=0)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    text = report(rows, players, args.repeats, load)
    print(text)
    if args.write:
        benchdoc.write_section(SECTION, text)


if __name__ == "__main__":
    main()
