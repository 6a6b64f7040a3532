"""Score cards: for each player (or one: part = the player's id) the content of his score-card
page — rank (1= when tied, as on the ranking), totals, every donne with the contract, bouts,
points, petit au bout, poignées and chelem at his table, the four scores, the average his
differential is measured from, his differential (or match points; "to compare" while only his
table has played it) and the running total — with the chart of that running total, then his
penalties with their reason and donne. Positions read N E S O in French.

The cards' data is read once for all players, each card is laid out (`CardLayout`: its texts
and cells) and drawn straight on the canvas as PDF operators cached per document (the lines
table by `RawTable`, the chart by `RunningTotalChart`, the notes the same on every card as
forms), without platypus: a thousand cards must cost a few times what drawing their text
with a bare canvas does (bench/bench_documents.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import get_language, pgettext
from django.utils.translation import gettext as _
from reportlab.lib.rl_accel import fp_str
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from scoring.rankings.selectors import ScoreCard, ScoreCardLine
from scoring.rankings.svg import nice_step
from scoring.rules.display import exact_formatter
from tarot_club.kit.runtime import collector_paused
from tournaments.models import Player
from tournaments.services.player_links import live_links

from . import rl_internals as rl
from .base import (
    GOOD,
    INK,
    LIGHT,
    LINE,
    MUTED,
    PDF,
    RED,
    Renderer,
    _formatted,
    esc,
    fmt_number,
)
from .data import (
    donne_averages,
    penalties_of,
    ranking_up_to_date,
    result_details,
    score_cards_bulk,
    site_url,
    tournament_players,
)
from .details import bonus_short, legend, points_text, position_letter, short_codes
from .ops import RawTable, RawText, colour_op
from .pages import CanvasPages
from .score_sheets import QrCode
from .textfit import fit_text, text_width

POSITIONS = ("N", "E", "S", "W")
COLUMN_OF = {position: index for index, position in enumerate(POSITIONS)}


def _numbers(language: str | None, *, sign: bool) -> Callable[[Any], str]:
    """Like fmt_number / fmt_signed in a known language (a thousand cards format 170,000
    numbers): ints (told once each) and Fractions in integer arithmetic (`exact_formatter`),
    anything else as the pages do."""
    ints: dict[int, str] = {}
    exact = exact_formatter(language, sign=sign)

    def formatted(value: Any) -> str:
        if value.__class__ is int:
            text = ints.get(value)
            if text is None:
                text = ints[value] = exact(value)
            return text
        if value is None:
            return ""
        if value.__class__ is Fraction:
            return exact(value)
        return _formatted(value, language, sign)

    return formatted


CONTRACT_W = 33 * mm


class ChartOps:
    """What the charts of one document share, worked out once: their grids and value labels
    by range, the x of each donne by count, the donne labels' text operators."""

    def __init__(self, raw: RawText) -> None:
        self.raw = raw
        self.grids: dict[tuple[Any, ...], tuple[str, str]] = {}
        self.xs: dict[tuple[int, float, float], list[str]] = {}
        self.labels: dict[tuple[Any, ...], str] = {}
        # The donne labels of a chart, all of them, by their texts and places: players who
        # play the same donnes in the same order share them.
        self.label_sets: dict[tuple[Any, ...], list[str]] = {}
        self.fixed = (
            colour_op(LIGHT, stroke=True),
            colour_op(INK, stroke=True),
            colour_op(LINE, stroke=True),
            # The dots' colours above, below and at the base line (a list, not a dict of
            # Colors: a Color hashes in Python, and a thousand charts have 24,000 dots).
            [colour_op(c, stroke=True) for c in (GOOD, RED, INK)],
            colour_op(MUTED),
        )


