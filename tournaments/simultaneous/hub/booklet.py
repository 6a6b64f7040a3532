"""The booklet of a simultaneous event (RULES §6.3), published with the results once the
embargo ends: the hand records of every donne, each donne's frequency sheet across the field,
and the overall ranking with licences and clubs.

Drawn like the tournaments' documents (`scoring.documents`): the same page, header, footer,
fonts and styles (`Renderer`), the hand diagram of the hand records (`donne_diagram`) and the
fast table of the ranking (`FastTable`). Read from the stored overall ranking and the field's
results; built by the worker after the final recompute once the embargo ends
(`booklet_build`) and kept on the storage per language, or on the first request when none is
stored for the current ranking. The organisers may fetch it at any time (marked
"confidential" while the embargo lasts).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET
from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.platypus import CondPageBreak, Flowable, PageBreak, Paragraph, Spacer, Table

from scoring.documents.base import (
    GOOD,
    RED,
    Cell,
    FastTable,
    Renderer,
    esc,
    fmt_number,
    fmt_signed,
    position_label,
)
from scoring.documents.hand_records import donne_diagram
from tournaments.models import Contract

from . import reads
from .access import readable_event
from .frequencies import FrequencySheet, frequency_sheet
from .models import EventBooklet, OverallRankingRow, SimultaneousEvent

CONTRACT_LABELS = dict(Contract.choices)
STRIPE = colors.HexColor("#f7f8fb")  # a colour object: a string is parsed at every use


@dataclass(frozen=True)
class _Organiser:
    name: str


@dataclass(frozen=True)
class Heading:
    """What a document's page header and metadata read of a tournament, for an event."""

    name: str
    date: date
    venue: str
    club: _Organiser
    results_version: int
    pk: int


@dataclass(frozen=True)
class _EtuiSet:
    number: int


