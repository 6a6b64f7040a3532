"""Asking for a document, building it, and who may do which.

- `document_request` records the wish (a pending Document) and dispatches the build on commit.
  Asking again while a build is pending or running returns that build: the database's partial
  unique constraint decides (IntegrityError → the existing row), not a process lock. A finished
  document whose inputs have not changed since is returned as it is, unless the organiser
  forces a rebuild.
- `document_build` (run by the Celery task, or in-process without a broker) reads the
  fingerprint of the document's inputs (scoring.documents.fingerprint), renders the PDF inside
  `translation.override(document.language)`, reports progress on the row and stores the file
  with that fingerprint; any later change of what it prints (a player renamed, a result
  corrected, a re-seating…) marks it out of date (`document_is_out_of_date`) and the next
  request builds it again.
- A build whose worker died stops updating its heartbeat; after DOCUMENT_STALE_SECONDS a new
  request replaces it instead of waiting for it forever.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from celery import current_app
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.core.files.base import ContentFile
from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.db.models.functions import Now
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from scoring.documents.heartbeat import beating
from tournaments.models import Donne, EtuiSet, Seat, Tournament
from tournaments.permissions import can_manage_tournament, can_see_results

from .fingerprint import Inputs
from .models import Document

if TYPE_CHECKING:
    from .base import Renderer

logger = logging.getLogger(__name__)

Kind = Document.Kind
Status = Document.Status
IN_PROGRESS = (Status.PENDING, Status.RUNNING)

# Documents that show results (what is public once the tournament is published).
RESULT_KINDS = frozenset({Kind.SCORE_CARDS, Kind.RANKING, Kind.DONNE_RESULTS, Kind.RESULTS_SUMMARY})
# Downloadable by anyone once the tournament is published.
PUBLIC_KINDS = RESULT_KINDS
# The documents "build everything" makes, in the order an organiser needs them.
WHOLE_SET = (
    Kind.HAND_RECORDS,
    Kind.ETUI_SETS,
    Kind.SCORE_SHEETS,
    Kind.ROUTE_CARDS,
    Kind.SCORE_CARDS,
    Kind.RANKING,
    Kind.DONNE_RESULTS,
    Kind.MOVEMENT_CHART,
    Kind.TABLE_CARDS,
    Kind.CHECK_IN_LIST,
    Kind.ETUI_LABELS,
    Kind.ARBITER_LOG,
    Kind.RESULTS_SUMMARY,
    Kind.PLAYER_REPORT,
)
# What `part` means per kind (0 is always the whole tournament).
PART_IS_SET = frozenset({Kind.HAND_RECORDS, Kind.ETUI_SETS})
PART_IS_PLAYER = frozenset({Kind.SCORE_CARDS, Kind.PLAYER_REPORT})

PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2}
# The build's Celery task (scoring.documents.tasks.build_document), found by its name: the task
# module imports this one, not the other way round (scoring's ready() imports it).
BUILD_TASK = "scoring.build_document"


class DocumentError(ValueError):
    """A request that cannot be honoured; the message (translated) says what to do."""


def renderer_class(kind: str) -> type[Renderer]:
    from .arbiter_log import ArbiterLogRenderer
    from .check_in_list import CheckInListRenderer
    from .donne_results import DonneResultsRenderer
    from .etui_labels import EtuiLabelsRenderer
    from .etui_sets import EtuiSetsRenderer
    from .hand_records import HandRecordsRenderer
    from .movement_chart import MovementChartRenderer
    from .player_report import PlayerReportRenderer
    from .ranking import RankingRenderer
    from .results_summary import ResultsSummaryRenderer
    from .route_cards import RouteCardsRenderer
    from .score_cards import ScoreCardsRenderer
    from .score_sheets import ScoreSheetsRenderer
    from .table_cards import TableCardsRenderer

    classes: dict[str, type[Renderer]] = {
        Kind.HAND_RECORDS: HandRecordsRenderer,
        Kind.ETUI_SETS: EtuiSetsRenderer,
        Kind.SCORE_SHEETS: ScoreSheetsRenderer,
        Kind.ROUTE_CARDS: RouteCardsRenderer,
        Kind.SCORE_CARDS: ScoreCardsRenderer,
        Kind.RANKING: RankingRenderer,
        Kind.DONNE_RESULTS: DonneResultsRenderer,
        Kind.MOVEMENT_CHART: MovementChartRenderer,
        Kind.TABLE_CARDS: TableCardsRenderer,
        Kind.CHECK_IN_LIST: CheckInListRenderer,
        Kind.ETUI_LABELS: EtuiLabelsRenderer,
        Kind.ARBITER_LOG: ArbiterLogRenderer,
        Kind.RESULTS_SUMMARY: ResultsSummaryRenderer,
        Kind.PLAYER_REPORT: PlayerReportRenderer,
    }
    return classes[kind]


def stale_after() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "DOCUMENT_STALE_SECONDS", 15)))


def heartbeat_every() -> float:
    """Seconds between two heartbeats of a running build: a fifth of the stale threshold."""
    return stale_after().total_seconds() / 5


def languages() -> dict[str, str]:
    return {code: str(name) for code, name in settings.LANGUAGES}


# --- freshness ------------------------------------------------------------------------------


def seating_key(tournament: Tournament) -> str:
    """A fingerprint of the seating alone (who sits where, which étui set each table plays):
    what a hand edit of the seating changes."""
    return Inputs(tournament).seating


def document_is_out_of_date(document: Document, *, current: str) -> bool:
    """A finished document built from other inputs than `current` (the fingerprint of its
    kind and language now, `Inputs.fingerprint`)."""
    return document.status == Status.DONE and document.fingerprint != current


# --- who may do what -------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentAccess:
    """What one user may do with one tournament's documents, read once (a page lists many)."""

    manage: bool
    own_player: int | None
    sees_results: bool
    public: bool
    # The earliest live personal link of a player of the tournament (None: none, or the
    # reader manages the tournament): score cards built since print it as a QR code.
    links_since: datetime | None = None

    @classmethod
    def of(cls, user: Any, tournament: Tournament) -> DocumentAccess:
        manage = can_manage_tournament(user, tournament)
        player = getattr(user, "player", None) if user.is_authenticated else None
        own = player.pk if player is not None else None
        return cls(
            manage=manage,
            own_player=own,
            sees_results=manage or (own is not None and can_see_results(user, tournament)),
            public=tournament.is_public,
            links_since=None if manage else first_live_link(tournament),
        )

    def prints_others_links(self, document: Document) -> bool:
        """Whether the document may hold personal links of players other than the reader's
        (score cards print each player's live link as a QR code, issue 35): the score cards
        of several players finished after a link still live was issued. Such a file goes
        to the tournament's managers only: a link opens its player's reports."""
        if document.kind != Kind.SCORE_CARDS or self.manage or self.links_since is None:
            return False
        if document.part and document.part == self.own_player:
            return False
        return document.finished_at is None or self.links_since <= document.finished_at

    def may_download_document(self, document: Document) -> bool:
        """`may_download` for this very file (see `prints_others_links`)."""
        return self.may_download(document.kind, document.part) and not (
            self.prints_others_links(document)
        )

    def may_request(self, kind: str, part: int = 0) -> bool:
        """Arbiters and organisers build everything; a player builds his own score card and
        his own report."""
        if self.manage:
            return True
        return (
            kind in PART_IS_PLAYER
            and self.own_player is not None
            and part == self.own_player
            and self.sees_results
        )

    def may_download(self, kind: str, part: int = 0) -> bool:
        """Arbiters and organisers: everything. Anyone: the ranking, donne results and score
        cards once published. A player of the tournament: his own score card and report."""
        if self.manage or (kind in PUBLIC_KINDS and self.public):
            return True
        return (
            kind in PART_IS_PLAYER
            and self.own_player is not None
            and part == self.own_player
            and self.sees_results
        )


