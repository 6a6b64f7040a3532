"""Benchmark of the printed documents: score cards of 1,000 players and hand records of 96
donnes, built as the Celery task builds them (`document_build`: read the data, lay out the
pages, write the PDF to storage), then the whole set of the 1,000-player tournament (every
kind once) and the cost of telling which documents are out of date (their inputs'
fingerprints).

Run: .venv/bin/python bench/bench_documents.py          (prints the figures)
     .venv/bin/python bench/bench_documents.py --write  (also rewrites its section of
                                                         docs/BENCHMARKS.md)
     .venv/bin/python bench/bench_documents.py --only score_cards  (the score cards and their
                                                         baseline only; --profile FILE adds
                                                         a cProfile of one build)

The data lives in a scratch SQLite database (or DATABASE_URL if set) and a scratch media
folder. Seating, movement and donnes come from the real generation service; the 6,000 results
of the 1,000-player tournament are scored by the real engine but inserted in bulk (entering
them one by one through the result service would take minutes and is not what is measured),
then ranked once by the real ranking service. Targets: 1,000 score cards < 30 s,
96 hand records < 5 s.
"""

from __future__ import annotations

import argparse
import atexit
import datetime as dt
import os
import platform
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import benchdoc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SCRATCH = Path(tempfile.mkdtemp(prefix="tarot-bench-documents-"))
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)
os.environ.setdefault("DATABASE_URL", f"sqlite:///{SCRATCH / 'bench.sqlite3'}")
os.environ["MEDIA_ROOT"] = str(SCRATCH / "media")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
os.environ["CELERY_EAGER"] = "1"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tarot_club.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.models import F  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone, translation  # noqa: E402

from scoring.documents.fingerprint import Inputs  # noqa: E402
from scoring.documents.models import Document  # noqa: E402
from scoring.documents.services import WHOLE_SET, document_build  # noqa: E402
from scoring.rankings.services import ranking_recompute  # noqa: E402
from scoring.rules.engine import score_deal  # noqa: E402
from tournaments.models import (  # noqa: E402
    Club,
    Donne,
    Player,
    Registration,
    Result,
    Seat,
    TableRound,
    Tournament,
)
from tournaments.services.preparation import seats_for_donne, tournament_generate  # noqa: E402

SECTION = "## Documents"
DOC = ROOT / "docs" / "BENCHMARKS.md"
CONTRACTS = ("prise", "prise", "garde", "garde", "garde", "garde_sans", "garde_contre")


def make_tournament(players: int, rounds: int, name: str) -> Tournament:
    """A tournament seated and dealt by the real generation service."""
    number = f"{Club.objects.count() + 1:04d}"
    club = Club.objects.create(name=f"Club de tarot {number}", federation_number=number)
    tournament = Tournament.objects.create(
        club=club,
        name=name,
        date=dt.date(2026, 12, 5),
        venue="Salle des fêtes",
        rounds=rounds,
        status=Tournament.Status.REGISTRATION,
    )
    roster = Player.objects.bulk_create(
        Player(
            first_name=random.choice(["Camille", "Léa", "Hugo", "Chloé", "Jules", "Inès"]),
            last_name=f"Joueur{i:04d}",
            licence=f"{int(number) % 100:02d}{i:05d}",
            club=club,
        )
        for i in range(players)
    )
    now = timezone.now()
    Registration.objects.bulk_create(
        Registration(tournament=tournament, player=p, checked_in_at=now) for p in roster
    )
    tournament_generate(tournament=tournament, seed="be4c" * 16)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    tournament.refresh_from_db()
    return tournament