@dataclass(frozen=True)
class BookletDonne:
    """A donne of the event as the hand diagram reads a tournament's `Donne`."""

    number: int
    dealer: str
    hands: dict[str, str]
    chien: str

    @property
    def etui_set(self) -> _EtuiSet:
        return _EtuiSet((self.number - 1) // 4 + 1)

    def hand(self, position: str) -> str:
        return self.hands[position]


def booklet_donne(donne: Any) -> BookletDonne:
    """The dealt donne (`scoring.rules.cards.Donne`) in the diagram's shape."""
    hands = reads.donne_hands(donne)
    return BookletDonne(donne.number, donne.dealer, hands, hands["chien"])


class BookletRenderer(Renderer):
    """Hand records, frequencies and the overall ranking of one event, A4 portrait."""

    kind = "simultaneous_booklet"

    def __init__(self, event: SimultaneousEvent) -> None:
        self.event = event
        heading = Heading(
            name=event.name,
            date=event.date,
            venue="",
            club=_Organiser(_("Simultaneous event")),
            results_version=event.results_version,
            pk=event.pk,
        )
        super().__init__(heading)  # type: ignore[arg-type]

    def title(self) -> str:
        return _("Booklet")

    def page_notice(self) -> str:
        if self.event.embargo_over:
            return ""
        return _("confidential — under embargo until every club's session has ended")

    def story(self) -> list[Flowable]:
        event = self.event
        styles = self.styles
        method = reads.method_label(event)
        story: list[Flowable] = [
            Paragraph(esc(event.name), styles.title),
            Paragraph(f"<b>{esc(_('Comparison method:'))} {esc(method)}</b>", styles.body),
            Paragraph(
                esc(
                    _(
                        "Every result is compared with every club's results at the same "
                        "position of the same donne."
                    )
                ),
                styles.muted,
            ),
            Paragraph(esc(_("Commitment: %(hex)s") % {"hex": event.commitment}), styles.muted),
        ]
        if event.embargo_over:
            story.append(Paragraph(esc(_("Seed: %(hex)s") % {"hex": event.seed}), styles.muted))
        donnes = [booklet_donne(d) for d in reads.event_donnes(event)]
        story += self.hand_records(donnes)
        story += self.frequencies(donnes)
        story += self.ranking()
        return story

    def hand_records(self, donnes: list[BookletDonne]) -> list[Flowable]:
        """Two diagrams a row, as the hand records print them."""
        story: list[Flowable] = [
            Spacer(1, 4 * mm),
            Paragraph(esc(_("Hand records")), self.styles.h2),
        ]
        gap = 5 * mm
        width = (self.frame_w - gap) / 2
        diagrams = [donne_diagram(self, d, width=width) for d in donnes]  # type: ignore[arg-type]
        for k in range(0, len(diagrams), 2):
            cells: list[object] = [*diagrams[k : k + 2], ""][:2]
            line = Table([cells], colWidths=[width + gap / 2] * 2)
            line.setStyle(
                [
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LEFTPADDING", (0, 0), (-1, -1), 0),
                    ("RIGHTPADDING", (0, 0), (-1, -1), gap / 2),
                    ("TOPPADDING", (0, 0), (-1, -1), 0),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 0),
                ]
            )
            story += [line, Spacer(1, 4 * mm)]
        return story

    def frequencies(self, donnes: list[BookletDonne]) -> list[Flowable]:
        """Each donne's frequency sheet: contracts by taker, then each position's scores."""
        story: list[Flowable] = [PageBreak(), Paragraph(esc(_("Frequencies")), self.styles.h2)]
        outcomes = reads.every_field_outcome(self.event)
        for donne in self.steps(donnes):
            sheet = frequency_sheet(outcomes.get(donne.number, []), self.event.method)
            story += self.donne_frequencies(donne, sheet)
        return story

    def donne_frequencies(self, donne: BookletDonne, sheet: FrequencySheet) -> list[Flowable]:
        styles = self.styles
        heading = _("Donne %(number)s") % {"number": donne.number}
        parts = [ngettext("%(n)s table", "%(n)s tables", sheet.tables) % {"n": sheet.tables}]
        if sheet.annulled:
            parts.append(
                ngettext("%(n)s annulled", "%(n)s annulled", sheet.annulled) % {"n": sheet.annulled}
            )
        if sheet.passed:
            parts.append(
                ngettext("all passed at %(n)s table", "all passed at %(n)s tables", sheet.passed)
                % {"n": sheet.passed}
            )
        counts = " · ".join(parts)
        story: list[Flowable] = [
            CondPageBreak(50 * mm),
            Paragraph(f"{esc(heading)} <font size='9'>· {esc(counts)}</font>", styles.h3),
        ]
        if sheet.contracts:
            rows = [
                [
                    str(CONTRACT_LABELS.get(c.contract, c.contract)),
                    position_label(c.taker),
                    str(c.tables),
                    str(c.made),
                    str(c.failed),
                ]
                for c in sheet.contracts
            ]
            widths = [50 * mm, 25 * mm, 20 * mm, 20 * mm, 20 * mm]
            story.append(
                FastTable(
                    [_("Contract"), _("Taker"), _("Tables"), _("Made"), _("Failed")],
                    rows,
                    widths=widths,
                    align="llrrr",
                    fonts=self.fonts,
                )
            )
            story.append(Spacer(1, 2 * mm))
        story += [self.score_table(sheet), Spacer(1, 5 * mm)]
        return story

    def score_table(self, sheet: FrequencySheet) -> Flowable:
        """The four positions side by side: score, tables, differential (or %)."""
        mp = sheet.is_matchpoints
        head: list[str] = []
        for position in ("N", "E", "S", "W"):
            head += [position_label(position), _("Tables"), "%" if mp else _("Diff.")]
        columns = [lines for _p, lines in sheet.positions]
        depth = max((len(c) for c in columns), default=0)
        rows: list[list[str | Cell]] = []
        for k in range(depth):
            row: list[str | Cell] = []
            for lines in columns:
                if k < len(lines):
                    s = lines[k]
                    value = fmt_number(s.percentage) if mp else fmt_signed(s.differential)
                    colour = (
                        None if mp or not s.differential else (GOOD if s.differential > 0 else RED)
                    )
                    row += [
                        Cell(fmt_signed(s.score), bold=True),
                        str(s.tables),
                        Cell(value, colour=colour),
                    ]
                else:
                    row += ["", "", ""]
            rows.append(row)
        width = self.frame_w / 12
        return FastTable(head, rows, widths=[width] * 12, align="rrr" * 4, fonts=self.fonts)

    def ranking(self) -> list[Flowable]:
        """The overall ranking, every player with licence and club."""
        event = self.event
        mp = event.method == "matchpoints"
        values = list(
            OverallRankingRow.objects.filter(event=event)
            .order_by("place")
            .values_list(
                "rank",
                "first_name",
                "last_name",
                "licence",
                "club_name",
                "donnes_played",
                "penalty_points",
                "total",
            )
        )
        ranks: dict[int, int] = {}
        for row in values:
            ranks[row[0]] = ranks.get(row[0], 0) + 1
        story: list[Flowable] = [PageBreak(), Paragraph(esc(_("Overall ranking")), self.styles.h2)]
        if not values:
            return [*story, Paragraph(esc(_("Nobody is ranked yet.")), self.styles.body)]
        rows: list[list[str | Cell]] = []
        totals: dict[str, tuple[str, Any]] = {}  # a stored total -> (shown, colour)
        for index, (rank, first, last, licence, club, played, pen, total) in enumerate(values):
            shade = STRIPE if index % 2 else None
            known = totals.get(total)
            if known is None:
                exact = Fraction(total)
                shown = f"{fmt_number(exact)} %" if mp else fmt_signed(exact)
                colour = None if mp or not exact else (GOOD if exact > 0 else RED)
                known = totals[total] = (shown, colour)
            shown, colour = known
            rows.append(
                [
                    Cell(f"{rank}{'=' if ranks[rank] > 1 else ''}", background=shade),
                    Cell(f"{first} {last}".strip(), background=shade),
                    Cell(licence, background=shade),
                    Cell(club, background=shade),
                    Cell(str(played), background=shade),
                    Cell(f"\N{MINUS SIGN}{pen}" if pen else "", background=shade),
                    Cell(shown, bold=True, colour=colour, background=shade),
                ]
            )
        widths = [14 * mm, 55 * mm, 18 * mm, 0, 16 * mm, 14 * mm, 24 * mm]
        widths[3] = self.frame_w - sum(widths)
        head = [_("Rank"), _("Player"), _("Licence"), _("Club"), _("Donnes"), _("Pen."), _("Total")]
        story.append(
            FastTable(head, rows, widths=widths, align="clllrrr", fonts=self.fonts, size=9)
        )
        return story


