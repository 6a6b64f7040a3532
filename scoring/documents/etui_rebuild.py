"""The étui put right (issue 34 §3): one donne's four hands and chien as dealt, sorted by
suit, on one A4 page, for the arbiter who rebuilds an étui by hand after a call ("jeu mal
replacé dans l'étui", "nombre incorrect de cartes"). The compass diagram of the hand records,
large, and each pocket's cards as a list with its count.

Rendered on request for the tournament's arbiters (`services.etui_sheet_pdf`), never stored
nor listed among the tournament's documents: it shows hands, and a call is about a donne
still being played (RULES.md §6.2). ``part`` is the donne's number."""

from __future__ import annotations

from django.utils.translation import gettext as _
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, Spacer, Table

from scoring.rules.cards import parse_hand
from tournaments.models import POSITIONS, Donne

from .base import Renderer, esc, hand_markup, position_label, rank_legend
from .hand_records import confidential_notice, donne_diagram


class EtuiRebuildRenderer(Renderer):
    kind = "etui_rebuild"

    def title(self) -> str:
        return _("Étui put right")

    def subtitle(self) -> str:
        return _("Donne %(number)s") % {"number": self.part}

    def page_notice(self) -> str:
        return confidential_notice(self.tournament)

    def donne(self) -> Donne | None:
        return (
            Donne.objects.select_related("etui_set")
            .filter(tournament=self.tournament, number=self.part)
            .first()
        )

    def story(self) -> list[Flowable]:
        styles = self.styles
        donne = self.donne()
        if donne is None:
            return [Paragraph(esc(_("No donnes have been generated yet.")), styles.body)]
        story: list[Flowable] = [
            Paragraph(
                esc(
                    _(
                        "The donne as dealt: put each hand back in its pocket of the étui, "
                        "cards sorted by suit, and the chien apart. Count the cards of each "
                        "pocket."
                    )
                )
                + " "
                + rank_legend(self.fonts),
                styles.muted,
            ),
            Spacer(1, 3 * mm),
            donne_diagram(self, donne, width=self.frame_w),
            Spacer(1, 5 * mm),
        ]
        rows: list[list[object]] = [
            [Paragraph(esc(h), styles.head_cell) for h in (_("Pocket"), _("Cards"), _("Count"))]
        ]
        parts = [(position_label(p), donne.hand(p)) for p in POSITIONS]
        parts.append((_("Chien"), donne.chien))
        for label, text in parts:
            rows.append(
                [
                    Paragraph(f"<b>{esc(label)}</b>", styles.body),
                    Paragraph(hand_markup(self.fonts, text), styles.body),
                    str(len(parse_hand(text))) if text else "0",
                ]
            )
        widths = [30 * mm, self.frame_w - 50 * mm, 20 * mm]
        table = Table(rows, colWidths=widths)
        table.setStyle(styles.grid(("VALIGN", (0, 0), (-1, -1), "TOP")))
        story.append(table)
        return story