def fill_results(tournament: Tournament, user: object, rnd: random.Random) -> int:
    """A result for every table and donne, scored by the engine, inserted in bulk."""
    rows = []
    table_rounds = TableRound.objects.filter(round__tournament=tournament).select_related("table")
    seats_of: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(round__tournament=tournament).select_related("player"):
        seats_of.setdefault(seat.table_round_id, []).append(seat)
    donnes_of: dict[int, list[Donne]] = {}
    for donne in Donne.objects.filter(tournament=tournament).order_by("number"):
        donnes_of.setdefault(donne.etui_set_id, []).append(donne)
    for tr in table_rounds:
        seats = seats_of[tr.pk]
        for index, donne in enumerate(donnes_of[tr.etui_set_id]):
            holders = seats_for_donne(tr, index, seats)
            bouts = rnd.choice((0, 1, 1, 2, 2, 3))
            points = rnd.randint(int(4.5 * bouts) + 1, int(91 - 4.5 * (3 - bouts)))
            taker, contract = rnd.choice("NESW"), rnd.choice(CONTRACTS)
            deal = score_deal(4, contract, bouts, points)
            rows.append(
                Result(
                    tournament=tournament,
                    table_round=tr,
                    table=tr.table,
                    donne=donne,
                    status=Result.Status.PLAYED,
                    taker=taker,
                    contract=contract,
                    bouts=bouts,
                    points=points,
                    scores={p: deal.taker if p == taker else deal.defender for p in "NESW"},
                    holders={p: player.pk for p, player in holders.hands.items()},
                    sitter=holders.sitter,
                    created_by=user,
                    updated_by=user,
                )
            )
    with transaction.atomic():
        Result.objects.bulk_create(rows, batch_size=1000)
        Tournament.objects.filter(pk=tournament.pk).update(results_version=F("results_version") + 1)
    ranking_recompute(tournament_id=tournament.pk)
    tournament.refresh_from_db()
    return len(rows)


def timed_build(
    tournament: Tournament, kind: str, *, runs: int, cpu: list[float] | None = None
) -> tuple[float, Document, int]:
    """Best time of `runs` builds of one document (a fresh pending Document each time); the
    best CPU time of this process is appended to `cpu` when given."""
    best, best_cpu, document, queries = float("inf"), float("inf"), None, 0
    for _ in range(runs):
        Document.objects.filter(tournament=tournament, kind=kind).delete()
        pending = Document.objects.create(tournament=tournament, kind=kind, language="fr")
        # Django keeps the last 9,000 queries only: once full, a count taken as the difference
        # of its lengths would read 0.
        connection.queries_log.clear()
        with CaptureQueriesContext(connection) as captured:
            start, start_cpu = time.perf_counter(), time.process_time()
            document = document_build(document_id=pending.pk)
            elapsed = time.perf_counter() - start
            best_cpu = min(best_cpu, time.process_time() - start_cpu)
        assert document is not None and document.status == Document.Status.DONE, document
        if elapsed < best:
            best, queries = elapsed, len(captured)
    if cpu is not None:
        cpu.append(best_cpu)
    return best, document, queries  # type: ignore[return-value]


def profile_build(tournament: Tournament, path: str) -> None:
    """One score-card build under cProfile (CPU time), its statistics written to `path`."""
    import cProfile

    Document.objects.filter(tournament=tournament, kind=Document.Kind.SCORE_CARDS).delete()
    pending = Document.objects.create(
        tournament=tournament, kind=Document.Kind.SCORE_CARDS, language="fr"
    )
    profiler = cProfile.Profile(time.process_time)
    profiler.runcall(document_build, document_id=pending.pk)
    profiler.dump_stats(path)
    print(f"profile of one score-card build written to {path}")


def card_strings(tournament: Tournament) -> list[list[str]]:
    """Every string each score card prints (its title, club, summary, chart labels, every
    cell of its lines, its notes and penalties), card by card: what the bare baseline draws."""
    from scoring.documents.score_cards import ScoreCardsRenderer

    with translation.override("fr"):
        return [layout.strings() for layout in ScoreCardsRenderer(tournament).layouts()]