def can_request_document(user: Any, tournament: Tournament, kind: str, part: int = 0) -> bool:
    return DocumentAccess.of(user, tournament).may_request(kind, part)


def can_download_document(user: Any, document: Document, tournament: Tournament) -> bool:
    return DocumentAccess.of(user, tournament).may_download_document(document)


def first_live_link(tournament: Tournament) -> datetime | None:
    """When the earliest personal link still live of a player of the tournament was issued
    (None: no live link); one query."""
    from django.db.models import Min

    from tournaments.models import PlayerLink

    return PlayerLink.objects.filter(
        revoked_at__isnull=True, player__registrations__tournament=tournament
    ).aggregate(first=Min("created_at"))["first"]


# --- asking ----------------------------------------------------------------------------------


def _check_request(tournament: Tournament, kind: str, language: str, part: int) -> None:
    if kind not in Kind.values:
        raise DocumentError(
            _("Unknown document %(kind)s. Choose one of the documents listed.") % {"kind": kind}
        )
    if language not in languages():
        raise DocumentError(
            _("Documents are printed in %(languages)s; %(language)s is not available.")
            % {"languages": ", ".join(languages().values()), "language": language}
        )
    if not Donne.objects.filter(tournament=tournament).exists():
        raise DocumentError(
            _(
                "The seating and the donnes have not been generated yet: generate them on the "
                "preparation page first."
            )
        )
    if not part:
        return
    if kind in PART_IS_SET:
        if not EtuiSet.objects.filter(tournament=tournament, number=part).exists():
            raise DocumentError(_("This tournament has no étui set %(number)s.") % {"number": part})
    elif kind in PART_IS_PLAYER:
        if not Seat.objects.filter(round__tournament=tournament, player_id=part).exists():
            raise DocumentError(_("This player does not play in this tournament."))
    else:
        raise DocumentError(_("This document is printed for the whole tournament only."))