class RunningTotalChart:
    """Line chart of a running total, written as PDF operators: one point per donne, grid
    lines with their values, the zero line (50 % under match points), points above it green
    and below it red (round-capped zero-length strokes). ReportLab's graphics tree costs
    several times more per chart, and a thousand score cards each have one."""

    def __init__(
        self,
        points: Sequence[tuple[str, Fraction]],
        *,
        width: float,
        height: float,
        font: str,
        percent: bool = False,
    ) -> None:
        self.points = list(points)
        self.width, self.height = width, height
        self.font = font
        self.base = 50.0 if percent else 0.0

    def ops(self, shared: ChartOps) -> str:
        """The chart's operators, its bottom-left corner at (0, 0)."""
        raw, font = shared.raw, self.font
        light, ink, line_colour, dot_colours, muted = shared.fixed
        left, right, top, bottom = 14 * mm, 3 * mm, 3 * mm, 7 * mm
        plot_w, plot_h = self.width - left - right, self.height - top - bottom
        values = [float(v) for _, v in self.points]
        base = self.base
        low, high = min([base, *values]), max([base, *values])
        if high == low:
            high, low = high + 1, low - 1
        step = nice_step(high - low)
        low, high = step * math.floor(low / step), step * math.ceil(high / step)
        count = max(len(values), 1)
        scale = plot_h / (high - low)

        def y(v: float) -> float:
            return bottom + (v - low) * scale

        # Cards whose totals span the same range share their grid and its labels.
        key = (font, self.width, self.height, low, high, step, base, get_language())
        grid = shared.grids.get(key)
        if grid is None:
            lines, labels = [], []
            value = low
            while value <= high + step / 1000:
                at = y(value)
                if abs(value - base) >= step / 1000:
                    lines.append(
                        f"{fp_str(left)} {fp_str(at)} m {fp_str(self.width - right)} {fp_str(at)} l"
                    )
                label = fmt_number(Fraction(value).limit_denominator(100))
                x = left - 2 - stringWidth(label, font, 7)
                labels.append(raw.placed(label, font, 7, x, at - 2.5))
                value += step
            zero = fp_str(y(base))
            axis = f"{fp_str(left)} {zero} m {fp_str(self.width - right)} {zero} l S"
            grid = shared.grids[key] = (
                "\n".join([f"{light} .5 w", *lines, "S", f"{ink} .8 w", axis]),
                "\n".join(labels),
            )
        parts = ["q", grid[0]]
        texts = [grid[1]]
        if values:
            xs = shared.xs.get((count, left, plot_w))
            if xs is None:
                xs = shared.xs[(count, left, plot_w)] = [
                    fp_str(left + plot_w * (i + 0.5) / count) for i in range(count)
                ]
            at = [
                f"{x} {fp_str(bottom + (v - low) * scale)}"
                for x, v in zip(xs, values, strict=False)
            ]
            path = [f"{line_colour} 1.2 w", f"{at[0]} m"]
            path += [f"{point} l" for point in at[1:]]
            path.append("S")
            parts.append("\n".join(path))
            # Dots: zero-length strokes with round caps, one path per colour.
            dots: list[list[str]] = [[], [], []]  # above, below, at the base line
            for point, v in zip(at, values, strict=False):
                dots[0 if v > base else 1 if v < base else 2].append(f"{point} m {point} l")
            parts.append("1 J 3.2 w")
            for colour, strokes in zip(dot_colours, dots, strict=True):
                if strokes:
                    parts.append(f"{colour}\n" + "\n".join(strokes) + "\nS")
            texts += self._labels(shared, count, left, plot_w)
        parts += [muted, "BT", *texts, "ET", "Q"]
        return "\n".join(parts)

    def _labels(self, shared: ChartOps, count: int, left: float, plot_w: float) -> list[str]:
        """The donne labels' text operators (one label in `every`, centred on its donne),
        worked out once per set of labels in their places."""
        labels = tuple(label for label, _value in self.points)
        key = (self.font, count, left, plot_w, labels)
        known = shared.label_sets.get(key)
        if known is None:
            font, raw = self.font, shared.raw
            every = max(1, math.ceil(len(labels) / 24))
            known = []
            for i, label in enumerate(labels):
                if i % every:
                    continue
                label_key = (font, count, left, plot_w, i, label)
                text = shared.labels.get(label_key)
                if text is None:
                    x = left + plot_w * (i + 0.5) / count - stringWidth(label, font, 6.5) / 2
                    text = shared.labels[label_key] = raw.placed(label, font, 6.5, x, 1.5)
                known.append(text)
            shared.label_sets[key] = known
        return known