def bare_reportlab(pages: list[list[str]]) -> tuple[float, float]:
    """The baseline: the same pages and strings drawn with ReportLab's canvas alone (one
    text object per page, the same font, a rule under each line), written to memory. Its
    time and CPU time."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    from scoring.documents.fonts import register_fonts

    fonts = register_fonts()
    start, start_cpu = time.perf_counter(), time.process_time()
    canvas = Canvas(io.BytesIO(), pagesize=A4)
    width, height = A4
    for strings in pages:
        # One text object per page, fourteen strings to a line, one rule under each line.
        text = canvas.beginText(40, height - 60)
        text.setFont(fonts.condensed, 8.5)
        rules = canvas.beginPath()
        y = height - 60
        for k in range(0, len(strings), 14):
            text.textLine("  ".join(strings[k : k + 14]))
            rules.moveTo(40, y - 3)
            rules.lineTo(width - 40, y - 3)
            y -= 10.2
        canvas.drawText(text)
        canvas.drawPath(rules, stroke=1, fill=0)
        canvas.showPage()
    canvas.save()
    return time.perf_counter() - start, time.process_time() - start_cpu


def write_section(text: str) -> None:
    """Replace this benchmark's section of docs/BENCHMARKS.md, leaving the others alone."""
    benchdoc.write_section(SECTION, text)


def _arguments() -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3, help="builds per document (best kept)")
    parser.add_argument(
        "--only",
        choices=["score_cards"],
        help="measure only this part (the score cards against the baseline) and stop",
    )
    parser.add_argument("--profile", metavar="FILE", help="cProfile one score-card build to FILE")
    args = parser.parse_args()
    if args.write and args.only:
        parser.error("--write needs the whole run (no --only)")
    return args


def _tournaments(args: argparse.Namespace) -> tuple[Tournament, Tournament | None, int]:
    """The big tournament (`--players`, 6 rounds, every result) and, unless `--only`, the
    small one of 96 donnes with its number of donnes."""
    rnd = random.Random(2026)
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench", password="bench-password")
    big = make_tournament(args.players, 6, "Open des mille")
    results = fill_results(big, user, rnd)
    if args.only:
        print(f"setup: {time.perf_counter() - started:.1f} s ({results:,} results)")
        return big, None, 0
    small = make_tournament(96, 6, "Tournoi des 96 donnes")
    fill_results(small, user, rnd)
    donnes = small.donnes.count()
    print(f"setup: {time.perf_counter() - started:.1f} s ({results:,} results, {donnes} donnes)")
    return big, small, donnes


def _score_cards_against_baseline(big: Tournament, args: argparse.Namespace) -> dict[str, Any]:
    """The score cards' build (best of `--runs`) and the bare ReportLab baseline of the same
    pages: elapsed and CPU times, the document, its queries and the ratio in CPU time."""
    cpu: list[float] = []
    cards_s, cards, cards_q = timed_build(big, Document.Kind.SCORE_CARDS, runs=args.runs, cpu=cpu)
    cards_cpu = cpu[0]
    pages = card_strings(big)
    baselines = [bare_reportlab(pages) for _ in range(args.runs)]
    baseline_s = min(wall for wall, _cpu in baselines)
    baseline_cpu = min(cpu_s for _wall, cpu_s in baselines)
    # The ratio in CPU time of this process (the SQLite database's work is in it): on a
    # machine shared with other work, a long build and a short baseline do not get the same
    # share of the processor, and their elapsed times would compare the load, not the code.
    ratio = cards_cpu / baseline_cpu
    print(
        f"bare ReportLab baseline, same pages and strings: {baseline_s:.2f} s, "
        f"{baseline_cpu:.2f} s of CPU; score cards {cards_cpu:.2f} s of CPU: {ratio:.1f}× "
        f"({cards_s / baseline_s:.1f}× in elapsed time)"
    )
    return {
        "seconds": cards_s,
        "document": cards,
        "queries": cards_q,
        "cpu": cards_cpu,
        "baseline_s": baseline_s,
        "baseline_cpu": baseline_cpu,
        "ratio": ratio,
    }