def _latest_done(tournament: Tournament, kind: str, language: str, part: int) -> Document | None:
    return (
        Document.objects.filter(
            tournament=tournament, kind=kind, language=language, part=part, status=Status.DONE
        )
        .order_by("-finished_at", "-pk")
        .first()
    )


def _in_progress(tournament: Tournament, kind: str, language: str, part: int) -> Document | None:
    return Document.objects.filter(
        tournament=tournament, kind=kind, language=language, part=part, status__in=IN_PROGRESS
    ).first()


def _is_stale(document: Document, now: Any) -> bool:
    last = document.heartbeat_at or document.created_at
    return now - last > stale_after()


def document_request(
    *,
    tournament: Tournament,
    kind: str,
    language: str,
    user: Any,
    part: int = 0,
    force: bool = False,
    inputs: Inputs | None = None,
) -> Document:
    """Ask for a document; returns the build in progress, the finished document if it is still
    up to date (unless `force`: the organiser wants it built again), or a new pending build
    (dispatched once the transaction commits).

    Raises PermissionDenied for a user who may not ask for it and DocumentError (translated
    message) for a request that cannot be honoured.
    """
    if not can_request_document(user, tournament, kind, part):
        raise PermissionDenied(_("You may not print this document."))
    _check_request(tournament, kind, language, part)
    done = None if force else _latest_done(tournament, kind, language, part)
    if done is not None:
        current = (inputs or Inputs(tournament)).fingerprint(kind, language)
        if not document_is_out_of_date(done, current=current):
            return done
    requester = user if user.is_authenticated else None
    for _attempt in range(2):
        try:
            with transaction.atomic():
                document = Document.objects.create(
                    tournament=tournament,
                    kind=kind,
                    language=language,
                    part=part,
                    status=Status.PENDING,
                    requested_by=requester,
                    heartbeat_at=timezone.now(),
                )
        except IntegrityError:
            current = _in_progress(tournament, kind, language, part)
            if current is None:
                continue  # it finished in between: try again
            if not _is_stale(current, timezone.now()):
                return current
            Document.objects.filter(pk=current.pk, status__in=IN_PROGRESS).update(
                status=Status.FAILED,
                error=_("The build stopped without finishing (its worker was lost)."),
                finished_at=timezone.now(),
            )
            continue
        transaction.on_commit(partial(dispatch_build, document.pk))
        return document
    current = _in_progress(tournament, kind, language, part)
    if current is not None:
        return current
    raise DocumentError(_("The document could not be queued. Please try again."))


def document_request_all(
    *, tournament: Tournament, language: str, user: Any, force: bool = False
) -> list[Document]:
    """Ask for the whole set of the tournament's documents (each for the whole tournament):
    those out of date are built again, all of them when `force`."""
    if not can_manage_tournament(user, tournament):
        raise PermissionDenied(_("You may not print this document."))
    inputs = Inputs(tournament)
    return [
        document_request(
            tournament=tournament,
            kind=kind,
            language=language,
            user=user,
            force=force,
            inputs=inputs,
        )
        for kind in WHOLE_SET
    ]


def dispatch_build(document_id: int) -> None:
    """Queue the build; with no broker (or when it does not answer) build it in-process, so
    the document is made either way."""
    build_document = current_app.tasks[BUILD_TASK]
    try:
        if build_document.app.conf.task_always_eager:
            build_document.apply(args=(document_id,), throw=False)
        else:
            build_document.apply_async(
                (document_id,), retry=True, retry_policy=PUBLISH_RETRY_POLICY
            )
    except Exception:
        logger.warning("could not queue document %s; building it in-process", document_id)
        build_document.apply(args=(document_id,), throw=False)