@dataclass
class CardLayout:
    """What one score card prints, worked out before it is drawn: its texts, its summary, its
    chart, the rows of its lines table (a cell: a str, or (text, bold and shaded, colour)),
    its notes and its penalties."""

    title: str
    club: str
    summary_head: list[str]
    summary: list[str]
    caption: str
    chart: RunningTotalChart | None
    head: tuple[str, ...]
    rows: list[list[Any]]
    notes: list[str]
    penalties: list[Flowable] = field(default_factory=list)

    def strings(self) -> list[str]:
        """Every string the card prints, in reading order (what the bench's baseline draws)."""
        out = [self.title, self.club, *self.summary_head, *self.summary]
        if self.chart is not None:
            out += [self.caption, *(label for label, _value in self.chart.points)]
        out += self.head
        out += [c if c.__class__ is str else c[0] for row in self.rows for c in row]
        out += self.notes
        for flowable in self.penalties:
            if isinstance(flowable, Paragraph):
                out.append(flowable.getPlainText())
            elif isinstance(flowable, Table):
                out += [
                    v.getPlainText() if isinstance(v, Paragraph) else str(v)
                    for row in flowable._cellvalues
                    for v in row
                ]
        return out


class ScoreCardsRenderer(Renderer):
    """The score cards, drawn straight on the canvas (`CanvasPages`, `RawTable`) rather than
    through platypus, every card having the same shape. A long card continues on the next
    page, its table's header repeated."""

    kind = "score_cards"
    data_share = 0.5

    def title(self) -> str:
        return _("Score cards")

    def subtitle(self) -> str:
        player = getattr(self, "player", None)
        return player.full_name if player is not None else ""

    def players(self) -> list[Player]:
        players = tournament_players(self.tournament)
        if self.part:
            players = [p for p in players if p.pk == self.part]
            self.player = players[0] if players else None
        return players

    def summary(self, card: ScoreCard) -> tuple[list[str], list[str]]:
        """The summary's heads and values: rank (1= when tied), differentials or match
        points, penalties, total, donnes played."""
        row = card.row
        mp = card.is_matchpoints
        words = self.words
        head = words["summary_mp"] if mp else words["summary"]
        if row is None:
            return head, ["—"] * 5
        tied = "=" if self.tied.get(card.player.pk) else ""
        return head, [
            words["rank_of"] % {"rank": f"{row.rank}{tied}", "size": card.field_size},
            f"{self.number(row.differential_total)} %"
            if mp
            else self.signed(row.differential_total),
            f"\N{MINUS SIGN}{row.penalty_points}" if row.penalty_points else "0",
            f"{self.number(row.total)} %" if mp else self.signed(row.total),
            str(row.donnes_played),
        ]

    def contract_text(self, line: ScoreCardLine) -> str:
        """The contract and taker in words, or in short when the words do not fit."""
        words = self.words
        if line.status == "pending" and not line.entered:
            return words["pending"]
        if line.status == "annulled":
            return words["annulled"]
        if line.all_passed:
            return words["all_passed"]
        if not line.contract:
            return ""
        key = (line.contract, line.taker)
        known = self._contract_texts.get(key)
        if known is not None:  # a thousand cards show the same few dozen contracts
            return known
        text = words["contract_by"] % {"contract": line.contract_label, "taker": line.taker_label}
        if stringWidth(text, self.fonts.condensed, 8.5) > CONTRACT_W - 6:
            text = words["contract_by"] % {
                "contract": self.contract_codes.get(line.contract, line.contract),
                "taker": line.taker_label,
            }
        self._contract_texts[key] = text
        return text

    def differential_cell(self, line: ScoreCardLine, mp: bool) -> Any:
        if line.status == "played" and line.group_size < 2:
            return self.words["not_compared"]  # played at one table only so far
        if line.status == "played":
            if mp:
                return self.number(line.percentage) if line.percentage is not None else "—"
            differential = line.differential
            sign = differential.numerator if differential is not None else 0
            if sign:
                colour = self._good if sign > 0 else self._red
                return (self.signed(differential), False, colour)
            return self.signed(differential)
        if line.status in ("annulled", "sat_out"):
            return "0"
        return ""

    def head(self, mp: bool) -> tuple[str, ...]:
        words = self.words
        return (
            words["donne"],
            words["round_table"],
            words["position"],
            words["contract"],
            words["bouts"],
            words["points"],
            words["bonuses"],
            *self.letters,
            words["average_score"],
            "%" if mp else words["differential"],
            words["average"] if mp else words["running"],
        )

    def lines_rows(self, card: ScoreCard) -> list[list[Any]]:
        """The rows of the card's lines table, one per donne."""
        mp = card.is_matchpoints
        words = self.words
        rows: list[list[Any]] = []
        positions = self._position_labels
        signed, number = self.signed, self.number
        score_cells, averages = self._score_cells, self._average_texts
        round_tables = self._round_tables
        for line in card.lines:
            result = None if line.hidden else self.results.get((line.donne_id, line.table_number))
            played = result is not None and result.status == "played"
            if played:
                # Each result is on the cards of the four players of its table: told once.
                told = self._result_texts.get(id(result))
                if told is None:
                    told = self._result_texts[id(result)] = (
                        str(result.bouts) if result.bouts is not None else "",
                        points_text(result),
                        bonus_short(result, self.codes),
                    )
            else:
                told = ("", "", "")
            seat = positions.get(line.position)
            if seat is None:
                seat = positions[line.position] = line.position_label
            cells: list[Any] = ["", "", "", ""]
            for s in line.scores:
                column = COLUMN_OF.get(s.position)
                if column is not None:
                    # The player's own score is bold on a shaded ground.
                    cell = score_cells.get((s.score, s.mine))
                    if cell is None:
                        value = signed(s.score) if s.score is not None else ""
                        cell = score_cells[(s.score, s.mine)] = (
                            (value, True, None) if s.mine else value
                        )
                    cells[column] = cell
            average = ""
            if line.position and line.status == "played" and not line.hidden:
                key = (line.donne_id, line.position)
                average = averages.get(key)
                if average is None:  # told once per donne and position
                    mean = self.averages.get(key)
                    average = averages[key] = signed(mean) if mean is not None else ""
            running = ""
            if line.running_total is not None:
                running = number(line.running_total) if mp else signed(line.running_total)
            where = (line.round_number, line.table_number)
            round_table = round_tables.get(where)
            if round_table is None:
                round_table = round_tables[where] = f"{where[0]} / {where[1] or '—'}"
            rows.append(
                [
                    str(line.donne_number),
                    round_table,
                    words["sat_out"]
                    if line.status == "sat_out"
                    else words["sits_out"]
                    if line.sits_out
                    else seat,
                    self.contract_text(line),
                    *told,
                    *cells,
                    average,
                    self.differential_cell(line, mp),
                    running,
                ]
            )
        return rows

    def penalties(self, player: Player) -> list[Flowable]:
        """The player's penalties in force: kind, points, donne and reason."""
        penalties = self.penalties_by_player.get(player.pk, [])
        if not penalties:
            return []
        styles = self.styles
        rows: list[list[object]] = [[_("Penalty"), _("Points"), _("Donne"), _("Reason")]]
        for penalty in penalties:
            rows.append(
                [
                    Paragraph(esc(penalty.get_kind_display()), styles.cell),
                    f"\N{MINUS SIGN}{penalty.points}",
                    str(penalty.donne.number) if penalty.donne else "—",
                    Paragraph(esc(penalty.reason or "—"), styles.cell),
                ]
            )
        widths = [45 * mm, 16 * mm, 14 * mm]
        widths.append(self.frame_w - sum(widths))
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(styles.grid(("ALIGN", (1, 1), (2, -1), "RIGHT")))
        return [Spacer(1, 3 * mm), Paragraph(esc(_("Penalties")), styles.h3), table]

    def personal_link(self, player: Player) -> list[Flowable]:
        """The QR code of the player's live personal link to "Mon tarot" (none without one):
        his events and reports without an account (issue 35)."""
        token = self.links.get(player.pk)
        if token is None:
            return []
        url = site_url() + reverse("mine_link", args=[token])
        caption = Paragraph(
            esc(
                _(
                    "Mon tarot: all your events and your reports. Scan the code, or type "
                    "%(address)s. It is your personal link: keep it to yourself."
                )
                % {"address": url}
            ),
            self.styles.small,
        )
        size = 24 * mm
        table = Table([[QrCode(url, size=size), caption]], colWidths=[size + 4 * mm, None])
        table.setStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE")])
        return [Spacer(1, 3 * mm), table]

    def layout(self, card: ScoreCard) -> CardLayout:
        player = card.player
        words = self.words
        summary_head, summary = self.summary(card)
        chart = None
        if card.chart:
            chart = RunningTotalChart(
                card.chart,
                width=self.frame_w,
                height=48 * mm,
                font=self.fonts.condensed,
                percent=card.is_matchpoints,
            )
        return CardLayout(
            title=words["card_of"] % {"player": player.full_name},
            club=f"{player.club.name} · {words['licence']} {player.licence}",
            summary_head=summary_head,
            summary=summary,
            caption=words["caption_mp"] if card.is_matchpoints else words["caption"],
            chart=chart,
            head=self.head(card.is_matchpoints),
            rows=self.lines_rows(card),
            notes=[self._method_note(card), self.legend],
            penalties=self.penalties(player) + self.personal_link(player),
        )

    def _method_note(self, card: ScoreCard) -> str:
        """The note "Comparison method: …." (told once per method, not once per card)."""
        note = self._method_notes.get(card.method)
        if note is None:
            note = self._method_notes[card.method] = f"{self.words['method']} {card.method_label}."
        return note

    def prepare(self) -> list[ScoreCard]:
        """The texts told once per document and the cards' data, read once for all players;
        the cards to print, in the players' order."""
        # Translated once: a thousand cards would look each of them up thousands of times.
        self.words = {
            "donne": _("Donne"),
            "round_table": _("Round / table"),
            "position": _("Position"),
            "contract": _("Contract"),
            "differential": _("Differential"),
            "average": _("Average"),
            "running": _("Running total"),
            "pending": _("Not played yet"),
            "annulled": _("Annulled"),
            "all_passed": _("All passed"),
            "contract_by": _("%(contract)s, taker %(taker)s"),
            "sat_out": _("Sat out"),
            "sits_out": _("Sits out"),
            "bouts": _("Bouts"),
            "points": _("Points"),
            "bonuses": _("Bonuses"),
            "average_score": pgettext("mean score of the position on the donne", "Avg."),
            "not_compared": pgettext("differential of a donne not yet compared", "to compare"),
            "card_of": _("Score card of %(player)s"),
            "licence": _("Licence"),
            "rank_of": _("%(rank)s of %(size)s"),
            "method": _("Comparison method:"),
            "caption": _("Running total of the differentials, donne by donne"),
            "caption_mp": _("Running average of the match points (%), donne by donne"),
        }
        common = [_("Rank"), _("Penalties"), _("Total"), _("Donnes played")]
        self.words["summary"] = [common[0], _("Differentials"), *common[1:]]
        self.words["summary_mp"] = [common[0], _("Match points %"), *common[1:]]
        self.letters = [position_letter(p) for p in POSITIONS]
        # Numbers formatted in the document's language, looked up once (not per number).
        language = get_language()
        self.signed = _numbers(language, sign=True)
        self.number = _numbers(language, sign=False)
        self.codes = short_codes()
        # Cells' colours as fill operators (a str hashes cheaply; a cell is a cache key).
        self._good, self._red = colour_op(GOOD), colour_op(RED)
        # Texts told once per document (per contract and taker, per result, per position).
        self._contract_texts: dict[tuple[str, str], str] = {}
        self._result_texts: dict[int, tuple[str, str, str]] = {}
        self._position_labels: dict[str | None, str] = {}
        self._score_cells: dict[tuple[int | None, bool], Any] = {}
        self._average_texts: dict[tuple[int, str], str] = {}
        self._round_tables: dict[tuple[int, int | None], str] = {}
        self._method_notes: dict[str, str] = {}
        self.contract_codes = {
            "prise": pgettext("contract, short", "P"),
            "garde": pgettext("contract, short", "G"),
            "garde_sans": pgettext("contract, short", "GS"),
            "garde_contre": pgettext("contract, short", "GC"),
        }
        self.legend = (
            legend(self.codes)
            + " "
            + _("P, G, GS, GC: prise, garde, garde sans, garde contre.")
            + " "
            + _(
                "Avg.: the mean score of the position over the tables that played the donne, "
                "what the differential is measured from. %(word)s: played at one table only so "
                "far, not yet compared."
            )
            % {"word": capfirst(self.words["not_compared"])}  # it starts a sentence
        )
        view = ranking_up_to_date(self.tournament)
        self.results_version = view.version or 0
        self.tied = {line.player.pk: line.tied for line in view.rows}
        players = self.players()
        cards = score_cards_bulk(self.tournament, players, snapshot_id=view.snapshot_id)
        self.results = result_details(self.tournament)
        self.averages = donne_averages(self.tournament)
        self.penalties_by_player = penalties_of(self.tournament)
        self.links = live_links([p.pk for p in players])
        return [cards[p.pk] for p in players if p.pk in cards]

    def layouts(self, cards: list[ScoreCard] | None = None) -> Iterator[CardLayout]:
        """Every card's layout, in order (the cards prepared here unless given), reporting
        progress."""
        for card in self.steps(self.prepare() if cards is None else cards):
            yield self.layout(card)

    def render(self) -> tuple[str, str, bytes]:
        with collector_paused():
            content = self._pdf()
            # What the cards were made of is freed by reference counting while the collector
            # is still paused: its first pass afterwards would walk every object of a
            # thousand cards still alive (0.13 s of CPU, 4 % of the build) for nothing.
            self._forget()
        return f"{self.filename_stem()}.pdf", PDF, content

    def _pdf(self) -> bytes:
        """The cards drawn and the PDF written (its cards, pages and their caches die with
        this call)."""
        cards = self.prepare()  # first: the header names the player of a single card
        pages = CanvasPages(self)
        drawer = _CardDrawer(self, pages)
        first = True
        for layout in self.layouts(cards):
            if not first:
                pages.new_page()
            first = False
            drawer.card(layout)
        if first:
            drawer.flow([Paragraph(esc(_("Nobody is ranked yet.")), self.styles.body)])
        self.report(0.98)
        return pages.finish()

    def _forget(self) -> None:
        """Drop what `prepare` read and told for the document (a rendered renderer keeps its
        `pages` and `results_version` only)."""
        for name in _PER_DOCUMENT:
            vars(self).pop(name, None)