def _other_documents(
    big: Tournament, small: Tournament, donnes: int, args: argparse.Namespace
) -> list[tuple[str, float, Document, int, str]]:
    """The hand records (best of `--runs`) and one build of each other measured kind."""
    hands_s, hands, hands_q = timed_build(small, Document.Kind.HAND_RECORDS, runs=args.runs)
    figures = [(f"hand records, {donnes} donnes", hands_s, hands, hands_q, "< 5 s")]
    for kind, label in (
        (Document.Kind.ETUI_SETS, f"étui sheets, {donnes} donnes"),
        (Document.Kind.SCORE_SHEETS, "table score sheets, 24 tables × 6 rounds"),
        (Document.Kind.ROUTE_CARDS, f"route cards, {args.players:,} players"),
        (Document.Kind.RANKING, f"ranking, {args.players:,} players"),
        (Document.Kind.DONNE_RESULTS, f"donne results, {donnes} donnes × 6 tables"),
    ):
        target = small if kind in (Document.Kind.ETUI_SETS, Document.Kind.SCORE_SHEETS) else big
        if kind == Document.Kind.DONNE_RESULTS:
            target = small
        seconds, document, queries = timed_build(target, kind, runs=1)
        figures.append((label, seconds, document, queries, ""))
    return figures


def _whole_set(
    big: Tournament, cards: dict[str, Any], args: argparse.Namespace
) -> list[tuple[str, float, Document, int]]:
    """The whole set of the big tournament, every kind once ("build every document"; the
    score cards: the build measured already)."""
    whole: list[tuple[str, float, Document, int]] = []
    for kind in WHOLE_SET:
        if kind == Document.Kind.SCORE_CARDS:
            seconds, document, queries = cards["seconds"], cards["document"], cards["queries"]
        else:
            seconds, document, queries = timed_build(big, kind, runs=1)
        with translation.override("en"):
            label = str(Document.Kind(kind).label)
        whole.append((label, seconds, document, queries))
        print(
            f"whole set: {label:34s} {seconds:7.2f} s  {document.pages:5d} pages  "
            f"{document.file.size / 1e6:6.2f} MB  {queries:6d} queries"
        )
    return whole


def _fingerprints(big: Tournament) -> tuple[float, int]:
    """What the documents page and the API pay on every read to tell what is out of date:
    the fingerprints of every kind, in seconds and queries."""
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as captured:
        start = time.perf_counter()
        inputs = Inputs(big)
        for kind in WHOLE_SET:
            inputs.fingerprint(kind, "fr")
        fingerprint_s = time.perf_counter() - start
    return fingerprint_s, len(captured)


def main() -> None:
    args = _arguments()
    big, small, donnes = _tournaments(args)
    if args.profile:
        profile_build(big, args.profile)
    cards = _score_cards_against_baseline(big, args)
    label = f"score cards, {args.players:,} players × 24 donnes"
    if args.only or small is None:
        print(
            f"{label}: {cards['seconds']:.2f} s, {cards['document'].pages:,} pages, "
            f"{cards['document'].file.size / 1e6:.2f} MB, {cards['queries']} queries"
        )
        return
    figures = [
        (label, cards["seconds"], cards["document"], cards["queries"], "< 30 s"),
        *_other_documents(big, small, donnes, args),
    ]
    for label, seconds, document, queries, target in figures:
        print(
            f"{label:45s} {seconds:7.2f} s  {document.pages:5d} pages  "
            f"{document.file.size / 1e6:6.2f} MB  {queries:6d} queries  {target}"
        )
    whole = _whole_set(big, cards, args)
    whole_total = sum(seconds for _label, seconds, _doc, _q in whole)
    print(f"whole set, {args.players:,} players: {whole_total:.1f} s")
    fingerprint_s, fingerprint_q = _fingerprints(big)
    print(f"fingerprints of every kind: {fingerprint_s * 1000:.0f} ms, {fingerprint_q} queries")
    if args.write:
        text = _section(args, figures, cards, whole, (fingerprint_s, fingerprint_q))
        write_section(text)
        print(f"wrote {DOC.relative_to(ROOT)}")