# --- building --------------------------------------------------------------------------------


def _claim(document_id: int) -> Document | None:
    """Take the document for building: pending, or running with a dead worker."""
    with transaction.atomic():
        document = (
            Document.objects.select_for_update(of=("self",))  # not the tournament's row
            .select_related("tournament", "tournament__club")
            .annotate(db_now=Now())
            .filter(pk=document_id)
            .first()
        )
        if document is None or document.status in (Status.DONE, Status.FAILED):
            return None
        now = document.db_now  # type: ignore[attr-defined]
        if document.status == Status.RUNNING and not _is_stale(document, now):
            return None  # another worker is on it
        document.status = Status.RUNNING
        document.progress = 0
        document.heartbeat_at = now
        document.save(update_fields=["status", "progress", "heartbeat_at"])
    return document


def _progress(document_id: int, fraction: float) -> None:
    Document.objects.filter(pk=document_id, status=Status.RUNNING).update(
        progress=min(99, int(fraction * 100)), heartbeat_at=Now()
    )


def _heartbeat(document_id: int) -> None:
    # The database's clock: the sweep of another host compares it with its own reading of it.
    Document.objects.filter(pk=document_id, status=Status.RUNNING).update(heartbeat_at=Now())


def document_render(
    document: Document, *, progress: Any = None
) -> tuple[tuple[str, str, bytes], Renderer]:
    """Render a document's PDF in its language (no database writes)."""
    renderer = renderer_class(document.kind)(
        document.tournament, part=document.part, progress=progress
    )
    with translation.override(document.language):
        return renderer.render(), renderer


def etui_sheet_pdf(
    tournament: Tournament, *, donne_number: int, language: str
) -> tuple[str, str, bytes]:
    """The one-page sheet of a donne as dealt, to put an étui right after a call to the
    arbiter (`etui_rebuild`): (filename, mimetype, bytes), rendered now, never stored. The
    caller checks that the user is one of the tournament's arbiters (it shows hands)."""
    from .etui_rebuild import EtuiRebuildRenderer

    renderer = EtuiRebuildRenderer(tournament, part=donne_number)
    with translation.override(language):
        return renderer.render()


def player_report_pdf(
    tournament: Tournament, *, player_id: int, language: str
) -> tuple[str, str, bytes]:
    """One player's report of one event as a PDF in `language`: (filename, mimetype, bytes).
    The document system's own file of it (kind `player_report`, part the player) when one is
    built from the inputs it prints now; else rendered now (`PlayerReportRenderer`, about half
    a second for 24 donnes) and stored as that document, so the next reader (the page's link
    followed twice, the player's row of the documents page) reads the file. The caller checks
    who reads it and that the report is open (`scoring.rankings.player_views.report_closed`);
    the renderer prints only the "not open yet" sentence otherwise."""
    kind = Kind.PLAYER_REPORT
    current = Inputs(tournament).fingerprint(kind, language)
    done = _latest_done(tournament, kind, language, player_id)
    if done is not None and done.file and not document_is_out_of_date(done, current=current):
        try:
            with done.file.open("rb") as handle:
                return document_filename(done), "application/pdf", handle.read()
        except FileNotFoundError:
            pass  # rendered again below
    document = Document(
        tournament=tournament, kind=kind, language=language, part=player_id, status=Status.DONE
    )
    (_filename, mimetype, content), renderer = document_render(document)
    document.pages = renderer.pages
    document.results_version = renderer.results_version
    document.fingerprint = current
    document.progress = 100
    document.finished_at = timezone.now()
    document.file.save(document_filename(document), ContentFile(content), save=True)
    _remove_older(document)
    return document_filename(document), mimetype, content