# What `ScoreCardsRenderer.prepare` reads and tells for one document, dropped after rendering.
_PER_DOCUMENT = (
    "results",
    "averages",
    "penalties_by_player",
    "links",
    "tied",
    "_result_texts",
    "_contract_texts",
    "_score_cells",
    "_average_texts",
    "_round_tables",
    "_position_labels",
    "_method_notes",
)


class _CardDrawer:
    """Draws card layouts on the pages: the title and club wrapped to the width, the summary
    and the lines table with cached operators, the notes (the same on every card) as forms
    drawn once, the chart straight on the canvas, the rare penalties as platypus flowables."""

    def __init__(self, renderer: ScoreCardsRenderer, pages: CanvasPages) -> None:
        self.r = renderer
        self.pages = pages
        self.canvas = pages.canvas
        self.raw = pages.raw
        self.fonts = renderer.fonts
        self.width = pages.width
        self.tables: dict[tuple[str, ...], RawTable] = {}
        self.charts = ChartOps(pages.raw)
        self.forms: dict[str, tuple[str, float]] = {}
        self.summaries: dict[tuple[str, ...], tuple[str, str]] = {}
        self.ink, self.muted = colour_op(INK), colour_op(MUTED)

    def room_for(self, height: float) -> float:
        """The top of a block `height` high: on a new page when it does not fit here (and
        this page has something on it already)."""
        pages = self.pages
        if height > pages.room() and not pages.at_top():
            pages.new_page()
        return pages.y

    def text(self, text: str, font: str, size: float, leading: float, colour: str) -> None:
        """Text wrapped to the width at its size (as a Paragraph would)."""
        fitted = fit_text(text, font, size, self.width, floor=size, leading=leading / size)
        top = self.room_for(fitted.height)
        parts = [f"q {colour} BT"]
        y, lead, size = top, fitted.leading, fitted.size
        for line in fitted.lines:  # placed as draw_fitted places them
            y -= lead
            baseline = y + (lead - size) / 2 + size * 0.22
            parts.append(self.raw.placed(line, font, size, self.pages.left, baseline))
        parts.append("ET Q")
        rl.page_ops(self.canvas).append("\n".join(parts))
        self.pages.y = top - fitted.height

    def form(self, text: str) -> None:
        """A muted note, the same on many cards: laid out and drawn once, as a form."""
        known = self.forms.get(text)
        canvas = self.canvas
        if known is None:
            paragraph = Paragraph(esc(text), self.r.styles.muted)
            _w, height = paragraph.wrap(self.width, 10_000)
            name = f"note-{len(self.forms)}"
            canvas.beginForm(name)
            paragraph.drawOn(canvas, 0, 0)
            canvas.endForm()
            known = self.forms[text] = (name, height)
        name, height = known
        top = self.room_for(height)
        x = fp_str(self.pages.left, top - height)
        rl.page_ops(canvas).append(f"q 1 0 0 1 {x} cm {rl.form_ops(canvas, name)} Q")
        self.pages.y = top - height

    def space(self, height: float) -> None:
        self.pages.y = max(self.pages.bottom, self.pages.y - height)

    def summary(self, head: list[str], values: list[str]) -> None:
        """The five-column summary: heads in a shaded row, the values in bold below."""
        fonts = self.fonts
        column = self.width / 5
        head_h, value_h = 13.6, 18.6
        key = tuple(head)
        known = self.summaries.get(key)
        if known is None:
            parts = [colour_op(LIGHT), f"0 {fp_str(-head_h)} {fp_str(self.width)} {head_h} re f"]
            parts += [self.ink, "BT"]
            for c, text in enumerate(head):
                fitted = fit_text(text, fonts.condensed_bold, 8.5, column - 6, floor=5.5)
                line = fitted.lines[0] if fitted.lines else ""
                w = text_width(line, fonts.condensed_bold, fitted.size)
                x = c * column + (column - w) / 2
                parts.append(self.raw.placed(line, fonts.condensed_bold, fitted.size, x, -10.2))
            parts += ["ET", f"{colour_op(LINE, stroke=True)} .4 w"]
            bottom = -(head_h + value_h)
            for c in range(6):
                parts.append(f"{fp_str(c * column)} 0 m {fp_str(c * column)} {fp_str(bottom)} l")
            for y in (0, -head_h, bottom):
                parts.append(f"0 {fp_str(y)} m {fp_str(self.width)} {fp_str(y)} l")
            parts.append("S")
            known = self.summaries[key] = ("\n".join(parts), "")
        top = self.room_for(head_h + value_h)
        code = rl.page_ops(self.canvas)
        code.append(f"q 1 0 0 1 {fp_str(self.pages.left, top)} cm")
        code.append(known[0])
        code.append("BT")
        for c, value in enumerate(values):
            fitted = fit_text(value, fonts.bold, 12, column - 6, floor=7, prefer_lines=1)
            line = fitted.lines[0] if fitted.lines else ""
            w = text_width(line, fonts.bold, fitted.size)
            x = c * column + (column - w) / 2
            code.append(self.raw.placed(line, fonts.bold, fitted.size, x, -head_h - 13.8))
        code.append("ET Q")
        self.pages.y = top - head_h - value_h

    def chart(self, chart: RunningTotalChart) -> None:
        top = self.room_for(chart.height)
        code = rl.page_ops(self.canvas)
        code.append(f"q 1 0 0 1 {fp_str(self.pages.left, top - chart.height)} cm")
        code.append(chart.ops(self.charts))
        code.append("Q")
        self.pages.y = top - chart.height

    def table(self, head: tuple[str, ...], rows: list[list[Any]]) -> None:
        """The lines table, continued on the next page (its header repeated) when long."""
        table = self.tables.get(head)
        if table is None:
            widths = [10 * mm, 11 * mm, 13 * mm, CONTRACT_W, 8 * mm, 10 * mm, 17 * mm]
            scores_w = 10 * mm
            rest = (self.width - sum(widths) - 4 * scores_w) / 3
            table = self.tables[head] = RawTable(
                self.raw,
                head,
                widths=[*widths, *[scores_w] * 4, rest, rest, rest],
                align="ccllrrlrrrrrrr",
                fonts=self.fonts,
                ink=INK,
                rule=LINE,
                shade=LIGHT,
            )
        measured = table.measure(rows)
        pages = self.pages
        start = 0
        while True:
            room = pages.room() - table.header_height
            fits, used = 0, 0.0
            for height, _ops, _shades in measured[start:]:
                if used + height > room:
                    break
                used += height
                fits += 1
            if fits == 0 and not pages.at_top():
                pages.new_page()
                continue
            end = start + max(fits, 1)
            pages.y = table.draw(self.canvas, pages.left, pages.y, measured[start:end])
            start = end
            if start >= len(rows):
                return
            pages.new_page()

    def flow(self, flowables: list[Flowable]) -> None:
        """Platypus flowables placed top-down, split or moved to a new page as a frame
        would (the penalties: a few cards have them)."""
        pages, canvas = self.pages, self.canvas
        queue = list(flowables)
        while queue:
            flowable = queue.pop(0)
            _w, height = flowable.wrapOn(canvas, self.width, pages.room())
            if height > pages.room() and not pages.at_top():
                parts = flowable.split(self.width, pages.room())
                if parts:
                    queue[:0] = parts[1:]
                    flowable = parts[0]
                    _w, height = flowable.wrapOn(canvas, self.width, pages.room())
                else:
                    pages.new_page()
                    if isinstance(flowable, Spacer):
                        continue
                    _w, height = flowable.wrapOn(canvas, self.width, pages.room())
            flowable.drawOn(canvas, pages.left, pages.y - height)
            pages.y -= height

    def card(self, layout: CardLayout) -> None:
        fonts = self.fonts
        self.text(layout.title, fonts.bold, 15, 19, self.ink)
        self.space(3 * mm)
        self.text(layout.club, fonts.regular, 7.5, 9.5, self.muted)
        self.space(3 * mm)
        self.summary(layout.summary_head, layout.summary)
        self.space(4 * mm)
        if layout.chart is not None:
            self.form(layout.caption)
            self.chart(layout.chart)
            self.space(3 * mm)
        self.table(layout.head, layout.rows)
        self.space(2 * mm)
        for note in layout.notes:
            self.form(note)
        if layout.penalties:
            self.flow(layout.penalties)
