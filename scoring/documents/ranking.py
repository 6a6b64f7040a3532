"""The ranking: every player with his rank, the donnes he played, differentials (or match
points), penalties and total, the comparison method named, and the list of the penalties
given — what goes on the wall and to the federation.

Set at 10 pt or more (read on a wall from a step away), landscape for the room long names
need; names wrap rather than shrink. The title says whether the ranking is final or
provisional and after which round, so that an early print is never taken for the result.
"""

from __future__ import annotations

from django.db.models import Count
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer

from tournaments.models import Penalty, Result, TableRound, Tournament
from tournaments.services.claims_window import claims_window

from .base import GOOD, RED, Cell, FastTable, FitText, Renderer, esc, fmt_number, fmt_signed
from .data import ranking_up_to_date

SIZE = 10  # pt: the smallest size on the ranking
STRIPE = "#f7f8fb"


def rounds_complete(tournament: Tournament) -> tuple[int, int]:
    """(how many rounds are complete — every table has a result on every donne of its étui
    set — counting from round 1 without a gap, how many rounds there are). Two queries."""
    expected: dict[int, int] = {}
    for row in (
        TableRound.objects.filter(round__tournament=tournament)
        .values("round__number")
        .annotate(donnes=Count("etui_set__donnes"))
    ):
        number = row["round__number"]
        expected[number] = expected.get(number, 0) + row["donnes"]
    entered = {
        row["table_round__round__number"]: row["n"]
        for row in Result.objects.counted()
        .filter(tournament=tournament)
        .values("table_round__round__number")
        .annotate(n=Count("id"))
    }
    complete = 0
    for number in sorted(expected):
        if number != complete + 1 or entered.get(number, 0) < expected[number]:
            break
        complete = number
    return complete, max(len(expected), tournament.rounds or 0)


def ranking_title(tournament: Tournament) -> str:
    """ "Final ranking" once the tournament is over and every round complete, otherwise
    "Provisional ranking — after round N"; once the last round has closed, the claims
    window decides: provisional until its end, final once made so (issue 34 §4)."""
    window = claims_window(tournament)
    if window.is_final:
        return _("Ranking, final")
    if window.is_provisional and window.closes_at is not None:
        return _("Ranking, provisional — claims until %(time)s") % {
            "time": date_format(localtime(window.closes_at), "DATETIME_FORMAT")
        }
    complete, total = rounds_complete(tournament)
    over = tournament.status in (Tournament.Status.FINISHED, Tournament.Status.PUBLISHED)
    if over and total and complete >= total:
        return _("Ranking, final")
    if complete == 0:
        return _("Ranking, provisional — no round complete yet")
    return _("Ranking, provisional — after round %(round)s") % {"round": complete}


class RankingRenderer(Renderer):
    kind = "ranking"
    landscape = True  # 10 pt and 90-character names on one or two lines

    def title(self) -> str:
        if not hasattr(self, "_title"):
            self._title = ranking_title(self.tournament)
        return self._title

    @property
    def text_style(self) -> ParagraphStyle:
        return ParagraphStyle("ranking", parent=self.styles.body, fontSize=SIZE, leading=13)

    def story(self) -> list[Flowable]:
        body = self.text_style
        view = ranking_up_to_date(self.tournament)
        self.results_version = view.version or 0
        self.report(0.1)
        mp = view.is_matchpoints
        method = f"{_('Comparison method:')} {view.method_label}"
        if mp:
            method += " · " + _("a penalty point costs %(rate)s percentage points") % {
                "rate": fmt_number(view.rate)
            }
        f = self.fonts
        story: list[Flowable] = [
            FitText(self.title(), font=f.bold, size=18, floor=12, space_after=2 * mm),
            Paragraph(f"<b>{esc(method)}</b>", body),
        ]
        if view.computed_at is not None:
            story.append(
                Paragraph(
                    esc(
                        _("Computed on %(when)s from every result entered.")
                        % {"when": date_format(localtime(view.computed_at), "DATETIME_FORMAT")}
                    ),
                    body,
                )
            )
        story.append(Spacer(1, 3 * mm))
        head = [
            _("Rank"),
            _("Player"),
            _("Club"),
            _("Licence"),
            _("Donnes played"),
            _("Match points %") if mp else _("Differentials"),
            _("Penalties"),
            _("Total"),
        ]
        rows: list[list[str | Cell]] = []
        for index, line in enumerate(self.steps(view.rows)):
            shade = STRIPE if index % 2 else None
            total = f"{fmt_number(line.total)} %" if mp else fmt_signed(line.total)
            colour = None
            if not mp and line.total:
                colour = GOOD if line.total > 0 else RED
            values = [
                f"{line.rank}{'=' if line.tied else ''}",
                line.player.full_name,
                line.player.club.name,
                line.player.licence,
                str(line.donnes_played),
                f"{fmt_number(line.differential_total)} %"
                if mp
                else fmt_signed(line.differential_total),
                f"\N{MINUS SIGN}{line.penalty_points}" if line.penalty_points else "",
            ]
            rows.append(
                [
                    *(Cell(v, background=shade) for v in values),
                    Cell(total, bold=True, colour=colour, background=shade),
                ]
            )
        if view.rows:
            widths = [15 * mm, 78 * mm, 62 * mm, 20 * mm, 19 * mm, 26 * mm, 21 * mm]
            widths.append(self.frame_w - sum(widths))
            story.append(
                FastTable(
                    head,
                    rows,
                    widths=widths,
                    align="cllcrrrr",
                    fonts=f,
                    size=SIZE,
                    row_height=16,
                    floor=SIZE,
                    header_size=SIZE,
                )
            )
        else:
            story.append(Paragraph(esc(_("Nobody is ranked yet.")), body))
        story += self.penalties()
        return story

    def penalties(self) -> list[Flowable]:
        styles = self.styles
        penalties = list(
            Penalty.objects.filter(tournament=self.tournament, withdrawn_at__isnull=True)
            .select_related("player", "donne")
            .order_by("given_at", "pk")
        )
        story: list[Flowable] = [Spacer(1, 5 * mm), Paragraph(esc(_("Penalties")), styles.h2)]
        if not penalties:
            story.append(Paragraph(esc(_("No penalty was given.")), self.text_style))
            return story
        rows: list[list[str | Cell]] = []
        for penalty in penalties:
            rows.append(
                [
                    penalty.player.full_name,
                    str(penalty.get_kind_display()),
                    str(penalty.points),
                    str(penalty.donne.number) if penalty.donne else "",
                    penalty.reason,
                ]
            )
        # Every column its own width: a long reason wraps in its column, never over the
        # points or the donne.
        widths = [70 * mm, 48 * mm, 18 * mm, 18 * mm]
        widths.append(self.frame_w - sum(widths))
        story.append(
            FastTable(
                [_("Player"), _("Penalty"), _("Points"), _("Donne"), _("Reason")],
                rows,
                widths=widths,
                align="llrrl",
                fonts=self.fonts,
                size=SIZE,
                row_height=16,
                floor=SIZE,
                header_size=SIZE,
            )
        )
        story.append(Spacer(1, 2 * mm))
        story.append(
            Paragraph(
                esc(
                    _(
                        "Penalties are deducted from the penalised player's total only; they "
                        "never change a donne's scores or another player's comparison."
                    )
                ),
                self.text_style,
            )
        )
        return story
