"""The ranking: every player with his rank, differentials (or match points), penalties and
total, the comparison method named, and the list of the penalties given — what goes on the
wall and to the federation."""

from __future__ import annotations

from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from tournaments.models import Penalty

from .base import GOOD, RED, Renderer, esc, fmt_number, fmt_signed
from .data import ranking_up_to_date


class RankingRenderer(Renderer):
    kind = "ranking"

    def title(self) -> str:
        return _("Ranking")

    def story(self) -> list[Flowable]:
        styles = self.styles
        view = ranking_up_to_date(self.tournament)
        self.results_version = view.version or 0
        self.report(0.1)
        mp = view.is_matchpoints
        method = f"{_('Comparison method:')} {view.method_label}"
        if mp:
            method += " · " + _("a penalty point costs %(rate)s percentage points") % {
                "rate": fmt_number(view.rate)
            }
        story: list[Flowable] = [
            Paragraph(esc(_("Ranking")), styles.title),
            Paragraph(f"<b>{esc(method)}</b>", styles.body),
        ]
        if view.computed_at is not None:
            story.append(
                Paragraph(
                    esc(
                        _("Computed on %(when)s from every result entered.")
                        % {"when": date_format(localtime(view.computed_at), "DATETIME_FORMAT")}
                    ),
                    styles.muted,
                )
            )
        story.append(Spacer(1, 3 * mm))
        head = [
            _("Rank"),
            _("Player"),
            _("Club"),
            _("Licence"),
            _("Donnes"),
            _("Match points %") if mp else _("Differentials"),
            _("Penalties"),
            _("Total"),
        ]
        rows: list[list[object]] = [[Paragraph(esc(h), styles.head_cell) for h in head]]
        commands: list[tuple[object, ...]] = [
            ("ALIGN", (0, 0), (0, -1), "CENTER"),
            ("ALIGN", (4, 1), (-1, -1), "RIGHT"),
        ]
        for line in self.steps(view.rows):
            r = len(rows)
            total = f"{fmt_number(line.total)} %" if mp else fmt_signed(line.total)
            rows.append(
                [
                    f"{line.rank}{'=' if line.tied else ''}",
                    line.player.full_name,
                    line.player.club.name,
                    line.player.licence,
                    str(line.donnes_played),
                    f"{fmt_number(line.differential_total)} %"
                    if mp
                    else fmt_signed(line.differential_total),
                    f"-{line.penalty_points}" if line.penalty_points else "",
                    total,
                ]
            )
            commands.append(("FONTNAME", (7, r), (7, r), self.fonts.condensed_bold))
            if not mp and line.total:
                commands.append(("TEXTCOLOR", (7, r), (7, r), GOOD if line.total > 0 else RED))
            if r % 2 == 0:
                commands.append(("BACKGROUND", (0, r), (-1, r), "#f7f8fb"))
        if view.rows:
            widths = [12 * mm, 46 * mm, 34 * mm, 17 * mm, 14 * mm, 23 * mm, 18 * mm]
            widths.append(self.frame_w - sum(widths))
            table = Table(rows, colWidths=widths, repeatRows=1)
            table.setStyle(styles.grid(*commands))
            story.append(table)
        else:
            story.append(Paragraph(esc(_("Nobody is ranked yet.")), styles.body))
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
            story.append(Paragraph(esc(_("No penalty was given.")), styles.body))
            return story
        rows: list[list[object]] = [
            [_("Player"), _("Penalty"), _("Points"), _("Donne"), _("Reason")]
        ]
        for penalty in penalties:
            rows.append(
                [
                    penalty.player.full_name,
                    str(penalty.get_kind_display()),
                    str(penalty.points),
                    str(penalty.donne.number) if penalty.donne else "",
                    Paragraph(esc(penalty.reason), styles.cell),
                ]
            )
        widths = [48 * mm, 40 * mm, 15 * mm, 14 * mm]
        widths.append(self.frame_w - sum(widths))
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(styles.grid(("ALIGN", (2, 1), (3, -1), "RIGHT")))
        story.append(table)
        story.append(Spacer(1, 2 * mm))
        story.append(
            Paragraph(
                esc(
                    _(
                        "Penalties are deducted from the penalised player's total only; they "
                        "never change a donne's scores or another player's comparison."
                    )
                ),
                styles.muted,
            )
        )
        return story
