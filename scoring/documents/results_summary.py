"""Results summary: one page to post on the wall or send by e-mail — the podium with each
player's total, donnes played and average per donne, the tournament's facts (players, donnes,
method) and whether the ranking is final or provisional."""

from __future__ import annotations

from fractions import Fraction

from django.db.models import Count
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from tournaments.models import Donne, Result, Tournament

from .base import FitText, Renderer, esc, fmt_number, fmt_signed
from .data import ranking_up_to_date

PODIUM = 3


class ResultsSummaryRenderer(Renderer):
    kind = "results_summary"

    def title(self) -> str:
        return _("Results summary")

    def facts(self, players: int) -> list[str]:
        t = self.tournament
        donnes = Donne.objects.filter(tournament=t).count()
        played = (
            Result.objects.counted()
            .filter(tournament=t)
            .exclude(status=Result.Status.ANNULLED)
            .values("donne_id")
            .annotate(n=Count("id"))
            .count()
        )
        where = date_format(t.date, "DATE_FORMAT") + (f" · {t.venue}" if t.venue else "")
        return [
            where,
            ngettext(
                "%(players)s players · %(played)s of %(donnes)s donnes played",
                "%(players)s players · %(played)s of %(donnes)s donnes played",
                played,
            )
            % {"players": players, "played": played, "donnes": donnes},
        ]

    def story(self) -> list[Flowable]:
        styles = self.styles
        view = ranking_up_to_date(self.tournament)
        self.results_version = view.version or 0
        mp = view.is_matchpoints
        final = self.tournament.status in (
            Tournament.Status.FINISHED,
            Tournament.Status.PUBLISHED,
        )
        label = _("Final ranking") if final else _("Provisional ranking")
        story: list[Flowable] = [
            FitText(self.tournament.name, font=self.fonts.bold, size=15, space_after=3 * mm),
            *[Paragraph(esc(line), styles.body) for line in self.facts(len(view.rows))],
            Paragraph(esc(f"{_('Comparison method:')} {view.method_label}"), styles.muted),
            Spacer(1, 6 * mm),
            Paragraph(esc(f"{_('Podium')} — {label}"), styles.h2),
        ]
        podium = [line for line in view.rows if line.rank <= PODIUM]
        if not podium:
            story.append(Paragraph(esc(_("Nobody is ranked yet.")), styles.body))
            return story
        head = [
            _("Rank"),
            _("Player"),
            _("Club"),
            _("Total"),
            _("Donnes played"),
            _("Average per donne"),
        ]
        rows: list[list[object]] = [[Paragraph(esc(h), styles.head_cell) for h in head]]
        for line in podium:
            total = f"{fmt_number(line.total)} %" if mp else fmt_signed(line.total)
            if mp:
                average = f"{fmt_number(line.differential_total)} %"
            elif line.donnes_played:
                average = fmt_signed(Fraction(line.total) / line.donnes_played)
            else:
                average = "—"
            rows.append(
                [
                    Paragraph(f"<b>{line.rank}{'=' if line.tied else ''}</b>", styles.big_center),
                    FitText(line.player.full_name, font=self.fonts.bold, size=10),
                    FitText(line.player.club.name, font=self.fonts.regular, size=9),
                    total,
                    str(line.donnes_played),
                    average,
                ]
            )
        widths = [16 * mm, 58 * mm, 46 * mm, 22 * mm, 18 * mm]
        widths.append(self.frame_w - sum(widths))
        table = Table(rows, colWidths=widths, repeatRows=1)
        table.setStyle(
            styles.grid(
                ("ALIGN", (3, 1), (-1, -1), "RIGHT"),
                ("FONTSIZE", (3, 1), (-1, -1), 11),
                ("TOPPADDING", (0, 1), (-1, -1), 5),
                ("BOTTOMPADDING", (0, 1), (-1, -1), 5),
            )
        )
        story += [
            table,
            Spacer(1, 4 * mm),
            Paragraph(
                esc(
                    _(
                        "Average per donne: the total divided by the donnes played (under match "
                        "points, the mean percentage). The whole ranking is in the Ranking "
                        "document."
                    )
                ),
                styles.muted,
            ),
        ]
        return story