def document_build(*, document_id: int) -> Document | None:
    """Build a requested document and store its file. Idempotent: a document already built,
    failed, or being built by a live worker is left alone (returns None)."""
    document = _claim(document_id)
    if document is None:
        return None
    tournament = document.tournament
    try:
        # Read before rendering: a change saved while it renders leaves it out of date.
        fingerprint = Inputs(tournament).fingerprint(document.kind, document.language)
        with beating(partial(_heartbeat, document.pk), every=heartbeat_every()):
            (filename, _mimetype, content), renderer = document_render(
                document, progress=partial(_progress, document.pk)
            )
    except (OperationalError, InterfaceError):
        # Transient: give it back so that the task's retry builds it.
        Document.objects.filter(pk=document.pk).update(status=Status.PENDING)
        raise
    except Exception as exc:
        logger.exception("document %s (%s) failed", document.pk, document.kind)
        Document.objects.filter(pk=document.pk).update(
            status=Status.FAILED,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            finished_at=timezone.now(),
        )
        return Document.objects.get(pk=document.pk)
    document.file.save(filename, ContentFile(content), save=False)
    document.status = Status.DONE
    document.progress = 100
    document.pages = renderer.pages
    document.results_version = renderer.results_version
    document.fingerprint = fingerprint
    document.finished_at = timezone.now()
    document.error = ""
    document.save(
        update_fields=[
            "file",
            "status",
            "progress",
            "pages",
            "results_version",
            "fingerprint",
            "finished_at",
            "error",
        ]
    )
    _remove_older(document)
    return document


def _remove_older(document: Document) -> None:
    """Keep only the newest finished document of its kind, language and part (and its file)."""
    older = Document.objects.filter(
        tournament_id=document.tournament_id,
        kind=document.kind,
        language=document.language,
        part=document.part,
        status__in=(Status.DONE, Status.FAILED),
        created_at__lte=document.created_at,
    ).exclude(pk=document.pk)
    for old in older:
        if old.file:
            old.file.delete(save=False)
        old.delete()


def document_filename(document: Document) -> str:
    """The name a download is saved under: tournament, document and part, in its language."""
    from django.utils.text import slugify

    with translation.override(document.language):
        parts = [document.tournament.name, str(document.get_kind_display())]
        if document.part and document.kind in PART_IS_SET:
            parts.append(_("Étui set %(number)s") % {"number": document.part})
        elif document.part:
            parts.append(str(document.part))
    return f"{slugify(' '.join(parts)) or 'document'}-{document.language}.pdf"


# --- what a page shows -----------------------------------------------------------------------


@dataclass
class DocumentRow:
    """One line of the documents page: a kind (and part) with its latest build."""

    kind: str
    part: int
    label: str
    part_label: str
    document: Document | None  # the latest finished build
    building: Document | None  # a build pending or running
    failed: Document | None  # the last build, if it failed after the finished one
    out_of_date: bool
    can_request: bool
    can_download: bool

    @property
    def key(self) -> str:
        return f"{self.kind}-{self.part}"


def document_rows(
    *,
    tournament: Tournament,
    user: Any,
    language: str,
    wanted: Sequence[tuple[str, int]],
    part_labels: dict[tuple[str, int], str] | None = None,
) -> list[DocumentRow]:
    """The state of each wanted (kind, part) in a language, filtered by what the user may see,
    in a fixed number of queries (documents, the inputs' fingerprints, permissions)."""
    labels = dict(Kind.choices)
    docs = Document.objects.filter(
        tournament=tournament,
        language=language,
        kind__in={kind for kind, _part in wanted},
        part__in={part for _kind, part in wanted},
    ).order_by("-created_at", "-pk")
    done: dict[tuple[str, int], Document] = {}
    failed: dict[tuple[str, int], Document] = {}
    building: dict[tuple[str, int], Document] = {}
    for doc in docs:  # newest first
        key = (doc.kind, doc.part)
        if doc.status in IN_PROGRESS:
            building.setdefault(key, doc)
        elif doc.status == Status.DONE:
            done.setdefault(key, doc)
        else:
            failed.setdefault(key, doc)
    inputs = Inputs(tournament)
    access = DocumentAccess.of(user, tournament)
    rows = []
    for kind, part in wanted:
        doc = done.get((kind, part))
        failure = failed.get((kind, part))
        if failure is not None and doc is not None and failure.created_at < doc.created_at:
            failure = None
        may_request = access.may_request(kind, part)
        may_download = access.may_download(kind, part)
        if not (may_request or may_download):
            continue
        rows.append(
            DocumentRow(
                kind=kind,
                part=part,
                label=str(labels[kind]),
                part_label=(part_labels or {}).get((kind, part), ""),
                document=doc,
                building=building.get((kind, part)),
                failed=failure,
                out_of_date=doc is not None
                and document_is_out_of_date(doc, current=inputs.fingerprint(kind, language)),
                can_request=may_request,
                can_download=may_download
                and doc is not None
                and doc.status == Status.DONE
                and not access.prints_others_links(doc),
            )
        )
    return rows