def booklet_key(event: SimultaneousEvent) -> str:
    """What the booklet is built from: the stored ranking (version and time) and the embargo
    state; any change makes a new key."""
    return f"{reads.stored_key(reads.freshness(event))}:{int(event.embargo_over)}"


def _stored(event: SimultaneousEvent, language: str, key: str) -> tuple[str, bytes] | None:
    """The booklet kept on the storage for this key, or None (none, older, file lost)."""
    kept = EventBooklet.objects.filter(event=event, language=language, key=key).first()
    if kept is None:
        return None
    try:
        with kept.file.open("rb") as f:
            return kept.name, f.read()
    except (OSError, ValueError):
        return None


def _keep(event: SimultaneousEvent, language: str, key: str, name: str, content: bytes) -> None:
    """Store the booklet for this key, replacing (and deleting the file of) an older one."""
    old = EventBooklet.objects.filter(event=event, language=language).first()
    booklet = old or EventBooklet(event=event, language=language)
    old_file = old.file.name if old and old.file else ""
    booklet.key, booklet.name = key, name
    booklet.file.save(f"booklet-{event.public_id}-{language}.pdf", ContentFile(content), save=False)
    try:
        with transaction.atomic():
            booklet.save()
    except IntegrityError:  # another worker stored it at the same time: theirs stays
        booklet.file.delete(save=False)
        return
    if old_file and old_file != booklet.file.name:
        booklet.file.storage.delete(old_file)


def booklet_pdf(event: SimultaneousEvent, language: str) -> tuple[str, bytes]:
    """The booklet in `language` and its file name: the one the worker stored for the current
    ranking and embargo state, else built now (once for all the web processes, then kept)."""
    key = booklet_key(event)
    stored = _stored(event, language, key)
    if stored is not None:
        return stored

    def build() -> tuple[str, bytes]:
        name, _mime, content = BookletRenderer(event).render()
        _keep(event, language, key, name, content)
        return name, content

    with translation.override(language):
        return reads.built_once(f"simultaneous:booklet:{event.pk}:{key}:{language}", build)


def booklet_build(*, event_id: int) -> list[str]:
    """The worker's build, after a recompute: once the embargo ended and the stored ranking is
    the field's current one, build and store the booklet in every language whose stored one is
    out of date. Returns the languages built (none while the embargo lasts or the ranking is
    being updated: the next recompute calls again). Idempotent."""
    event = SimultaneousEvent.objects.filter(pk=event_id).first()
    if event is None or not event.embargo_over or reads.freshness(event).updating:
        return []
    key = booklet_key(event)
    built = []
    for language, _label in settings.LANGUAGES:
        if EventBooklet.objects.filter(event=event, language=language, key=key).exists():
            continue
        with translation.override(language):
            name, _mime, content = BookletRenderer(event).render()
        _keep(event, language, key, name, content)
        built.append(language)
    return built


@require_GET
def booklet_download(request: HttpRequest, public_id: str) -> HttpResponse:
    """The booklet as a PDF (who may read the field's pages may download it)."""
    event, denied = readable_event(request, public_id)
    if denied:
        return denied
    name, content = booklet_pdf(event, get_language() or "fr")
    response = HttpResponse(content, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{name}"'
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response