def _section(
    args: argparse.Namespace,
    figures: list[tuple[str, float, Document, int, str]],
    cards: dict[str, Any],
    whole: list[tuple[str, float, Document, int]],
    fingerprints: tuple[float, int],
) -> str:
    """The section of docs/BENCHMARKS.md."""
    machine = (
        f"{os.cpu_count()} cores ({platform.machine()}), Python "
        f"{platform.python_version()}, {platform.system()}, "
        f"{connection.vendor} database, load average {os.getloadavg()[0]:.1f} at the end "
        "(a machine shared with other work: ratios are the figures to compare)"
    )
    lines = [
        SECTION,
        "",
        f"Run on {dt.date.today().isoformat()} with `.venv/bin/python "
        "bench/bench_documents.py --write`.",
        f"Machine: {machine}. Each figure is one whole build as the Celery task runs it "
        f"(`document_build`: data, layout, PDF written to storage), best of {args.runs} "
        "for the two targets; French documents.",
        "",
        "| document | seconds | pages | size | queries | target |",
        "|---|---|---|---|---|---|",
    ]
    for label, seconds, document, queries, target in figures:
        lines.append(
            f"| {label} | {seconds:.2f} | {document.pages:,} | "
            f"{document.file.size / 1e6:.2f} MB | {queries:,} | {target} |"
        )
    ratio, baseline_s, cards_s = cards["ratio"], cards["baseline_s"], cards["seconds"]
    whole_total = sum(seconds for _label, seconds, _doc, _q in whole)
    lines += [
        "",
        f"Score cards against a bare ReportLab baseline drawn in the same run (the same "
        f"{cards['document'].pages:,} pages and strings in one text object per page, written "
        f"to memory): {cards['baseline_cpu']:.2f} s of CPU ({baseline_s:.2f} s elapsed) "
        f"against the score cards' {cards['cpu']:.2f} s of CPU, data read from the database "
        f"included, so the score cards take **{ratio:.1f}×** the baseline (target: at most "
        f"3×, {'met' if ratio <= 3 else 'not met'}; "
        f"{cards_s / baseline_s:.1f}× in elapsed time). Both in CPU time of this process, "
        "best of each: the machine is shared, and a long build and a short baseline do not "
        "get the same share of it.",
        "",
        f"The whole set of the {args.players:,}-player tournament (6 rounds), every kind "
        'built once as "build every document" asks for it (the score cards: the figure '
        f"above): **{whole_total:.1f} s** in all.",
        "",
        "| document | seconds | pages | size | queries |",
        "|---|---|---|---|---|",
    ]
    for label, seconds, document, queries in whole:
        lines.append(
            f"| {label} | {seconds:.2f} | {document.pages:,} | "
            f"{document.file.size / 1e6:.2f} MB | {queries:,} |"
        )
    fingerprint_s, fingerprint_q = fingerprints
    lines += [
        "",
        f"Telling which documents are out of date (the fingerprints of every kind's inputs, "
        f"read by the documents page and the API): {fingerprint_s * 1000:.0f} ms and "
        f"{fingerprint_q} queries for the {args.players:,}-player tournament.",
        "",
        HOW,
    ]
    return "\n".join(lines) + "\n"


HOW = (
    "How: the score cards read the ranking snapshot, seats, donnes and results once for "
    "all players, as plain values (tests/scoring/documents/test_data.py checks they equal the "
    "score-card page's cards); no platypus per card: each card is drawn straight on "
    "the canvas (scoring/documents/pages.py and ops.py). The page header and the "
    "footer's note are drawn once each into a form (a PDF Form XObject) that every page "
    "shows, and so are the comparison method and the legend, the same on every card; "
    "the summary and the lines table are PDF operators cached per document: a cell's "
    "operators relative to its row (its place in the column, its font subset, its "
    "escaped string) are worked out at first sight and then looked up column by "
    "column, a plain number without fitting it; the running-total chart is operators "
    "too, its grids, value labels and donne labels written once per document; numbers "
    "are formatted in integer arithmetic (scoring.rules.display.exact_text, checked against "
    "the Decimal path); each result's texts and each contract's are told once, not "
    "once per player of its table; the cyclic garbage collector is paused during the "
    "build (reference counting frees as usual; it resumes at the end). ReportLab's C "
    "accelerator (rl-accel) formats the numbers and escapes the strings of the PDF, "
    "for the documents and the baseline alike; QR codes are one filled path with a "
    "fixed mask; streams are compressed without ASCII85 (ReportLab's pure-Python "
    "encoder); fonts are registered once per process. 'Page x of y' holds the pages "
    "and numbers them at the end (one pass)."
)

if __name__ == "__main__":
    main()
